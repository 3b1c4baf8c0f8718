// What a runner starts with (judge_state.hpp): the tool it starts through (labgrade --sanitize
// puts compute-sanitizer before the student's runner, --profile puts Nsight Compute before the
// student's or the reference's), read from the environment labgrade gives the judge; and its
// environment, that one less what is the judge's alone (runner_environment, judge.hpp).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "judge_state.hpp"

namespace cudalabs::remote {
namespace {

// The tool's command line, words separated by the ASCII unit separator (0x1F), which no path or
// option contains; empty when the variable is unset or empty.
std::vector<std::string> launcher_words(const char* variable) {
  std::vector<std::string> words;
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return words;
  std::string word;
  for (const char* c = value;; ++c) {
    if (*c == '\x1f' || *c == '\0') {
      if (!word.empty()) words.push_back(word);
      word.clear();
      if (*c == '\0') break;
    } else {
      word += *c;
    }
  }
  return words;
}

bool names(const char* entry, const char* variable) {
  const std::size_t length = std::strlen(variable);
  return std::strncmp(entry, variable, length) == 0 && entry[length] == '=';
}

}  // namespace

std::vector<std::string> student_runner_launcher() { return launcher_words(kStudentRunnerLauncherVariable); }

std::vector<std::string> runner_launcher(Side side) {
  return side == Side::student ? student_runner_launcher() : launcher_words(kReferenceRunnerLauncherVariable);
}

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
