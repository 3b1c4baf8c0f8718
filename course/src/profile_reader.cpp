#include "profile_reader.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "spelling.hpp"

namespace cudalabs::config::detail {
namespace {

const std::vector<std::string> kHintConditions = {"hint_when_ratio_above", "hint_when_ratio_below", "hint_when_above",
                                                  "hint_when_below"};

std::vector<std::string> derived_names() {
  std::vector<std::string> names;
  for (const DerivedMetric& metric : derived_metrics()) names.emplace_back(metric.name);
  return names;
}

// A derived metric, or anything spelt like an ncu metric (ncu itself says whether this GPU has
// it: a metric it does not know is reported missing, not an error of the YAML).
bool read_metric_name(const MapReader& entry, FileDiagnostics& diagnostics, std::string& name) {
  const std::optional<std::string> value = entry.require_string("name");
  if (!value) return false;
  if (find_derived_metric(*value) || is_ncu_metric_name(*value)) {
    name = *value;
    return true;
  }
  const Located at = *entry.find("name");
  diagnostics.add(at.mark, at.field,
                  fmt::format("'{}' is neither a derived metric ({}) nor an ncu metric name such as "
                              "dram__bytes.sum{}",
                              *value, fmt::join(derived_names(), ", "), did_you_mean(*value, derived_names(), 3)));
  return false;
}

std::optional<ProfileMetricSpec> read_metric(const Located& item, FileDiagnostics& diagnostics) {
  const std::optional<MapReader> entry =
      MapReader::open(item, diagnostics, "a map {name, label, hint, hint_when_ratio_above, ...}");
  if (!entry) return std::nullopt;
  std::vector<std::string> keys = {"name", "label", "hint"};
  keys.insert(keys.end(), kHintConditions.begin(), kHintConditions.end());
  entry->check_keys(keys);
  ProfileMetricSpec metric;
  metric.line = item.mark.is_null() ? 0 : item.mark.line + 1;
  const bool named = read_metric_name(*entry, diagnostics, metric.name);
  if (entry->find("label")) metric.label = entry->require_string("label").value_or("");
  if (entry->find("hint")) metric.hint = entry->require_string("hint").value_or("");
  metric.hint_when_ratio_above = entry->optional_number("hint_when_ratio_above", NumberRange::Positive);
  metric.hint_when_ratio_below = entry->optional_number("hint_when_ratio_below", NumberRange::Positive);
  metric.hint_when_above = entry->optional_number("hint_when_above", NumberRange::Any);
  metric.hint_when_below = entry->optional_number("hint_when_below", NumberRange::Any);
  // A hint with no condition would never show, and a condition with no hint has nothing to say
  // (a condition given with a bad value is reported as such, not as missing).
  const bool conditioned = std::any_of(kHintConditions.begin(), kHintConditions.end(),
                                       [&](const std::string& condition) { return entry->find(condition).has_value(); });
  if (entry->find("hint") && !conditioned) {
    const Located at = *entry->find("hint");
    diagnostics.add(at.mark, at.field,
                    fmt::format("a hint needs a condition: one of {}", fmt::join(kHintConditions, ", ")));
  }
  if (conditioned && !entry->find("hint")) {
    for (const std::string& condition : kHintConditions) {
      if (const std::optional<Located> at = entry->find(condition)) {
        diagnostics.add(at->mark, at->field, "a condition needs the hint it shows: add hint: \"...\"");
        break;
      }
    }
  }
  if (!named) return std::nullopt;
  if (metric.label.empty()) {
    const DerivedMetric* derived = find_derived_metric(metric.name);
    metric.label = derived ? std::string(derived->meaning) : metric.name;
  }
  return metric;
}

}  // namespace

ProfileSpec read_profile_spec(const MapReader& top, FileDiagnostics& diagnostics) {
  ProfileSpec spec;
  const std::optional<MapReader> section = top.optional_map("profile", "a map {on_grade, on_check, metrics}");
  if (!section) return spec;
  section->check_keys({"on_grade", "on_check", "metrics"});
  spec.on_grade = section->optional_bool("on_grade").value_or(false);
  spec.on_check = section->optional_bool("on_check").value_or(false);
  if (!section->find("metrics")) return spec;
  std::set<std::string> seen;
  for (const Located& item : section->require_list("metrics", "metrics")) {
    std::optional<ProfileMetricSpec> metric = read_metric(item, diagnostics);
    if (!metric) continue;
    if (!seen.insert(metric->name).second) {
      diagnostics.add(item.mark, item.field + ".name", fmt::format("'{}' is listed twice", metric->name));
      continue;
    }
    spec.metrics.push_back(std::move(*metric));
  }
  return spec;
}

}  // namespace cudalabs::config::detail
