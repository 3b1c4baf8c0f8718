#include "performance_common.hpp"

#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"

namespace cudalabs::detail {

timing::SamplingPolicy policy_from(const config::TimingSettings& settings) {
  timing::SamplingPolicy policy;
  policy.warmup = settings.warmup;
  policy.min_samples = settings.min_samples;
  policy.max_samples = settings.max_samples;
  policy.target_relative_ci = settings.target_relative_ci;
  policy.confidence = settings.confidence;
  policy.time_budget_seconds = settings.time_budget_seconds;
  return policy;
}

std::string device_name() {
  int device = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

events::Summary summary_of(const timing::SampleSummary& summary) {
  return {summary.median, summary.ci.low, summary.ci.high, summary.samples};
}

SlowestStage measure_stages(const std::vector<PipelineStage>& stages, const timing::Prepare& prepare,
                            const timing::SamplingPolicy& policy, std::uint64_t seed) {
  // Only the slowest stage's time is a baseline; the others are reported. So each stage is looked
  // at first with the policy's fewest samples, and only the stages that could still be the
  // slowest (their interval reaches the highest lower bound) are measured to the full policy, when
  // that first look missed its precision target. H100, lab 09: "both copies at once", 15% below
  // the transform, took 25-250 samples to reach its target, 0.2-1.5 s of a 6-8 s grade.
  timing::SamplingPolicy first_look = policy;
  first_look.max_samples = policy.min_samples;
  std::vector<timing::SampleSummary> alone;
  alone.reserve(stages.size());
  for (const PipelineStage& stage : stages) {
    alone.push_back(timing::measure_single(stage.launch, prepare, first_look, nullptr, seed));
  }
  const std::vector<bool> further = timing::worth_measuring_further(alone, policy.target_relative_ci);
  SlowestStage slowest;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (further[i]) alone[i] = timing::measure_single(stages[i].launch, prepare, policy, nullptr, seed);
    slowest.times.push_back({stages[i].name, summary_of(alone[i])});
    if (!slowest.stage || alone[i].median > slowest.ms.median) {
      slowest.stage = &stages[i];
      slowest.ms = alone[i];
    }
  }
  return slowest;
}

}  // namespace cudalabs::detail
