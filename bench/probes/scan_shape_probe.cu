// Which tile shape (threads per block, elements per thread, blocks per SM) makes the reference's
// decoupled look-back scan fastest on this GPU: each shape's inclusive scan of 2^26 ints,
// interleaved with CUB's DeviceScan::InclusiveSum and checked against it. The reference's own
// kernel is compiled here with each shape (solutions/06_scan/scan.cu is included whole). On the
// H100 (2026-11-24): 384x20 at 4 blocks/SM 0.92x CUB's throughput, 384x16 0.90x, 512x16 at
// 3/SM 0.91x; 5 blocks/SM (32 registers) 0.82x and 256x16 at 4/SM (64 registers) 0.80x.
//
//   scan_shape_probe
#include <cstdio>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/timing/interleaved.hpp"

#define LAB_IMPL probe
#include "../../solutions/06_scan/scan.cu"
#undef LAB_IMPL


namespace {

using cudalabs::DeviceBuffer;
using namespace cudalabs::timing;

constexpr std::size_t kN = std::size_t{1} << 26;

template <class Shape>
void measure(const char* name, const int* in, int* out, const int* expected, const Launch& cub) {
  DeviceBuffer<unsigned char> workspace(probe::workspace_bytes_for<Shape>(kN));
  const Launch shape = [&](cudaStream_t s) {
    CUDALABS_CHECK((probe::launch<probe::Mode::Inclusive, Shape>(in, out, nullptr, kN, 0, workspace.data(), s)));
  };
  shape(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  const auto report = cudalabs::compare_ints_on_device(expected, out, kN);
  SamplingPolicy policy;
  policy.min_samples = 20;
  policy.max_samples = 100;
  policy.time_budget_seconds = 3;
  Workload work;
  work.student = always_succeeding(shape);
  work.solution = cub;
  const PairedResult r = measure_interleaved(work, policy);
  int regs = 0;
  cudaFuncAttributes attributes{};
  CUDALABS_CHECK(cudaFuncGetAttributes(&attributes, probe::scan_tiles<probe::Mode::Inclusive, Shape>));
  regs = attributes.numRegs;
  int blocks = 0;
  CUDALABS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, probe::scan_tiles<probe::Mode::Inclusive, Shape>,
                                                               Shape::kThreads, 0));
  std::printf("  %-22s %7.4f ms  %.3fx CUB's time [%.3f, %.3f]  -> %.3fx CUB throughput; %d regs, %d blocks/SM%s\n",
              name, r.student_ms.median, r.ratio.median, r.ratio.ci.low, r.ratio.ci.high, 1.0 / r.ratio.median, regs,
              blocks, report.ok() ? "" : "  WRONG");
}

}  // namespace

int main() {
  DeviceBuffer<int> in(kN), out(kN), expected(kN);
  cudalabs::fill_uniform_ints(in.data(), kN, 606, -1000, 1000);
  std::size_t cub_bytes = 0;
  CUDALABS_CHECK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in.data(), expected.data(), static_cast<int>(kN)));
  DeviceBuffer<unsigned char> cub_workspace(cub_bytes);
  const Launch cub = [&](cudaStream_t s) {
    std::size_t bytes = cub_bytes;
    CUDALABS_CHECK(cub::DeviceScan::InclusiveSum(cub_workspace.data(), bytes, in.data(), expected.data(),
                                                 static_cast<int>(kN), s));
  };
  cub(nullptr);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  std::printf("inclusive scan of 2^26 ints, shapes against CUB DeviceScan::InclusiveSum (paired)\n");
  measure<probe::DefaultShape>("384x20, 4/SM (reference)", in.data(), out.data(), expected.data(), cub);
  measure<probe::TileShape<384, 16, 4>>("384x16, 4/SM", in.data(), out.data(), expected.data(), cub);
  measure<probe::TileShape<256, 16, 6>>("256x16, 6/SM", in.data(), out.data(), expected.data(), cub);
  measure<probe::TileShape<512, 16, 3>>("512x16, 3/SM", in.data(), out.data(), expected.data(), cub);
  measure<probe::TileShape<256, 16, 4>>("256x16, 4/SM", in.data(), out.data(), expected.data(), cub);
  measure<probe::TileShape<384, 16, 5>>("384x16, 5/SM", in.data(), out.data(), expected.data(), cub);
  return 0;
}
