#include "profiled_call.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/result_stream.hpp"

namespace cudalabs::detail {
namespace {

// cudaProfilerStart/Stop around the call, paired even when the call throws. Their status is
// not checked: outside a profiler (a judge, whose runners are the ones under ncu) they do nothing.
class ProfiledRegion {
 public:
  ProfiledRegion() { static_cast<void>(cudaProfilerStart()); }
  ~ProfiledRegion() { static_cast<void>(cudaProfilerStop()); }
  ProfiledRegion(const ProfiledRegion&) = delete;
  ProfiledRegion& operator=(const ProfiledRegion&) = delete;
};

}  // namespace

std::optional<ProfiledSide> profile_pass_side() {
  const char* value = std::getenv(kProfilePassVariable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string side = value;
  if (side == "student") return ProfiledSide::student;
  if (side == "reference") return ProfiledSide::reference;
  throw std::invalid_argument(std::string(kProfilePassVariable) + " is '" + side +
                              "'; expected student or reference (set by labgrade --profile)");
}

void make_profiled_call(const timing::Workload& work, std::uint64_t seed, ProfiledSide side) {
  if (side == ProfiledSide::reference && !work.solution) {
    throw std::invalid_argument("this case has no reference call to profile");
  }
  if (work.use_replica) work.use_replica(0);
  if (work.prepare) work.prepare(seed, nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  {
    const ProfiledRegion region;
    if (side == ProfiledSide::student) {
      static_cast<void>(work.student(nullptr));
    } else {
      work.solution(nullptr);
    }
    CUDALABS_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace cudalabs::detail
