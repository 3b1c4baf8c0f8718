#pragma once
// The command line every benchmark takes, `NAME [--json FILE]`, and its exit statuses: what `run`
// returns (0: every target met, 1: one missed), 2 for a usage error or an exception (printed).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

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

}  // namespace cudalabs::bench
