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
  for (const ExitCodeEntry& entry : kExitCodeTable) help += fmt::format("\n  {}  {}", entry.code, entry.meaning);
  return help;
}

}  // namespace labgrade
