// Lab 04 benchmark: the reference transposes against copy bandwidth, in one run on this GPU.
//
// For 8192 x 8192 and 16384 x 4096 floats (the timed shapes of config/labs/04_transpose.yaml),
// each of the reference's three steps (naive; coalesced = 32x32 tile without padding, i.e. with
// bank conflicts; conflict_free = padded 64x64 tile), and the handout's padded 32x32 tile with 4
// and with 8 elements per thread (what a student's conflict-free kernel looks like), is measured
// interleaved with a device-to-device cudaMemcpy of the same bytes (the baseline config/labs/04_transpose.yaml names
// "copy bandwidth"). It prints medians, GB/s (bytes read + written), the fraction of the memcpy
// and of the in-process float4 copy kernel that the YAML's min_fraction_of_peak_bandwidth uses,
// and the paired ratios between steps that the YAML's max_ratio_to_solution thresholds and the
// fixtures' expected grades rest on.
//
// Target (config/labs/04_transpose.yaml, reference_targets): conflict_free >= 85% of memcpy bandwidth at both shapes; exit 1 if not,
// 2 when a step computes a wrong transpose (checked first, at 1000 x 777) or CUDA fails.
//
//   bench_04_transpose [--json FILE]
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "transpose.cuh"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using cudalabs::bench::gbs;
using namespace cudalabs::timing;

constexpr double kTargetFractionOfCopy = 0.85;

using TransposeFn = cudaError_t (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);

// The handout's conflict-free kernel, as a student writes it: a padded 32x32 tile, 32 x kBlockRows
// threads (kBlockRows = 8: 4 elements per thread, as the handout suggests; 4: 8 per thread). The
// reference's conflict-free kernel uses 64x64 tiles; this is what its threshold must leave room for.
template <unsigned kBlockRows>
__global__ void handout_padded_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                                      unsigned cols) {
  constexpr unsigned kTile = 32;
  __shared__ float tile[kTile][kTile + 1];
  const unsigned tile_row = blockIdx.y * kTile;
  const unsigned tile_col = blockIdx.x * kTile;
#pragma unroll
  for (unsigned k = 0; k < kTile; k += kBlockRows) {
    const unsigned r = tile_row + threadIdx.y + k;
    const unsigned c = tile_col + threadIdx.x;
    if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
#pragma unroll
  for (unsigned k = 0; k < kTile; k += kBlockRows) {
    const unsigned out_row = tile_col + threadIdx.y + k;
    const unsigned out_col = tile_row + threadIdx.x;
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
  }
}

template <unsigned kBlockRows>
cudaError_t handout_padded(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  const dim3 threads(32, kBlockRows);
  const dim3 blocks(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 31) / 32));
  handout_padded_kernel<kBlockRows><<<blocks, threads, 0, stream>>>(in, out, static_cast<unsigned>(rows),
                                                                     static_cast<unsigned>(cols));
  return cudaGetLastError();
}

struct Step {
  const char* name;
  TransposeFn fn;
};

// The reference's three functions, and padded 32x32 tiles as the handout describes them.
const Step kNaive{"naive", &solution::transpose_naive};
const Step kCoalesced{"coalesced", &solution::transpose_coalesced};
const Step kPadded32x8{"padded32_4each", &handout_padded<8>};
const Step kPadded32x4{"padded32_8each", &handout_padded<4>};
const Step kConflictFree{"conflict_free", &solution::transpose_conflict_free};
const Step kSteps[] = {kNaive, kCoalesced, kPadded32x8, kPadded32x4, kConflictFree};

struct Shape {
  std::size_t rows;
  std::size_t cols;
  std::string label() const { return std::to_string(rows) + "x" + std::to_string(cols); }
};

// Input and output of one shape, and launchers for the steps and the memcpy baseline.
class Matrices {
 public:
  explicit Matrices(Shape shape) : shape_(shape), in_(shape.rows * shape.cols), out_(shape.rows * shape.cols) {
    in_.copy_from_host(cudalabs::uniform_floats(in_.size(), 4004));
    out_.fill_bytes(0);
  }

  Launch step(TransposeFn fn) {
    return [this, fn](cudaStream_t stream) { CUDALABS_CHECK(fn(in_.data(), out_.data(), shape_.rows, shape_.cols, stream)); };
  }

  Launch memcpy_baseline() {
    return [this](cudaStream_t stream) {
      CUDALABS_CHECK(cudaMemcpyAsync(out_.data(), in_.data(), in_.bytes(), cudaMemcpyDeviceToDevice, stream));
    };
  }

  double bytes_moved() const { return 2.0 * static_cast<double>(in_.bytes()); }

 private:
  Shape shape_;
  DeviceBuffer<float> in_;
  DeviceBuffer<float> out_;
};

// Every step must transpose correctly before its time means anything: a 1000 x 777 check (both
// sides odd, not multiples of any tile) against the CPU.
bool verify_steps() {
  constexpr std::size_t rows = 1000, cols = 777;
  const std::vector<float> host = cudalabs::uniform_floats(rows * cols, 4005);
  std::vector<float> expected(host.size());
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) expected[c * rows + r] = host[r * cols + c];
  }
  DeviceBuffer<float> in(host), out(host.size());
  bool ok = true;
  for (const Step& step : kSteps) {
    out.fill_bytes(0xFF);
    CUDALABS_CHECK(step.fn(in.data(), out.data(), rows, cols, nullptr));
    CUDALABS_CHECK(cudaDeviceSynchronize());
    if (std::memcmp(out.copy_to_host().data(), expected.data(), expected.size() * sizeof(float)) != 0) {
      std::printf("WRONG RESULT: %s does not transpose a %zu x %zu matrix correctly\n", step.name, rows, cols);
      ok = false;
    }
  }
  return ok;
}

// Every step of one shape against the memcpy; returns whether conflict_free met the target.
bool measure_shape(Shape shape, double copy_kernel_gbs, const SamplingPolicy& policy, json& out) {
  Matrices m(shape);
  std::printf("%s floats (%.0f MiB moved per call)\n", shape.label().c_str(), m.bytes_moved() / (1 << 20));
  std::printf("  %-15s %-9s %-9s %-9s %-12s %-14s\n", "step", "ms", "memcpy ms", "GB/s", "of memcpy", "of copy kernel");
  bool target_met = false;
  json rows = json::array();
  for (const Step& step : kSteps) {
    const PairedResult r = measure_interleaved({always_succeeding(m.step(step.fn)), m.memcpy_baseline(), {}}, policy);
    const double step_gbs = gbs(m.bytes_moved(), r.student_ms.median);
    const double of_memcpy = 1.0 / r.ratio.median;  // paired: same bytes, so time ratio = bandwidth ratio
    const double of_kernel = step_gbs / copy_kernel_gbs;
    std::printf("  %-15s %-9.4f %-9.4f %-9.1f %-12.3f %-14.3f\n", step.name, r.student_ms.median, r.solution_ms.median,
                step_gbs, of_memcpy, of_kernel);
    if (std::strcmp(step.name, "conflict_free") == 0) target_met = of_memcpy >= kTargetFractionOfCopy;
    rows.push_back({{"step", step.name},
                    {"ms", summary_json(r.student_ms)},
                    {"memcpy_ms", summary_json(r.solution_ms)},
                    {"ratio_to_memcpy", summary_json(r.ratio)},
                    {"gbs", step_gbs},
                    {"fraction_of_memcpy", of_memcpy},
                    {"fraction_of_copy_kernel", of_kernel}});
  }
  out[shape.label()] = rows;
  std::printf("\n");
  return target_met;
}

// Paired ratios between steps: what a submission that stops at step `slower` scores against the
// reference's step `reference` in the YAML's max_ratio_to_solution cases.
json step_ratios(Shape shape, const SamplingPolicy& policy) {
  Matrices m(shape);
  struct Pair {
    const Step& slower;
    const Step& reference;
    const char* meaning;
  };
  const Pair pairs[] = {
      {kNaive, kCoalesced, "naive fixture in coalesced_8192"},
      {kNaive, kConflictFree, "naive fixture in conflict_free_8192"},
      {kCoalesced, kConflictFree, "unpadded_tile fixture in conflict_free_8192"},
      {kPadded32x8, kConflictFree, "a student following the handout in conflict_free_8192: must pass"},
  };
  std::printf("Paired ratios at %s (time / reference time)\n", shape.label().c_str());
  json rows = json::array();
  for (const Pair& p : pairs) {
    const PairedResult r = measure_interleaved({always_succeeding(m.step(p.slower.fn)), m.step(p.reference.fn), {}}, policy);
    std::printf("  %-15s / %-14s %.3f [%.3f, %.3f]  (%s)\n", p.slower.name, p.reference.name, r.ratio.median,
                r.ratio.ci.low, r.ratio.ci.high, p.meaning);
    rows.push_back({{"slower", p.slower.name}, {"reference", p.reference.name}, {"ratio", summary_json(r.ratio)},
                    {"meaning", p.meaning}});
  }
  std::printf("\n");
  return rows;
}

int run(const std::string& json_path) {
  int device = 0;
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, device));
  const double copy_kernel_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 04 transpose benchmark on %s (%d SMs, L2 %.0f MiB)\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize / 1048576.0);
  std::printf("in-process float4 copy kernel: %.1f GB/s (the YAML's 'peak bandwidth')\n\n", copy_kernel_gbs);

  if (!verify_steps()) return 2;
  const SamplingPolicy policy;  // the course defaults: 1% CI target, at most 2 s per measurement
  json report = {{"device", prop.name}, {"copy_kernel_gbs", copy_kernel_gbs}, {"target_fraction_of_memcpy", kTargetFractionOfCopy}};
  json shapes = json::object();
  bool ok = true;
  for (const Shape shape : {Shape{8192, 8192}, Shape{16384, 4096}}) ok = measure_shape(shape, copy_kernel_gbs, policy, shapes) && ok;
  report["shapes"] = shapes;
  report["step_ratios_8192x8192"] = step_ratios({8192, 8192}, policy);
  report["target_met"] = ok;

  std::printf("reference target (conflict_free >= %.0f%% of memcpy bandwidth at both shapes): %s\n",
              kTargetFractionOfCopy * 100, ok ? "MET" : "MISSED");
  return cudalabs::bench::finish(report, json_path, ok);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_04_transpose", run);
}
