#include "performance_common.hpp"

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
  SlowestStage slowest;
  for (const PipelineStage& stage : stages) {
    const timing::SampleSummary alone = timing::measure_single(stage.launch, prepare, policy, nullptr, seed);
    slowest.times.push_back({stage.name, summary_of(alone)});
    if (!slowest.stage || alone.median > slowest.ms.median) {
      slowest.stage = &stage;
      slowest.ms = alone;
    }
  }
  return slowest;
}

}  // namespace cudalabs::detail
