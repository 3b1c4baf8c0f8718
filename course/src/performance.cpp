#include "cudalabs/course/performance.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cudalabs/course/threshold_kinds.hpp"

namespace cudalabs::config {

std::string_view to_string(ThresholdKind kind) { return threshold_kind(kind).key; }

bool lower_is_better(ThresholdKind kind) { return threshold_kind(kind).lower_is_better; }

std::optional<double> PerformanceThreshold::limit_for(const std::string& device) const {
  if (kind != ThresholdKind::MaxMs) return value;
  const auto found = max_ms_by_device.find(device);
  if (found != max_ms_by_device.end()) return found->second;
  return max_ms_default;
}

namespace {

// Credit for a figure: full on the good side of the limit, linear to zero at `zero_at`.
double credit_for(double figure, double limit, bool lower_better, const std::optional<PartialCredit>& partial) {
  const bool meets = lower_better ? figure <= limit : figure >= limit;
  if (meets) return 1.0;
  if (!partial) return 0.0;
  const double span = std::abs(partial->zero_at - limit);
  const double shortfall = std::abs(figure - limit);
  return shortfall >= span ? 0.0 : 1.0 - shortfall / span;
}

}  // namespace

MeasuredFigure figure_for(ThresholdKind kind, const Timings& timings) { return threshold_kind(kind).figure(timings); }

Verdict judge(const PerformanceSpec& spec, const MeasuredFigure& figure, const std::string& device) {
  Verdict verdict;
  verdict.figure = figure;
  const std::optional<double> limit = spec.threshold.limit_for(device);
  if (!limit) {
    verdict.applicable = false;
    verdict.credit = 1.0;
    verdict.explanation = fmt::format("no max_ms limit for '{}' and no default: not judged on this device", device);
    return verdict;
  }
  const ThresholdKindEntry& kind = threshold_kind(spec.threshold.kind);
  verdict.limit = *limit;
  verdict.credit = credit_for(figure.median, *limit, kind.lower_is_better, spec.partial_credit);
  verdict.too_close_to_call = figure.low <= *limit && *limit <= figure.high;
  if (spec.preview) {
    // No points at stake: credit says only whether the preview's threshold was met.
    verdict.explanation = fmt::format("{}; preview threshold {}: {} (a preview of the graded case, not a grade)",
                                      kind.describe_figure(figure), kind.describe_limit(*limit),
                                      verdict.credit >= 1.0 ? "met" : "not met");
    return verdict;
  }
  const std::string share = verdict.credit >= 1.0   ? "full points"
                            : verdict.credit <= 0.0 ? "no points"
                                                    : fmt::format("{:.0f}% of the points", 100 * verdict.credit);
  verdict.explanation =
      fmt::format("{}; required {}: {}", kind.describe_figure(figure), kind.describe_limit(*limit), share);
  return verdict;
}

bool points_settled(const PerformanceSpec& spec, const MeasuredFigure& figure, const std::string& device) {
  const std::optional<double> limit = spec.threshold.limit_for(device);
  if (!limit) return true;
  const bool lower_better = threshold_kind(spec.threshold.kind).lower_is_better;
  const double at_low = credit_for(figure.low, *limit, lower_better, spec.partial_credit);
  const double at_high = credit_for(figure.high, *limit, lower_better, spec.partial_credit);
  return at_low == at_high && (at_low == 1.0 || at_low == 0.0);
}

bool could_earn_more_within(const PerformanceSpec& spec, const Verdict& verdict, double relative_error,
                            const std::string& device) {
  if (!verdict.applicable || verdict.credit >= 1.0) return false;
  const bool lower_is_better = threshold_kind(spec.threshold.kind).lower_is_better;
  const double factor = lower_is_better ? 1.0 / (1.0 + relative_error) : 1.0 + relative_error;
  const MeasuredFigure better{verdict.figure.median * factor, verdict.figure.low * factor, verdict.figure.high * factor};
  return judge(spec, better, device).credit > verdict.credit;
}

}  // namespace cudalabs::config
