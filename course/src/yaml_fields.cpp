#include "yaml_fields.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "spelling.hpp"

namespace cudalabs::config::detail {

namespace fs = std::filesystem;

// ---- diagnostics -------------------------------------------------------------------------

FileDiagnostics::FileDiagnostics(std::string file) : file_(std::move(file)) {}

void FileDiagnostics::add(const YAML::Mark& where, std::string field, std::string message) {
  const bool known = !where.is_null() && where.line >= 0;
  diagnostics_.push_back(Diagnostic{file_, known ? where.line + 1 : 0, known ? where.column + 1 : 0,
                                    std::move(field), std::move(message)});
}

void FileDiagnostics::throw_if_any() const {
  if (diagnostics_.empty()) return;
  std::vector<Diagnostic> in_file_order = diagnostics_;
  std::stable_sort(in_file_order.begin(), in_file_order.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  throw ConfigError(std::move(in_file_order));
}

std::string field_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return fmt::format("{}.{}", parent, key);
}

std::string item_path(std::string_view list, std::size_t index) { return fmt::format("{}[{}]", list, index); }

namespace {

// Where a flow collection ('{' or '[') opened before `error_line` (1-based) is still open, as
// "line N opens a '{' that is never closed": yaml-cpp reports such a bracket only where the text
// stops making sense, often lines later ("illegal block entry"). Quoted text and comments are
// skipped. Empty when every bracket before the error is closed.
std::string unclosed_flow_hint(const std::string& text, int error_line) {
  std::vector<std::pair<char, int>> open;
  int line = 1;
  char quote = 0;
  for (std::size_t i = 0; i < text.size() && line <= error_line; ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      quote = 0;  // a flow scalar's quotes do not span lines in what labs write
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;  // a comment
    } else if (c == '{' || c == '[') {
      open.emplace_back(c, line);
    } else if ((c == '}' || c == ']') && !open.empty()) {
      open.pop_back();
    }
  }
  if (open.empty() || open.back().second >= error_line) return "";
  const auto [bracket, opened] = open.back();
  return fmt::format(" (line {} opens a '{}' that is never closed; close it with '{}' on that line)", opened, bracket,
                     bracket == '{' ? '}' : ']');
}

}  // namespace

std::optional<YAML::Node> load_yaml_file(const fs::path& file, FileDiagnostics& diagnostics) {
  const YAML::Mark nowhere = YAML::Mark::null_mark();
  std::error_code error;
  if (!fs::exists(file, error)) {
    diagnostics.add(nowhere, "", "file not found");
    return std::nullopt;
  }
  if (fs::is_directory(file, error)) {
    diagnostics.add(nowhere, "", "is a directory, expected a YAML file");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    diagnostics.add(nowhere, "", "cannot open the file for reading");
    return std::nullopt;
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    const std::string hint = e.mark.is_null() ? "" : unclosed_flow_hint(text, e.mark.line + 1);
    diagnostics.add(e.mark, "", "YAML syntax error: " + e.msg + hint);
  } catch (const YAML::Exception& e) {
    diagnostics.add(e.mark, "", "cannot read the YAML: " + e.msg);
  }
  return std::nullopt;
}

// ---- describing and parsing values -------------------------------------------------------

namespace {

// yaml-cpp tags quoted and block scalars "!" and plain ones "?": "10" in quotes is a string.
bool is_plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() != "!"; }

std::string quote(std::string_view text) {
  constexpr std::size_t longest = 60;
  if (text.size() > longest) return fmt::format("'{}...'", text.substr(0, longest));
  return fmt::format("'{}'", text);
}

// What a node holds, for the "got ..." half of a message.
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return node.size() == 0 ? "an empty list" : "a list";
    case YAML::NodeType::Map:
      return node.size() == 0 ? "an empty map" : "a map";
    case YAML::NodeType::Scalar:
      return is_plain_scalar(node) ? quote(node.Scalar()) : "the quoted string " + quote(node.Scalar());
    default:
      return "nothing";
  }
}

std::string expected_number(NumberRange range) {
  switch (range) {
    case NumberRange::NonNegative:
      return "a non-negative number";
    case NumberRange::Positive:
      return "a positive number";
    default:
      return "a number";
  }
}

// The words "a, b or c", for lists of choices.
std::string one_of(const std::vector<std::string>& choices) {
  std::string text;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) text += (i + 1 == choices.size()) ? " or " : ", ";
    text += choices[i];
  }
  return text;
}

// YAML 1.2 core-schema decimal numbers; booleans, words and hex are not numbers here.
bool looks_like_number(const std::string& text) {
  static const std::regex decimal(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  return std::regex_match(text, decimal);
}

bool looks_like_infinity_or_nan(const std::string& text) {
  static const std::regex special(R"([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))");
  return std::regex_match(text, special);
}

std::optional<double> read_number(const Located& value, NumberRange range, FileDiagnostics& diagnostics) {
  const std::string expected = expected_number(range);
  const YAML::Node& node = value.node;
  if (is_plain_scalar(node) && looks_like_infinity_or_nan(node.Scalar())) {
    diagnostics.add(value.mark, value.field,
                    fmt::format("expected {}, got {} (numbers must be finite)", expected, describe(node)));
    return std::nullopt;
  }
  if (!is_plain_scalar(node) || !looks_like_number(node.Scalar())) {
    diagnostics.add(value.mark, value.field, fmt::format("expected {}, got {}", expected, describe(node)));
    return std::nullopt;
  }
  errno = 0;
  const double number = std::strtod(node.Scalar().c_str(), nullptr);
  if (errno == ERANGE || !std::isfinite(number)) {
    diagnostics.add(value.mark, value.field,
                    fmt::format("expected {}, got {} (too large)", expected, describe(node)));
    return std::nullopt;
  }
  const bool in_range = range == NumberRange::Any || (range == NumberRange::NonNegative && number >= 0) ||
                        (range == NumberRange::Positive && number > 0);
  if (!in_range) {
    diagnostics.add(value.mark, value.field, fmt::format("expected {}, got {}", expected, describe(node)));
    return std::nullopt;
  }
  return number;
}

std::optional<std::uint64_t> read_positive_integer(const Located& value, FileDiagnostics& diagnostics) {
  static const std::regex digits(R"(\+?[0-9]+)");
  const YAML::Node& node = value.node;
  if (is_plain_scalar(node) && std::regex_match(node.Scalar(), digits)) {
    errno = 0;
    const std::uint64_t number = std::strtoull(node.Scalar().c_str(), nullptr, 10);
    if (errno == ERANGE) {
      diagnostics.add(value.mark, value.field,
                      fmt::format("expected a positive integer, got {} (too large)", describe(node)));
      return std::nullopt;
    }
    if (number > 0) return number;
  }
  diagnostics.add(value.mark, value.field, fmt::format("expected a positive integer, got {}", describe(node)));
  return std::nullopt;
}

std::optional<std::string> read_string(const Located& value, FileDiagnostics& diagnostics) {
  const YAML::Node& node = value.node;
  const bool blank = node.IsScalar() && node.Scalar().find_first_not_of(" \t") == std::string::npos;
  if (!node.IsScalar() || blank) {
    diagnostics.add(value.mark, value.field, fmt::format("expected a non-empty string, got {}", describe(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

// An empty value is marked by yaml-cpp at the following token, so point at its key instead.
YAML::Mark value_mark(const YAML::Node& key, const YAML::Node& value) {
  return value.IsNull() ? key.Mark() : value.Mark();
}

bool is_name_key(const YAML::Node& key) { return key.IsScalar(); }

}  // namespace

// ---- MapReader ---------------------------------------------------------------------------

MapReader::MapReader(Located map, FileDiagnostics& diagnostics)
    : map_(std::move(map)), diagnostics_(&diagnostics) {}

std::optional<MapReader> MapReader::open(const Located& value, FileDiagnostics& diagnostics,
                                         std::string_view what) {
  if (!value.node.IsMap()) {
    diagnostics.add(value.mark, value.field, fmt::format("expected {}, got {}", what, describe(value.node)));
    return std::nullopt;
  }
  return MapReader(value, diagnostics);
}

void MapReader::check_duplicate_keys() const {
  std::map<std::string, int> first_line;
  for (const auto& entry : map_.node) {
    const YAML::Node& key = entry.first;
    if (!is_name_key(key)) {
      diagnostics_->add(key.Mark(), map_.field, fmt::format("expected a plain name as key, got {}", describe(key)));
      continue;
    }
    const auto [previous, inserted] = first_line.emplace(key.Scalar(), key.Mark().line + 1);
    if (!inserted) {
      diagnostics_->add(key.Mark(), field_path(map_.field, key.Scalar()),
                        fmt::format("key '{}' is given twice (first on line {})", key.Scalar(), previous->second));
    }
  }
}

void MapReader::check_keys(const std::vector<std::string>& allowed) const {
  check_duplicate_keys();
  for (const auto& entry : map_.node) {
    const YAML::Node& key = entry.first;
    if (!is_name_key(key) || std::find(allowed.begin(), allowed.end(), key.Scalar()) != allowed.end()) continue;
    diagnostics_->add(key.Mark(), field_path(map_.field, key.Scalar()),
                      fmt::format("unknown key {}{}; expected one of: {}", quote(key.Scalar()),
                                  did_you_mean(key.Scalar(), allowed), fmt::join(allowed, ", ")));
  }
}

std::optional<Located> MapReader::find(std::string_view key) const {
  for (const auto& entry : map_.node) {
    if (is_name_key(entry.first) && entry.first.Scalar() == key) {
      return Located{entry.second, field_path(map_.field, key), value_mark(entry.first, entry.second)};
    }
  }
  return std::nullopt;
}

std::optional<YAML::Mark> MapReader::key_mark(std::string_view key) const {
  for (const auto& entry : map_.node) {
    if (is_name_key(entry.first) && entry.first.Scalar() == key) return entry.first.Mark();
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, Located>> MapReader::entries() const {
  std::vector<std::pair<std::string, Located>> named;
  for (const auto& entry : map_.node) {
    if (!is_name_key(entry.first)) continue;
    const std::string& name = entry.first.Scalar();
    named.emplace_back(name, Located{entry.second, field_path(map_.field, name), value_mark(entry.first, entry.second)});
  }
  return named;
}

std::optional<Located> MapReader::require(std::string_view key, std::string_view expected) const {
  std::optional<Located> value = find(key);
  if (!value) {
    diagnostics_->add(map_.mark, field_path(map_.field, key),
                      fmt::format("missing required key '{}' (expected {})", key, expected));
  }
  return value;
}

std::optional<std::string> MapReader::require_string(std::string_view key) const {
  const std::optional<Located> value = require(key, "a non-empty string");
  return value ? read_string(*value, *diagnostics_) : std::nullopt;
}

std::optional<double> MapReader::require_number(std::string_view key, NumberRange range) const {
  const std::optional<Located> value = require(key, expected_number(range));
  return value ? read_number(*value, range, *diagnostics_) : std::nullopt;
}

std::optional<double> MapReader::optional_number(std::string_view key, NumberRange range) const {
  const std::optional<Located> value = find(key);
  return value ? read_number(*value, range, *diagnostics_) : std::nullopt;
}

std::optional<bool> MapReader::optional_bool(std::string_view key) const {
  const std::optional<Located> value = find(key);
  if (!value) return std::nullopt;
  const YAML::Node& node = value->node;
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) return node.Scalar() == "true";
  diagnostics_->add(value->mark, value->field, fmt::format("expected true or false, got {}", describe(node)));
  return std::nullopt;
}

std::optional<std::uint64_t> MapReader::require_positive_integer(std::string_view key) const {
  const std::optional<Located> value = require(key, "a positive integer");
  return value ? read_positive_integer(*value, *diagnostics_) : std::nullopt;
}

std::optional<std::uint64_t> MapReader::optional_positive_integer(std::string_view key) const {
  const std::optional<Located> value = find(key);
  return value ? read_positive_integer(*value, *diagnostics_) : std::nullopt;
}

std::optional<std::string> MapReader::require_choice(std::string_view key,
                                                     const std::vector<std::string>& choices) const {
  const std::optional<Located> value = require(key, one_of(choices));
  if (!value) return std::nullopt;
  const YAML::Node& node = value->node;
  if (node.IsScalar() && std::find(choices.begin(), choices.end(), node.Scalar()) != choices.end()) {
    return node.Scalar();
  }
  const std::string hint = node.IsScalar() ? did_you_mean(node.Scalar(), choices) : "";
  diagnostics_->add(value->mark, value->field,
                    fmt::format("expected {}, got {}{}", one_of(choices), describe(node), hint));
  return std::nullopt;
}

std::vector<Located> MapReader::require_list(std::string_view key, std::string_view items) const {
  const std::string expected = fmt::format("a non-empty list of {}", items);
  const std::optional<Located> list = require(key, expected);
  if (!list) return {};
  if (!list->node.IsSequence() || list->node.size() == 0) {
    diagnostics_->add(list->mark, list->field, fmt::format("expected {}, got {}", expected, describe(list->node)));
    return {};
  }
  std::vector<Located> located;
  for (std::size_t i = 0; i < list->node.size(); ++i) {
    const YAML::Node item = list->node[i];
    // An empty item ("- ") has no useful mark of its own; the list's is the nearest honest one.
    located.push_back(Located{item, item_path(list->field, i), item.IsNull() ? list->mark : item.Mark()});
  }
  return located;
}

std::vector<StringItem> MapReader::require_string_list(std::string_view key, std::string_view items) const {
  std::vector<StringItem> strings;
  for (const Located& item : require_list(key, items)) {
    if (std::optional<std::string> text = read_string(item, *diagnostics_)) {
      strings.push_back(StringItem{std::move(*text), item.field, item.mark});
    }
  }
  return strings;
}

std::optional<MapReader> MapReader::optional_map(std::string_view key, std::string_view what) const {
  const std::optional<Located> value = find(key);
  return value ? open(*value, *diagnostics_, what) : std::nullopt;
}

std::optional<MapReader> MapReader::require_map(std::string_view key, std::string_view what) const {
  const std::optional<Located> value = require(key, what);
  return value ? open(*value, *diagnostics_, what) : std::nullopt;
}

}  // namespace cudalabs::config::detail
