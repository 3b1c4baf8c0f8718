// How trustworthy is the timing engine on this GPU? Prints, and optionally writes as JSON:
//  1. the device, its measured copy bandwidth and clocks;
//  2. noise: a c = a + b kernel measured against itself 10 times (ratio median, CI, rounds, time);
//  3. verdict stability: a calibrated ~10% slower variant against threshold 1.05 and a ~10%
//     faster one against 1.10, 10 runs each; no run's verdict may differ from the majority;
//  4. wall time per measurement for kernels of about 0.1, 1 and 10 ms (target < 3 s each);
//  5. achieved GB/s of c = a + b as a fraction of the measured copy bandwidth;
//  6. what the timed-call checks cost: c = a + b against itself for a fixed number of rounds,
//     plain, then with fresh seeded inputs and a poisoned output before every sample (prepare)
//     and the reference's result compared with every 4th student sample (verify), as the labs do;
//     wall time per round of each, and the overhead.
// Exit status 1 when a verdict flips or a measurement takes 3 s or more, so a script can tell.
//
//   timing_engine_bench [--json FILE]
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using namespace cudalabs::timing;

constexpr std::size_t kFloats = std::size_t{1} << 26;  // per array: 256 MiB, far beyond any L2
constexpr int kRuns = 10;
constexpr double kWallTargetSeconds = 3.0;
constexpr int kBlock = 256;

// c = a + b over `n4` float4s, `passes` full times, then once more over the first `extra4`
// float4s: extra4 tunes the work (bytes moved) by small fractions without changing the kernel.
__global__ void add_passes(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                           std::size_t n4, int passes, std::size_t extra4) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    for (std::size_t i = first; i < n4; i += stride) {
      const float4 x = a[i];
      const float4 y = b[i];
      c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
  }
  for (std::size_t i = first; i < extra4; i += stride) {
    const float4 x = a[i];
    const float4 y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

// Three arrays and a launcher of add_passes over the first n floats of them.
class AddWorkload {
 public:
  AddWorkload() : a_(kFloats / 4), b_(kFloats / 4), c_(kFloats / 4), expected_(kFloats / 4) {
    a_.fill_bytes(0);
    b_.fill_bytes(0);
    int device = 0;
    int sms = 0;
    int blocks_per_sm = 0;
    CUDALABS_CHECK(cudaGetDevice(&device));
    CUDALABS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDALABS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, add_passes, kBlock, 0));
    grid_ = sms * std::max(blocks_per_sm, 1);
  }

  // extra is a fraction of one pass, e.g. 0.1 for 10% more bytes.
  // As a lab's timed case: a and b from the round's seed, c poisoned; c checked against the
  // same kernel's output in a buffer of its own.
  Prepare prepare() {
    return [this](std::uint64_t seed, cudaStream_t stream) {
      cudalabs::fill_uniform_floats(reinterpret_cast<float*>(a_.data()), kFloats, round_seed(seed, 0), -1.0f, 1.0f,
                                    stream);
      cudalabs::fill_uniform_floats(reinterpret_cast<float*>(b_.data()), kFloats, round_seed(seed, 1), -1.0f, 1.0f,
                                    stream);
      cudalabs::poison_async(c_.data(), c_.bytes(), 0xFF, stream);
    };
  }
  Verify verify() {
    return [this](std::uint64_t, cudaStream_t stream) {
      add_passes<<<grid_, kBlock, 0, stream>>>(a_.data(), b_.data(), expected_.data(), kFloats / 4, 1, 0);
      CUDALABS_CHECK_LAUNCH();
      return cudalabs::check_against_reference(reinterpret_cast<const float*>(expected_.data()),
                                               reinterpret_cast<const float*>(c_.data()), kFloats, {}, "c", stream);
    };
  }

  Launch launch(std::size_t floats, int passes, double extra) {
    const std::size_t n4 = floats / 4;
    const auto extra4 = static_cast<std::size_t>(std::clamp(extra, 0.0, 1.0) * static_cast<double>(n4));
    return [this, n4, passes, extra4](cudaStream_t stream) {
      add_passes<<<grid_, kBlock, 0, stream>>>(a_.data(), b_.data(), c_.data(), n4, passes, extra4);
    };
  }

 private:
  DeviceBuffer<float4> a_;
  DeviceBuffer<float4> b_;
  DeviceBuffer<float4> c_;
  DeviceBuffer<float4> expected_;
  int grid_ = 0;
};

json summary_json(const SampleSummary& s) {
  return {{"median", s.median}, {"ci_low", s.ci.low}, {"ci_high", s.ci.high}, {"samples", s.samples},
          {"relative_halfwidth", s.relative_halfwidth()}};
}

json paired_json(const PairedResult& r) {
  return {{"ratio", summary_json(r.ratio)},       {"student_ms", summary_json(r.student_ms)},
          {"solution_ms", summary_json(r.solution_ms)}, {"target_met", r.target_met},
          {"rounds", r.rounds},                   {"seconds", r.seconds_spent}};
}

void print_paired_header() {
  std::printf("  %-4s %-8s %-21s %-10s %-6s %-7s %-6s\n", "run", "ratio", "95% CI", "student ms", "rounds",
              "seconds", "target");
}

void print_paired_row(int run, const PairedResult& r) {
  std::printf("  %-4d %-8.4f [%.4f, %.4f]     %-10.4f %-6d %-7.3f %-6s\n", run, r.ratio.median, r.ratio.ci.low,
              r.ratio.ci.high, r.student_ms.median, r.rounds, r.seconds_spent, r.target_met ? "met" : "no");
}

struct Tally {
  double max_seconds = 0;
  bool ok = true;
};

// 1. What this device is and what it can do.
json device_section() {
  int device = 0;
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, device));
  const double copy_gbs = measured_copy_bandwidth_gbs();
  const ClockReading clocks = read_clocks();
  std::printf("1. Device\n  %s (sm_%d%d, %d SMs, L2 %.1f MiB)\n", prop.name, prop.major, prop.minor,
              prop.multiProcessorCount, prop.l2CacheSize / 1048576.0);
  std::printf("  measured copy bandwidth  %.1f GB/s (read + write)\n", copy_gbs);
  std::printf("  SM clock measured %.0f MHz, max %.0f MHz; memory clock %.0f MHz%s%s\n\n",
              clocks.sm_clock_mhz_measured, clocks.sm_clock_mhz_max, clocks.memory_clock_mhz,
              clocks.note.empty() ? "" : "; note: ", clocks.note.c_str());
  return {{"name", prop.name},
          {"sm", prop.major * 10 + prop.minor},
          {"sms", prop.multiProcessorCount},
          {"l2_bytes", prop.l2CacheSize},
          {"copy_bandwidth_gbs", copy_gbs},
          {"sm_clock_mhz_measured", clocks.sm_clock_mhz_measured},
          {"sm_clock_mhz_max", clocks.sm_clock_mhz_max},
          {"memory_clock_mhz", clocks.memory_clock_mhz},
          {"clock_note", clocks.note}};
}

// 2. The same kernel against itself: every ratio should be 1 within its interval.
json noise_section(AddWorkload& work, const SamplingPolicy& policy, Tally& tally) {
  std::printf("2. Noise: c = a + b (2^26 floats) against itself, %d runs\n", kRuns);
  print_paired_header();
  const Launch base = work.launch(kFloats, 1, 0.0);
  json runs = json::array();
  double lo = 1e300;
  double hi = -1e300;
  int covering = 0;
  for (int run = 0; run < kRuns; ++run) {
    const PairedResult r = measure_interleaved({always_succeeding(base), base, {}}, policy);
    print_paired_row(run, r);
    runs.push_back(paired_json(r));
    lo = std::min(lo, r.ratio.median);
    hi = std::max(hi, r.ratio.median);
    if (r.ratio.ci.low <= 1.0 && 1.0 <= r.ratio.ci.high) ++covering;
    tally.max_seconds = std::max(tally.max_seconds, r.seconds_spent);
  }
  std::printf("  ratio medians span [%.4f, %.4f] (spread %.2f%%); %d of %d intervals contain 1\n\n", lo, hi,
              (hi - lo) * 100.0, covering, kRuns);
  return {{"runs", runs}, {"ratio_min", lo}, {"ratio_max", hi}, {"intervals_containing_1", covering}};
}

// Measures student vs solution once and returns the ratio's median.
double ratio_of(const Launch& student, const Launch& solution, const SamplingPolicy& policy) {
  return measure_interleaved({always_succeeding(student), solution, {}}, policy).ratio.median;
}

// The extra fraction that makes add_passes(1 pass + extra) about `wanted` times one pass:
// start from the byte count, then correct once by what was measured.
double calibrate_extra(AddWorkload& work, double wanted, const SamplingPolicy& policy) {
  const Launch base = work.launch(kFloats, 1, 0.0);
  double extra = wanted - 1.0;
  const double measured = ratio_of(work.launch(kFloats, 1, extra), base, policy);
  if (measured > 1.0) extra *= (wanted - 1.0) / (measured - 1.0);
  return std::clamp(extra, 0.0, 1.0);
}

// "pass" when the ratio's median is at most the threshold; the noise-aware reading says
// "unclear" when the interval straddles the threshold.
const char* ci_verdict(const SampleSummary& ratio, double threshold) {
  if (ratio.ci.high <= threshold) return "pass";
  if (ratio.ci.low > threshold) return "fail";
  return "unclear";
}

json verdict_case(const char* name, const Launch& student, const Launch& solution, double threshold,
                  const SamplingPolicy& policy, Tally& tally) {
  std::printf("  %s, threshold %.2f\n", name, threshold);
  print_paired_header();
  json runs = json::array();
  int passes = 0;
  int unclear = 0;
  std::vector<bool> verdicts;
  for (int run = 0; run < kRuns; ++run) {
    const PairedResult r = measure_interleaved({always_succeeding(student), solution, {}}, policy);
    print_paired_row(run, r);
    const bool pass = r.ratio.median <= threshold;
    const char* noise_aware = ci_verdict(r.ratio, threshold);
    verdicts.push_back(pass);
    passes += pass ? 1 : 0;
    unclear += std::strcmp(noise_aware, "unclear") == 0 ? 1 : 0;
    json row = paired_json(r);
    row["verdict"] = pass ? "pass" : "fail";
    row["ci_verdict"] = noise_aware;
    runs.push_back(row);
    tally.max_seconds = std::max(tally.max_seconds, r.seconds_spent);
  }
  const bool majority_pass = passes * 2 > kRuns;
  const int differing = majority_pass ? kRuns - passes : passes;
  if (differing != 0) tally.ok = false;
  std::printf("  majority verdict %s; %d of %d runs differ; %d interval(s) straddle the threshold\n\n",
              majority_pass ? "pass" : "fail", differing, kRuns, unclear);
  return {{"threshold", threshold}, {"runs", runs}, {"majority", majority_pass ? "pass" : "fail"},
          {"differing", differing}, {"straddling", unclear}};
}

// 3. Verdicts near a threshold must not flip from run to run.
json verdict_section(AddWorkload& work, const SamplingPolicy& policy, Tally& tally) {
  std::printf("3. Verdict stability (verdict: ratio median <= threshold)\n");
  const Launch base = work.launch(kFloats, 1, 0.0);
  const double extra = calibrate_extra(work, 1.10, policy);
  const Launch heavier = work.launch(kFloats, 1, extra);
  const double slow_ratio = ratio_of(heavier, base, policy);
  const double fast_ratio = ratio_of(base, heavier, policy);
  std::printf("  calibrated: +%.1f%% bytes; slow variant measures %.4fx, fast variant %.4fx\n\n", extra * 100.0,
              slow_ratio, fast_ratio);
  json out = {{"extra_fraction", extra}, {"slow_ratio", slow_ratio}, {"fast_ratio", fast_ratio}};
  out["slow_vs_1.05"] = verdict_case("~10% slower vs threshold 1.05 (expect fail)", heavier, base, 1.05, policy, tally);
  out["fast_vs_1.10"] = verdict_case("~10% faster vs threshold 1.10 (expect pass)", base, heavier, 1.10, policy, tally);
  return out;
}

// 4. Wall time of one measurement for short, medium and long kernels.
json wall_time_section(AddWorkload& work, const SamplingPolicy& policy, Tally& tally) {
  std::printf("4. Wall time per measurement (kernel against itself; target < %.0f s)\n", kWallTargetSeconds);
  struct Size {
    const char* label;
    std::size_t floats;
    int passes;
  };
  const Size sizes[] = {{"~0.1 ms", kFloats / 2, 1}, {"~1 ms", kFloats, 4}, {"~10 ms", kFloats, 37}};
  std::printf("  %-8s %-10s %-8s %-6s %-7s %-6s\n", "kernel", "ms", "ratio", "rounds", "seconds", "target");
  json rows = json::array();
  for (const Size& size : sizes) {
    const Launch launch = work.launch(size.floats, size.passes, 0.0);
    const PairedResult r = measure_interleaved({always_succeeding(launch), launch, {}}, policy);
    std::printf("  %-8s %-10.4f %-8.4f %-6d %-7.3f %-6s\n", size.label, r.student_ms.median, r.ratio.median,
                r.rounds, r.seconds_spent, r.target_met ? "met" : "no");
    tally.max_seconds = std::max(tally.max_seconds, r.seconds_spent);
    json row = paired_json(r);
    row["label"] = size.label;
    rows.push_back(row);
  }
  if (tally.max_seconds >= kWallTargetSeconds) tally.ok = false;
  std::printf("  slowest measurement in this run: %.3f s\n\n", tally.max_seconds);
  return {{"cases", rows}, {"max_seconds_any_measurement", tally.max_seconds}};
}

// 5. How close a plain streaming kernel gets to the measured copy bandwidth.
json efficiency_section(AddWorkload& work, const SamplingPolicy& policy) {
  const SampleSummary t = measure_single(work.launch(kFloats, 1, 0.0), {}, policy);
  const double bytes = 3.0 * static_cast<double>(kFloats) * sizeof(float);
  const double gbs = bytes / (t.median * 1e-3) / 1e9;
  const double copy_gbs = measured_copy_bandwidth_gbs();
  std::printf("5. c = a + b at 2^26 floats: %.4f ms [%.4f, %.4f], %.1f GB/s = %.1f%% of measured copy bandwidth\n",
              t.median, t.ci.low, t.ci.high, gbs, 100.0 * gbs / copy_gbs);
  return {{"ms", summary_json(t)}, {"gbs", gbs}, {"fraction_of_copy", gbs / copy_gbs}};
}

// 6. The price of fresh inputs and checked results, per round, at a fixed number of rounds.
json integrity_section(AddWorkload& work, const SamplingPolicy& defaults) {
  constexpr int kRounds = 200;
  SamplingPolicy policy = defaults;
  policy.min_samples = kRounds;
  policy.max_samples = kRounds;
  policy.time_budget_seconds = 60.0;
  const Launch base = work.launch(kFloats, 1, 0.0);
  const PairedResult plain = measure_interleaved({always_succeeding(base), base, {}}, policy);
  Workload checked{always_succeeding(base), base, work.prepare(), work.verify()};
  checked.seed = 0x5EED;
  const PairedResult guarded = measure_interleaved(checked, policy);
  const double plain_round = plain.seconds_spent / plain.rounds;
  const double guarded_round = guarded.seconds_spent / guarded.rounds;
  std::printf("6. Timed-call checks, c = a + b (2^26 floats) against itself, %d rounds each\n", kRounds);
  std::printf("  plain:                       %.3f ms per round, ratio %.4f, student %.4f ms\n", plain_round * 1e3,
              plain.ratio.median, plain.student_ms.median);
  std::printf("  fresh inputs + checks:       %.3f ms per round, ratio %.4f, student %.4f ms; %d samples verified%s%s\n",
              guarded_round * 1e3, guarded.ratio.median, guarded.student_ms.median, guarded.verified_samples,
              guarded.integrity_failure.empty() ? "" : "; FAILURE: ", guarded.integrity_failure.c_str());
  std::printf("  overhead per round: %+.1f%% (untimed: the timed figures differ by %+.2f%%)\n\n",
              100.0 * (guarded_round / plain_round - 1.0),
              100.0 * (guarded.student_ms.median / plain.student_ms.median - 1.0));
  return {{"rounds", kRounds},
          {"plain", paired_json(plain)},
          {"checked", paired_json(guarded)},
          {"plain_ms_per_round", plain_round * 1e3},
          {"checked_ms_per_round", guarded_round * 1e3},
          {"verified_samples", guarded.verified_samples},
          {"integrity_failure", guarded.integrity_failure},
          {"overhead_per_round", guarded_round / plain_round - 1.0}};
}

int run(const std::string& json_path) {
  const SamplingPolicy policy;  // the defaults labs use
  Tally tally;
  json report;
  report["policy"] = {{"warmup", policy.warmup},
                      {"min_samples", policy.min_samples},
                      {"max_samples", policy.max_samples},
                      {"target_relative_ci", policy.target_relative_ci},
                      {"confidence", policy.confidence},
                      {"time_budget_seconds", policy.time_budget_seconds}};
  report["device"] = device_section();
  AddWorkload work;
  report["noise"] = noise_section(work, policy, tally);
  report["verdicts"] = verdict_section(work, policy, tally);
  report["wall_time"] = wall_time_section(work, policy, tally);
  report["efficiency"] = efficiency_section(work, policy);
  report["integrity"] = integrity_section(work, policy);
  if (!report["integrity"]["integrity_failure"].get<std::string>().empty()) tally.ok = false;
  report["ok"] = tally.ok;
  std::printf("\n%s\n", tally.ok ? "OK: no verdict flipped and every measurement took < 3 s"
                                 : "NOT OK: a verdict flipped or a measurement took >= 3 s");
  return cudalabs::bench::finish(report, json_path, tally.ok);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "timing_engine_bench", run);
}
