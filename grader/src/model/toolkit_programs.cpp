#include "model/toolkit_programs.hpp"

#include <cstdlib>
#include <unistd.h>

namespace labgrade {
namespace fs = std::filesystem;

fs::path find_toolkit_program(const std::string& nvcc, const std::string& name,
                              const std::vector<std::string>& beside_nvcc) {
  std::vector<fs::path> candidates;
  if (!nvcc.empty()) {
    std::vector<fs::path> bins{fs::path(nvcc).parent_path()};
    std::error_code error;
    const fs::path real = fs::canonical(nvcc, error);
    if (!error && real.parent_path() != bins.front()) bins.push_back(real.parent_path());
    for (const fs::path& bin : bins) {
      for (const std::string& relative : beside_nvcc) candidates.push_back((bin / relative).lexically_normal());
    }
  }
  if (const char* path = std::getenv("PATH")) {
    const std::string dirs = path;
    std::size_t begin = 0;
    while (begin <= dirs.size()) {
      std::size_t end = dirs.find(':', begin);
      if (end == std::string::npos) end = dirs.size();
      if (end > begin) candidates.push_back(fs::path(dirs.substr(begin, end - begin)) / name);
      begin = end + 1;
    }
  }
  for (const fs::path& candidate : candidates) {
    std::error_code error;
    if (fs::is_regular_file(candidate, error) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace labgrade
