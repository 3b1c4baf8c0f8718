#pragma once
// One stage of a pipeline (copies in, kernels, copies out over several streams), run alone over
// the whole input: what a graded case (cudalabs/performance_case.hpp) or a timing preview
// (cudalabs/performance_preview.hpp) with the threshold max_ratio_to_slowest_stage compares the
// pipeline with.
#include <string>

#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs {

// Trusted code (no checks): one stage over the whole input on the stream it is given, e.g. one
// cudaMemcpyAsync of everything ("copy in", "transform", "copy out").
struct PipelineStage {
  std::string name;
  timing::Launch launch;
};

}  // namespace cudalabs
