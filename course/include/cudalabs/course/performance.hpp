// Performance cases of a lab (config/labs/<lab>.yaml `performance:`) and the arithmetic that turns
// a measurement into a verdict and a share of the points. The suite (which measures, and
// re-measures when a result is too close to call) and labgrade (which scores and reports) both use
// judge(), so they can never disagree about a verdict.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace cudalabs::config {

enum class Visibility;

// Each kind has its entry (YAML key, direction, figure, wording, what the suite must declare) in
// threshold_kinds.hpp.
enum class ThresholdKind {
  MaxRatioToSolution,          // student median time <= value x solution median time, same run
  MinFractionOfPeakBandwidth,  // achieved bytes/s >= value x this device's measured copy bandwidth
  MinFractionOfPeakFlops,      // achieved FLOP/s >= value x the suite-declared peak FLOP/s
  MaxMs,                       // student median time <= value ms, per device name
  MaxRatioToSlowestStage,      // pipelines: student median time <= value x the slowest of its stages, each
                               // measured alone (trusted code), same run
};
std::string_view to_string(ThresholdKind kind);  // the YAML key

// Whether smaller figures are better (ratios, milliseconds) or larger ones (fractions of peak).
bool lower_is_better(ThresholdKind kind);

struct PerformanceThreshold {
  ThresholdKind kind = ThresholdKind::MaxRatioToSolution;
  double value = 0;                          // all kinds but MaxMs
  std::optional<double> max_ms_default;      // MaxMs: devices not listed by name
  std::map<std::string, double> max_ms_by_device;

  // The limit that applies on `device`; nullopt when MaxMs lists neither it nor a default.
  std::optional<double> limit_for(const std::string& device) const;
};

// Credit falls linearly from full at the threshold to none at `zero_at` (same unit as the
// threshold: beyond it for ratios and times, below it for fractions of peak).
struct PartialCredit {
  double zero_at = 0;
};

struct PerformanceSpec {
  std::string name;  // the suite's test is test_name()
  double points = 0;
  Visibility visibility{};
  PerformanceThreshold threshold;
  std::optional<PartialCredit> partial_credit;
  int line = 0;
  // A timing preview (`preview: true`): timed in the students' self-check, their code alone
  // against a device-relative threshold (cudalabs/performance_preview.hpp), for them to see where
  // they stand before the grade's hidden case times them. Always public, never points, and not
  // run by a grade.
  bool preview = false;

  // The suite's test: Performance.<name>, or Preview.<name> for a timing preview (a suite of its
  // own, so the self-check's fixture never meets the hidden suite's Performance fixture).
  std::string test_name() const { return (preview ? "Preview." : "Performance.") + name; }
};

// The figure a threshold is compared with, as measured: its median and confidence interval.
struct MeasuredFigure {
  double median = 0;
  double low = 0;
  double high = 0;
};

// What one measurement of a case found, from which every threshold's figure follows.
struct Timings {
  MeasuredFigure student_ms;
  MeasuredFigure ratio;           // student time / solution (or slowest stage) time, paired per round
  double bytes = 0;               // declared by the suite
  double flops = 0;               // declared by the suite
  double peak_bandwidth_gbs = 0;  // measured in-process (device-to-device copy)
  double peak_gflops = 0;         // declared by the suite
};

// The figure `kind` compares with its limit. A rate's interval follows from the time's (the
// slowest time gives the lowest rate).
MeasuredFigure figure_for(ThresholdKind kind, const Timings& timings);

struct Verdict {
  bool applicable = true;  // false: MaxMs without a limit for this device (no points at stake)
  double limit = 0;        // the threshold that applied
  MeasuredFigure figure;   // what was compared with it
  double credit = 0;       // share of the points, 0..1, from the median
  bool too_close_to_call = false;  // the interval straddles the limit: worth measuring again
  std::string explanation;         // e.g. "ratio 1.07 (1.06-1.08) > 1.05: 71% of the points"
};

// `figure` must be in the threshold's unit: a ratio, a fraction of peak or milliseconds.
Verdict judge(const PerformanceSpec& spec, const MeasuredFigure& figure, const std::string& device);

// Whether `figure`'s whole interval earns one share of the points, all or none (not a share that
// partial credit would still move within it): then a measurement may stop, whatever its width.
// True where nothing is at stake (MaxMs without a limit for `device`).
bool points_settled(const PerformanceSpec& spec, const MeasuredFigure& figure, const std::string& device);

// Whether the same figure, better by `relative_error` (0.15: a ratio 15% lower, a fraction of
// peak 15% higher), would earn more than `verdict`: a measurement that may be off by that much
// is worth repeating only then.
bool could_earn_more_within(const PerformanceSpec& spec, const Verdict& verdict, double relative_error,
                            const std::string& device);

}  // namespace cudalabs::config
