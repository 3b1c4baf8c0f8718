#include "cudalabs/course/performance.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cudalabs::config {

std::string_view to_string(ThresholdKind kind) {
  switch (kind) {
    case ThresholdKind::MaxRatioToSolution: return "max_ratio_to_solution";
    case ThresholdKind::MinFractionOfPeakBandwidth: return "min_fraction_of_peak_bandwidth";
    case ThresholdKind::MinFractionOfPeakFlops: return "min_fraction_of_peak_flops";
    case ThresholdKind::MaxMs: return "max_ms";
  }
  return "unknown";
}

bool lower_is_better(ThresholdKind kind) {
  return kind == ThresholdKind::MaxRatioToSolution || kind == ThresholdKind::MaxMs;
}

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

std::string describe_figure(ThresholdKind kind, const MeasuredFigure& figure) {
  switch (kind) {
    case ThresholdKind::MaxRatioToSolution:
      return fmt::format("{:.3f}x the solution's time (95% CI {:.3f}-{:.3f})", figure.median, figure.low, figure.high);
    case ThresholdKind::MaxMs:
      return fmt::format("{:.4g} ms (95% CI {:.4g}-{:.4g})", figure.median, figure.low, figure.high);
    default:
      return fmt::format("{:.1f}% of this device's peak (95% CI {:.1f}-{:.1f}%)", 100 * figure.median,
                         100 * figure.low, 100 * figure.high);
  }
}

std::string describe_limit(ThresholdKind kind, double limit) {
  switch (kind) {
    case ThresholdKind::MaxRatioToSolution: return fmt::format("at most {:.3g}x", limit);
    case ThresholdKind::MaxMs: return fmt::format("at most {:.4g} ms", limit);
    default: return fmt::format("at least {:.3g}%", 100 * limit);
  }
}

}  // namespace

MeasuredFigure figure_for(ThresholdKind kind, const Timings& timings) {
  auto fraction = [&](double work, double peak_per_second, double milliseconds) {
    return milliseconds > 0 && peak_per_second > 0 ? work / (milliseconds * 1e-3) / peak_per_second : 0.0;
  };
  const MeasuredFigure& ms = timings.student_ms;
  switch (kind) {
    case ThresholdKind::MaxRatioToSolution: return timings.ratio;
    case ThresholdKind::MaxMs: return ms;
    case ThresholdKind::MinFractionOfPeakBandwidth: {
      const double peak = timings.peak_bandwidth_gbs * 1e9;
      return {fraction(timings.bytes, peak, ms.median), fraction(timings.bytes, peak, ms.high),
              fraction(timings.bytes, peak, ms.low)};
    }
    case ThresholdKind::MinFractionOfPeakFlops: {
      const double peak = timings.peak_gflops * 1e9;
      return {fraction(timings.flops, peak, ms.median), fraction(timings.flops, peak, ms.high),
              fraction(timings.flops, peak, ms.low)};
    }
  }
  return {};
}

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
  const ThresholdKind kind = spec.threshold.kind;
  verdict.limit = *limit;
  verdict.credit = credit_for(figure.median, *limit, lower_is_better(kind), spec.partial_credit);
  verdict.too_close_to_call = figure.low <= *limit && *limit <= figure.high;
  const std::string share = verdict.credit >= 1.0   ? "full points"
                            : verdict.credit <= 0.0 ? "no points"
                                                    : fmt::format("{:.0f}% of the points", 100 * verdict.credit);
  verdict.explanation =
      fmt::format("{}; required {}: {}", describe_figure(kind, figure), describe_limit(kind, *limit), share);
  return verdict;
}

}  // namespace cudalabs::config
