#include "model/performance_result.hpp"

#include <fmt/format.h>

#include "model/roofline.hpp"

namespace labgrade {
namespace {

cudalabs::config::MeasuredFigure figure(const TimedSummary& summary) {
  return {summary.median, summary.low, summary.high};
}

}  // namespace

std::string compared_with_label(const PerformanceMeasurement& m) {
  if (timed_alone(m)) return "nothing (timed alone)";
  return m.compared_with == "solution" ? "solution" : "slowest stage (" + m.compared_with + ")";
}

cudalabs::config::Timings PerformanceMeasurement::timings() const {
  return cudalabs::config::Timings{figure(student_ms), figure(ratio), bytes, flops, peak_bandwidth_gbs, peak_gflops};
}

std::optional<PerformanceMeasurement> parse_measurement(const nlohmann::json& event) {
  cudalabs::events::Measurement read;
  try {
    read = event.get<cudalabs::events::Measurement>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  PerformanceMeasurement m;
  m.device = read.device;
  m.student_ms = read.student_ms;
  m.solution_ms = read.solution_ms;
  m.ratio = read.ratio;
  m.target_met = read.target_met;
  m.points_settled = read.points_settled;
  m.rounds = read.rounds;
  m.remeasured = read.remeasured;
  m.kept_best = read.kept_best;
  m.gated = read.gated;
  m.ungated_because = read.ungated_because;
  m.seconds = read.seconds;
  m.bytes = read.bytes;
  m.flops = read.flops;
  m.achieved_gbs = read.achieved_gbs;
  m.achieved_gflops = read.achieved_gflops;
  m.peak_bandwidth_gbs = read.peak_bandwidth_gbs;
  m.peak_gflops = read.peak_gflops;
  m.fp32_peak_gflops = read.fp32_peak_gflops;
  m.sm_clock_mhz = read.clocks.sm_mhz_measured;
  m.clock_note = read.clocks.note;
  m.implausible = read.implausible;
  m.implausible_reason = read.implausible_reason;
  m.machine_busy = read.machine_busy;
  m.bandwidth_limit_gbs = read.bandwidth_limit_gbs;
  m.flops_limit_gflops = read.flops_limit_gflops;
  m.verified_samples = read.verified_samples;
  m.timing_seed = read.timing_seed;
  m.case_seed = read.case_seed;
  m.compared_with = read.compared_with;
  m.stages = read.stages;
  return m;
}

nlohmann::json to_json(const PerformanceResult& result) {
  const PerformanceMeasurement& m = result.measurement;
  const cudalabs::config::Verdict& v = result.verdict;
  const std::optional<Roofline> roofline = roofline_of(m);
  return {{"device", m.device},
          {"student_ms", m.student_ms},
          {"solution_ms", m.solution_ms},
          {"ratio", m.ratio},
          {"precision_target_met", m.target_met},
          {"points_settled", m.points_settled},
          {"rounds", m.rounds},
          {"remeasured", m.remeasured},
          {"kept_best", m.kept_best},
          {"gated_windows", m.gated},
          {"ungated_because", m.ungated_because},
          {"measure_seconds", m.seconds},
          {"bytes", m.bytes},
          {"flops", m.flops},
          {"achieved_gbs", m.achieved_gbs},
          {"achieved_gflops", m.achieved_gflops},
          {"peak_bandwidth_gbs", m.peak_bandwidth_gbs},
          {"peak_gflops", m.peak_gflops},
          {"fp32_peak_gflops", m.fp32_peak_gflops},
          {"roofline", roofline ? to_json(*roofline) : nlohmann::json(nullptr)},
          {"sm_clock_mhz", m.sm_clock_mhz},
          {"clock_note", m.clock_note},
          {"implausible", m.implausible},
          {"implausible_reason", m.implausible_reason},
          {"machine_busy", m.machine_busy},
          {"bandwidth_limit_gbs", m.bandwidth_limit_gbs},
          {"flops_limit_gflops", m.flops_limit_gflops},
          {"verified_samples", m.verified_samples},
          {"timing_seed", m.timing_seed},
          {"case_seed", m.case_seed},
          {"compared_with", m.compared_with},
          {"stages", m.stages},
          {"verdict",
           {{"applicable", v.applicable},
            {"limit", v.limit},
            {"figure", {{"median", v.figure.median}, {"low", v.figure.low}, {"high", v.figure.high}}},
            {"credit", v.credit},
            {"too_close_to_call", v.too_close_to_call},
            {"explanation", v.explanation}}}};
}

namespace {

// How the sampling ended, when not on the precision target; `what` it settled otherwise.
std::string precision_note(const PerformanceMeasurement& m, const char* what) {
  if (m.target_met) return "";
  return m.points_settled ? fmt::format(", enough to settle the {}", what) : ", precision target not reached";
}

}  // namespace

bool timed_alone(const PerformanceMeasurement& m) { return m.compared_with == cudalabs::events::kComparedWithNothing; }

std::string describe(const PerformanceResult& result) {
  const PerformanceMeasurement& m = result.measurement;
  std::string line =
      timed_alone(m)
          ? fmt::format("your code alone {:.4g} ms (median of {} samples, interval {:.4g}-{:.4g}{})", m.student_ms.median,
                        m.rounds, m.student_ms.low, m.student_ms.high,
                        precision_note(m, "verdict"))
          : fmt::format("student {:.4g} ms, {} {:.4g} ms, ratio {:.3f} ({} rounds{}{})",
                                 m.student_ms.median, compared_with_label(m), m.solution_ms.median, m.ratio.median,
                                 m.rounds,
                                 precision_note(m, "points"),
                                 cudalabs::events::remeasured_note(m.remeasured, m.kept_best));
  if (m.bytes > 0 && m.peak_bandwidth_gbs > 0) {
    line += fmt::format("; {:.0f} GB/s = {:.1f}% of the device's {:.0f} GB/s copy bandwidth", m.achieved_gbs,
                        100 * m.achieved_gbs / m.peak_bandwidth_gbs, m.peak_bandwidth_gbs);
  }
  if (m.flops > 0) line += fmt::format("; {:.1f} GFLOP/s", m.achieved_gflops);
  line += cudalabs::events::ungated_note(m.ungated_because);
  if (!m.stages.empty()) {
    line += "; stages alone:";
    for (const cudalabs::events::StageTime& stage : m.stages) {
      line += fmt::format(" {} {:.4g} ms{}", stage.name, stage.ms.median, &stage == &m.stages.back() ? "" : ",");
    }
  }
  if (const auto roofline = roofline_of(m)) line += "\n" + describe(*roofline);
  return line + "\n" + result.verdict.explanation;
}

}  // namespace labgrade
