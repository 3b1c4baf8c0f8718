#pragma once
// The kinds of performance threshold a lab's YAML may set: one entry each. The YAML reader (which
// keys exist, what a value may be), the verdict arithmetic (which figure, which direction, the
// wording of an explanation) and the harness (what the suite must declare) all look a kind up
// here, so a new kind is one entry plus its ThresholdKind value.
#include <string>
#include <string_view>
#include <vector>

#include "cudalabs/course/performance.hpp"

namespace cudalabs::config {

// What a suite declared about a timed case (cudalabs::PerformanceWork), as far as thresholds care.
struct DeclaredWork {
  double bytes = 0;
  double flops = 0;
  double peak_gflops = 0;
  int stages = 0;  // a pipeline's stages, each measured alone
};

struct ThresholdKindEntry {
  ThresholdKind kind;
  std::string_view key;  // under `threshold:` in the YAML
  bool lower_is_better;  // ratios and times; fractions of peak are higher-is-better (and at most 1)
  // The figure compared with the limit, in the threshold's unit, from what was measured.
  MeasuredFigure (*figure)(const Timings& timings);
  // "1.070x the solution's time (95% CI 1.060-1.080)" and "at most 1.05x".
  std::string (*describe_figure)(const MeasuredFigure& figure);
  std::string (*describe_limit)(double limit);
  // What the suite must declare (PerformanceWork) for the figure to mean anything: "" when it has
  // all it needs, otherwise what is missing, in words.
  std::string (*missing_declaration)(const DeclaredWork& declared);
};

// Every kind, in the order error messages list them.
const std::vector<ThresholdKindEntry>& threshold_kinds();

const ThresholdKindEntry& threshold_kind(ThresholdKind kind);

// nullptr for a key that is not a kind.
const ThresholdKindEntry* find_threshold_kind(std::string_view key);

// "max_ratio_to_solution, min_fraction_of_peak_bandwidth, ..." with `last_separator` before the last.
std::string threshold_kind_keys(std::string_view last_separator = ", ");

}  // namespace cudalabs::config
