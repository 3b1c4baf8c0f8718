#pragma once
// Splitting a program's output into lines, the way labgrade reads compiler, harness and
// sanitizer output.
#include <string>
#include <string_view>
#include <vector>

namespace labgrade {

// The lines of `text`, without their '\n' (and a '\r' before it); no empty last line for a
// trailing newline.
inline std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(begin, end - begin));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    begin = end + 1;
  }
  return lines;
}

}  // namespace labgrade
