// Lab 08 benchmark: the reference convolutions against copy bandwidth, in one run on this GPU.
//
// At 4096 x 4096 floats with a 5 x 5 filter (the timed size of config/labs/08_convolution.yaml,
// and the target's) and at 8192 x 8192, the reference's convolve_2d_tiled is measured interleaved
// with a device-to-device cudaMemcpy moving the same bytes (the input read once, the output
// written once: 8 bytes per pixel; the YAML's baseline "copy bandwidth"); so is its convolve_1d
// at 2^26 floats with 31 taps. It prints medians, GB/s, the fraction of the memcpy and of the
// in-process float4 copy kernel (the YAML's "peak bandwidth"), and the paired time ratios of the
// variants below to the reference function each timed case compares with: the figures the YAML's
// max_ratio_to_solution thresholds and the fixtures' expected grades rest on. The variants are
// the kernels of the fixtures in grader/tests/cli/submissions/08_convolution, as students write
// them.
//
// Target (config/labs/08_convolution.yaml, reference_targets): tiled_4096_5x5 >= 70% of memcpy
// bandwidth; exit 1 if not, 2 when a kernel computes a wrong result (each is checked first against
// the CPU) or CUDA fails.
//
//   bench_08_convolution [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "bench_figures.hpp"
#include "convolution.cuh"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "cudalabs/timing/interleaved.hpp"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using cudalabs::bench::gbs;
using namespace cudalabs::timing;

constexpr double kTargetFractionOfCopy = 0.70;
constexpr int kMaxTaps2d = solution::kMaxFilterWidth2d * solution::kMaxFilterWidth2d;

// --- Variants, as students write them ----------------------------------------------------------------

// This file's own constant-memory filters, for the variants that use constant memory.
__constant__ float b_filter_1d[solution::kMaxFilterWidth1d];
__constant__ float b_filter_2d[kMaxTaps2d];

__device__ int clamp_to(int i, int n) { return min(max(i, 0), n - 1); }

// The naive fixture: one thread per output, the image and the taps through global memory.
// swapped: threadIdx.x walks down a column (warps' loads uncoalesced).
template <bool kSwapped>
__global__ void naive_2d_global_taps(const float* in, float* out, const float* taps, int width, int height, int radius) {
  const int x = kSwapped ? blockIdx.y * blockDim.y + threadIdx.y : blockIdx.x * blockDim.x + threadIdx.x;
  const int y = kSwapped ? blockIdx.x * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int w = 2 * radius + 1;
  float sum = 0.0f;
  for (int j = 0; j < w; ++j) {
    for (int k = 0; k < w; ++k) {
      sum += taps[j * w + k] * in[clamp_to(y + j - radius, height) * width + clamp_to(x + k - radius, width)];
    }
  }
  out[y * width + x] = sum;
}

// The handout's tiled kernel (the handout_tiled fixture): one output per thread, a 32 x 8 block,
// its tile plus halo in shared memory sized for the largest radius, taps in constant memory, the
// radius known only at run time.
constexpr int kHandoutX = 32;
constexpr int kHandoutY = 8;

__global__ void handout_tiled_2d(const float* in, float* out, int width, int height, int radius) {
  __shared__ float tile[kHandoutY + solution::kMaxFilterWidth2d - 1][kHandoutX + solution::kMaxFilterWidth2d - 1];
  const int x0 = blockIdx.x * kHandoutX;
  const int y0 = blockIdx.y * kHandoutY;
  const int cols = kHandoutX + 2 * radius;
  const int rows = kHandoutY + 2 * radius;
  for (int i = threadIdx.y * kHandoutX + threadIdx.x; i < rows * cols; i += kHandoutX * kHandoutY) {
    const int r = i / cols;
    const int c = i % cols;
    tile[r][c] = in[clamp_to(y0 - radius + r, height) * width + clamp_to(x0 - radius + c, width)];
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  const int y = y0 + threadIdx.y;
  if (x >= width || y >= height) return;
  const int w = 2 * radius + 1;
  float sum = 0.0f;
  for (int j = 0; j < w; ++j) {
    for (int k = 0; k < w; ++k) sum += b_filter_2d[j * w + k] * tile[threadIdx.y + j][threadIdx.x + k];
  }
  out[y * width + x] = sum;
}

// 1D, one thread per output, taps from constant memory (the handout's step 1) or through a
// global pointer (the naive fixture).
template <bool kGlobalTaps>
__global__ void naive_1d(const float* in, float* out, const float* taps, int n, int radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k <= 2 * radius; ++k) {
    sum += (kGlobalTaps ? taps[k] : b_filter_1d[k]) * in[clamp_to(i + k - radius, n)];
  }
  out[i] = sum;
}

// --- Data and launches ----------------------------------------------------------------------------------

struct Filters {
  std::vector<float> taps_1d;
  std::vector<float> taps_2d;
  DeviceBuffer<float> global_1d;
  DeviceBuffer<float> global_2d;
  Filters(int width_1d, int width_2d)
      : taps_1d(cudalabs::uniform_floats(static_cast<std::size_t>(width_1d), 8801)),
        taps_2d(cudalabs::uniform_floats(static_cast<std::size_t>(width_2d) * width_2d, 8802)),
        global_1d(taps_1d),
        global_2d(taps_2d) {
    CUDALABS_CHECK(solution::set_filter_1d(taps_1d.data(), width_1d));
    CUDALABS_CHECK(solution::set_filter_2d(taps_2d.data(), width_2d));
    CUDALABS_CHECK(cudaMemcpyToSymbol(b_filter_1d, taps_1d.data(), taps_1d.size() * sizeof(float)));
    CUDALABS_CHECK(cudaMemcpyToSymbol(b_filter_2d, taps_2d.data(), taps_2d.size() * sizeof(float)));
  }
  int width_1d() const { return static_cast<int>(taps_1d.size()); }
  int width_2d() const { return static_cast<int>(std::lround(std::sqrt(static_cast<double>(taps_2d.size())))); }
};

// A 2D convolution of `in` (width x height) into `out`; the functions below make one per variant.
using Convolve2d = void (*)(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s);

void reference_tiled(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s) {
  CUDALABS_CHECK(solution::convolve_2d_tiled(in, out, width, height, f.width_2d(), s));
}
void reference_naive(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s) {
  CUDALABS_CHECK(solution::convolve_2d_naive(in, out, width, height, f.width_2d(), s));
}
void handout_tiled(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s) {
  const dim3 threads(kHandoutX, kHandoutY);
  const dim3 blocks((width + kHandoutX - 1) / kHandoutX, (height + kHandoutY - 1) / kHandoutY);
  handout_tiled_2d<<<blocks, threads, 0, s>>>(in, out, width, height, f.width_2d() / 2);
  CUDALABS_CHECK_LAUNCH();
}
void naive_global(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s) {
  const dim3 threads(32, 8);
  const dim3 blocks((width + 31) / 32, (height + 7) / 8);
  naive_2d_global_taps<false><<<blocks, threads, 0, s>>>(in, out, f.global_2d.data(), width, height, f.width_2d() / 2);
  CUDALABS_CHECK_LAUNCH();
}
void naive_swapped(const float* in, float* out, const Filters& f, int width, int height, cudaStream_t s) {
  const dim3 threads(16, 16);
  const dim3 blocks((height + 15) / 16, (width + 15) / 16);
  naive_2d_global_taps<true><<<blocks, threads, 0, s>>>(in, out, f.global_2d.data(), width, height, f.width_2d() / 2);
  CUDALABS_CHECK_LAUNCH();
}

using Convolve1d = void (*)(const float* in, float* out, const Filters& f, int n, cudaStream_t s);

void reference_1d(const float* in, float* out, const Filters& f, int n, cudaStream_t s) {
  CUDALABS_CHECK(solution::convolve_1d(in, out, n, f.width_1d(), s));
}
template <bool kGlobalTaps>
void naive_1d_launch(const float* in, float* out, const Filters& f, int n, cudaStream_t s) {
  naive_1d<kGlobalTaps><<<(n + 255) / 256, 256, 0, s>>>(in, out, f.global_1d.data(), n, f.width_1d() / 2);
  CUDALABS_CHECK_LAUNCH();
}

struct Variant2d {
  const char* name;
  Convolve2d fn;
};
struct Variant1d {
  const char* name;
  Convolve1d fn;
};

const Variant2d kReferenceTiled{"reference_tiled", &reference_tiled};
const Variant2d kReferenceNaive{"reference_naive", &reference_naive};
const Variant2d kHandoutTiled{"handout_tiled", &handout_tiled};
const Variant2d kNaiveGlobal{"naive_global_taps", &naive_global};
const Variant2d kNaiveSwapped{"naive_swapped_xy", &naive_swapped};
const Variant2d kVariants2d[] = {kReferenceTiled, kReferenceNaive, kHandoutTiled, kNaiveGlobal, kNaiveSwapped};

const Variant1d kReference1d{"reference_1d", &reference_1d};
const Variant1d kNaive1dConstant{"naive_1d_constant_taps", &naive_1d_launch<false>};
const Variant1d kNaive1dGlobal{"naive_1d_global_taps", &naive_1d_launch<true>};
const Variant1d kVariants1d[] = {kReference1d, kNaive1dConstant, kNaive1dGlobal};

// --- Correctness first ------------------------------------------------------------------------------------

double cpu_2d_at(const std::vector<float>& in, int width, int height, const Filters& f, int x, int y) {
  const int w = f.width_2d(), r = w / 2;
  double sum = 0;
  for (int j = 0; j < w; ++j) {
    for (int k = 0; k < w; ++k) {
      const int yy = std::clamp(y + j - r, 0, height - 1), xx = std::clamp(x + k - r, 0, width - 1);
      sum += static_cast<double>(f.taps_2d[j * w + k]) * in[static_cast<std::size_t>(yy) * width + xx];
    }
  }
  return sum;
}

double cpu_1d_at(const std::vector<float>& in, const Filters& f, int i) {
  const int w = f.width_1d(), r = w / 2, n = static_cast<int>(in.size());
  double sum = 0;
  for (int k = 0; k < w; ++k) sum += static_cast<double>(f.taps_1d[k]) * in[std::clamp(i + k - r, 0, n - 1)];
  return sum;
}

// The YAML's bound (config/labs/08_convolution.yaml `convolution`): 1.4e-5 * max|in| * sum|taps|.
double allowed_error(const std::vector<float>& taps) {
  double sum = 0;
  for (float t : taps) sum += std::fabs(t);
  return 1.4e-5 * sum;  // inputs in [-1, 1)
}

// Every variant on a 1000 x 777 image (neither side a multiple of any block) and 100003 values.
bool verify_variants(const Filters& f) {
  bool ok = true;
  {
    constexpr int width = 1000, height = 777;
    const std::vector<float> host = cudalabs::uniform_floats(static_cast<std::size_t>(width) * height, 8803);
    DeviceBuffer<float> in(host), out(host.size());
    for (const Variant2d& v : kVariants2d) {
      out.fill_bytes(0xFF);
      v.fn(in.data(), out.data(), f, width, height, nullptr);
      CUDALABS_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = out.copy_to_host();
      for (std::size_t i = 0; i < got.size(); ++i) {
        const int x = static_cast<int>(i % width), y = static_cast<int>(i / width);
        if (!(std::fabs(got[i] - cpu_2d_at(host, width, height, f, x, y)) <= allowed_error(f.taps_2d))) {
          std::printf("WRONG RESULT: %s at (%d, %d) of a %d x %d image\n", v.name, x, y, width, height);
          ok = false;
          break;
        }
      }
    }
  }
  constexpr int n = 100003;
  const std::vector<float> host = cudalabs::uniform_floats(n, 8804);
  DeviceBuffer<float> in(host), out(host.size());
  for (const Variant1d& v : kVariants1d) {
    out.fill_bytes(0xFF);
    v.fn(in.data(), out.data(), f, n, nullptr);
    CUDALABS_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = out.copy_to_host();
    for (int i = 0; i < n; ++i) {
      if (!(std::fabs(got[i] - cpu_1d_at(host, f, i)) <= allowed_error(f.taps_1d))) {
        std::printf("WRONG RESULT: %s at %d of %d values\n", v.name, i, n);
        ok = false;
        break;
      }
    }
  }
  return ok;
}

// --- Measurements ---------------------------------------------------------------------------------------

// Input, output and a memcpy destination of n floats.
struct Buffers {
  DeviceBuffer<float> in, out, scratch;
  explicit Buffers(std::size_t n) : in(n), out(n), scratch(n) {
    cudalabs::fill_uniform_floats(in.data(), n, 8805);
    out.fill_bytes(0);
    CUDALABS_CHECK(cudaDeviceSynchronize());
  }
  double bytes_moved() const { return 2.0 * static_cast<double>(in.bytes()); }  // read in, write out
  Launch memcpy_baseline() {
    return [this](cudaStream_t s) {
      CUDALABS_CHECK(cudaMemcpyAsync(scratch.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice, s));
    };
  }
};

// One launch against the memcpy of the same bytes; returns the fraction of the memcpy.
double against_memcpy(const std::string& name, const Launch& launch, Buffers& b, double copy_kernel_gbs,
                      const SamplingPolicy& policy, json& out) {
  const PairedResult r = measure_interleaved({always_succeeding(launch), b.memcpy_baseline(), {}}, policy);
  const double achieved = gbs(b.bytes_moved(), r.student_ms.median);
  const double of_memcpy = 1.0 / r.ratio.median;  // paired, same bytes: time ratio = bandwidth ratio
  std::printf("  %-26s %-9.4f %-9.4f %-9.1f %-10.3f %-14.3f\n", name.c_str(), r.student_ms.median, r.solution_ms.median,
              achieved, of_memcpy, achieved / copy_kernel_gbs);
  out[name] = {{"ms", summary_json(r.student_ms)},  {"memcpy_ms", summary_json(r.solution_ms)},
               {"gbs", achieved},                    {"fraction_of_memcpy", of_memcpy},
               {"fraction_of_copy_kernel", achieved / copy_kernel_gbs}};
  return of_memcpy;
}

// A variant against the reference function a timed case compares it with.
void ratio_to_reference(const std::string& name, const Launch& variant, const Launch& reference, double bytes,
                        const char* meaning, const SamplingPolicy& policy, json& out) {
  const PairedResult r = measure_interleaved({always_succeeding(variant), reference, {}}, policy);
  std::printf("  %-40s %-9.4f ms  %-8.1f GB/s  ratio %.3f [%.3f, %.3f]  (%s)\n", name.c_str(), r.student_ms.median,
              gbs(bytes, r.student_ms.median), r.ratio.median, r.ratio.ci.low, r.ratio.ci.high, meaning);
  out[name] = {{"ms", summary_json(r.student_ms)}, {"ratio_to_reference", summary_json(r.ratio)}, {"meaning", meaning}};
}

int run(const std::string& json_path) {
  int device = 0;
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, device));
  const double copy_kernel_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 08 convolution benchmark on %s (%d SMs, L2 %.0f MiB)\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize / 1048576.0);
  std::printf("in-process float4 copy kernel: %.1f GB/s (the YAML's 'peak bandwidth')\n\n", copy_kernel_gbs);

  const Filters filters(31, 5);  // the timed cases' widths: 31 taps (1D), 5 x 5 (2D)
  if (!verify_variants(filters)) return 2;
  const SamplingPolicy policy;  // the course defaults: 1% CI target, at most 2 s per measurement
  json report = {{"device", prop.name},
                 {"copy_kernel_gbs", copy_kernel_gbs},
                 {"target_fraction_of_memcpy", kTargetFractionOfCopy}};

  auto launch_2d = [&filters](const Variant2d& v, Buffers& b, int side) -> Launch {
    return [&filters, &b, v, side](cudaStream_t s) { v.fn(b.in.data(), b.out.data(), filters, side, side, s); };
  };
  auto launch_1d = [&filters](const Variant1d& v, Buffers& b, int n) -> Launch {
    return [&filters, &b, v, n](cudaStream_t s) { v.fn(b.in.data(), b.out.data(), filters, n, s); };
  };

  // The reference against a memcpy of the same bytes.
  std::printf("Reference against a cudaMemcpy of the same bytes (input read + output written)\n");
  std::printf("  %-26s %-9s %-9s %-9s %-10s %-14s\n", "case", "ms", "memcpy ms", "GB/s", "of memcpy", "of copy kernel");
  json reference = json::object();
  double target_fraction = 0;
  for (int side : {4096, 8192}) {
    Buffers b(static_cast<std::size_t>(side) * side);
    const std::string name = "tiled_" + std::to_string(side) + "_5x5";
    const double fraction = against_memcpy(name, launch_2d(kReferenceTiled, b, side), b, copy_kernel_gbs, policy, reference);
    if (side == 4096) target_fraction = fraction;
  }
  {
    constexpr int n = 1 << 26;
    Buffers b(n);
    against_memcpy("conv1d_2to26_31taps", launch_1d(kReference1d, b, n), b, copy_kernel_gbs, policy, reference);
  }
  report["reference"] = reference;

  // The variants against the reference function of the timed case they would be graded in.
  std::printf("\nVariants against the reference (time / reference time, paired)\n");
  json ratios = json::object();
  {
    constexpr int side = 4096;
    Buffers b(static_cast<std::size_t>(side) * side);
    const double bytes = b.bytes_moved();
    const Launch tiled = launch_2d(kReferenceTiled, b, side);
    const Launch naive = launch_2d(kReferenceNaive, b, side);
    ratio_to_reference("tiled_4096_5x5: handout_tiled", launch_2d(kHandoutTiled, b, side), tiled, bytes,
                       "handout_tiled fixture; a student following the handout: must pass", policy, ratios);
    ratio_to_reference("tiled_4096_5x5: reference_naive", naive, tiled, bytes,
                       "a naive kernel with the taps in constant memory", policy, ratios);
    ratio_to_reference("tiled_4096_5x5: naive_global_taps", launch_2d(kNaiveGlobal, b, side), tiled, bytes,
                       "naive fixture: must not pass", policy, ratios);
    ratio_to_reference("naive_4096_5x5: naive_global_taps", launch_2d(kNaiveGlobal, b, side), naive, bytes,
                       "naive fixture in the naive case: must pass", policy, ratios);
    ratio_to_reference("naive_4096_5x5: naive_swapped_xy", launch_2d(kNaiveSwapped, b, side), naive, bytes,
                       "x and y swapped in the thread mapping: should not pass", policy, ratios);
  }
  {
    constexpr int n = 1 << 26;
    Buffers b(n);
    const Launch reference_1d_launch = launch_1d(kReference1d, b, n);
    ratio_to_reference("conv1d_2to26_31taps: naive_1d_constant_taps", launch_1d(kNaive1dConstant, b, n),
                       reference_1d_launch, b.bytes_moved(), "handout step 1 (handout_tiled and halo fixtures)", policy,
                       ratios);
    ratio_to_reference("conv1d_2to26_31taps: naive_1d_global_taps", launch_1d(kNaive1dGlobal, b, n),
                       reference_1d_launch, b.bytes_moved(), "naive fixture", policy, ratios);
  }
  report["variant_ratios"] = ratios;

  const bool ok = target_fraction >= kTargetFractionOfCopy;
  report["target_met"] = ok;
  std::printf("\nreference target (tiled_4096_5x5 >= %.0f%% of memcpy bandwidth): %s (%.1f%%)\n",
              kTargetFractionOfCopy * 100, ok ? "MET" : "MISSED", target_fraction * 100);
  return cudalabs::bench::finish(report, json_path, ok);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_08_convolution", run);
}
