// A judge that times nothing gets one CUDA hardware queue; its runners keep the default
// (cudalabs/result_stream.hpp, kJudgeCudaQueuesVariable).
#include <cstdlib>
#include <cstring>
#include <string>

#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "judge_state.hpp"

namespace cudalabs::remote {
namespace {

bool narrowed_here = false;

}  // namespace

std::string cuda_queues_to_set(const char* wanted, const char* operators_own, bool untimed_judge) {
  if (!untimed_judge || wanted == nullptr || operators_own != nullptr) return "";
  const std::size_t length = std::strlen(wanted);
  if (length == 0 || length > 2 || std::strspn(wanted, "0123456789") != length) return "";
  const int queues = std::atoi(wanted);
  return queues >= 1 && queues <= 32 ? std::string(wanted) : "";
}

void narrow_own_cuda_queues() noexcept {
  const std::string queues = cuda_queues_to_set(std::getenv(kJudgeCudaQueuesVariable), std::getenv(kCudaQueuesVariable),
                                                reference_in_judge());
  if (!queues.empty()) narrowed_here = ::setenv(kCudaQueuesVariable, queues.c_str(), 1) == 0;
}

bool own_cuda_queues_narrowed() noexcept { return narrowed_here; }

}  // namespace cudalabs::remote
