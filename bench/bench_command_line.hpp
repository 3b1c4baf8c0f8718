#pragma once
// The command line every benchmark takes, `NAME [--json FILE]`, and its exit statuses: what `run`
// returns (0: every target met, 1: one missed; finish() gives it), 2 for a usage error, an
// exception (printed) or a report that could not be written.
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace cudalabs::bench {

template <class Run>
int run_with_command_line(int argc, char** argv, const char* name, Run&& run) {
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  try {
    return run(json_path);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s: %s\n", name, error.what());
    return 2;
  }
}

// The end of a benchmark's run: writes `report` to `json_path` (nothing when it is empty) and
// returns 0 when every target was met, 1 when one was missed, 2 when the report could not be written.
inline int finish(const nlohmann::json& report, const std::string& json_path, bool targets_met) {
  if (!json_path.empty()) {
    std::ofstream file(json_path);
    file << report.dump(2) << "\n";
    if (!file) {
      std::fprintf(stderr, "could not write %s\n", json_path.c_str());
      return 2;
    }
  }
  return targets_met ? 0 : 1;
}

}  // namespace cudalabs::bench
