// Lab 07 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 07_histogram
// The grader runs these too, plus hidden cases (sizes 0, 1, primes, 2^28 bytes, misaligned data,
// all-equal and few-valued data, several seeds) and two timed cases; see README.md.
// Preview.histogram_shared times your histogram_shared alone at the graded size (2^28 random
// bytes) against a share of your GPU's copy bandwidth: a preview of the graded timed case, worth
// no points ("Check your work" in README.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_preview.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "lab07_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "histogram.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// 10007 is a prime: not a multiple of a warp, a block, or a 4- or 16-byte vector.
constexpr std::size_t kSmall = 10007;

// n == 0: nothing to count, but the 256 bins must still be overwritten with zeros.
void expect_zero_length(lab07::HistogramFn impl, const char* name) {
  const std::vector<unsigned int> zeros(lab07::kBins, 0);
  lab07::GuardedBins bins = lab07::poisoned_bins();  // every counter starts as 0xFFFFFFFF
  ASSERT_TRUE(lab07::call_and_wait(name, 0, [&] { return impl(nullptr, 0, bins.data(), nullptr); }));
  EXPECT_TRUE(bins.guards_intact(name, "bins"));
  EXPECT_TRUE(lab07::bins_match(zeros, bins.values(), "bins after n = 0 (all must be 0)"));
}

TEST_F(SelfCheck, GlobalAtomicsSmall) {
  const std::vector<unsigned char> data = lab07::random_bytes(kSmall, 701);
  lab07::expect_histogram(&student::histogram_global_atomics, "histogram_global_atomics", data,
                          lab07::cpu_histogram(data), 0, true);
}

TEST_F(SelfCheck, GlobalAtomicsZeroLength) {
  expect_zero_length(&student::histogram_global_atomics, "histogram_global_atomics");
}

TEST_F(SelfCheck, SharedSmall) {
  const std::vector<unsigned char> data = lab07::random_bytes(kSmall, 702);
  lab07::expect_histogram(&student::histogram_shared, "histogram_shared", data, lab07::cpu_histogram(data), 0, true);
}

TEST_F(SelfCheck, SharedZeroLength) { expect_zero_length(&student::histogram_shared, "histogram_shared"); }

// The contention case, small: every byte is 200, so the answer is bins[200] = n, all others 0.
TEST_F(SelfCheck, SharedAllEqualSmall) {
  const std::vector<unsigned char> data = lab07::all_equal_bytes(kSmall, 200);
  lab07::expect_histogram(&student::histogram_shared, "histogram_shared", data, lab07::cpu_histogram(data), 0, false);
}

// --- Timing preview (no points) -------------------------------------------------------------
// Your histogram_shared alone at the graded size, with the grade's checks
// (cudalabs/performance_preview.hpp): every sample's bins are compared with a histogram counted on
// the CPU from the same bytes.

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedSize = std::size_t{1} << 28;  // 256 MiB

// n elements of device memory, copied to the host once the stream's work is done.
template <class T>
std::vector<T> download(const T* device, std::size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  CUDALABS_CHECK(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

TEST_F(Preview, histogram_shared) {
  cudalabs::DeviceBuffer<unsigned char> data(kTimedSize);
  cudalabs::DeviceBuffer<unsigned int> bins(lab07::kBins);
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(data.data(), kTimedSize, cudalabs::timing::round_seed(seed, 0), stream);
    cudalabs::poison_async(bins.data(), bins.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::histogram_shared(data.data(), kTimedSize, bins.data(), stream);
  };
  // The bytes are checked unchanged before this runs, so their copy is the round's bytes.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    const std::vector<unsigned int> expected = lab07::cpu_histogram(download(data.data(), kTimedSize, stream));
    const ::testing::AssertionResult same =
        lab07::bins_match(expected, download(bins.data(), lab07::kBins, stream), "histogram_shared at 2^28 bytes: bins");
    return same ? "" : same.message();
  };
  work.workload.sealed_inputs = {{data.data(), data.bytes(), "data"}};
  work.bytes = static_cast<double>(kTimedSize);  // each byte read once; 1 KiB of counters is negligible
  cudalabs::run_performance_preview("histogram_shared", work);
}

}  // namespace
