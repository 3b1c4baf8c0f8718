#include "cudalabs/performance_preview.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <stdexcept>
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
#include "cudalabs/result_stream.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "cudalabs/timing/grade_seed.hpp"
#include "cudalabs/timing/l2_flush.hpp"
#include "cudalabs/timing/plausibility.hpp"
#include "cudalabs/timing/stream_fan.hpp"

namespace cudalabs {
namespace {

using Clock = std::chrono::steady_clock;
using config::ThresholdKind;
using detail::device_name;
using detail::policy_from;
using detail::SlowestStage;
using detail::summary_of;

// Seeds of warm-up calls live in a domain of their own, apart from the timed rounds' (the
// engine's warm-up domain is private to it; any other constant does as well).
constexpr std::uint64_t kPreviewWarmupDomain = 0x5052455657524d55ull;  // "PREVWRMU"

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}


// After a verified call: "" when every sealed input is as sealed and verify finds the output right.
std::string check_call(const timing::Workload& work, const std::vector<std::uint64_t>& sums, std::uint64_t seed,
                       cudaStream_t stream) {
  const std::vector<std::uint64_t> now = timing::sealed_input_sums(work, stream);
  for (std::size_t i = 0; i < sums.size() && i < now.size(); ++i) {
    if (now[i] != sums[i]) return "its input " + work.sealed_inputs[i].name + " was changed (inputs are read-only)";
  }
  return work.verify(seed, stream);
}

// How long the device took to finish everything still queued anywhere in the context once the
// timed stream had finished: near zero unless the call left work on another stream.
double outstanding_ms() {
  const Clock::time_point before = Clock::now();
  CUDALABS_CHECK(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::milli>(Clock::now() - before).count();
}

}  // namespace

PreviewSamples measure_student_alone(const timing::Workload& work, const timing::SamplingPolicy& policy,
                                     cudaStream_t stream) {
  timing::validate(policy);
  if (!work.student) throw std::invalid_argument("measure_student_alone: Workload needs a student call");
  const Clock::time_point started = Clock::now();
  timing::L2Flusher flusher;
  timing::EventTimer timer;
  timing::StreamFan fan(work.side_streams);
  PreviewSamples result;

  // One call, forked to the side streams and joined back; its status, then the launch itself.
  auto call = [&]() {
    fan.fork(stream);
    const cudaError_t status = work.student(stream);
    CUDALABS_CHECK_LAUNCH();
    fan.join(stream);
    return status;
  };

  for (int i = 0; i < policy.warmup; ++i) {
    if (work.prepare) work.prepare(timing::round_seed(kPreviewWarmupDomain ^ work.seed, static_cast<std::uint64_t>(i)), stream);
    if (const std::string failed = timing::describe_student_status(call()); !failed.empty()) {
      result.integrity_failure = "warm-up call " + std::to_string(i + 1) + " failed: " + failed;
      return result;
    }
  }
  CUDALABS_CHECK(cudaDeviceSynchronize());  // nothing queued before the first sample delays it

  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(policy.max_samples));
  for (int round = 0;; ++round) {
    const std::uint64_t seed = timing::round_seed(work.seed, static_cast<std::uint64_t>(round));
    const bool checked = true;  // every call: nothing tells a checked one from another
    if (work.prepare) work.prepare(seed, stream);
    const std::vector<std::uint64_t> sums =
        checked ? timing::sealed_input_sums(work, stream) : std::vector<std::uint64_t>{};
    flusher.flush(stream);  // also resets persisting-L2 lines and limit
    timer.start(stream);
    const cudaError_t status = call();
    timer.stop(stream);
    const double ms = timer.elapsed_ms();  // waits for the stop event
    if (const std::string failed = timing::describe_student_status(status); !failed.empty()) {
      result.integrity_failure = "timed call " + std::to_string(round + 1) + " failed: " + failed;
      break;
    }
    const double outstanding = outstanding_ms();
    if (outstanding > timing::kOutstandingWorkLimitMs) {
      ++result.samples_with_outstanding_work;
      result.max_outstanding_ms = std::max(result.max_outstanding_ms, outstanding);
      if (result.samples_with_outstanding_work >= timing::kOutstandingWorkStrikes) {
        result.integrity_failure = fmt::format(
            "work was still running on the GPU after the stream you were given finished (after {} of {} timed "
            "calls; the device needed up to {:.3f} ms more to go idle): launch everything on that stream",
            result.samples_with_outstanding_work, round + 1, result.max_outstanding_ms);
        break;
      }
    }
    if (checked) {
      ++result.verified_samples;
      if (const std::string wrong = check_call(work, sums, seed, stream); !wrong.empty()) {
        result.integrity_failure = fmt::format("the timed call's result was wrong on sample {} (inputs from seed {}): {}",
                                               round + 1, timing::format_seed(seed), wrong);
        break;
      }
    }
    times.push_back(ms);
    result.student_ms = timing::summarize(times, policy.confidence);
    // The student's time is the tracked figure here, in both of paired_stop's places.
    const timing::PairedStop decision =
        timing::paired_stop(result.student_ms, result.student_ms, seconds_since(started), policy);
    result.target_met = decision.target_met;
    result.settled = decision.settled;
    if (decision.stop) break;
  }
  if (!result.integrity_failure.empty()) result.target_met = result.settled = false;
  result.student_ms = timing::summarize(times, policy.confidence);
  result.seconds_spent = seconds_since(started);
  return result;
}

void run_performance_preview_in(const char* default_lab_config, const char* default_course_config,
                                std::string_view name, const PreviewWork& work) {
  const config::LabConfig& lab = lab_config_from(default_lab_config);
  const config::CourseConfig& course = course_config_from(default_course_config);
  const std::string test = "Preview." + std::string(name);
  const config::PerformanceSpec* spec = lab.find_performance_test(test);
  if (!spec || !spec->preview) {
    ADD_FAILURE() << lab.source_path << ": performance: has no timing preview '" << name
                  << "' (an entry with preview: true; this is a bug of the lab's self-check)";
    return;
  }
  const ThresholdKind kind = spec->threshold.kind;
  const config::DeclaredWork declared{work.bytes, work.flops, work.peak_gflops, static_cast<int>(work.stages.size())};
  if (const std::string missing = config::threshold_kind(kind).missing_declaration(declared); !missing.empty()) {
    ADD_FAILURE() << "timing preview '" << name << "': " << missing << " (a bug of the lab's self-check)";
    return;
  }
  if (!work.workload.verify) {
    ADD_FAILURE() << "timing preview '" << name << "': its timed calls' outputs must be checked (workload.verify; "
                  << "a bug of the lab's self-check)";
    return;
  }

  // labgrade's profile pass: one call of the student's code under Nsight Compute, nothing else.
  if (detail::profile_pass_side()) {
    detail::make_profiled_call(work.workload, timing::case_seed(name, -1), detail::ProfiledSide::student);
    return;
  }

  // The qualifying call's status, to tell code not written yet (skipped: the tests before say which
  // function) from code that is wrong at the timed size (a failure).
  cudaError_t qualifying_status = cudaSuccess;
  timing::Workload qualifying = work.workload;
  qualifying.student = [&](cudaStream_t stream) { return qualifying_status = work.workload.student(stream); };
  const std::uint64_t qualifying_seed = timing::case_seed(name, -1);
  const std::string wrong = timing::qualifying_call(qualifying, qualifying_seed);
  if (qualifying_status == cudaErrorNotYetImplemented) {
    GTEST_SKIP() << "not timed: the code it times returned cudaErrorNotYetImplemented (a TODO(student) left)";
  }
  if (!wrong.empty()) {
    ADD_FAILURE() << "timing preview '" << name << "': the untimed check at the timed size failed (inputs from seed "
                  << timing::format_seed(qualifying_seed) << "): " << wrong << "\nA wrong result is not timed.";
    return;
  }

  const std::string device = device_name();
  const double peak_bandwidth_gbs = timing::measured_copy_bandwidth_gbs();
  timing::SamplingPolicy policy = policy_from(lab.timing_settings(course));
  // A pipeline is compared with the slowest of its stages, each measured alone on the prepared
  // inputs (seeded as in the graded case) before the student's calls. The grade interleaves that
  // stage with the student's calls; a preview has no paired engine, so one follows the other.
  SlowestStage slowest;
  if (kind == ThresholdKind::MaxRatioToSlowestStage) {
    slowest = detail::measure_stages(work.stages, work.workload.prepare, policy, timing::case_seed(name, -2));
  }
  // The figure a preview's threshold reads, from the student's time (and the slowest stage's).
  const auto timings_from = [&](const timing::SampleSummary& student_ms) {
    const config::MeasuredFigure time{student_ms.median, student_ms.ci.low, student_ms.ci.high};
    config::MeasuredFigure ratio;  // against the slowest stage: the student's interval over its median
    if (slowest.stage && slowest.ms.median > 0) {
      ratio = {time.median / slowest.ms.median, time.low / slowest.ms.median, time.high / slowest.ms.median};
    }
    return config::Timings{time, ratio, work.bytes, work.flops, peak_bandwidth_gbs, work.peak_gflops};
  };
  // Met or not met anywhere in the interval: more samples would change nothing the student sees.
  policy.settled = [&](const timing::SampleSummary& student_ms, const timing::SampleSummary&) {
    return config::points_settled(*spec, config::figure_for(kind, timings_from(student_ms)), device);
  };
  timing::Workload workload = work.workload;
  workload.seed = timing::case_seed(name, 0);
  const PreviewSamples samples = measure_student_alone(workload, policy);
  if (!samples.integrity_failure.empty()) {
    ADD_FAILURE() << "timing preview '" << name << "': " << samples.integrity_failure
                  << "\nThe timed calls must compute the result for the inputs of each call, on the stream they are "
                     "given; the grade's timed cases check the same.";
    return;
  }

  int device_index = 0;
  int l2_bytes = 0;
  CUDALABS_CHECK(cudaGetDevice(&device_index));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device_index));
  const timing::DeviceCeilings ceilings{peak_bandwidth_gbs, static_cast<double>(l2_bytes),
                                        work.flops > 0 ? timing::fp32_peak_gflops() : 0.0};
  const timing::Plausibility plausibility =
      timing::check_plausibility(work.bytes, work.flops, samples.student_ms.median, ceilings);
  // Against the slowest stage: the student's interval over its median (the stage's own spread,
  // measured apart, is left out).
  const config::Timings timings = timings_from(samples.student_ms);
  const config::MeasuredFigure& ratio = timings.ratio;
  const config::Verdict verdict = config::judge(*spec, config::figure_for(kind, timings), device);

  const double student_seconds = samples.student_ms.median * 1e-3;
  const timing::ClockReading clocks = timing::read_clocks();
  events::Measurement event;
  event.test = test;
  event.device = device;
  event.threshold_kind = std::string(config::to_string(kind));
  event.figure = {verdict.figure.median, verdict.figure.low, verdict.figure.high};
  event.student_ms = summary_of(samples.student_ms);
  event.target_met = samples.target_met;
  event.points_settled = samples.settled;
  event.rounds = static_cast<int>(samples.student_ms.samples);
  event.seconds = samples.seconds_spent;
  event.bytes = work.bytes;
  event.flops = work.flops;
  event.achieved_gbs = work.bytes > 0 ? work.bytes / student_seconds / 1e9 : 0.0;
  event.achieved_gflops = work.flops > 0 ? work.flops / student_seconds / 1e9 : 0.0;
  event.peak_bandwidth_gbs = peak_bandwidth_gbs;
  event.peak_gflops = work.peak_gflops;
  event.fp32_peak_gflops = timing::fp32_peak_gflops();  // the roofline's compute roof (device attributes only)
  event.clocks = {clocks.sm_clock_mhz_measured, clocks.sm_clock_mhz_max, clocks.memory_clock_mhz, clocks.note};
  event.timing_seed = timing::format_seed(timing::grade_seed());
  event.case_seed = timing::format_seed(workload.seed);
  if (slowest.stage) {
    event.compared_with = slowest.stage->name;
    event.solution_ms = summary_of(slowest.ms);
    event.ratio = {ratio.median, ratio.low, ratio.high, samples.student_ms.samples};
    event.stages = slowest.times;
  } else {
    event.compared_with = events::kComparedWithNothing;  // the student's code alone
  }
  event.verified_samples = samples.verified_samples;
  event.implausible = plausibility.implausible;
  event.implausible_reason = plausibility.reason;
  event.bandwidth_limit_gbs = plausibility.bandwidth_limit_gbs;
  event.flops_limit_gflops = plausibility.flops_limit_gflops;
  emit_result_event(events::to_line(event));

  std::string stages;
  for (const events::StageTime& stage : slowest.times) {
    stages += fmt::format("{}{} {:.4g} ms", stages.empty() ? "; stages alone: " : ", ", stage.name, stage.ms.median);
  }
  const std::string figures = fmt::format(
      "your code alone: {:.4g} ms (median of {} samples{}){}{}{}", samples.student_ms.median,
      samples.student_ms.samples,
      samples.target_met ? "" : samples.settled ? ", enough to settle the verdict" : ", precision target not reached",
      slowest.stage ? fmt::format(", slowest stage ({}) {:.4g} ms, ratio {:.3f}", slowest.stage->name,
                                  slowest.ms.median, ratio.median)
                    : std::string(),
      stages,
      work.bytes > 0 ? fmt::format("; {:.0f} GB/s = {:.1f}% of this device's {:.0f} GB/s copy bandwidth",
                                   event.achieved_gbs, 100 * event.achieved_gbs / peak_bandwidth_gbs,
                                   peak_bandwidth_gbs)
                     : "");
  std::cout << "[ preview  ] " << name << ": "
            << (plausibility.implausible ? "implausible figure (" + plausibility.reason + "); " : std::string())
            << verdict.explanation << "\n             " << figures << "\n";
}

}  // namespace cudalabs
