#include "release/todo_scan.hpp"

#include <algorithm>
#include <cctype>

#include "text/file_text.hpp"

namespace labgrade {
namespace {

constexpr std::string_view kMarker = "TODO(student)";

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// What opens with a '{' given the code since the last ';', '{' or '}': a function's name, or ""
// for a namespace, a class or a statement block.
std::string function_opened_by(const std::string& head) {
  std::string text = head;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  // Qualifiers after the parameter list: const, noexcept, override, a trailing return type.
  for (bool trimmed = true; trimmed;) {
    trimmed = false;
    for (std::string_view word : {"const", "noexcept", "override", "final"}) {
      if (text.size() >= word.size() && text.compare(text.size() - word.size(), word.size(), word) == 0) {
        text.erase(text.size() - word.size());
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        trimmed = true;
      }
    }
  }
  if (text.empty() || text.back() != ')') return "";
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == ')') ++depth;
    if (text[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return "";
  std::size_t end = open;
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  std::size_t begin = end;
  while (begin > 0 && is_name_char(text[begin - 1])) --begin;
  const std::string name = text.substr(begin, end - begin);
  // Control statements look like calls: `if (...) {`.
  for (std::string_view keyword : {"if", "for", "while", "switch", "catch", "return", "sizeof"}) {
    if (name == keyword) return "";
  }
  return name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ? "" : name;
}

}  // namespace

std::vector<std::string> functions_marked_todo(std::string_view source) {
  std::vector<std::string> functions;
  // One entry per open brace: the function it opened ("" for any other block).
  std::vector<std::string> blocks;
  std::string head;  // code since the last ';', '{' or '}', comments left out
  // A marker outside any function, in the comment above the next definition (lab 09's style):
  // it is that function's, unless a declaration or a block end comes first.
  bool marker_above = false;
  const auto current_function = [&]() -> std::string {
    for (const std::string& block : blocks) {
      if (!block.empty()) return block;
    }
    return "";
  };
  const auto note_marker = [&](std::string_view comment) {
    if (comment.find(kMarker) == std::string_view::npos) return;
    const std::string function = current_function();
    if (function.empty()) {
      marker_above = true;
    } else if (std::find(functions.begin(), functions.end(), function) == functions.end()) {
      functions.push_back(function);
    }
  };
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '/' && i + 1 < source.size() && source[i + 1] == '/') {
      const std::size_t end = std::min(source.find('\n', i), source.size());
      note_marker(source.substr(i, end - i));
      i = end;
      head += ' ';
    } else if (c == '/' && i + 1 < source.size() && source[i + 1] == '*') {
      const std::size_t end = std::min(source.find("*/", i + 2), source.size());
      note_marker(source.substr(i, end - i));
      i = end == source.size() ? end : end + 1;
      head += ' ';
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < source.size() && source[j] != c) j += source[j] == '\\' ? 2 : 1;
      i = std::min(j, source.size());
      head += ' ';
    } else if (c == '#' && (head.find_first_not_of(" \t\r\n") == std::string::npos)) {
      // A preprocessor line, continued by backslashes.
      std::size_t end = i;
      do {
        end = source.find('\n', end + 1);
      } while (end != std::string_view::npos && end > 0 && source[end - 1] == '\\');
      i = end == std::string_view::npos ? source.size() : end;
    } else if (c == '{') {
      blocks.push_back(current_function().empty() ? function_opened_by(head) : "");
      const std::string& opened = blocks.back();
      if (marker_above && !opened.empty() && std::find(functions.begin(), functions.end(), opened) == functions.end()) {
        functions.push_back(opened);
      }
      if (!opened.empty()) marker_above = false;
      head.clear();
    } else if (c == '}') {
      if (!blocks.empty()) blocks.pop_back();
      marker_above = false;
      head.clear();
    } else if (c == ';') {
      marker_above = false;
      head.clear();
    } else {
      head += c;
    }
  }
  return functions;
}

std::vector<std::string> functions_marked_todo_in(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> functions;
  for (const std::filesystem::path& file : files) {
    if (!std::filesystem::is_regular_file(file)) continue;
    for (std::string& function : functions_marked_todo(read_file_text(file))) {
      if (std::find(functions.begin(), functions.end(), function) == functions.end()) functions.push_back(std::move(function));
    }
  }
  return functions;
}

}  // namespace labgrade
