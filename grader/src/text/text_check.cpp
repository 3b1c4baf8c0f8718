#include "text/text_check.hpp"

#include <fmt/format.h>

#include "text/utf8.hpp"

namespace labgrade {

std::string text_problem(const std::string& text) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0') return fmt::format("it holds a NUL byte at line {} (a binary file?)", line);
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    if (length == 0) return fmt::format("it holds bytes that are not UTF-8 at line {}", line);
    if (text[i] == '\n') ++line;
    i += length;
  }
  return "";
}

}  // namespace labgrade
