#include "run/profile_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace labgrade {
namespace config = cudalabs::config;

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// One ncu metric over the launches, or nullopt with the reason in `missing`.
std::optional<double> over_launches(const std::vector<const NcuLaunch*>& launches, const std::string& metric,
                                    std::string& missing) {
  if (launches.empty()) {
    missing = "no kernel of this side was profiled";
    return std::nullopt;
  }
  const bool counter = ends_with(metric, ".sum");
  double total = 0, weighted = 0, weights = 0;
  for (const NcuLaunch* launch : launches) {
    const auto cell = launch->values.find(metric);
    const std::optional<double> value = cell == launch->values.end() ? std::nullopt : ncu_number(cell->second);
    if (!value) {
      missing = cell == launch->values.end()
                    ? fmt::format("ncu reported no {} (not collected: a metric this ncu does not know?)", metric)
                    : fmt::format("ncu reported {} as '{}' (not available on this GPU?)", metric, cell->second);
      return std::nullopt;
    }
    total += *value;
    const auto duration = launch->values.find(std::string(config::kLaunchDurationMetric));
    const double weight = duration == launch->values.end() ? 1.0 : ncu_number(duration->second).value_or(1.0);
    weighted += *value * weight;
    weights += weight;
  }
  if (counter) return total;
  return weights > 0 ? weighted / weights : total / static_cast<double>(launches.size());
}

// One side's figure of a metric the YAML names.
std::optional<double> figure(const std::string& name, const std::vector<const NcuLaunch*>& launches,
                             std::string& missing) {
  const config::DerivedMetric* derived = config::find_derived_metric(name);
  if (!derived) return over_launches(launches, name, missing);
  const auto add_up = [&](const std::vector<std::string_view>& parts) -> std::optional<double> {
    double sum = 0;
    for (std::string_view part : parts) {
      const std::optional<double> value = over_launches(launches, std::string(part), missing);
      if (!value) return std::nullopt;
      sum += *value;
    }
    return sum;
  };
  const std::optional<double> numerator = add_up(derived->summed);
  if (!numerator || derived->divided_by.empty()) return numerator;
  const std::optional<double> denominator = add_up(derived->divided_by);
  if (!denominator) return std::nullopt;
  if (*denominator == 0) {
    missing = fmt::format("n/a: the kernels made no {}", derived->divided_by.front());
    return std::nullopt;
  }
  return *numerator / *denominator;
}

std::string unit_of(const std::string& name, const NcuLog& log) {
  if (const config::DerivedMetric* derived = config::find_derived_metric(name)) return std::string(derived->unit);
  const auto unit = log.units.find(name);
  return unit == log.units.end() ? "" : unit->second;
}

}  // namespace

std::vector<const NcuLaunch*> code_launches(const NcuLog& log) {
  std::vector<const NcuLaunch*> launches;
  for (const NcuLaunch& launch : log.launches) {
    if (kernel_base_name(launch.kernel).rfind("cudalabs::", 0) == 0) continue;
    launches.push_back(&launch);
  }
  return launches;
}

std::vector<ProfiledKernel> kernels_of(const std::vector<const NcuLaunch*>& launches) {
  std::vector<ProfiledKernel> kernels;
  for (const NcuLaunch* launch : launches) {
    const std::string name = kernel_base_name(launch->kernel);
    const auto same = std::find_if(kernels.begin(), kernels.end(), [&](const ProfiledKernel& k) { return k.name == name; });
    if (same == kernels.end()) {
      kernels.push_back({name, 1});
    } else {
      ++same->launches;
    }
  }
  return kernels;
}

void apply_hint(ProfiledMetric& metric, const config::ProfileMetricSpec& spec) {
  if (spec.hint.empty() || !metric.student) return;
  const double student = *metric.student;
  std::string because;
  if (metric.reference) {
    // Beside the reference only the ratio counts: a figure the reference shares is the step's
    // nature (the naive transpose's strided stores), not the student's mistake.
    const double reference = *metric.reference;
    const double ratio = reference != 0 ? student / reference
                         : student > 0  ? std::numeric_limits<double>::infinity()
                                        : 1.0;
    const std::string versus = std::isinf(ratio) ? std::string("the reference's is 0")
                                                 : fmt::format("{:.3g}x the reference's", ratio);
    if (spec.hint_when_ratio_above && ratio > *spec.hint_when_ratio_above) because = versus;
    if (spec.hint_when_ratio_below && ratio < *spec.hint_when_ratio_below) because = versus;
  } else if (spec.hint_when_above && student > *spec.hint_when_above) {
    because = fmt::format("above {:g}", *spec.hint_when_above);
  } else if (spec.hint_when_below && student < *spec.hint_when_below) {
    because = fmt::format("below {:g}", *spec.hint_when_below);
  }
  if (because.empty()) return;
  metric.hint = spec.hint;
  metric.hint_because = because;
}

std::vector<ProfiledMetric> profile_figures(const config::ProfileSpec& spec, const std::vector<const NcuLaunch*>& student,
                                            const NcuLog& student_log,
                                            const std::vector<const NcuLaunch*>* reference,
                                            const NcuLog* reference_log) {
  std::vector<ProfiledMetric> figures;
  for (const config::ProfileMetricSpec& wanted : config::metrics_of(spec)) {
    ProfiledMetric metric;
    metric.name = wanted.name;
    metric.label = wanted.label;
    if (metric.label.empty()) {  // the defaults carry none
      const config::DerivedMetric* derived = config::find_derived_metric(wanted.name);
      metric.label = derived ? std::string(derived->meaning) : wanted.name;
    }
    metric.unit = unit_of(wanted.name, student_log);
    if (metric.unit.empty() && reference_log) metric.unit = unit_of(wanted.name, *reference_log);
    std::string missing, reference_missing;
    metric.student = figure(wanted.name, student, missing);
    if (reference) metric.reference = figure(wanted.name, *reference, reference_missing);
    if (!missing.empty() && missing == reference_missing) {
      metric.missing = missing;  // both sides, for the same reason (a naive kernel has no shared loads)
    } else {
      if (!missing.empty()) metric.missing = "yours: " + missing;
      if (!reference_missing.empty()) {
        metric.missing += (metric.missing.empty() ? "" : "; ") + std::string("the reference's: ") + reference_missing;
      }
    }
    apply_hint(metric, wanted);
    figures.push_back(std::move(metric));
  }
  return figures;
}

}  // namespace labgrade
