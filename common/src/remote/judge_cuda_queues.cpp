// A judge that times nothing gets one CUDA hardware queue; its runners keep the default
// (cudalabs/result_stream.hpp, kJudgeCudaQueuesVariable).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "judge_state.hpp"

namespace cudalabs::remote {
namespace {

bool narrowed_here = false;

bool names(const char* entry, const char* variable) {
  const std::size_t length = std::strlen(variable);
  return std::strncmp(entry, variable, length) == 0 && entry[length] == '=';
}

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

std::vector<std::string> runner_environment(char** environment, bool queues_narrowed_here, bool confine) {
  std::vector<std::string> variables;
  for (char** v = environment; v != nullptr && *v != nullptr; ++v) {
    if (names(*v, kConfineVariable) || names(*v, kStudentRunnerLauncherVariable)) continue;
    // How labgrade set up this judge is no runner's business: a runner that could read that it
    // serves an untimed run could tell a batch's first part from its timed second.
    if (names(*v, kReferenceInJudgeVariable) || names(*v, kJudgeCudaQueuesVariable)) continue;
    if (queues_narrowed_here && names(*v, kCudaQueuesVariable)) continue;
    variables.emplace_back(*v);
  }
  if (confine) variables.push_back(std::string(kConfineVariable) + "=1");
  return variables;
}

}  // namespace cudalabs::remote
