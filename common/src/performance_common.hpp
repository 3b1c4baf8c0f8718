#pragma once
// Internal to common: what the graded timed cases (performance_case.cpp) and the self-check's
// timing previews (performance_preview.cpp) share, defined once so that both measure and report
// the same way.
#include <cstdint>
#include <string>
#include <vector>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/harness_events.hpp"
#include "cudalabs/pipeline_stage.hpp"
#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs::detail {

// The course's `timing:` settings as the timing engine takes them.
timing::SamplingPolicy policy_from(const config::TimingSettings& settings);

// The current device's name as CUDA reports it (what max_ms thresholds are keyed by).
std::string device_name();

events::Summary summary_of(const timing::SampleSummary& summary);

// The slowest of a pipeline's stages and every stage's time alone, for the report.
struct SlowestStage {
  const PipelineStage* stage = nullptr;  // into the stages measured; null when there were none
  timing::SampleSummary ms;              // the slowest stage's time alone
  std::vector<events::StageTime> times;  // every stage's, in the order given
};

// Each stage measured alone (timing::measure_single, on the legacy default stream) on inputs
// `prepare` makes from seeds under `seed`: trusted code, so no checks.
SlowestStage measure_stages(const std::vector<PipelineStage>& stages, const timing::Prepare& prepare,
                            const timing::SamplingPolicy& policy, std::uint64_t seed);

}  // namespace cudalabs::detail
