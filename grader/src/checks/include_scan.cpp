// scan_includes: the source half of the forbid checks (symbol_scan.hpp is the compiled half).
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "checks/include_scan.hpp"

namespace labgrade {
namespace {

using cudalabs::config::ForbidRule;
using cudalabs::config::glob_match;

// The text with comments replaced by spaces (newlines kept, so line numbers stay right).
// String and character literals are kept and skipped over, so "/*" inside one is not a comment.
std::string without_comments(const std::string& text) {
  enum class State { Code, LineComment, BlockComment, String, Char } state = State::Code;
  std::string out = text;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case State::Code:
        if (c == '/' && next == '/') {
          state = State::LineComment;
          out[i] = ' ';
        } else if (c == '/' && next == '*') {
          state = State::BlockComment;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c == '"') {
          state = State::String;
        } else if (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
          state = State::Char;  // not a digit separator as in 1'000
        }
        break;
      case State::LineComment:
        if (c == '\n') {
          state = State::Code;
        } else if (!(c == '\\' && next == '\n')) {  // a continued // comment goes on
          out[i] = ' ';
        }
        break;
      case State::BlockComment:
        if (c == '*' && next == '/') {
          state = State::Code;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case State::String:
      case State::Char:
        if (c == '\\') {
          ++i;
        } else if (c == (state == State::String ? '"' : '\'') || c == '\n') {
          state = State::Code;
        }
        break;
    }
  }
  return out;
}

std::string trim_left(const std::string& text, std::size_t from = 0) {
  const std::size_t start = text.find_first_not_of(" \t", from);
  return start == std::string::npos ? "" : text.substr(start);
}

// The directive's argument when `line` is #include, #include_next or #import; nullopt otherwise.
std::optional<std::string> include_argument(const std::string& line) {
  std::string rest = trim_left(line);
  if (rest.empty() || rest[0] != '#') return std::nullopt;
  rest = trim_left(rest, 1);
  for (const char* directive : {"include_next", "include", "import"}) {
    const std::string word = directive;
    if (rest.compare(0, word.size(), word) != 0) continue;
    const char after = rest.size() > word.size() ? rest[word.size()] : '\0';
    if (std::isalnum(static_cast<unsigned char>(after)) || after == '_') continue;
    return trim_left(rest, word.size());
  }
  return std::nullopt;
}

// The header name, and every part of it after a '/' (so /usr/include/fstream matches "fstream").
std::vector<std::string> names_to_match(std::string name) {
  while (name.rfind("./", 0) == 0) name.erase(0, 2);
  std::vector<std::string> names{name};
  for (std::size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
    if (slash + 1 < name.size()) names.push_back(name.substr(slash + 1));
  }
  return names;
}

const ForbidRule* first_match(const std::vector<ForbidRule>& rules, const std::string& header) {
  for (const std::string& name : names_to_match(header)) {
    for (const ForbidRule& rule : rules) {
      if (glob_match(rule.pattern, name)) return &rule;
    }
  }
  return nullptr;
}

void scan_file(const std::string& text, const std::string& shown_as, const std::vector<ForbidRule>& rules,
               std::vector<RuleViolation>& violations) {
  std::vector<std::string> lines;
  std::istringstream stream(without_comments(text));
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t first = i;
    std::string logical = lines[i];
    while (!logical.empty() && logical.back() == '\\' && i + 1 < lines.size()) {
      logical.pop_back();
      logical += lines[++i];
    }
    const std::optional<std::string> argument = include_argument(logical);
    if (!argument) continue;
    const std::string where = fmt::format("{}:{}", shown_as, first + 1);
    const char open = argument->empty() ? '\0' : (*argument)[0];
    const std::size_t close = open == '<' ? argument->find('>', 1) : open == '"' ? argument->find('"', 1)
                                                                                  : std::string::npos;
    if (close == std::string::npos) {
      // Not a YAML rule (no file): a macro could name any header, so the check needs the name.
      const ForbidRule computed{"#include MACRO", "write the header's name in an #include, so it can be checked",
                                "", 0, ""};
      violations.push_back(RuleViolation{computed, "#include " + *argument, where});
      continue;
    }
    const std::string header = argument->substr(1, close - 1);
    if (const ForbidRule* rule = first_match(rules, header)) {
      violations.push_back(RuleViolation{*rule, "#include " + argument->substr(0, close + 1), where});
    }
  }
}

}  // namespace

std::vector<RuleViolation> scan_includes(const std::vector<std::filesystem::path>& files,
                                         const std::vector<std::string>& shown_as,
                                         const std::vector<ForbidRule>& rules) {
  std::vector<RuleViolation> violations;
  if (rules.empty()) return violations;
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::ifstream in(files[i], std::ios::binary);
    if (!in) throw std::runtime_error("cannot read the staged file " + files[i].string());
    std::ostringstream text;
    text << in.rdbuf();
    scan_file(text.str(), i < shown_as.size() ? shown_as[i] : files[i].filename().string(), rules, violations);
  }
  return violations;
}

}  // namespace labgrade
