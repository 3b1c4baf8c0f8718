#include "model/exit_codes.hpp"

#include <fmt/format.h>

namespace labgrade {

std::string_view run_status_name(RunStatus status) {
  for (const ExitCodeEntry& entry : kExitCodeTable) {
    if (entry.code == static_cast<int>(status)) return entry.name;
  }
  return "unknown";
}

std::string exit_codes_help() {
  std::string help = "Exit codes:";
  for (const ExitCodeEntry& entry : kExitCodeTable) {
#ifdef CUDALABS_STUDENT_COMMANDS_ONLY
    const std::string_view meaning = entry.student_meaning;  // the release has no grade
#else
    const std::string_view meaning = entry.meaning;
#endif
    help += fmt::format("\n  {}  {}", entry.code, meaning);
  }
  return help;
}

}  // namespace labgrade
