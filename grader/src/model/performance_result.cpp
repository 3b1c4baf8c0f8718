#include "model/performance_result.hpp"

#include <fmt/format.h>

namespace labgrade {
namespace {

TimedSummary summary_from(const nlohmann::json& value) {
  return TimedSummary{value.at("median").get<double>(), value.at("low").get<double>(),
                      value.at("high").get<double>(), value.at("samples").get<std::size_t>()};
}

// A case timed alone (no solution) sends null for the solution's time and the ratio.
TimedSummary optional_summary_from(const nlohmann::json& value) {
  return value.is_null() ? TimedSummary{} : summary_from(value);
}

nlohmann::json summary_json(const TimedSummary& summary) {
  if (summary.samples == 0) return nullptr;
  return {{"median", summary.median}, {"low", summary.low}, {"high", summary.high}, {"samples", summary.samples}};
}

cudalabs::config::MeasuredFigure figure(const TimedSummary& summary) {
  return {summary.median, summary.low, summary.high};
}

}  // namespace

cudalabs::config::Timings PerformanceMeasurement::timings() const {
  return cudalabs::config::Timings{figure(student_ms), figure(ratio), bytes, flops, peak_bandwidth_gbs, peak_gflops};
}

std::optional<PerformanceMeasurement> parse_measurement(const nlohmann::json& event) {
  try {
    PerformanceMeasurement m;
    m.device = event.at("device").get<std::string>();
    m.student_ms = summary_from(event.at("student_ms"));
    m.solution_ms = optional_summary_from(event.at("solution_ms"));
    m.ratio = optional_summary_from(event.at("ratio"));
    m.target_met = event.at("target_met").get<bool>();
    m.rounds = event.at("rounds").get<int>();
    m.remeasured = event.at("remeasured").get<int>();
    m.seconds = event.at("seconds").get<double>();
    m.bytes = event.at("bytes").get<double>();
    m.flops = event.at("flops").get<double>();
    m.achieved_gbs = event.at("achieved_gbs").get<double>();
    m.achieved_gflops = event.at("achieved_gflops").get<double>();
    m.peak_bandwidth_gbs = event.at("peak_bandwidth_gbs").get<double>();
    m.peak_gflops = event.at("peak_gflops").get<double>();
    const nlohmann::json& clocks = event.at("clocks");
    m.sm_clock_mhz = clocks.at("sm_mhz_measured").get<double>();
    m.clock_note = clocks.at("note").get<std::string>();
    return m;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

nlohmann::json to_json(const PerformanceResult& result) {
  const PerformanceMeasurement& m = result.measurement;
  const cudalabs::config::Verdict& v = result.verdict;
  return {{"device", m.device},
          {"student_ms", summary_json(m.student_ms)},
          {"solution_ms", summary_json(m.solution_ms)},
          {"ratio", summary_json(m.ratio)},
          {"precision_target_met", m.target_met},
          {"rounds", m.rounds},
          {"remeasured", m.remeasured},
          {"measure_seconds", m.seconds},
          {"bytes", m.bytes},
          {"flops", m.flops},
          {"achieved_gbs", m.achieved_gbs},
          {"achieved_gflops", m.achieved_gflops},
          {"peak_bandwidth_gbs", m.peak_bandwidth_gbs},
          {"peak_gflops", m.peak_gflops},
          {"sm_clock_mhz", m.sm_clock_mhz},
          {"clock_note", m.clock_note},
          {"verdict",
           {{"applicable", v.applicable},
            {"limit", v.limit},
            {"figure", {{"median", v.figure.median}, {"low", v.figure.low}, {"high", v.figure.high}}},
            {"credit", v.credit},
            {"too_close_to_call", v.too_close_to_call},
            {"explanation", v.explanation}}}};
}

std::string describe(const PerformanceResult& result) {
  const PerformanceMeasurement& m = result.measurement;
  const std::string timed =
      m.solution_ms.samples > 0
          ? fmt::format("student {:.4g} ms, solution {:.4g} ms, ratio {:.3f} ({} rounds", m.student_ms.median,
                        m.solution_ms.median, m.ratio.median, m.rounds)
          : fmt::format("student {:.4g} ms, timed alone ({} samples", m.student_ms.median, m.rounds);
  std::string line = fmt::format("{}{}{})", timed,
                                 m.target_met ? "" : ", precision target not reached",
                                 m.remeasured ? fmt::format(", measured {} more times", m.remeasured) : "");
  if (m.bytes > 0 && m.peak_bandwidth_gbs > 0) {
    line += fmt::format("; {:.0f} GB/s = {:.1f}% of the device's {:.0f} GB/s copy bandwidth", m.achieved_gbs,
                        100 * m.achieved_gbs / m.peak_bandwidth_gbs, m.peak_bandwidth_gbs);
  }
  if (m.flops > 0) line += fmt::format("; {:.1f} GFLOP/s", m.achieved_gflops);
  return line + "\n" + result.verdict.explanation;
}

}  // namespace labgrade
