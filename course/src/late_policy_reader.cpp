#include "late_policy_reader.hpp"

#include <fmt/format.h>

#include "cudalabs/course/timestamp.hpp"

namespace cudalabs::config::detail {

std::optional<LatePolicy> read_late_policy(const MapReader& top, FileDiagnostics& diagnostics) {
  const std::optional<MapReader> section =
      top.optional_map("late", "a map {due, grace_minutes, penalty_percent_per_day, max_penalty_percent}");
  if (!section) return std::nullopt;
  section->check_keys({"due", "grace_minutes", "penalty_percent_per_day", "max_penalty_percent"});
  LatePolicy policy;
  policy.line = section->find("due") ? section->find("due")->mark.line + 1 : 0;
  bool complete = true;
  if (const std::optional<std::string> due = section->require_string("due")) {
    if (const std::optional<UnixSeconds> when = parse_timestamp(*due)) {
      policy.due = *when;
    } else {
      const Located at = *section->find("due");
      diagnostics.add(at.mark, at.field,
                      fmt::format("expected a date and time with its time zone, e.g. 2026-10-01T23:59:00-07:00 or "
                                  "2026-10-01T23:59:00Z, got '{}'",
                                  *due));
      complete = false;
    }
  } else {
    complete = false;
  }
  policy.grace_minutes = section->optional_number("grace_minutes", NumberRange::NonNegative).value_or(0);
  const auto percent = [&](const char* key, bool required) -> std::optional<double> {
    const std::optional<double> value = required ? section->require_number(key, NumberRange::NonNegative)
                                                 : section->optional_number(key, NumberRange::NonNegative);
    if (value && *value > 100) {
      const Located at = *section->find(key);
      diagnostics.add(at.mark, at.field, fmt::format("expected a percentage from 0 to 100, got {:g}", *value));
      return std::nullopt;
    }
    return value;
  };
  const std::optional<double> per_day = percent("penalty_percent_per_day", true);
  if (!per_day) complete = false;
  policy.penalty_percent_per_day = per_day.value_or(0);
  policy.max_penalty_percent = percent("max_penalty_percent", false).value_or(100);
  if (!complete) return std::nullopt;
  return policy;
}

}  // namespace cudalabs::config::detail
