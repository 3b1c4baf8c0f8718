#include "cudalabs/course/forbid_rules.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "forbid_rules_reader.hpp"

namespace cudalabs::config {

std::string ForbidRule::where() const {
  return line > 0 ? fmt::format("{}:{} ({})", file, line, field) : fmt::format("{} ({})", file, field);
}

namespace {

bool names_pattern(const std::vector<ForbidRule>& rules, const std::string& pattern) {
  return std::any_of(rules.begin(), rules.end(), [&](const ForbidRule& rule) { return rule.pattern == pattern; });
}

std::vector<ForbidRule> lifted(const std::vector<ForbidRule>& course, const std::vector<ForbidRule>& allowed,
                               const std::vector<ForbidRule>& lab) {
  std::vector<ForbidRule> kept;
  for (const ForbidRule& rule : course) {
    if (!names_pattern(allowed, rule.pattern)) kept.push_back(rule);
  }
  kept.insert(kept.end(), lab.begin(), lab.end());
  return kept;
}

void report_unmatched(const std::vector<ForbidRule>& course, const std::vector<ForbidRule>& allowed,
                      const char* kind, std::vector<Diagnostic>& problems) {
  for (const ForbidRule& allowance : allowed) {
    if (names_pattern(course, allowance.pattern)) continue;
    std::string known;
    for (const ForbidRule& rule : course) known += (known.empty() ? "" : ", ") + rule.pattern;
    problems.push_back({allowance.file, allowance.line, 0, allowance.field,
                        fmt::format("'{}' is not among the course's forbidden {} (allow: can only lift a "
                                    "course-wide rule, named by its exact pattern; they are: {})",
                                    allowance.pattern, kind, known.empty() ? "none" : known)});
  }
}

}  // namespace

ForbidRules combine(const ForbidRules& course, const ForbidRules& lab, const ForbidRules& lab_allows) {
  return ForbidRules{lifted(course.includes, lab_allows.includes, lab.includes),
                     lifted(course.symbols, lab_allows.symbols, lab.symbols)};
}

std::vector<Diagnostic> unmatched_allowances(const ForbidRules& course, const ForbidRules& lab_allows) {
  std::vector<Diagnostic> problems;
  report_unmatched(course.includes, lab_allows.includes, "includes", problems);
  report_unmatched(course.symbols, lab_allows.symbols, "symbols", problems);
  return problems;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume = 0;  // last '*' seen and where its match ends
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;  // let the last '*' swallow one more character
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace detail {
namespace {

enum class Kind { Include, Symbol };

// Why a pattern cannot be meant as written, or "" when it is fine.
std::string pattern_problem(const std::string& pattern, Kind kind) {
  const auto control = [](unsigned char c) { return c < ' ' || c == 0x7f; };
  if (std::any_of(pattern.begin(), pattern.end(), control)) return "must not contain control characters";
  if (pattern.find_first_not_of("*?") == std::string::npos) return "would match everything; name what to forbid";
  if (pattern.front() == ' ' || pattern.back() == ' ') return "must not start or end with a space";
  if (kind == Kind::Include) {
    if (pattern.find_first_of("<>\" ") != std::string::npos) {
      return "write the header as it appears between the brackets of #include <...>, e.g. fstream or thrust/*";
    }
    if (pattern.front() == '/') return "must be the name used in #include, not an absolute path";
  }
  return "";
}

// One list entry: "pattern" or {pattern: ..., why: ...}.
std::optional<ForbidRule> read_rule(const Located& item, Kind kind, FileDiagnostics& diagnostics) {
  ForbidRule rule;
  rule.file = diagnostics.file();
  rule.field = item.field;
  rule.line = item.mark.is_null() ? 0 : item.mark.line + 1;
  Located pattern = item;
  if (item.node.IsMap()) {
    const std::optional<MapReader> entry = MapReader::open(item, diagnostics, "a map {pattern, why}");
    entry->check_keys({"pattern", "why"});
    const std::optional<Located> why = entry->find("why");
    if (why) {
      if (!why->node.IsScalar()) {
        diagnostics.add(why->mark, why->field, "expected a sentence for the student, got a list or map");
      } else {
        rule.why = why->node.Scalar();
      }
    }
    const std::optional<std::string> text = entry->require_string("pattern");
    if (!text) return std::nullopt;
    pattern = *entry->find("pattern");
  }
  if (!pattern.node.IsScalar() || pattern.node.Scalar().empty()) {
    diagnostics.add(pattern.mark, pattern.field,
                    "expected a pattern (a string, '*' and '?' as wildcards) or a map {pattern, why}");
    return std::nullopt;
  }
  rule.pattern = pattern.node.Scalar();
  if (const std::string problem = pattern_problem(rule.pattern, kind); !problem.empty()) {
    diagnostics.add(pattern.mark, pattern.field, fmt::format("'{}' {}", rule.pattern, problem));
    return std::nullopt;
  }
  return rule;
}

std::vector<ForbidRule> read_list(const MapReader& forbid, const char* key, Kind kind, FileDiagnostics& diagnostics) {
  std::vector<ForbidRule> rules;
  const std::optional<Located> list = forbid.find(key);
  if (!list) return rules;
  if (!list->node.IsSequence()) {
    diagnostics.add(list->mark, list->field,
                    "expected a list of patterns, e.g. [system, \"exec*\"] (write [] for none)");
    return rules;
  }
  std::map<std::string, int> first_line;
  for (std::size_t i = 0; i < list->node.size(); ++i) {
    const YAML::Node node = list->node[i];
    const Located item{node, item_path(list->field, i), node.IsNull() ? list->mark : node.Mark()};
    std::optional<ForbidRule> rule = read_rule(item, kind, diagnostics);
    if (!rule) continue;
    const auto [previous, inserted] = first_line.emplace(rule->pattern, rule->line);
    if (!inserted) {
      diagnostics.add(item.mark, item.field,
                      fmt::format("'{}' is listed twice (first on line {})", rule->pattern, previous->second));
      continue;
    }
    rules.push_back(std::move(*rule));
  }
  return rules;
}

}  // namespace

ForbidRules read_forbid_rules(const MapReader& top, FileDiagnostics& diagnostics, const char* key) {
  ForbidRules rules;
  const std::optional<MapReader> forbid = top.optional_map(key, "a map {includes: [...], symbols: [...]}");
  if (!forbid) return rules;
  forbid->check_keys({"includes", "symbols"});
  rules.includes = read_list(*forbid, "includes", Kind::Include, diagnostics);
  rules.symbols = read_list(*forbid, "symbols", Kind::Symbol, diagnostics);
  return rules;
}

}  // namespace detail
}  // namespace cudalabs::config
