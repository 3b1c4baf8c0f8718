#include "cudalabs/performance_case.hpp"

#include <chrono>
#include <string>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config_files.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/result_stream.hpp"
#include "cudalabs/timing/device_peaks.hpp"

namespace cudalabs {
namespace {

using config::MeasuredFigure;
using config::ThresholdKind;

timing::SamplingPolicy policy_from(const config::TimingSettings& settings) {
  timing::SamplingPolicy policy;
  policy.warmup = settings.warmup;
  policy.min_samples = settings.min_samples;
  policy.max_samples = settings.max_samples;
  policy.target_relative_ci = settings.target_relative_ci;
  policy.confidence = settings.confidence;
  policy.time_budget_seconds = settings.time_budget_seconds;
  return policy;
}

std::string device_name() {
  int device = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

config::Timings timings_of(const timing::PairedResult& result, const PerformanceWork& work,
                           double peak_bandwidth_gbs) {
  auto figure = [](const timing::SampleSummary& summary) {
    return MeasuredFigure{summary.median, summary.ci.low, summary.ci.high};
  };
  return config::Timings{figure(result.student_ms), figure(result.ratio), work.bytes, work.flops,
                         peak_bandwidth_gbs, work.peak_gflops};
}

nlohmann::json summary_json(const timing::SampleSummary& summary) {
  return {{"median", summary.median}, {"low", summary.ci.low}, {"high", summary.ci.high},
          {"samples", summary.samples}};
}

// What the suite must declare for the threshold to mean anything.
std::string missing_declaration(ThresholdKind kind, const PerformanceWork& work) {
  if (kind == ThresholdKind::MinFractionOfPeakBandwidth && work.bytes <= 0) {
    return "min_fraction_of_peak_bandwidth needs the suite to declare the bytes moved (PerformanceWork::bytes)";
  }
  if (kind == ThresholdKind::MinFractionOfPeakFlops && (work.flops <= 0 || work.peak_gflops <= 0)) {
    return "min_fraction_of_peak_flops needs the suite to declare flops and peak_gflops";
  }
  return "";
}

// A case without a solution (a public case, run by the students' self-check too) times the
// student alone; only thresholds relative to this device need no reference.
timing::PairedResult measure(const PerformanceWork& work, const timing::SamplingPolicy& policy) {
  if (work.workload.solution) return timing::measure_interleaved(work.workload, policy);
  const auto started = std::chrono::steady_clock::now();
  timing::PairedResult result;
  result.student_ms = timing::measure_single(work.workload.student, work.workload.restore_inputs, policy);
  result.rounds = static_cast<int>(result.student_ms.samples);
  result.target_met = result.student_ms.relative_halfwidth() <= policy.target_relative_ci;
  result.seconds_spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace

void run_performance_case_in(const char* default_lab_config, const char* default_course_config,
                             std::string_view name, const PerformanceWork& work) {
  const config::LabConfig& lab = lab_config_from(default_lab_config);
  const config::CourseConfig& course = course_config_from(default_course_config);
  const std::string test = "Performance." + std::string(name);
  const config::PerformanceSpec* spec = lab.find_performance_test(test);
  if (!spec) {
    ADD_FAILURE() << lab.source_path << ": performance: has no case '" << name << "' (this is a grader bug)";
    return;
  }
  const ThresholdKind kind = spec->threshold.kind;
  if (!work.workload.solution && kind == ThresholdKind::MaxRatioToSolution) {
    ADD_FAILURE() << "performance case '" << name << "': max_ratio_to_solution needs the solution's timing, "
                  << "but the suite gives none (this is a grader bug)";
    return;
  }
  if (const std::string missing = missing_declaration(kind, work); !missing.empty()) {
    ADD_FAILURE() << "performance case '" << name << "': " << missing << " (this is a grader bug)";
    return;
  }

  const std::string device = device_name();
  const double peak_bandwidth_gbs = timing::measured_copy_bandwidth_gbs();
  timing::SamplingPolicy policy = policy_from(course.timing);
  timing::PairedResult result;
  config::Verdict verdict;
  int attempts = 0;
  for (;;) {
    result = measure(work, policy);
    verdict = config::judge(*spec, config::figure_for(kind, timings_of(result, work, peak_bandwidth_gbs)), device);
    if (!verdict.too_close_to_call || attempts >= course.timing.remeasure_attempts) break;
    // Too close to call: a longer measurement narrows the interval around the true median.
    ++attempts;
    policy.max_samples *= 2;
    policy.time_budget_seconds *= 2;
  }

  const double student_seconds = result.student_ms.median * 1e-3;
  const timing::ClockReading clocks = timing::read_clocks();
  const bool paired = static_cast<bool>(work.workload.solution);
  nlohmann::json event{
      {"event", "measurement"},
      {"test", test},
      {"device", device},
      {"threshold_kind", std::string(config::to_string(kind))},
      {"figure", {{"median", verdict.figure.median}, {"low", verdict.figure.low}, {"high", verdict.figure.high}}},
      {"student_ms", summary_json(result.student_ms)},
      {"solution_ms", paired ? summary_json(result.solution_ms) : nlohmann::json()},  // null: timed alone
      {"ratio", paired ? summary_json(result.ratio) : nlohmann::json()},
      {"target_met", result.target_met},
      {"rounds", result.rounds},
      {"remeasured", attempts},
      {"seconds", result.seconds_spent},
      {"bytes", work.bytes},
      {"flops", work.flops},
      {"achieved_gbs", work.bytes > 0 ? work.bytes / student_seconds / 1e9 : 0.0},
      {"achieved_gflops", work.flops > 0 ? work.flops / student_seconds / 1e9 : 0.0},
      {"peak_bandwidth_gbs", peak_bandwidth_gbs},
      {"peak_gflops", work.peak_gflops},
      {"clocks",
       {{"sm_mhz_measured", clocks.sm_clock_mhz_measured},
        {"sm_mhz_max", clocks.sm_clock_mhz_max},
        {"memory_mhz", clocks.memory_clock_mhz},
        {"note", clocks.note}}}};
  emit_result_event(event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));

  const std::string timed =
      paired ? fmt::format("student {:.4g} ms, solution {:.4g} ms (medians of {} interleaved rounds",
                           result.student_ms.median, result.solution_ms.median, result.rounds)
             : fmt::format("student {:.4g} ms (median of {} samples, timed alone", result.student_ms.median,
                           result.rounds);
  const std::string figures = fmt::format(
      "{}{}){}", timed, result.target_met ? "" : ", precision target not reached",
      work.bytes > 0 ? fmt::format("; {:.0f} GB/s = {:.1f}% of this device's {:.0f} GB/s copy bandwidth",
                                   work.bytes / student_seconds / 1e9,
                                   100 * work.bytes / student_seconds / 1e9 / peak_bandwidth_gbs, peak_bandwidth_gbs)
                     : "");
  if (verdict.applicable && verdict.credit < 1.0) {
    ADD_FAILURE() << "performance case '" << name << "': " << verdict.explanation << "\n" << figures;
  } else {
    std::cout << "[ timing   ] " << name << ": " << verdict.explanation << "\n             " << figures << "\n";
  }
}

}  // namespace cudalabs
