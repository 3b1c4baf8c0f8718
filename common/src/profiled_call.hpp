#pragma once
// Internal to common: what a timed case (performance_case.cpp) or a timing preview
// (performance_preview.cpp) does in labgrade's profile pass (CUDALABS_PROFILE_PASS, see
// cudalabs/result_stream.hpp): one untimed call of the side Nsight Compute is watching, on inputs
// of the timed size, and nothing else. The normal run has already checked and timed the case; the
// pass only wants the call's kernels under the profiler.
#include <cstdint>
#include <optional>

#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs::detail {

enum class ProfiledSide { student, reference };

// The side this process's profile pass measures; nullopt outside a profile pass. A value other
// than "student" or "reference" is a labgrade bug: it fails the test rather than time it.
std::optional<ProfiledSide> profile_pass_side();

// prepare(seed), then one call of `side` on the legacy stream, every queued kernel finished
// before and after (so the profiler sees the call's kernels alone, and a call that leaves work on
// side streams is finished too). In a self-check the call sits between cudaProfilerStart and
// cudaProfilerStop: ncu runs there with --profile-from-start off and measures it alone, not the
// harness's input generators. The student's status is ignored: the normal run reported it.
// Throws CudaError when CUDA fails outside the call; the reference side needs work.solution.
void make_profiled_call(const timing::Workload& work, std::uint64_t seed, ProfiledSide side);

}  // namespace cudalabs::detail
