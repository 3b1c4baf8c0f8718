// Lab 06 benchmark: the reference scan and compaction against CUB, in one run on this GPU.
//
// At 2^26 ints (the timed size of config/labs/06_scan.yaml): the reference inclusive_scan is
// measured interleaved with cub::DeviceScan::InclusiveSum, and the reference compact with
// cub::DeviceSelect::If (keep x > 0) (the baseline config/labs/06_scan.yaml names; CUB is allowed here, never in
// student code); both results are checked against CUB's first. Printed: medians, GB/s
// (read + write), the fraction of the in-process copy bandwidth, and the throughput ratio.
// For calibrating the YAML's max_ratio_to_solution thresholds it also measures, against the
// reference: the naive fixture's algorithm (Hillis-Steele per 1024-element block, recursive scan
// of the block sums, a second pass adding offsets; compaction as flags + that scan + scatter) and
// a sound reduce-then-scan (per-tile sums, one block scans them, tiles scanned again with their
// offset: 3n elements moved).
//
// Target (config/labs/06_scan.yaml, reference_targets): reference inclusive scan throughput >= 0.90x CUB, and faster
// than the reduce-then-scan (the lab's handout, labs/06_scan/README.md); exit 1 if not. The
// compaction ratio is printed for information (no reference target of its own).
//
//   bench_06_scan [--json FILE]
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "scan.cuh"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using namespace cudalabs::timing;

constexpr std::size_t kN = std::size_t{1} << 26;
constexpr double kTargetThroughputVsCub = 0.90;
constexpr int kThreshold = 0;

struct GreaterThanThreshold {
  int threshold;
  __host__ __device__ bool operator()(int x) const { return x > threshold; }
};

// --- the naive fixture's algorithm (grader/tests/cli/submissions/06_scan/naive) --------------

constexpr int kNaiveBlock = 1024;

__global__ void naive_block_scan(const int* in, int* out, int* block_sums, std::size_t n) {
  __shared__ int buffer[2][kNaiveBlock];
  const int tid = threadIdx.x;
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kNaiveBlock + tid;
  int current = 0;
  buffer[current][tid] = g < n ? in[g] : 0;
  __syncthreads();
  for (int offset = 1; offset < kNaiveBlock; offset <<= 1) {
    const int previous = current;
    current = 1 - current;
    int value = buffer[previous][tid];
    if (tid >= offset) value += buffer[previous][tid - offset];
    buffer[current][tid] = value;
    __syncthreads();
  }
  if (g < n) out[g] = buffer[current][tid];
  if (tid == kNaiveBlock - 1) block_sums[blockIdx.x] = buffer[current][tid];
}

__global__ void naive_add_offsets(int* out, const int* scanned_sums, std::size_t n) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kNaiveBlock + threadIdx.x;
  if (g < n && blockIdx.x > 0) out[g] += scanned_sums[blockIdx.x - 1];
}

void naive_scan(const int* in, int* out, std::size_t n, int* scratch, cudaStream_t stream) {
  const std::size_t blocks = (n + kNaiveBlock - 1) / kNaiveBlock;
  naive_block_scan<<<static_cast<unsigned>(blocks), kNaiveBlock, 0, stream>>>(in, out, scratch, n);
  if (blocks > 1) {
    naive_scan(scratch, scratch, blocks, scratch + blocks, stream);
    naive_add_offsets<<<static_cast<unsigned>(blocks), kNaiveBlock, 0, stream>>>(out, scratch, n);
  }
}

__global__ void naive_flags(const int* in, int* flags, std::size_t n) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < n) flags[g] = in[g] > kThreshold ? 1 : 0;
}

__global__ void naive_scatter(const int* in, const int* positions, int* out, int* count, std::size_t n) {
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= n) return;
  if (in[g] > kThreshold) out[positions[g] - 1] = in[g];
  if (g == n - 1) *count = positions[g];
}

void naive_compact(const int* in, int* out, int* count, std::size_t n, int* scratch, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((n + kNaiveBlock - 1) / kNaiveBlock);
  naive_flags<<<blocks, kNaiveBlock, 0, stream>>>(in, scratch, n);
  naive_scan(scratch, scratch, n, scratch + n, stream);
  naive_scatter<<<blocks, kNaiveBlock, 0, stream>>>(in, scratch, out, count, n);
}

// --- reduce-then-scan: 3 passes, 3n elements moved --------------------------------------------

constexpr int kTileThreads = 256;
constexpr int kTileItems = kTileThreads * 16;

// Exclusive scan of one int per thread over the block (blockDim.x a multiple of 32, <= 1024).
__device__ int block_exclusive_scan(int value, int* total) {
  __shared__ int warp_sums[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  int inclusive = value;
  for (int o = 1; o < 32; o <<= 1) {
    const int other = __shfl_up_sync(0xFFFFFFFFu, inclusive, o);
    if (lane >= o) inclusive += other;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int s = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0;
    for (int o = 1; o < 32; o <<= 1) {
      const int other = __shfl_up_sync(0xFFFFFFFFu, s, o);
      if (lane >= o) s += other;
    }
    warp_sums[lane] = s;
  }
  __syncthreads();
  *total = warp_sums[blockDim.x / 32 - 1];
  const int result = inclusive - value + (warp > 0 ? warp_sums[warp - 1] : 0);
  __syncthreads();  // warp_sums is reused by the next call
  return result;
}

__global__ void rts_tile_sums(const int* __restrict__ in, int* __restrict__ sums, std::size_t n) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  int acc = 0;
#pragma unroll
  for (int k = 0; k < kTileItems / kTileThreads; ++k) {
    const std::size_t g = base + k * kTileThreads + threadIdx.x;
    if (g < n) acc += in[g];
  }
  int total = 0;
  block_exclusive_scan(acc, &total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// One block of 1024 threads: exclusive scan of `count` sums in place, consecutive chunks per thread.
__global__ void rts_scan_sums(int* sums, int count) {
  const int per_thread = (count + blockDim.x - 1) / blockDim.x;
  const int begin = threadIdx.x * per_thread;
  int acc = 0;
  for (int i = begin; i < begin + per_thread && i < count; ++i) acc += sums[i];
  int total = 0;
  int running = block_exclusive_scan(acc, &total);
  for (int i = begin; i < begin + per_thread && i < count; ++i) {
    const int value = sums[i];
    sums[i] = running;
    running += value;
  }
}

__global__ void rts_scan_tiles(const int* __restrict__ in, int* __restrict__ out, const int* __restrict__ offsets,
                               std::size_t n) {
  constexpr int kItems = kTileItems / kTileThreads;
  __shared__ int tile[kTileItems + kTileItems / 32];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const int tid = threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kTileThreads + tid;
    tile[i + i / 32] = base + i < n ? in[base + i] : 0;
  }
  __syncthreads();
  int items[kItems];
  int acc = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = tid * kItems + k;
    items[k] = tile[i + i / 32];
    acc += items[k];
  }
  int total = 0;
  int running = offsets[blockIdx.x] + block_exclusive_scan(acc, &total);
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = tid * kItems + k;
    running += items[k];
    tile[i + i / 32] = running;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kTileThreads + tid;
    if (base + i < n) out[base + i] = tile[i + i / 32];
  }
}

void reduce_then_scan(const int* in, int* out, std::size_t n, int* sums, cudaStream_t stream) {
  const unsigned tiles = static_cast<unsigned>((n + kTileItems - 1) / kTileItems);
  rts_tile_sums<<<tiles, kTileThreads, 0, stream>>>(in, sums, n);
  rts_scan_sums<<<1, 1024, 0, stream>>>(sums, static_cast<int>(tiles));
  rts_scan_tiles<<<tiles, kTileThreads, 0, stream>>>(in, out, sums, n);
}

// --- measurement -----------------------------------------------------------------------------

std::size_t first_difference(const std::vector<int>& a, const std::vector<int>& b, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    if (a[i] != b[i]) return i;
  }
  return count;
}

int read_int(const int* device_value) {
  int host = 0;
  CUDALABS_CHECK(cudaMemcpy(&host, device_value, sizeof(int), cudaMemcpyDeviceToHost));
  return host;
}

struct Measured {
  double reference_ms = 0;
  double cub_ms = 0;
  double throughput_vs_cub = 0;
  double naive_ratio = 0;
  double naive_ms = 0;
  bool agree = false;
};

void print_row(const char* name, const Measured& m, double bytes, double copy_gbs, const char* verdict) {
  const double ref_gbs = bytes / (m.reference_ms * 1e6);
  const double cub_gbs = bytes / (m.cub_ms * 1e6);
  std::printf("  %-15s reference %.4f ms (%6.0f GB/s, %5.1f%% of copy)  CUB %.4f ms (%6.0f GB/s)  "
              "throughput vs CUB %.3fx [%s]%s\n",
              name, m.reference_ms, ref_gbs, 100.0 * ref_gbs / copy_gbs, m.cub_ms, cub_gbs, m.throughput_vs_cub,
              verdict, m.agree ? "" : "  <- RESULTS DISAGREE WITH CUB");
}

int run(const std::string& json_path) {

  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copy_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 06 scan benchmark, 2^26 ints (512 MiB read + written per scan)\n");
  std::printf("  %s, %d SMs; measured copy bandwidth %.0f GB/s (read + write)\n", prop.name,
              prop.multiProcessorCount, copy_gbs);
  std::printf("  target: reference inclusive scan throughput >= %.2fx cub::DeviceScan::InclusiveSum\n\n",
              kTargetThroughputVsCub);

  SamplingPolicy policy;
  policy.max_samples = 300;
  policy.time_budget_seconds = 3.0;

  const std::vector<int> host = cudalabs::uniform_ints(kN, 6101, -1000, 1000);  // partial sums fit in int
  const int n_int = static_cast<int>(kN);
  DeviceBuffer<int> in(host), ref_out(kN), cub_out(kN), other_out(kN), ref_count(1), cub_count(1), other_count(1);
  DeviceBuffer<unsigned char> scan_ws(solution::scan_workspace_bytes(kN));
  DeviceBuffer<unsigned char> compact_ws(solution::compact_workspace_bytes(kN));
  DeviceBuffer<int> scratch(kN + kN / 512);  // naive flags + every level's block sums; rts tile sums

  std::size_t scan_temp_bytes = 0;
  std::size_t select_temp_bytes = 0;
  CUDALABS_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_temp_bytes, in.data(), cub_out.data(), n_int));
  CUDALABS_CHECK(cub::DeviceSelect::If(nullptr, select_temp_bytes, in.data(), cub_out.data(), cub_count.data(), n_int,
                                       GreaterThanThreshold{kThreshold}));
  DeviceBuffer<unsigned char> scan_temp(scan_temp_bytes), select_temp(select_temp_bytes);

  const Launch ref_scan = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::inclusive_scan(in.data(), ref_out.data(), kN, scan_ws.data(), scan_ws.bytes(), s));
  };
  const Launch cub_scan = [&](cudaStream_t s) {
    std::size_t bytes = scan_temp_bytes;
    CUDALABS_CHECK(cub::DeviceScan::InclusiveSum(scan_temp.data(), bytes, in.data(), cub_out.data(), n_int, s));
  };
  const Launch naive_scan_launch = [&](cudaStream_t s) {
    naive_scan(in.data(), other_out.data(), kN, scratch.data(), s);
    CUDALABS_CHECK(cudaGetLastError());
  };
  const Launch rts_launch = [&](cudaStream_t s) {
    reduce_then_scan(in.data(), other_out.data(), kN, scratch.data(), s);
    CUDALABS_CHECK(cudaGetLastError());
  };
  const Launch ref_compact = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::compact(in.data(), ref_out.data(), ref_count.data(), kN, kThreshold, compact_ws.data(),
                                     compact_ws.bytes(), s));
  };
  const Launch cub_compact = [&](cudaStream_t s) {
    std::size_t bytes = select_temp_bytes;
    CUDALABS_CHECK(cub::DeviceSelect::If(select_temp.data(), bytes, in.data(), cub_out.data(), cub_count.data(), n_int,
                                         GreaterThanThreshold{kThreshold}, s));
  };
  const Launch naive_compact_launch = [&](cudaStream_t s) {
    naive_compact(in.data(), other_out.data(), other_count.data(), kN, scratch.data(), s);
    CUDALABS_CHECK(cudaGetLastError());
  };

  // Results first: a fast wrong answer is worth nothing. The calibration variants are checked too.
  ref_scan(nullptr);
  cub_scan(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const std::vector<int> cub_scanned = cub_out.copy_to_host();
  const std::size_t scan_diff = first_difference(ref_out.copy_to_host(), cub_scanned, kN);
  naive_scan_launch(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const bool naive_scan_ok = first_difference(other_out.copy_to_host(), cub_scanned, kN) == kN;
  rts_launch(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const bool rts_ok = first_difference(other_out.copy_to_host(), cub_scanned, kN) == kN;

  ref_compact(nullptr);
  cub_compact(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const int kept = read_int(cub_count.data());
  const std::vector<int> cub_kept = cub_out.copy_to_host();
  const bool compact_ok = read_int(ref_count.data()) == kept &&
                          first_difference(ref_out.copy_to_host(), cub_kept, static_cast<std::size_t>(kept)) ==
                              static_cast<std::size_t>(kept);
  naive_compact_launch(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const bool naive_compact_ok =
      read_int(other_count.data()) == kept &&
      first_difference(other_out.copy_to_host(), cub_kept, static_cast<std::size_t>(kept)) ==
          static_cast<std::size_t>(kept);

  // Scan: reference vs CUB (target), then the calibration variants vs the reference.
  const PairedResult scan_vs_cub = measure_interleaved({always_succeeding(ref_scan), cub_scan, {}}, policy);
  const PairedResult scan_naive = measure_interleaved({always_succeeding(naive_scan_launch), ref_scan, {}}, policy);
  const PairedResult scan_rts = measure_interleaved({always_succeeding(rts_launch), ref_scan, {}}, policy);
  const PairedResult compact_vs_cub = measure_interleaved({always_succeeding(ref_compact), cub_compact, {}}, policy);
  const PairedResult compact_naive = measure_interleaved({always_succeeding(naive_compact_launch), ref_compact, {}}, policy);

  Measured scan{scan_vs_cub.student_ms.median, scan_vs_cub.solution_ms.median, 1.0 / scan_vs_cub.ratio.median,
                scan_naive.ratio.median, scan_naive.student_ms.median, scan_diff == kN};
  Measured compact{compact_vs_cub.student_ms.median, compact_vs_cub.solution_ms.median,
                   1.0 / compact_vs_cub.ratio.median, compact_naive.ratio.median, compact_naive.student_ms.median,
                   compact_ok};
  // The single pass must pay off: the three-pass version moves 3n elements to the single pass's 2n.
  const bool ahead_of_three_pass = scan_rts.ratio.ci.low > 1.0;
  const bool target_met =
      scan.agree && compact.agree && scan.throughput_vs_cub >= kTargetThroughputVsCub && ahead_of_three_pass;

  const double scan_bytes = 2.0 * kN * sizeof(int);
  const double compact_bytes = (static_cast<double>(kN) + kept + 1.0) * sizeof(int);
  print_row("inclusive_scan", scan, scan_bytes, copy_gbs, scan.throughput_vs_cub >= kTargetThroughputVsCub
                                                                  ? "target met"
                                                                  : "TARGET MISSED");
  if (!scan.agree) std::printf("  %-15s first difference from CUB at index %zu\n", "", scan_diff);
  print_row("compact", compact, compact_bytes, copy_gbs, "no target; for information");
  std::printf("  %-15s %d of %zu elements kept (x > %d)\n", "", kept, kN, kThreshold);
  std::printf("\n  calibration (time / reference time, paired medians):\n");
  std::printf("    scan, naive fixture (Hillis-Steele + recursive sums + offset pass): %.3fx (%.4f ms)%s\n",
              scan.naive_ratio, scan.naive_ms, naive_scan_ok ? "" : "  <- WRONG RESULT");
  std::printf("    scan, reduce-then-scan (3 passes, 3n moved):                          %.3fx (%.4f ms)%s\n",
              scan_rts.ratio.median, scan_rts.student_ms.median, rts_ok ? "" : "  <- WRONG RESULT");
  std::printf("    the single pass is %s the reduce-then-scan (its time is %.3fx the reference's, 95%% CI %.3f-%.3f)\n",
              ahead_of_three_pass ? "ahead of" : "NOT CLEARLY AHEAD OF", scan_rts.ratio.median, scan_rts.ratio.ci.low,
              scan_rts.ratio.ci.high);
  std::printf("    compact, naive fixture (flags + naive scan + scatter):               %.3fx (%.4f ms)%s\n",
              compact.naive_ratio, compact.naive_ms, naive_compact_ok ? "" : "  <- WRONG RESULT");
  std::printf("  YAML (config/labs/06_scan.yaml): inclusive_scan full credit <= 1.5x, zero at 3.0x; "
              "compact full credit <= 2.0x, zero at 4.0x\n");

  json out = {{"device", prop.name}, {"copy_gbs", copy_gbs}, {"n", kN}};
  out["inclusive_scan"] = {{"reference_ms", summary_json(scan_vs_cub.student_ms)},
                           {"cub_ms", summary_json(scan_vs_cub.solution_ms)},
                           {"reference_over_cub_time", summary_json(scan_vs_cub.ratio)},
                           {"throughput_vs_cub", scan.throughput_vs_cub},
                           {"reference_gbs", scan_bytes / (scan.reference_ms * 1e6)},
                           {"cub_gbs", scan_bytes / (scan.cub_ms * 1e6)},
                           {"results_agree", scan.agree},
                           {"naive_over_reference", summary_json(scan_naive.ratio)},
                           {"naive_ms", summary_json(scan_naive.student_ms)},
                           {"naive_correct", naive_scan_ok},
                           {"reduce_then_scan_over_reference", summary_json(scan_rts.ratio)},
                           {"reduce_then_scan_ms", summary_json(scan_rts.student_ms)},
                           {"reduce_then_scan_correct", rts_ok}};
  out["compact"] = {{"reference_ms", summary_json(compact_vs_cub.student_ms)},
                    {"cub_ms", summary_json(compact_vs_cub.solution_ms)},
                    {"reference_over_cub_time", summary_json(compact_vs_cub.ratio)},
                    {"throughput_vs_cub", compact.throughput_vs_cub},
                    {"reference_gbs", compact_bytes / (compact.reference_ms * 1e6)},
                    {"kept", kept},
                    {"results_agree", compact.agree},
                    {"naive_over_reference", summary_json(compact_naive.ratio)},
                    {"naive_ms", summary_json(compact_naive.student_ms)},
                    {"naive_correct", naive_compact_ok}};
  out["target_met"] = target_met;
  std::printf("\n%s\n", target_met ? "Target met." : "Target missed (see above).");
  return cudalabs::bench::finish(out, json_path, target_met);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_06_scan", run);
}
