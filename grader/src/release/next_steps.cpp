#include "release/next_steps.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace labgrade {
namespace {

constexpr std::string_view kTodoMarker = " is still a TODO(student)";

// "... vector_add(n = 1000) is still a TODO(student) ..." -> "vector_add"
std::string function_before(const std::string& message, std::size_t marker) {
  std::size_t end = marker;
  if (end > 0 && message[end - 1] == ')') {
    const std::size_t open = message.rfind('(', end);
    if (open != std::string::npos) end = open;
  }
  std::size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(message[begin - 1])) || message[begin - 1] == '_' ||
                       message[begin - 1] == ':')) {
    --begin;
  }
  return message.substr(begin, end - begin);
}

// The first line of the handout's "## Steps" section that names `function` in backticks.
std::string handout_step(const std::filesystem::path& handout, const std::string& function) {
  std::ifstream in(handout);
  std::string line;
  bool in_steps = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      in_steps = line == "## Steps";
      continue;
    }
    if (in_steps && line.find("`" + function) != std::string::npos) return line;
  }
  return "";
}

}  // namespace

std::vector<std::string> unfinished_todos(const GradeResult& result) {
  std::vector<std::string> functions;
  for (const ScoredTest& test : result.tests) {
    if (test.outcome.status == TestStatus::Passed) continue;
    const std::string& message = test.outcome.message;
    for (std::size_t at = message.find(kTodoMarker); at != std::string::npos;
         at = message.find(kTodoMarker, at + kTodoMarker.size())) {
      const std::string function = function_before(message, at);
      if (!function.empty() && std::find(functions.begin(), functions.end(), function) == functions.end()) {
        functions.push_back(function);
      }
    }
  }
  return functions;
}

// "Still TODO(student): a, b" and the handout's step for the first, or "" for none.
std::string todo_lines(const std::vector<std::string>& todos, const std::string& readme,
                       const std::filesystem::path& handout) {
  if (todos.empty()) return "";
  std::string text = fmt::format("\nStill TODO(student): {}\n", fmt::join(todos, ", "));
  const std::string step = handout_step(handout, todos.front());
  if (step.empty()) return text + fmt::format("Next: {} ('Steps') says how to start on {}.\n", readme, todos.front());
  std::string trimmed = step.substr(step.find_first_not_of(' '));
  return text + fmt::format("Next, from {} ('Steps'):\n  {}\n", readme, trimmed);
}

std::string next_steps(const GradeResult& result, const std::filesystem::path& handout,
                       const std::vector<std::string>& marked) {
  const std::string readme = fmt::format("labs/{}/README.md", result.lab);
  switch (result.status) {
    case RunStatus::Graded:
      return fmt::format("\nNext: every public test passes. `labgrade submit {}` packs your files for "
                         "handing in; the grade adds hidden tests (see {}).\n", result.lab, readme);
    case RunStatus::NoCudaDevice:
      return "\nNext: your code compiles; run this again on a machine with a CUDA GPU to run the tests.\n" +
             todo_lines(marked, readme, handout);
    case RunStatus::BuildFailed:
      return "\nNext: fix the compiler's first error above, then run the self-check again.\n";
    case RunStatus::TestsFailed:
      break;
    default:
      return "";
  }
  // What the tests found unimplemented first, then what the source still marks.
  std::vector<std::string> todos = unfinished_todos(result);
  for (const std::string& function : marked) {
    if (std::find(todos.begin(), todos.end(), function) == todos.end()) todos.push_back(function);
  }
  if (todos.empty()) {
    return fmt::format("\nNext: fix the failures above; {} ('Hints') says what the tests look for.\n", readme);
  }
  return todo_lines(todos, readme, handout);
}

}  // namespace labgrade
