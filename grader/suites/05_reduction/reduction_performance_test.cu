// Lab 05 performance cases (config/labs/05_reduction.yaml `performance:`). The engine first checks
// one untimed student call at the timed size (a wrong answer earns nothing), then times student
// against solution, interleaved in this process, with the L2 flushed before every sample. Student
// and solution each get their own workspace. Every sample reduces an array generated on the GPU
// from that round's seed, into a poisoned result; checked samples' results are compared with the
// reference's for the same array, made afterwards, and the array with a checksum taken before.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

class Performance : public cudalabs::GpuTest {};

using cudalabs::timing::round_seed;

// Fills `x` (n elements) with a round's inputs.
template <class T>
using Generate = std::function<void(T* x, std::size_t n, std::uint64_t seed, cudaStream_t stream)>;
// How far the student's result may lie from the reference's for these inputs (0: exact).
template <class T>
using Allowance = std::function<double(const T* x, std::size_t n, cudaStream_t stream)>;

constexpr int kBlock = 256;

// *out += sum of |x_i|, in double: the scale of sum_float's tolerance for the round's data.
__global__ void add_sum_abs(const float* __restrict__ x, std::size_t n, double* out) {
  __shared__ double partial[kBlock];
  double sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    sum += fabs(static_cast<double>(x[i]));
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

// Puts a maximum no other element reaches at a place the seed chooses, so each round's maximum
// is its own (the largest of 2^26 uniform floats is nearly always the same value).
__global__ void plant_maximum(float* x, std::size_t index, float value) { x[index] = value; }

double sum_abs_on_device(const float* x, std::size_t n, cudaStream_t stream) {
  cudalabs::DeviceBuffer<double> sum(1);
  CUDALABS_CHECK(cudaMemsetAsync(sum.data(), 0, sizeof(double), stream));
  add_sum_abs<<<1024, kBlock, 0, stream>>>(x, n, sum.data());
  CUDALABS_CHECK_LAUNCH();
  double host = 0;
  CUDALABS_CHECK(cudaMemcpyAsync(&host, sum.data(), sizeof host, cudaMemcpyDeviceToHost, stream));
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// Times student vs solution on `n` elements that `generate` makes afresh for every sample; each
// checked timed result must lie within `allowance` of the reference's.
template <class T>
void time_case(const char* name, lab05::ReduceFn<T> student_fn, lab05::ReduceFn<T> solution_fn, std::size_t n,
               Generate<T> generate, Allowance<T> allowance) {
  cudalabs::DeviceBuffer<T> in(n), student_result(1), solution_result(1), reference_result(1);
  cudalabs::DeviceBuffer<unsigned char> student_workspace(lab05::kWorkspaceBytes), solution_workspace(lab05::kWorkspaceBytes);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate(in.data(), n, seed, stream);
    CUDALABS_CHECK(cudaMemsetAsync(student_result.data(), cudalabs::kPoisonByte, sizeof(T), stream));
    CUDALABS_CHECK(cudaMemsetAsync(solution_result.data(), cudalabs::kPoisonByte, sizeof(T), stream));
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student_fn(in.data(), n, student_result.data(), student_workspace.data(), stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution_fn(in.data(), n, solution_result.data(), solution_workspace.data(), stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution_fn(in.data(), n, reference_result.data(), solution_workspace.data(), stream));
    T expected{};
    T actual{};
    CUDALABS_CHECK(cudaMemcpyAsync(&expected, reference_result.data(), sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaMemcpyAsync(&actual, student_result.data(), sizeof(T), cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    const double allowed = allowance(in.data(), n, stream);
    const double difference = std::fabs(static_cast<double>(actual) - static_cast<double>(expected));
    if (difference <= allowed) return "";  // false for NaN (poison)
    std::ostringstream text;
    text.precision(9);
    text << "the result is " << static_cast<double>(actual) << ", the reference's " << static_cast<double>(expected)
         << " (allowed difference " << allowed << ")";
    return text.str();
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "x"}};
  work.bytes = static_cast<double>(n) * sizeof(T);  // every element read once
  work.flops = static_cast<double>(n);
  cudalabs::run_performance_case(name, work);
}

template <class T>
double exact(const T*, std::size_t, cudaStream_t) {
  return 0.0;
}

TEST_F(Performance, sum_float_2to26) {
  // Student and reference each lie within the lab's tolerance of the exact sum: twice it between them.
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("sum_float");
  time_case<float>(
      "sum_float_2to26", &student::sum_float, &solution::sum_float, kTimedSize,
      [](float* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
        cudalabs::fill_uniform_floats(data, n, round_seed(seed, 0), -1.0f, 1.0f, stream);
      },
      [tolerance](const float* data, std::size_t n, cudaStream_t stream) {
        return 2 * (tolerance.abs + tolerance.rel * sum_abs_on_device(data, n, stream));
      });
}

TEST_F(Performance, sum_int_2to26) {
  time_case<int>(
      "sum_int_2to26", &student::sum_int, &solution::sum_int, kTimedSize,
      [](int* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
        cudalabs::fill_uniform_ints(data, n, round_seed(seed, 0), -1000, 1000, stream);
      },
      &exact<int>);
}

TEST_F(Performance, max_float_2to26) {
  time_case<float>(
      "max_float_2to26", &student::max_float, &solution::max_float, kTimedSize,
      [](float* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
        cudalabs::fill_uniform_floats(data, n, round_seed(seed, 0), -1.0f, 1.0f, stream);
        const std::uint64_t where = round_seed(seed, 1);
        const float value = 1.0f + static_cast<float>(where >> 40) * 0x1.0p-24f;  // in [1, 2)
        plant_maximum<<<1, 1, 0, stream>>>(data, where % n, value);
        CUDALABS_CHECK_LAUNCH();
      },
      &exact<float>);
}

}  // namespace
