// `profile:` in config/labs/<id>.yaml: which Nsight Compute figures the profile pass collects for
// each timed case (`labgrade grade|check --profile`, or a lab that asks for it), and the hint the
// report gives when the student's figure is far from the reference's. Reported, never scored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs::config {

// A figure built from ncu metrics: the sum of `summed` over the case's kernel launches, divided by
// the sum of `divided_by` when there is one (sectors per request). One place names them, so the
// YAML reader, the pass that asks ncu for them and the report agree.
struct DerivedMetric {
  std::string_view name;                  // as a lab's YAML writes it: "global_load_sectors_per_request"
  std::vector<std::string_view> summed;   // ncu metrics added up
  std::vector<std::string_view> divided_by;  // ncu metrics added up for the denominator; empty: none
  std::string_view unit;                  // "sectors/request"
  std::string_view meaning;               // the report's default label
};
const std::vector<DerivedMetric>& derived_metrics();
const DerivedMetric* find_derived_metric(std::string_view name);  // nullptr when `name` is not one

// Whether `name` is spelt like an ncu metric: unit__counter, then rollups ("dram__bytes.sum",
// "sm__warps_active.avg.pct_of_peak_sustained_active"): lower-case letters, digits, '_' and '.'.
bool is_ncu_metric_name(std::string_view name);

struct ProfileMetricSpec {
  std::string name;   // a derived metric (above) or an ncu metric
  std::string label;  // what the report calls it; defaults to the derived metric's meaning or the name
  std::string hint;   // shown when one of the conditions below holds; "" for none
  // When the hint is shown: where the reference was profiled too (a grade), the student's figure
  // over the reference's above or below a ratio; where it was not (a self-check), the student's
  // figure alone above or below a value. Any one that holds shows it.
  std::optional<double> hint_when_ratio_above;
  std::optional<double> hint_when_ratio_below;
  std::optional<double> hint_when_above;
  std::optional<double> hint_when_below;
  int line = 0;  // 1-based line of the entry, for diagnostics
};

struct ProfileSpec {
  bool on_grade = false;  // every grade runs the profile pass, as if with --profile
  bool on_check = false;  // every self-check does
  std::vector<ProfileMetricSpec> metrics;  // empty in the YAML: kDefaultProfileMetrics
};

// What `--profile` collects for a lab whose YAML names no metrics.
const std::vector<ProfileMetricSpec>& default_profile_metrics();

// The metrics of `spec` (or the defaults), and every ncu metric ncu must collect for them (plus
// gpu__time_duration.sum, which weighs averages over several launches), without repeats.
const std::vector<ProfileMetricSpec>& metrics_of(const ProfileSpec& spec);
std::vector<std::string> ncu_metrics_for(const ProfileSpec& spec);

// The metric that weighs a launch's averages (percentages, ratios) by its duration.
inline constexpr std::string_view kLaunchDurationMetric = "gpu__time_duration.sum";

}  // namespace cudalabs::config
