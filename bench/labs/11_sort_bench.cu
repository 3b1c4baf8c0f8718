// Lab 11 benchmark: the reference radix sorts against CUB, in one run on this GPU.
//
// At 2^26 uint32 keys (the timed size of config/labs/11_sort.yaml), random 32-bit keys (and
// random values): the reference radix_sort_keys is measured interleaved with
// cub::DeviceRadixSort::SortKeys, and radix_sort_pairs with cub::DeviceRadixSort::SortPairs (the
// baseline config/labs/11_sort.yaml names; CUB is allowed here, never in student code); both
// results are checked against CUB's first (CUB's radix sort is stable, so the pairs must agree
// exactly). Printed: medians, keys/s, GB/s (keys, and values, read and written once: the least a
// sort moves), and the throughput ratio. The reference block_sort (segments of 2048 keys) is
// timed alone, for information and for the YAML's block_sort_2to26 case.
//
// Target (config/labs/11_sort.yaml, reference_targets): reference radix_sort_keys throughput >= 0.40x
// CUB SortKeys; exit 1 if not. The pairs ratio is printed for information.
//
//   bench_11_sort [--json FILE]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "sort.cuh"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using namespace cudalabs::timing;

constexpr std::size_t kN = std::size_t{1} << 26;
constexpr unsigned kSegment = 2048;
constexpr double kTargetThroughputVsCub = 0.40;

// Random 32-bit words: 4 random bytes each.
void random_words(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  cudalabs::fill_random_bytes(reinterpret_cast<unsigned char*>(out), n * sizeof(std::uint32_t), seed);
}

bool agree(const std::uint32_t* expected, const std::uint32_t* actual, std::size_t n, const char* what) {
  const cudalabs::CompareReport report = cudalabs::compare_uints_on_device(expected, actual, n);
  if (!report.ok()) std::printf("  %s\n", report.to_string(what).c_str());
  return report.ok();
}

void print_row(const char* name, const PairedResult& r, double bytes, double copy_gbs, const char* verdict) {
  const double ref_ms = r.student_ms.median, cub_ms = r.solution_ms.median;
  std::printf("  %-16s reference %.4f ms (%5.1f Gkeys/s, %5.0f GB/s, %4.1f%% of copy)  CUB %.4f ms (%5.1f Gkeys/s)  "
              "throughput vs CUB %.3fx [%s]\n",
              name, ref_ms, kN / (ref_ms * 1e6), bytes / (ref_ms * 1e6), 100.0 * bytes / (ref_ms * 1e6) / copy_gbs,
              cub_ms, kN / (cub_ms * 1e6), 1.0 / r.ratio.median, verdict);
}

int run(const std::string& json_path) {
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copy_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 11 sort benchmark, 2^26 random uint32 keys (and uint32 values)\n");
  std::printf("  %s, %d SMs; measured copy bandwidth %.0f GB/s (read + write)\n", prop.name, prop.multiProcessorCount,
              copy_gbs);
  std::printf("  target: reference radix_sort_keys throughput >= %.2fx cub::DeviceRadixSort::SortKeys\n\n",
              kTargetThroughputVsCub);

  SamplingPolicy policy;
  policy.max_samples = 200;
  policy.time_budget_seconds = 4.0;

  DeviceBuffer<std::uint32_t> keys(kN), values(kN), ref_keys(kN), ref_values(kN), cub_keys(kN), cub_values(kN);
  random_words(keys.data(), kN, 1101);
  random_words(values.data(), kN, 1102);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  DeviceBuffer<unsigned char> keys_ws(solution::radix_sort_keys_workspace_bytes(kN));
  DeviceBuffer<unsigned char> pairs_ws(solution::radix_sort_pairs_workspace_bytes(kN));

  std::size_t cub_keys_bytes = 0, cub_pairs_bytes = 0;
  CUDALABS_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_keys_bytes, keys.data(), cub_keys.data(), kN));
  CUDALABS_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, cub_pairs_bytes, keys.data(), cub_keys.data(),
                                                 values.data(), cub_values.data(), kN));
  DeviceBuffer<unsigned char> cub_keys_temp(cub_keys_bytes), cub_pairs_temp(cub_pairs_bytes);

  const Launch ref_sort_keys = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::radix_sort_keys(keys.data(), ref_keys.data(), kN, keys_ws.data(), keys_ws.bytes(), s));
  };
  const Launch cub_sort_keys = [&](cudaStream_t s) {
    std::size_t bytes = cub_keys_bytes;
    CUDALABS_CHECK(
        cub::DeviceRadixSort::SortKeys(cub_keys_temp.data(), bytes, keys.data(), cub_keys.data(), kN, 0, 32, s));
  };
  const Launch ref_sort_pairs = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::radix_sort_pairs(keys.data(), ref_keys.data(), values.data(), ref_values.data(), kN,
                                              pairs_ws.data(), pairs_ws.bytes(), s));
  };
  const Launch cub_sort_pairs = [&](cudaStream_t s) {
    std::size_t bytes = cub_pairs_bytes;
    CUDALABS_CHECK(cub::DeviceRadixSort::SortPairs(cub_pairs_temp.data(), bytes, keys.data(), cub_keys.data(),
                                                   values.data(), cub_values.data(), kN, 0, 32, s));
  };
  const Launch ref_block_sort = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::block_sort(keys.data(), ref_keys.data(), kN, kSegment, s));
  };

  // Results first: a fast wrong answer is worth nothing.
  ref_sort_keys(nullptr);
  cub_sort_keys(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const bool keys_agree = agree(cub_keys.data(), ref_keys.data(), kN, "radix_sort_keys vs CUB SortKeys");
  ref_sort_pairs(nullptr);
  cub_sort_pairs(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const bool pairs_agree = agree(cub_keys.data(), ref_keys.data(), kN, "radix_sort_pairs keys vs CUB SortPairs") &&
                           agree(cub_values.data(), ref_values.data(), kN, "radix_sort_pairs values vs CUB SortPairs");

  const PairedResult keys_vs_cub = measure_interleaved({always_succeeding(ref_sort_keys), cub_sort_keys, {}}, policy);
  const PairedResult pairs_vs_cub =
      measure_interleaved({always_succeeding(ref_sort_pairs), cub_sort_pairs, {}}, policy);
  const SampleSummary block = measure_single(ref_block_sort, {}, policy);

  const double keys_throughput = 1.0 / keys_vs_cub.ratio.median;
  const bool target_met = keys_agree && pairs_agree && keys_throughput >= kTargetThroughputVsCub;
  const double key_bytes = 2.0 * kN * sizeof(std::uint32_t);
  print_row("radix_sort_keys", keys_vs_cub, key_bytes, copy_gbs,
            keys_throughput >= kTargetThroughputVsCub ? "target met" : "TARGET MISSED");
  print_row("radix_sort_pairs", pairs_vs_cub, 2.0 * key_bytes, copy_gbs, "no target; for information");
  if (!keys_agree || !pairs_agree) std::printf("  RESULTS DISAGREE WITH CUB (see above)\n");
  std::printf("  %-16s reference %.4f ms (%.0f GB/s, %.1f%% of copy), segments of %u keys; no baseline\n",
              "block_sort", block.median, key_bytes / (block.median * 1e6),
              100.0 * key_bytes / (block.median * 1e6) / copy_gbs, kSegment);
  std::printf("  YAML (config/labs/11_sort.yaml): each timed case full credit <= 1.5x the reference's time; "
              "zero at 3.0x (radix), 4.0x (block_sort)\n");

  json out = {{"device", prop.name}, {"copy_gbs", copy_gbs}, {"n", kN}};
  out["radix_sort_keys"] = {{"reference_ms", summary_json(keys_vs_cub.student_ms)},
                            {"cub_ms", summary_json(keys_vs_cub.solution_ms)},
                            {"reference_over_cub_time", summary_json(keys_vs_cub.ratio)},
                            {"throughput_vs_cub", keys_throughput},
                            {"reference_gkeys_per_s", kN / (keys_vs_cub.student_ms.median * 1e6)},
                            {"cub_gkeys_per_s", kN / (keys_vs_cub.solution_ms.median * 1e6)},
                            {"results_agree", keys_agree}};
  out["radix_sort_pairs"] = {{"reference_ms", summary_json(pairs_vs_cub.student_ms)},
                             {"cub_ms", summary_json(pairs_vs_cub.solution_ms)},
                             {"reference_over_cub_time", summary_json(pairs_vs_cub.ratio)},
                             {"throughput_vs_cub", 1.0 / pairs_vs_cub.ratio.median},
                             {"results_agree", pairs_agree}};
  out["block_sort"] = {{"reference_ms", summary_json(block)}, {"segment", kSegment}};
  out["target_met"] = target_met;
  std::printf("\n%s\n", target_met ? "Target met." : "Target missed (see above).");
  return cudalabs::bench::finish(out, json_path, target_met);
}

}  // namespace

int main(int argc, char** argv) { return cudalabs::bench::run_with_command_line(argc, argv, "bench_11_sort", run); }
