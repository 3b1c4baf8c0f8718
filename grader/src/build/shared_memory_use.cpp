#include "build/shared_memory_use.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "text/whole_file.hpp"

namespace labgrade {
namespace fs = std::filesystem;

namespace {

// PTX comments are C++'s: `//` to the end of the line and `/* ... */`. The file's own header and
// its `.file` paths are outside the code too, but a path cannot hold " .shared" as a token.
std::string without_comments(const std::string& ptx) {
  std::string code;
  code.reserve(ptx.size());
  for (std::size_t i = 0; i < ptx.size();) {
    if (ptx.compare(i, 2, "//") == 0) {
      i = ptx.find('\n', i);
      if (i == std::string::npos) break;
    } else if (ptx.compare(i, 2, "/*") == 0) {
      const std::size_t end = ptx.find("*/", i + 2);
      // Keep the line count, so a use names its line.
      for (std::size_t k = i; k < (end == std::string::npos ? ptx.size() : end); ++k) {
        if (ptx[k] == '\n') code += '\n';
      }
      if (end == std::string::npos) break;
      i = end + 2;
    } else if (ptx[i] == '"') {  // a string (a .file path): not code
      const std::size_t end = ptx.find('"', i + 1);
      if (end == std::string::npos) break;
      i = end + 1;
    } else {
      code += ptx[i++];
    }
  }
  return code;
}

}  // namespace

std::optional<std::string> first_shared_memory_use(const std::string& ptx) {
  // The state space as a token of its own: `.shared`, `.shared::cta`, `.shared::cluster`, in a
  // declaration or inside an instruction's name (ld.shared.f32, cvta.to.shared.u64).
  const auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  const std::string code = without_comments(ptx);
  const std::string space = ".shared";
  for (std::size_t at = code.find(space); at != std::string::npos; at = code.find(space, at + 1)) {
    const std::size_t after = at + space.size();
    if (after < code.size() && identifier(code[after])) continue;  // .shared_foo: another name
    // PTX names hold no '.', so whatever stands before it is an instruction's name or a directive.
    std::size_t begin = at;
    while (begin > 0 && !std::isspace(static_cast<unsigned char>(code[begin - 1]))) --begin;
    std::size_t end = code.find_first_of(" \t\r\n;,", at);
    if (end == std::string::npos) end = code.size();
    const int line = 1 + static_cast<int>(std::count(code.begin(), code.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
    return fmt::format("{} (line {})", code.substr(begin, end - begin), line);
  }
  return std::nullopt;
}

std::optional<std::string> device_code_loader(const std::vector<std::string>& called) {
  static const char* const kPrefixes[] = {"cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad", "cuLink",
                                          "nvrtc",        "nvJitLink",     "nvPTXCompiler",   "cuGetProcAddress",
                                          "cudaGetDriverEntryPoint",       "dlsym",           "dlvsym"};
  for (const std::string& symbol : called) {
    for (const char* prefix : kPrefixes) {
      if (symbol.rfind(prefix, 0) == 0) return symbol;
    }
  }
  return std::nullopt;
}

SharedMemoryUse read_shared_memory_use(const std::vector<fs::path>& sources, const std::vector<fs::path>& device_code_dirs) {
  SharedMemoryUse use;
  if (sources.size() != device_code_dirs.size()) {
    use.evidence = "the compile kept no device code to read";
    return use;
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].extension() != ".cu") continue;  // host code only
    const std::string name = sources[i].filename().string();
    std::vector<fs::path> ptx_files;
    std::error_code error;
    for (fs::directory_iterator entry(device_code_dirs[i], error), end; !error && entry != end; entry.increment(error)) {
      if (entry->path().extension() == ".ptx") ptx_files.push_back(entry->path());
    }
    if (error || ptx_files.empty()) {
      use.evidence = fmt::format("{}: the compile left no PTX to read", name);
      return use;
    }
    for (const fs::path& ptx : ptx_files) {
      if (std::optional<std::string> found = first_shared_memory_use(read_whole_file(ptx))) {
        use.known = true;
        use.evidence = fmt::format("{}: {}", name, *found);
        return use;
      }
    }
  }
  use.known = true;
  use.possible = false;
  return use;
}

}  // namespace labgrade
