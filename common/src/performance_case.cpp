#include "cudalabs/performance_case.hpp"

#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "config_files.hpp"
#include "performance_common.hpp"
#include "profiled_call.hpp"
#include "cudalabs/course/harness_events.hpp"
#include "cudalabs/course/threshold_kinds.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/grade_seed.hpp"
#include "cudalabs/timing/plausibility.hpp"

namespace cudalabs {
namespace {

using config::MeasuredFigure;
using config::ThresholdKind;
using detail::device_name;
using detail::policy_from;
using detail::SlowestStage;
using detail::summary_of;

config::Timings timings_of(const timing::SampleSummary& student_ms, const timing::SampleSummary& ratio,
                           const PerformanceWork& work, double peak_bandwidth_gbs) {
  auto figure = [](const timing::SampleSummary& summary) {
    return MeasuredFigure{summary.median, summary.ci.low, summary.ci.high};
  };
  return config::Timings{figure(student_ms), figure(ratio), work.bytes, work.flops, peak_bandwidth_gbs,
                         work.peak_gflops};
}

// What this GPU can do at most, for the plausibility check of the student's figures.
timing::DeviceCeilings device_ceilings(const PerformanceWork& work, double peak_bandwidth_gbs) {
  int device = 0;
  int l2 = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return {peak_bandwidth_gbs, static_cast<double>(l2), work.flops > 0 ? timing::fp32_peak_gflops() : 0.0};
}

// How far a pair of runner processes moved the same solution's ratio on the H100 (0.94-1.13x).
constexpr double kRunnerPairBias = 0.15;

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
  const config::DeclaredWork declared{work.bytes, work.flops, work.peak_gflops, static_cast<int>(work.stages.size())};
  if (const std::string missing = config::threshold_kind(kind).missing_declaration(declared); !missing.empty()) {
    ADD_FAILURE() << "performance case '" << name << "': " << missing << " (this is a grader bug)";
    return;
  }

  // labgrade's profile pass: one call of the side Nsight Compute watches (a pipeline compared with
  // its slowest stage has no reference call), nothing checked or timed.
  if (const std::optional<detail::ProfiledSide> side = detail::profile_pass_side()) {
    if (*side == detail::ProfiledSide::student || work.workload.solution) {
      detail::make_profiled_call(work.workload, timing::case_seed(name, -1), *side);
    }
    return;
  }

  // Not timed unless right: one student call on fresh inputs of the timed size, checked on the GPU
  // against the reference made afterwards (and the sealed inputs against their checksums).
  const std::uint64_t qualifying_seed = timing::case_seed(name, -1);
  if (const std::string wrong = timing::qualifying_call(work.workload, qualifying_seed); !wrong.empty()) {
    ADD_FAILURE() << "performance case '" << name << "': the untimed check at the timed size failed (inputs from seed "
                  << timing::format_seed(qualifying_seed) << "): " << wrong << "\nA wrong result is not timed.";
    return;
  }

  const std::string device = device_name();
  const double peak_bandwidth_gbs = timing::measured_copy_bandwidth_gbs();
  const config::TimingSettings settings = lab.timing_settings(course);
  timing::SamplingPolicy policy = policy_from(settings);
  // Rounds past the point where the case's points are the same anywhere in the intervals would
  // change no point: the measurement stops there (the report says so, beside the interval).
  policy.settled = [&](const timing::SampleSummary& student_ms, const timing::SampleSummary& ratio) {
    return config::points_settled(
        *spec, config::figure_for(kind, timings_of(student_ms, ratio, work, peak_bandwidth_gbs)), device);
  };
  const timing::DeviceCeilings ceilings = device_ceilings(work, peak_bandwidth_gbs);
  timing::Workload workload = work.workload;
  // A pipeline is compared with the slowest of its stages, which takes the solution's place.
  SlowestStage slowest;
  if (!work.stages.empty()) {
    slowest = detail::measure_stages(work.stages, work.workload.prepare, policy, timing::case_seed(name, -2));
    workload.solution = slowest.stage->launch;
  }
  timing::PairedResult result;
  timing::Plausibility plausibility;
  config::Verdict verdict;
  int attempts = 0;
  bool measured = false;  // an attempt undisturbed by the machine's load is in `result`
  const bool judged_through_runners = remote::judge_mode();
  // Through runners each attempt is a new pair of processes; the student keeps the best of the
  // pairs, for their bias is the instrument's. Not once a measurement of the case left the gated
  // windows (PairedResult::ungated_because): a window timed from request to reply carries each
  // runner's own host path (+-1-2% a pair), and the student's code can choose that instrument (a
  // call that waits for the GPU only while held at the gate), so the best of its pairs would pay
  // for the choice. From then on the pairs are not shopped among: a longer measurement supersedes
  // the last, as in process, and no new pair is sought for the bias alone.
  bool left_the_gate = false;
  for (;;) {
    workload.seed = timing::case_seed(name, attempts);  // fresh inputs for every measurement
    const timing::PairedResult attempt = timing::measure_interleaved(workload, policy);
    if (!attempt.ungated_because.empty()) left_the_gate = true;
    const bool best_of_pairs = judged_through_runners && !left_the_gate;
    if (!attempt.integrity_failure.empty()) {
      // Figures of calls that did not do their work mean nothing: no measurement is reported,
      // so labgrade gives the case no points, with this message.
      ADD_FAILURE() << "performance case '" << name << "': " << attempt.integrity_failure
                    << "\nThe timed calls must compute the result for the inputs of each call, on the stream they are "
                       "given; no points for this case.";
      return;
    }
    if (!attempt.machine_busy.empty()) {
      // The machine's load set these figures: a new pair of runners measures again, and the
      // case is left unscored if every attempt was as disturbed.
      if (!measured) result = attempt;
      if (attempts >= settings.remeasure_attempts) break;
      ++attempts;
      if (judged_through_runners) remote::replace_timed_runners();
      continue;
    }
    const timing::Plausibility attempt_plausibility =
        timing::check_plausibility(work.bytes, work.flops, attempt.student_ms.median, ceilings);
    const config::Verdict attempt_verdict = config::judge(
        *spec, config::figure_for(kind, timings_of(attempt.student_ms, attempt.ratio, work, peak_bandwidth_gbs)),
        device);
    // A longer measurement supersedes a shorter one, unless the best of the pairs is kept (above;
    // every one of them fully checked).
    if (!measured || !best_of_pairs || attempt_plausibility.implausible || attempt_verdict.credit > verdict.credit) {
      result = attempt;
      plausibility = attempt_plausibility;
      verdict = attempt_verdict;
    }
    measured = true;
    if (plausibility.implausible || attempts >= settings.remeasure_attempts) break;
    const bool another_pair_could_differ =
        best_of_pairs && config::could_earn_more_within(*spec, verdict, kRunnerPairBias, device);
    if (!verdict.too_close_to_call && !another_pair_could_differ) break;
    // Too close to call: a longer measurement narrows the interval around the true median.
    ++attempts;
    policy.max_samples *= 2;
    policy.time_budget_seconds *= 2;
    if (judged_through_runners) remote::replace_timed_runners();
  }

  // Zero when no round was kept (every one timed a busy machine): no rate to report then.
  const double student_seconds = result.student_ms.median * 1e-3;
  const auto per_second = [&](double amount) { return amount > 0 && student_seconds > 0 ? amount / student_seconds : 0.0; };
  const timing::ClockReading clocks = timing::read_clocks();
  events::Measurement event;
  event.test = test;
  event.device = device;
  event.threshold_kind = std::string(config::to_string(kind));
  event.figure = {verdict.figure.median, verdict.figure.low, verdict.figure.high};
  event.student_ms = summary_of(result.student_ms);
  event.solution_ms = summary_of(result.solution_ms);
  event.ratio = summary_of(result.ratio);
  event.target_met = result.target_met;
  event.points_settled = result.settled;
  event.rounds = result.rounds;
  event.remeasured = attempts;
  // Of several measurements by runner pairs, the best was kept (else the last: see left_the_gate).
  const bool kept_best = judged_through_runners && !left_the_gate && attempts > 0;
  event.kept_best = kept_best;
  event.gated = result.gated;
  event.ungated_because = result.ungated_because;
  event.seconds = result.seconds_spent;
  event.bytes = work.bytes;
  event.flops = work.flops;
  event.achieved_gbs = per_second(work.bytes) / 1e9;
  event.achieved_gflops = per_second(work.flops) / 1e9;
  event.peak_bandwidth_gbs = peak_bandwidth_gbs;
  event.peak_gflops = work.peak_gflops;
  event.fp32_peak_gflops = timing::fp32_peak_gflops();  // the roofline's compute roof (device attributes only)
  event.clocks = {clocks.sm_clock_mhz_measured, clocks.sm_clock_mhz_max, clocks.memory_clock_mhz, clocks.note};
  event.timing_seed = timing::format_seed(timing::grade_seed());
  event.case_seed = timing::format_seed(workload.seed);
  if (slowest.stage) {
    event.compared_with = slowest.stage->name;
    event.stages = slowest.times;
  }
  event.verified_samples = result.verified_samples;
  event.implausible = plausibility.implausible;
  event.implausible_reason = plausibility.reason;
  event.machine_busy = result.machine_busy;
  event.bandwidth_limit_gbs = plausibility.bandwidth_limit_gbs;
  event.flops_limit_gflops = plausibility.flops_limit_gflops;
  emit_result_event(events::to_line(event));

  std::string stages;
  for (const events::StageTime& stage : slowest.times) {
    stages += fmt::format("{}{} {:.4g} ms", stages.empty() ? "; stages alone: " : ", ", stage.name, stage.ms.median);
  }
  const std::string figures = fmt::format(
      "student {:.4g} ms, {} {:.4g} ms (medians of {} interleaved rounds{}{}{}{}){}{}", result.student_ms.median,
      slowest.stage ? "slowest stage (" + slowest.stage->name + ")" : std::string("solution"),
      result.solution_ms.median, result.rounds,
      result.target_met ? "" : result.settled ? ", enough to settle the points" : ", precision target not reached",
      events::remeasured_note(attempts, kept_best),
      result.call_overhead_ms > 0
          ? fmt::format(result.gated ? ", each less the {:.4g} ms of an empty gated window on the reference's runner (on yours: {:.4g} ms)"
                                     : ", each less the {:.4g} ms round trip of an empty call to the reference's runner (to yours: {:.4g} ms)",
                        result.call_overhead_ms, result.student_call_overhead_ms)
          : std::string(),
      events::ungated_note(result.ungated_because),
      stages,
      per_second(work.bytes) > 0
          ? fmt::format("; {:.0f} GB/s = {:.1f}% of this device's {:.0f} GB/s copy bandwidth", event.achieved_gbs,
                        100 * event.achieved_gbs / peak_bandwidth_gbs, peak_bandwidth_gbs)
          : "");
  if (!result.machine_busy.empty()) {
    ADD_FAILURE() << "performance case '" << name << "': not scored, the machine was too busy to time it fairly "
                  << "(grade again when it is quieter): " << result.machine_busy << "\n" << figures;
  } else if (plausibility.implausible) {
    ADD_FAILURE() << "performance case '" << name << "': implausible figure, not scored (for the instructor to "
                  << "review): " << plausibility.reason << "\n" << figures;
  } else if (verdict.applicable && verdict.credit < 1.0) {
    ADD_FAILURE() << "performance case '" << name << "': " << verdict.explanation << "\n" << figures;
  } else {
    std::cout << "[ timing   ] " << name << ": " << verdict.explanation << "\n             " << figures << "\n";
  }
}

}  // namespace cudalabs
