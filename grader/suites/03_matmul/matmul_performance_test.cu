// Lab 03 performance cases (config/labs/03_matmul.yaml `performance:`). The engine first checks
// one untimed student call at the timed size (a wrong answer earns nothing), then times student
// against solution, interleaved in this process, with the L2 flushed before every sample. Every
// sample multiplies matrices generated on the GPU from that round's seed, with C poisoned; checked
// samples' C is compared on the GPU with the reference's for the same matrices, made afterwards,
// element by element with the lab's error bound (see TimedCheck below), and A and B with
// checksums taken before the call.
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab03_test_support.cuh"

namespace {

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

// --- Checking a timed C on the GPU --------------------------------------------------------------
// The lab's bound for element (i, j) is abs + rel * k * u * S_ij with S_ij = sum_p |a_ip * b_pj|
// (config/labs/03_matmul.yaml). S itself would cost another multiplication; Cauchy-Schwarz bounds
// it by ||row i of A|| * ||column j of B||, which costs one pass over A and B (for the suites'
// uniform data about 4/3 of S). Student and reference each lie within the bound of the exact
// product, so they may differ by twice it.

constexpr int kNormBlock = 256;

// norms[i] = Euclidean norm of row i of the rows x cols row-major matrix: one block per row.
__global__ void row_norms(const float* __restrict__ a, int cols, double* __restrict__ norms) {
  __shared__ double partial[kNormBlock];
  const float* row = a + static_cast<std::size_t>(blockIdx.x) * cols;
  double sum = 0;
  for (int p = threadIdx.x; p < cols; p += blockDim.x) sum += static_cast<double>(row[p]) * row[p];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) norms[blockIdx.x] = sqrt(partial[0]);
}

// norms[j] = Euclidean norm of column j of the rows x cols row-major matrix: a thread per column.
__global__ void column_norms(const float* __restrict__ b, int rows, int cols, double* __restrict__ norms) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  double sum = 0;
  for (int p = 0; p < rows; ++p) {
    const double v = b[static_cast<std::size_t>(p) * cols + j];
    sum += v * v;
  }
  norms[j] = sqrt(sum);
}

struct Tally {
  unsigned long long count;
  unsigned long long first;
};

__global__ void count_outside_bound(const float* __restrict__ reference, const float* __restrict__ actual, int m,
                                    int n, const double* __restrict__ a_rows, const double* __restrict__ b_cols,
                                    double abs, double scale, Tally* tally) {
  const std::size_t total = static_cast<std::size_t>(m) * n;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t e = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
    const std::size_t i = e / n;
    const std::size_t j = e % n;
    const double bound = 2.0 * (abs + scale * a_rows[i] * b_cols[j]);
    const double difference = fabs(static_cast<double>(actual[e]) - static_cast<double>(reference[e]));
    if (!(difference <= bound)) {  // NaN (poison) included
      atomicAdd(&tally->count, 1ull);
      atomicMin(&tally->first, static_cast<unsigned long long>(e));
    }
  }
}

// The check of a timed C: reference C, norms and the comparison, in buffers of its own.
class TimedCheck {
 public:
  explicit TimedCheck(const lab03::Shape& s) : s_(s), reference_(s.c_size()), a_rows_(s.m), b_cols_(s.n), tally_(1) {}

  std::string operator()(lab03::MatmulFn solution_fn, const float* a, const float* b, const float* c,
                         cudaStream_t stream) {
    CUDALABS_CHECK(solution_fn(a, b, reference_.data(), s_.m, s_.n, s_.k, stream));
    row_norms<<<s_.m, kNormBlock, 0, stream>>>(a, s_.k, a_rows_.data());
    CUDALABS_CHECK_LAUNCH();
    column_norms<<<(s_.n + kNormBlock - 1) / kNormBlock, kNormBlock, 0, stream>>>(b, s_.k, s_.n, b_cols_.data());
    CUDALABS_CHECK_LAUNCH();
    const Tally start{0, std::numeric_limits<unsigned long long>::max()};
    CUDALABS_CHECK(cudaMemcpyAsync(tally_.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
    const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("matmul");
    const double scale = tolerance.rel * s_.k * 0x1.0p-24;
    count_outside_bound<<<4096, 256, 0, stream>>>(reference_.data(), c, s_.m, s_.n, a_rows_.data(), b_cols_.data(),
                                                  tolerance.abs, scale, tally_.data());
    CUDALABS_CHECK_LAUNCH();
    Tally found{};
    CUDALABS_CHECK(cudaMemcpyAsync(&found, tally_.data(), sizeof found, cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    if (found.count == 0) return "";
    float expected = 0;
    float actual = 0;
    CUDALABS_CHECK(cudaMemcpy(&expected, reference_.data() + found.first, sizeof expected, cudaMemcpyDeviceToHost));
    CUDALABS_CHECK(cudaMemcpy(&actual, c + found.first, sizeof actual, cudaMemcpyDeviceToHost));
    std::ostringstream text;
    text << std::setprecision(9) << found.count << " of " << s_.c_size()
         << " elements of C (row-major, element i * n + j) lie outside the lab's error bound; the first at ["
         << found.first << "]: the reference has " << expected << ", got " << actual;
    return text.str();
  }

 private:
  lab03::Shape s_;
  cudalabs::DeviceBuffer<float> reference_;
  cudalabs::DeviceBuffer<double> a_rows_;
  cudalabs::DeviceBuffer<double> b_cols_;
  cudalabs::DeviceBuffer<Tally> tally_;
};

void time_against_reference(const char* case_name, lab03::MatmulFn student_fn, lab03::MatmulFn solution_fn,
                            const lab03::Shape& s) {
  cudalabs::DeviceBuffer<float> da(s.a_size()), db(s.b_size()), dc(s.c_size());
  TimedCheck check(s);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t round, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(da.data(), da.size(), round_seed(round, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(db.data(), db.size(), round_seed(round, 1), -1.0f, 1.0f, stream);
    cudalabs::poison_async(dc.data(), dc.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) {
    return check(solution_fn, da.data(), db.data(), dc.data(), stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student_fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution_fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, stream);
  };
  work.workload.sealed_inputs = {{da.data(), da.bytes(), "A"}, {db.data(), db.bytes(), "B"}};
  // One multiply and one add per (row, column, p); at least A and B read and C written once.
  work.flops = 2.0 * s.m * s.n * s.k;
  work.bytes = 4.0 * (static_cast<double>(s.a_size()) + s.b_size() + s.c_size());
  cudalabs::run_performance_case(case_name, work);
}

// The lab's technique: shared-memory (and register) tiling at 4096^3.
TEST_F(Performance, matmul_tiled_4096) {
  time_against_reference("matmul_tiled_4096", &student::matmul_tiled, &solution::matmul_tiled, {4096, 4096, 4096});
}

// The direct version at 2048^3: only catches an uncoalesced mapping (threadIdx.x along rows).
TEST_F(Performance, matmul_naive_2048) {
  time_against_reference("matmul_naive_2048", &student::matmul, &solution::matmul, {2048, 2048, 2048});
}

}  // namespace
