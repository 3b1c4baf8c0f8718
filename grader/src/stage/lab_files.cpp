#include "stage/lab_files.hpp"

#include <algorithm>
#include <fstream>
#include <regex>
#include <system_error>
#include <vector>

namespace labgrade {
namespace fs = std::filesystem;
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The names in the #include "..." lines of `file` (angle-bracket includes are never the lab's).
std::vector<std::string> quoted_includes(const fs::path& file) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> names;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (std::regex_search(line, match, include_line)) names.push_back(match[1].str());
  }
  return names;
}

}  // namespace

std::set<std::string> lab_own_files(const fs::path& lab_dir) {
  std::set<std::string> own;
  std::vector<fs::path> to_read;
  std::error_code error;
  if (fs::is_regular_file(lab_dir / "README.md", error)) own.insert("README.md");
  for (fs::directory_iterator it(lab_dir, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && ends_with(name, "_test.cu")) {
      own.insert(name);
      to_read.push_back(it->path());
    }
  }
  const fs::path root = fs::weakly_canonical(lab_dir, error);
  while (!to_read.empty()) {
    const fs::path file = to_read.back();
    to_read.pop_back();
    for (const std::string& name : quoted_includes(file)) {
      const fs::path header = fs::weakly_canonical(file.parent_path() / name, error);
      if (error || !fs::is_regular_file(header, error)) continue;
      const fs::path relative = header.lexically_relative(root);
      if (relative.empty() || *relative.begin() == "..") continue;  // outside the lab: common/, ...
      if (own.insert(relative.generic_string()).second) to_read.push_back(header);
    }
  }
  return own;
}

void forget_lab_own_files(StagedSubmission& staged, const fs::path& lab_dir) {
  const std::set<std::string> own = lab_own_files(lab_dir);
  staged.ignored.erase(std::remove_if(staged.ignored.begin(), staged.ignored.end(),
                                      [&](const std::string& file) { return own.count(file) > 0; }),
                       staged.ignored.end());
}

}  // namespace labgrade
