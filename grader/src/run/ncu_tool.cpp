#include "run/ncu_tool.hpp"

#include <cstdlib>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/toolkit_programs.hpp"

namespace labgrade {
namespace fs = std::filesystem;

fs::path find_ncu(const std::string& nvcc, std::string& why_not) {
  if (const char* chosen = std::getenv("CUDALABS_NCU"); chosen != nullptr && *chosen != '\0') {
    std::error_code error;
    if (fs::is_regular_file(chosen, error) && ::access(chosen, X_OK) == 0) return chosen;
    why_not = fmt::format("CUDALABS_NCU names {}, which is not an executable file", chosen);
    return {};
  }
  // /usr/local/cuda/bin/ncu links into the toolkit's nsight-compute-<version>/; a toolkit without
  // that link still has the folder beside bin/ (globbing versions is left to PATH or CUDALABS_NCU).
  const fs::path found = find_toolkit_program(nvcc, "ncu", {"ncu", "../nsight-compute/ncu"});
  if (found.empty()) {
    why_not = fmt::format("Nsight Compute (ncu) was found neither next to {} nor on PATH; install it (the CUDA "
                          "toolkit's nsight-compute package) or set CUDALABS_NCU to it",
                          nvcc.empty() ? "nvcc" : nvcc);
  }
  return found;
}

std::vector<std::string> ncu_launcher(const fs::path& ncu, const std::vector<std::string>& metrics,
                                      const fs::path& log_file, bool whole_program) {
  std::vector<std::string> words{ncu.string(),
                                 "--csv",
                                 "--page",
                                 "raw",
                                 "--print-units",
                                 "base",
                                 // Exact symbols: ncu 2025.3's "demangled" names drop
                                 // namespaces (student::k printed as k), which tell the
                                 // side's kernels from the framework's; labgrade demangles.
                                 "--print-kernel-base",
                                 "mangled",
                                 "--target-processes",
                                 "application-only",
                                 "--metrics",
                                 fmt::format("{}", fmt::join(metrics, ",")),
                                 "--log-file",
                                 log_file.string()};
  if (whole_program) {
    words.insert(words.end() - 2, {"--profile-from-start", "off"});
  }
  return words;
}

}  // namespace labgrade
