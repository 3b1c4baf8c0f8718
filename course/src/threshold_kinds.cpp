#include "cudalabs/course/threshold_kinds.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "cudalabs/course/name_list.hpp"

namespace cudalabs::config {
namespace {

// work / time as a fraction of `peak_per_second`; 0 when either is unknown.
double fraction(double work, double peak_per_second, double milliseconds) {
  return milliseconds > 0 && peak_per_second > 0 ? work / (milliseconds * 1e-3) / peak_per_second : 0.0;
}

// A rate's interval follows from the time's: the slowest time gives the lowest rate.
MeasuredFigure fraction_of_peak(double work, double peak_per_second, const MeasuredFigure& ms) {
  return {fraction(work, peak_per_second, ms.median), fraction(work, peak_per_second, ms.high),
          fraction(work, peak_per_second, ms.low)};
}

std::string describe_fraction_of_peak(const MeasuredFigure& figure) {
  return fmt::format("{:.1f}% of this device's peak (95% CI {:.1f}-{:.1f}%)", 100 * figure.median, 100 * figure.low,
                     100 * figure.high);
}

std::string describe_at_least_percent(double limit) { return fmt::format("at least {:.3g}%", 100 * limit); }

// Kinds that compare with the solution or a fixed time need no declaration, but a case that
// declares pipeline stages means to be compared with them.
std::string no_stages(const DeclaredWork& declared) {
  return declared.stages == 0 ? "" : "the suite declares pipeline stages, which only max_ratio_to_slowest_stage uses";
}

constexpr ThresholdKindEntry kRatio{
    ThresholdKind::MaxRatioToSolution,
    "max_ratio_to_solution",
    true,
    [](const Timings& timings) { return timings.ratio; },
    [](const MeasuredFigure& figure) {
      return fmt::format("{:.3f}x the solution's time (95% CI {:.3f}-{:.3f})", figure.median, figure.low,
                         figure.high);
    },
    [](double limit) { return fmt::format("at most {:.3g}x", limit); },
    no_stages,
};

constexpr ThresholdKindEntry kBandwidth{
    ThresholdKind::MinFractionOfPeakBandwidth,
    "min_fraction_of_peak_bandwidth",
    false,
    [](const Timings& timings) {
      return fraction_of_peak(timings.bytes, timings.peak_bandwidth_gbs * 1e9, timings.student_ms);
    },
    describe_fraction_of_peak,
    describe_at_least_percent,
    [](const DeclaredWork& declared) -> std::string {
      return declared.bytes > 0 ? "" : "min_fraction_of_peak_bandwidth needs the suite to declare the bytes moved "
                                       "(PerformanceWork::bytes)";
    },
};

constexpr ThresholdKindEntry kFlops{
    ThresholdKind::MinFractionOfPeakFlops,
    "min_fraction_of_peak_flops",
    false,
    [](const Timings& timings) {
      return fraction_of_peak(timings.flops, timings.peak_gflops * 1e9, timings.student_ms);
    },
    describe_fraction_of_peak,
    describe_at_least_percent,
    [](const DeclaredWork& declared) -> std::string {
      return declared.flops > 0 && declared.peak_gflops > 0
                 ? ""
                 : "min_fraction_of_peak_flops needs the suite to declare flops and peak_gflops";
    },
};

constexpr ThresholdKindEntry kMilliseconds{
    ThresholdKind::MaxMs,
    "max_ms",
    true,
    [](const Timings& timings) { return timings.student_ms; },
    [](const MeasuredFigure& figure) {
      return fmt::format("{:.4g} ms (95% CI {:.4g}-{:.4g})", figure.median, figure.low, figure.high);
    },
    [](double limit) { return fmt::format("at most {:.4g} ms", limit); },
    no_stages,
};

// A pipeline (copies in, kernels, copies out over several streams) against the slowest of its
// stages, each run alone over the whole input: 1.0 is perfect overlap, the sum of the stages
// over the slowest is no overlap at all.
constexpr ThresholdKindEntry kSlowestStage{
    ThresholdKind::MaxRatioToSlowestStage,
    "max_ratio_to_slowest_stage",
    true,
    [](const Timings& timings) { return timings.ratio; },
    [](const MeasuredFigure& figure) {
      return fmt::format("{:.3f}x the time of the slowest stage alone (95% CI {:.3f}-{:.3f})", figure.median,
                         figure.low, figure.high);
    },
    [](double limit) { return fmt::format("at most {:.3g}x", limit); },
    [](const DeclaredWork& declared) -> std::string {
      return declared.stages > 0 ? "" : "max_ratio_to_slowest_stage needs the suite to declare the pipeline's stages "
                                        "(PerformanceWork::stages, or PreviewWork::stages in a self-check)";
    },
};

}  // namespace

const std::vector<ThresholdKindEntry>& threshold_kinds() {
  static const std::vector<ThresholdKindEntry> kinds{kRatio, kBandwidth, kFlops, kMilliseconds, kSlowestStage};
  return kinds;
}

const ThresholdKindEntry& threshold_kind(ThresholdKind kind) {
  for (const ThresholdKindEntry& entry : threshold_kinds()) {
    if (entry.kind == kind) return entry;
  }
  throw std::logic_error(fmt::format("threshold kind {} has no entry in threshold_kinds()", static_cast<int>(kind)));
}

const ThresholdKindEntry* find_threshold_kind(std::string_view key) {
  for (const ThresholdKindEntry& entry : threshold_kinds()) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

std::string threshold_kind_keys(std::string_view last_separator) {
  std::vector<std::string_view> keys;
  for (const ThresholdKindEntry& entry : threshold_kinds()) keys.push_back(entry.key);
  return name_list(keys, last_separator);
}

}  // namespace cudalabs::config
