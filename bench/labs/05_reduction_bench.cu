// Lab 05 benchmark: the reference reductions against CUB's DeviceReduce, in one run on this GPU.
//
// At 2^26 elements (the timed size of config/labs/05_reduction.yaml), for sum_float, sum_int and
// max_float: the reference is measured interleaved with cub::DeviceReduce::Sum / Max (the
// baseline config/labs/05_reduction.yaml names under reference_targets; CUB is allowed here, never in student code), and both results are
// checked against each other first. Printed: medians, GB/s read, the fraction of the in-process
// copy bandwidth, and the throughput ratio reference/CUB.
// For calibrating the YAML's max_ratio_to_solution thresholds it also measures, against the
// reference: the naive fixture's algorithm (interleaved addressing, one launch per tree level)
// and a "good but plain" variant (grid-stride, scalar loads, shuffles, second pass).
//
// Target (config/labs/05_reduction.yaml, reference_targets): reference throughput >= 0.95x CUB for all three; exit 1 if not.
//
//   bench_05_reduction [--json FILE]
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "reduction.cuh"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using namespace cudalabs::timing;

constexpr std::size_t kN = std::size_t{1} << 26;
constexpr double kTargetThroughputVsCub = 0.95;
constexpr unsigned kThreads = 256;

struct SumOp {
  template <class T>
  __device__ static T identity() { return T(0); }
  // Unsigned for int, so overflow wraps as the lab's contract says.
  __device__ static int combine(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }
  __device__ static float combine(float a, float b) { return a + b; }
};
struct MaxOp {
  template <class T>
  __device__ static T identity() { return -INFINITY; }
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};

// --- the naive fixture's algorithm: interleaved addressing, one launch per level -------------

template <class Op, class T>
__global__ void naive_level(const T* in, std::size_t n, T* out) {
  __shared__ T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = i < n ? in[i] : Op::template identity<T>();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) data[tid] = Op::combine(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class Op, class T>
void naive_reduce(const T* in, std::size_t n, T* result, T* scratch, cudaStream_t stream) {
  T* half[2] = {scratch, scratch + (kN / kThreads)};
  for (int level = 0;; ++level) {
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    T* out = blocks <= 1 ? result : half[level % 2];
    naive_level<Op, T><<<blocks < 1 ? 1 : static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, n, out);
    CUDALABS_CHECK(cudaGetLastError());
    if (blocks <= 1) return;
    in = out;
    n = blocks;
  }
}

// --- a plain but sound variant: grid-stride with scalar loads, shuffles, second pass ---------

template <class Op, class T>
__device__ T block_combine(T v) {
  __shared__ T per_warp[32];
  for (int o = 16; o > 0; o /= 2) v = Op::combine(v, __shfl_down_sync(0xFFFFFFFFu, v, o));
  if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? per_warp[threadIdx.x] : Op::template identity<T>();
    for (int o = 16; o > 0; o /= 2) v = Op::combine(v, __shfl_down_sync(0xFFFFFFFFu, v, o));
  }
  return v;
}

template <class Op, class T>
__global__ void plain_blocks(const T* in, std::size_t n, T* out) {
  T acc = Op::template identity<T>();
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    acc = Op::combine(acc, in[i]);
  }
  acc = block_combine<Op, T>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <class Op, class T>
void plain_reduce(const T* in, std::size_t n, T* result, T* scratch, unsigned blocks, cudaStream_t stream) {
  plain_blocks<Op, T><<<blocks, kThreads, 0, stream>>>(in, n, scratch);
  plain_blocks<Op, T><<<1, 1024, 0, stream>>>(scratch, blocks, result);
  CUDALABS_CHECK(cudaGetLastError());
}

// --- measurement -----------------------------------------------------------------------------

struct Row {
  std::string op;
  double reference_ms = 0;
  double cub_ms = 0;
  double throughput_vs_cub = 0;  // cub time / reference time, paired median
  double naive_ratio = 0;        // naive time / reference time
  double plain_ratio = 0;        // plain time / reference time
  bool target_met = false;
};

template <class T>
T read_one(const T* device_value) {
  T host{};
  CUDALABS_CHECK(cudaMemcpy(&host, device_value, sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// One operation: reference vs CUB (target), naive vs reference and plain vs reference (calibration).
template <class Op, class T, class ReferenceFn, class CubFn>
Row bench_op(const char* name, const std::vector<T>& host, ReferenceFn reference, CubFn cub_reduce,
             double allowed_difference, const SamplingPolicy& policy, double copy_gbs, json& out) {
  DeviceBuffer<T> in(host), ref_result(1), cub_result(1), other_result(1);
  DeviceBuffer<unsigned char> workspace(solution::kReductionWorkspaceBytes);
  DeviceBuffer<T> scratch(kN / kThreads * 2);
  std::size_t temp_bytes = 0;
  CUDALABS_CHECK(cub_reduce(nullptr, temp_bytes, in.data(), cub_result.data(), static_cast<int>(kN), nullptr));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  int sms = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned plain_blocks_count = static_cast<unsigned>(sms) * 8;

  const Launch ref_launch = [&](cudaStream_t s) {
    CUDALABS_CHECK(reference(in.data(), kN, ref_result.data(), workspace.data(), s));
  };
  const Launch cub_launch = [&](cudaStream_t s) {
    std::size_t bytes = temp_bytes;
    CUDALABS_CHECK(cub_reduce(temp.data(), bytes, in.data(), cub_result.data(), static_cast<int>(kN), s));
  };
  const Launch naive_launch = [&](cudaStream_t s) {
    naive_reduce<Op, T>(in.data(), kN, other_result.data(), scratch.data(), s);
  };
  const Launch plain_launch = [&](cudaStream_t s) {
    plain_reduce<Op, T>(in.data(), kN, other_result.data(), scratch.data(), plain_blocks_count, s);
  };

  // Results first: a fast wrong answer is worth nothing.
  ref_launch(nullptr);
  cub_launch(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const T ref_value = read_one(ref_result.data());
  const T cub_value = read_one(cub_result.data());
  const bool agree = std::fabs(static_cast<double>(ref_value) - static_cast<double>(cub_value)) <= allowed_difference;
  naive_launch(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const T naive_value = read_one(other_result.data());

  const PairedResult vs_cub = measure_interleaved({always_succeeding(ref_launch), cub_launch, {}}, policy);
  const PairedResult naive = measure_interleaved({always_succeeding(naive_launch), ref_launch, {}}, policy);
  const PairedResult plain = measure_interleaved({always_succeeding(plain_launch), ref_launch, {}}, policy);

  Row row;
  row.op = name;
  row.reference_ms = vs_cub.student_ms.median;
  row.cub_ms = vs_cub.solution_ms.median;
  row.throughput_vs_cub = 1.0 / vs_cub.ratio.median;
  row.naive_ratio = naive.ratio.median;
  row.plain_ratio = plain.ratio.median;
  row.target_met = agree && row.throughput_vs_cub >= kTargetThroughputVsCub;

  const double bytes = static_cast<double>(kN) * sizeof(T);
  const double ref_gbs = bytes / (row.reference_ms * 1e6);
  const double cub_gbs = bytes / (row.cub_ms * 1e6);
  std::printf("  %-10s reference %.4f ms (%6.0f GB/s, %5.1f%% of copy)  CUB %.4f ms (%6.0f GB/s)  "
              "throughput vs CUB %.3fx [%s]\n",
              name, row.reference_ms, ref_gbs, 100.0 * ref_gbs / copy_gbs, row.cub_ms, cub_gbs, row.throughput_vs_cub,
              row.target_met ? "target met" : "TARGET MISSED");
  std::printf("  %-10s results: reference %.9g, CUB %.9g, naive %.9g%s\n", "", static_cast<double>(ref_value),
              static_cast<double>(cub_value), static_cast<double>(naive_value), agree ? "" : "  <- DISAGREE");
  std::printf("  %-10s calibration: naive (tid %% (2*s), launch per level) %.3fx the reference (%.4f ms); "
              "plain (scalar loads, shuffles, 2 passes) %.3fx (%.4f ms)\n",
              "", row.naive_ratio, naive.student_ms.median, row.plain_ratio, plain.student_ms.median);

  out[name] = {{"reference_ms", summary_json(vs_cub.student_ms)},
               {"cub_ms", summary_json(vs_cub.solution_ms)},
               {"reference_over_cub_time", summary_json(vs_cub.ratio)},
               {"throughput_vs_cub", row.throughput_vs_cub},
               {"reference_gbs", ref_gbs},
               {"cub_gbs", cub_gbs},
               {"reference_fraction_of_copy", ref_gbs / copy_gbs},
               {"results_agree", agree},
               {"naive_over_reference", summary_json(naive.ratio)},
               {"naive_ms", summary_json(naive.student_ms)},
               {"plain_over_reference", summary_json(plain.ratio)},
               {"plain_ms", summary_json(plain.student_ms)},
               {"target_met", row.target_met}};
  return row;
}

int run(const std::string& json_path) {

  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, 0));
  const double copy_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 05 reduction benchmark, 2^26 elements (256 MiB read per call)\n");
  std::printf("  %s, %d SMs; measured copy bandwidth %.0f GB/s (read + write)\n", prop.name,
              prop.multiProcessorCount, copy_gbs);
  std::printf("  target: reference throughput >= %.2fx cub::DeviceReduce\n\n", kTargetThroughputVsCub);

  SamplingPolicy policy;
  policy.max_samples = 300;
  policy.time_budget_seconds = 3.0;

  const std::vector<float> floats = cudalabs::uniform_floats(kN, 5101);        // |x| < 1: sum |x| < n
  const std::vector<int> ints = cudalabs::uniform_ints(kN, 5102, -1000, 1000);  // sum exact, no overflow

  // Two float orders may differ by the YAML's sum_float tolerance: 2e-5 * sum |x_i|, sum |x_i| < n.
  const double kSumFloatAllowed = 2e-5 * static_cast<double>(kN);
  json out = {{"device", prop.name}, {"copy_gbs", copy_gbs}, {"n", kN}};
  json ops = json::object();
  bool all_met = true;

  all_met &= bench_op<SumOp, float>(
                 "sum_float", floats, &solution::sum_float,
                 [](void* t, std::size_t& b, const float* in, float* o, int n, cudaStream_t s) {
                   return cub::DeviceReduce::Sum(t, b, in, o, n, s);
                 },
                 kSumFloatAllowed, policy, copy_gbs, ops)
                 .target_met;
  all_met &= bench_op<SumOp, int>(
                 "sum_int", ints, &solution::sum_int,
                 [](void* t, std::size_t& b, const int* in, int* o, int n, cudaStream_t s) {
                   return cub::DeviceReduce::Sum(t, b, in, o, n, s);
                 },
                 0.0, policy, copy_gbs, ops)
                 .target_met;
  all_met &= bench_op<MaxOp, float>(
                 "max_float", floats, &solution::max_float,
                 [](void* t, std::size_t& b, const float* in, float* o, int n, cudaStream_t s) {
                   return cub::DeviceReduce::Max(t, b, in, o, n, s);
                 },
                 0.0, policy, copy_gbs, ops)
                 .target_met;

  out["ops"] = ops;
  out["target_met"] = all_met;
  std::printf("\n%s\n", all_met ? "All targets met." : "Target missed (see above).");
  return cudalabs::bench::finish(out, json_path, all_met);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_05_reduction", run);
}
