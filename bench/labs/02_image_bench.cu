// Lab 02 benchmark: the reference rgb_to_gray and sobel against copy bandwidth, in one run.
//
// At 8192 x 8192 pixels with tight rows (the timed size of config/labs/02_image.yaml), each
// reference kernel is measured interleaved with a device-to-device cudaMemcpy moving the same
// bytes (read + written; config/labs/02_image.yaml's reference baseline, "copy bandwidth"): 4 bytes per pixel for
// rgb_to_gray, 2 for sobel. It prints medians, GB/s, the fraction of the memcpy and of the
// in-process float4 copy kernel, and the paired time ratios of the naive variants below to the
// reference: the figures the YAML's max_ratio_to_solution thresholds and the fixtures' expected
// grades rest on.
//
// Targets (config/labs/02_image.yaml, reference_targets): rgb_to_gray >= 80% and sobel >= 70% of memcpy bandwidth; exit 1 if not.
//
//   bench_02_image [--json FILE]
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
#include "image.cuh"

namespace {

using cudalabs::DeviceBuffer;
using nlohmann::json;
using cudalabs::bench::summary_json;
using cudalabs::bench::gbs;
using namespace cudalabs::timing;

constexpr int kSide = 8192;
constexpr std::size_t kPixels = static_cast<std::size_t>(kSide) * kSide;
constexpr double kGrayTarget = 0.80;
constexpr double kSobelTarget = 0.70;

// --- naive variants, as students write them (the fixtures in grader/tests/cli/submissions) ----

__device__ int clamp_index(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

__global__ void naive_gray(const unsigned char* rgb, unsigned char* gray, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const unsigned char* p = rgb + (static_cast<std::size_t>(y) * width + x) * 3;
  gray[static_cast<std::size_t>(y) * width + x] = static_cast<unsigned char>((77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8);
}

// 9 global byte loads per pixel. swapped: threadIdx.x walks down a column (uncoalesced).
template <bool kSwapped>
__global__ void naive_sobel(const unsigned char* in, unsigned char* out, int width, int height) {
  const int x = kSwapped ? blockIdx.y * blockDim.y + threadIdx.y : blockIdx.x * blockDim.x + threadIdx.x;
  const int y = kSwapped ? blockIdx.x * blockDim.x + threadIdx.x : blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int p[3][3];
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      p[dy + 1][dx + 1] = in[static_cast<std::size_t>(clamp_index(y + dy, height - 1)) * width + clamp_index(x + dx, width - 1)];
    }
  }
  const int gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
  const int gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
  out[static_cast<std::size_t>(y) * width + x] =
      static_cast<unsigned char>(fminf(255.0f, sqrtf(static_cast<float>(gx * gx + gy * gy)) + 0.5f));
}

struct Images {
  DeviceBuffer<unsigned char> rgb{3 * kPixels}, gray{kPixels}, edges{kPixels}, scratch{2 * kPixels};
  Images() {
    const std::vector<int> values = cudalabs::uniform_ints(1 << 20, 2002, 0, 255);
    std::vector<unsigned char> pattern(values.begin(), values.end());
    for (std::size_t offset = 0; offset < rgb.size(); offset += pattern.size()) {
      CUDALABS_CHECK(cudaMemcpy(rgb.data() + offset, pattern.data(), pattern.size(), cudaMemcpyHostToDevice));
    }
    CUDALABS_CHECK(solution::rgb_to_gray(rgb.data(), 3 * kSide, gray.data(), kSide, kSide, kSide));
    CUDALABS_CHECK(cudaDeviceSynchronize());
  }
};

Launch memcpy_of(Images& m, std::size_t bytes_moved) {
  return [&m, bytes_moved](cudaStream_t stream) {
    CUDALABS_CHECK(cudaMemcpyAsync(m.scratch.data(), m.rgb.data(), bytes_moved / 2, cudaMemcpyDeviceToDevice, stream));
  };
}

// One reference kernel against the memcpy of the same bytes; returns the fraction of the memcpy.
double against_memcpy(const char* name, const Launch& reference, const Launch& baseline, double bytes,
                      double copy_kernel_gbs, double target, const SamplingPolicy& policy, json& out) {
  const PairedResult r = measure_interleaved({always_succeeding(reference), baseline, {}}, policy);
  const double achieved = gbs(bytes, r.student_ms.median);
  const double of_memcpy = 1.0 / r.ratio.median;  // paired, same bytes: time ratio = bandwidth ratio
  std::printf("  %-12s %-9.4f %-9.4f %-9.1f %-10.3f %-14.3f %s\n", name, r.student_ms.median, r.solution_ms.median,
              achieved, of_memcpy, achieved / copy_kernel_gbs, of_memcpy >= target ? "met" : "MISSED");
  out[name] = {{"ms", summary_json(r.student_ms)},     {"memcpy_ms", summary_json(r.solution_ms)},
               {"gbs", achieved},                       {"fraction_of_memcpy", of_memcpy},
               {"fraction_of_copy_kernel", achieved / copy_kernel_gbs}, {"target", target}};
  return of_memcpy;
}

// A naive variant against the reference: the ratio a submission like it sees in a timed case.
void ratio_to_reference(const char* name, const Launch& naive, const Launch& reference, double bytes,
                        const char* meaning, const SamplingPolicy& policy, json& out) {
  const PairedResult r = measure_interleaved({always_succeeding(naive), reference, {}}, policy);
  std::printf("  %-22s %-9.4f ms  %-8.1f GB/s  ratio %.3f [%.3f, %.3f]  (%s)\n", name, r.student_ms.median,
              gbs(bytes, r.student_ms.median), r.ratio.median, r.ratio.ci.low, r.ratio.ci.high, meaning);
  out[name] = {{"ms", summary_json(r.student_ms)}, {"ratio_to_reference", summary_json(r.ratio)}, {"meaning", meaning}};
}

int run(const std::string& json_path) {
  int device = 0;
  cudaDeviceProp prop{};
  CUDALABS_CHECK(cudaGetDevice(&device));
  CUDALABS_CHECK(cudaGetDeviceProperties(&prop, device));
  const double copy_kernel_gbs = measured_copy_bandwidth_gbs();
  std::printf("Lab 02 image benchmark on %s (%d SMs), %d x %d pixels, tight rows\n", prop.name,
              prop.multiProcessorCount, kSide, kSide);
  std::printf("in-process float4 copy kernel: %.1f GB/s (the YAML's 'peak bandwidth')\n\n", copy_kernel_gbs);

  Images m;
  const double gray_bytes = 4.0 * kPixels;
  const double sobel_bytes = 2.0 * kPixels;
  const Launch gray_ref = [&m](cudaStream_t s) {
    CUDALABS_CHECK(solution::rgb_to_gray(m.rgb.data(), 3 * kSide, m.gray.data(), kSide, kSide, kSide, s));
  };
  const Launch sobel_ref = [&m](cudaStream_t s) {
    CUDALABS_CHECK(solution::sobel(m.gray.data(), kSide, m.edges.data(), kSide, kSide, kSide, s));
  };
  const dim3 block(32, 8), grid(kSide / 32, kSide / 8), swapped_block(16, 16), swapped_grid(kSide / 16, kSide / 16);
  const Launch gray_naive = [&](cudaStream_t s) {
    naive_gray<<<grid, block, 0, s>>>(m.rgb.data(), m.scratch.data(), kSide, kSide);
  };
  const Launch sobel_global = [&](cudaStream_t s) {
    naive_sobel<false><<<grid, block, 0, s>>>(m.gray.data(), m.scratch.data(), kSide, kSide);
  };
  const Launch sobel_swapped = [&](cudaStream_t s) {
    naive_sobel<true><<<swapped_grid, swapped_block, 0, s>>>(m.gray.data(), m.scratch.data(), kSide, kSide);
  };

  const SamplingPolicy policy;  // the course defaults: 1% CI target, at most 2 s per measurement
  json report = {{"device", prop.name}, {"copy_kernel_gbs", copy_kernel_gbs}, {"side", kSide}};
  json reference = json::object();
  std::printf("Reference against a cudaMemcpy of the same bytes\n");
  std::printf("  %-12s %-9s %-9s %-9s %-10s %-14s %s\n", "kernel", "ms", "memcpy ms", "GB/s", "of memcpy",
              "of copy kernel", "target");
  const double gray_fraction = against_memcpy("rgb_to_gray", gray_ref, memcpy_of(m, gray_bytes), gray_bytes,
                                              copy_kernel_gbs, kGrayTarget, policy, reference);
  const double sobel_fraction = against_memcpy("sobel", sobel_ref, memcpy_of(m, sobel_bytes), sobel_bytes,
                                               copy_kernel_gbs, kSobelTarget, policy, reference);
  report["reference"] = reference;

  json naive = json::object();
  std::printf("\nNaive variants against the reference (time / reference time, paired)\n");
  ratio_to_reference("gray_one_byte_loads", gray_naive, gray_ref, gray_bytes, "both fixtures in rgb_to_gray_8192",
                     policy, naive);
  ratio_to_reference("sobel_global_reads", sobel_global, sobel_ref, sobel_bytes,
                     "global_reads fixture in sobel_8192", policy, naive);
  ratio_to_reference("sobel_swapped_xy", sobel_swapped, sobel_ref, sobel_bytes, "naive fixture in sobel_8192",
                     policy, naive);
  report["naive_ratios"] = naive;

  const bool ok = gray_fraction >= kGrayTarget && sobel_fraction >= kSobelTarget;
  report["target_met"] = ok;
  std::printf("\nreference target (rgb_to_gray >= %.0f%%, sobel >= %.0f%% of memcpy bandwidth): %s\n",
              kGrayTarget * 100, kSobelTarget * 100, ok ? "MET" : "MISSED");
  return cudalabs::bench::finish(report, json_path, ok);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_02_image", run);
}
