// Which tool a runner starts through (judge_state.hpp): labgrade --sanitize puts compute-sanitizer
// before the student's runner, --profile puts Nsight Compute before the student's or the
// reference's. Read from the environment labgrade gives the judge.
#include <cstdlib>
#include <string>
#include <vector>

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

}  // namespace

std::vector<std::string> student_runner_launcher() { return launcher_words(kStudentRunnerLauncherVariable); }

std::vector<std::string> runner_launcher(Side side) {
  return side == Side::student ? student_runner_launcher() : launcher_words(kReferenceRunnerLauncherVariable);
}

}  // namespace cudalabs::remote
