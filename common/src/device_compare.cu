#include "cudalabs/device_compare.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "cudalabs/compare_rule.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generator_elements.hpp"

namespace cudalabs {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

unsigned int blocks_for(std::size_t work_items) {
  const std::size_t wanted = (work_items + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, 8192)));
}

using u64 = unsigned long long;  // what atomicAdd/atomicMin take
static_assert(sizeof(u64) == sizeof(std::size_t), "indices travel as unsigned long long");

__device__ u64 warp_sum(u64 v) {
  for (int step = 16; step > 0; step /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, step);
  return v;
}

__device__ u64 warp_min(u64 v) {
  for (int step = 16; step > 0; step /= 2) v = min(v, __shfl_down_sync(0xFFFFFFFFu, v, step));
  return v;
}

// What the first pass counts. Indices are kNone until found.
struct Summary {
  u64 mismatches;
  u64 never_written;
  u64 first_mismatch;
  u64 first_never_written;
};

// Every kernel below runs whole warps (kThreads is a multiple of 32) and reaches its warp
// reductions after its loop with all 32 lanes.

template <class T>
__global__ void summarise(const T* expected, const T* actual, std::size_t n, double abs, double rel, Summary* out) {
  u64 mismatches = 0, never_written = 0, first_mismatch = kNone, first_never_written = kNone;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const rule::Verdict verdict = rule::judge(expected[i], actual[i], abs, rel);
    if (verdict.pass) continue;
    ++mismatches;
    first_mismatch = min(first_mismatch, static_cast<u64>(i));
    if (verdict.never_written) {
      ++never_written;
      first_never_written = min(first_never_written, static_cast<u64>(i));
    }
  }
  mismatches = warp_sum(mismatches);
  never_written = warp_sum(never_written);
  first_mismatch = warp_min(first_mismatch);
  first_never_written = warp_min(first_never_written);
  if (threadIdx.x % 32 != 0 || mismatches == 0) return;
  atomicAdd(&out->mismatches, mismatches);
  atomicMin(&out->first_mismatch, first_mismatch);
  if (never_written == 0) return;
  atomicAdd(&out->never_written, never_written);
  atomicMin(&out->first_never_written, first_never_written);
}

// The lowest mismatching index at or after `start` (kNone if none); each thread stops at its
// first, since the rest of its stride only goes up.
template <class T>
__global__ void next_mismatch(const T* expected, const T* actual, std::size_t n, std::size_t start, double abs,
                              double rel, u64* out) {
  u64 found = kNone;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = start + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (!rule::judge(expected[i], actual[i], abs, rel).pass) {
      found = i;
      break;
    }
  }
  found = warp_min(found);
  if (threadIdx.x % 32 == 0 && found != kNone) atomicMin(out, found);
}

template <class T>
T element_at(const T* array, std::size_t i) {
  T value;
  CUDALABS_CHECK(cudaMemcpy(&value, array + i, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

template <class T>
CompareReport compare_on_device(const T* expected, const T* actual, std::size_t n, Tolerance tolerance,
                                std::size_t max_listed, ValueKind kind) {
  CompareReport report;
  report.tolerance = tolerance;
  report.kind = kind;
  report.expected_size = report.actual_size = report.checked = n;
  if (n == 0) return report;
  if (expected == nullptr || actual == nullptr) {
    throw std::invalid_argument("compare on device: null array for n = " + std::to_string(n));
  }

  DeviceBuffer<Summary> summary(1);
  const Summary start{0, 0, kNone, kNone};
  CUDALABS_CHECK(cudaMemcpy(summary.data(), &start, sizeof start, cudaMemcpyHostToDevice));
  summarise<<<blocks_for(n), kThreads>>>(expected, actual, n, tolerance.abs, tolerance.rel, summary.data());
  CUDALABS_CHECK_LAUNCH();
  Summary result{};
  CUDALABS_CHECK(cudaMemcpy(&result, summary.data(), sizeof result, cudaMemcpyDeviceToHost));
  report.mismatches = result.mismatches;
  report.never_written = result.never_written;
  if (result.never_written > 0) report.first_never_written = result.first_never_written;
  if (result.mismatches == 0 || max_listed == 0) return report;

  // The first max_listed mismatches in index order: one short scan each, from the one before.
  DeviceBuffer<u64> next(1);
  std::size_t index = result.first_mismatch;
  while (true) {
    const T e = element_at(expected, index);
    const T a = element_at(actual, index);
    const rule::Verdict verdict = rule::judge(e, a, tolerance.abs, tolerance.rel);
    report.first.push_back(Mismatch{index, static_cast<double>(e), static_cast<double>(a), verdict.never_written});
    if (report.first.size() == max_listed || report.first.size() == report.mismatches || index + 1 >= n) break;
    const u64 none = kNone;
    CUDALABS_CHECK(cudaMemcpy(next.data(), &none, sizeof none, cudaMemcpyHostToDevice));
    next_mismatch<<<blocks_for(n - index - 1), kThreads>>>(expected, actual, n, index + 1, tolerance.abs,
                                                           tolerance.rel, next.data());
    CUDALABS_CHECK_LAUNCH();
    u64 found = kNone;
    CUDALABS_CHECK(cudaMemcpy(&found, next.data(), sizeof found, cudaMemcpyDeviceToHost));
    if (found == kNone) break;
    index = found;
  }
  return report;
}

// --- bit-for-bit difference ------------------------------------------------------------------

__device__ bool bytes_differ(const unsigned char* a, const unsigned char* b, std::size_t size) {
  for (std::size_t k = 0; k < size; ++k) {
    if (a[k] != b[k]) return true;
  }
  return false;
}

__global__ void count_differences(const unsigned char* before, const unsigned char* after, std::size_t n,
                                  std::size_t element_size, u64* changed, u64* first) {
  u64 count = 0, lowest = kNone;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (bytes_differ(before + i * element_size, after + i * element_size, element_size)) {
      ++count;
      lowest = min(lowest, static_cast<u64>(i));
    }
  }
  count = warp_sum(count);
  lowest = warp_min(lowest);
  if (threadIdx.x % 32 != 0 || count == 0) return;
  atomicAdd(changed, count);
  atomicMin(first, lowest);
}

// --- keyed checksum --------------------------------------------------------------------------

struct ChecksumKey {
  std::uint64_t k0;
  std::uint64_t k1;
};

// Drawn once per process from the OS's entropy, never stored in device memory.
const ChecksumKey& checksum_key() {
  static const ChecksumKey key = [] {
    std::random_device entropy;
    const auto draw64 = [&] { return (std::uint64_t{entropy()} << 32) ^ entropy(); };
    return ChecksumKey{draw64(), draw64()};
  }();
  return key;
}

// Each 8-byte word (the last one zero-padded) is mixed with its index and the key; the sum of
// the mixed words is order-independent, so the result does not depend on the launch shape.
__global__ void checksum_words(const unsigned char* data, std::size_t bytes, ChecksumKey key, u64* sum) {
  const std::size_t words = (bytes + 7) / 8;
  const bool aligned = reinterpret_cast<std::uintptr_t>(data) % 8 == 0;
  u64 local = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t w = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < words; w += stride) {
    std::uint64_t word = 0;
    if (aligned && (w + 1) * 8 <= bytes) {
      word = reinterpret_cast<const std::uint64_t*>(data)[w];
    } else {
      for (std::size_t k = 0; k < 8 && w * 8 + k < bytes; ++k) word |= std::uint64_t{data[w * 8 + k]} << (8 * k);
    }
    local += element::mix(element::mix(word ^ key.k0) + (w + 1) * element::kGamma + key.k1);
  }
  local = warp_sum(local);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, local);
}

// One word per 4 KiB page, at a keyed offset within it.
__global__ void checksum_sampled_pages(const unsigned char* data, std::size_t bytes, ChecksumKey key, u64* sum) {
  constexpr std::size_t kPage = 4096;
  const std::size_t pages = (bytes + kPage - 1) / kPage;
  u64 local = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t p = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < pages; p += stride) {
    const std::size_t in_page = (element::mix(p ^ key.k0) % (kPage / 8)) * 8;
    const std::size_t at = p * kPage + in_page < bytes ? p * kPage + in_page : bytes - 1;
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < 8 && at + k < bytes; ++k) word |= std::uint64_t{data[at + k]} << (8 * k);
    local += element::mix(element::mix(word ^ key.k0) + (p + 1) * element::kGamma + key.k1);
  }
  local = warp_sum(local);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, local);
}

}  // namespace

void device_checksum_async(const void* data, std::size_t bytes, bool sampled, std::uint64_t* device_slot,
                           cudaStream_t stream) {
  CUDALABS_CHECK(cudaMemsetAsync(device_slot, 0, sizeof(std::uint64_t), stream));
  if (bytes == 0) return;
  const ChecksumKey& key = checksum_key();
  const auto* bytes_at = static_cast<const unsigned char*>(data);
  auto* slot = reinterpret_cast<u64*>(device_slot);
  if (sampled) {
    const std::size_t pages = (bytes + 4095) / 4096;
    checksum_sampled_pages<<<blocks_for(pages), kThreads, 0, stream>>>(bytes_at, bytes, key, slot);
  } else {
    checksum_words<<<blocks_for((bytes + 7) / 8), kThreads, 0, stream>>>(bytes_at, bytes, key, slot);
  }
  CUDALABS_CHECK_LAUNCH();
}

CompareReport compare_floats_on_device(const float* expected, const float* actual, std::size_t n,
                                       Tolerance tolerance, std::size_t max_listed) {
  return compare_on_device(expected, actual, n, tolerance, max_listed, ValueKind::Float);
}

CompareReport compare_doubles_on_device(const double* expected, const double* actual, std::size_t n,
                                        Tolerance tolerance, std::size_t max_listed) {
  return compare_on_device(expected, actual, n, tolerance, max_listed, ValueKind::Double);
}

CompareReport compare_ints_on_device(const int* expected, const int* actual, std::size_t n, std::size_t max_listed) {
  return compare_on_device(expected, actual, n, Tolerance{}, max_listed, ValueKind::Int);
}

CompareReport compare_bytes_on_device(const unsigned char* expected, const unsigned char* actual, std::size_t n,
                                      double abs, std::size_t max_listed) {
  return compare_on_device(expected, actual, n, Tolerance{abs, 0}, max_listed, ValueKind::Int);
}

CompareReport compare_uints_on_device(const unsigned* expected, const unsigned* actual, std::size_t n,
                                      std::size_t max_listed) {
  return compare_on_device(expected, actual, n, Tolerance{}, max_listed, ValueKind::Int);
}

namespace {
std::string text_of(const CompareReport& report, const std::string& what) {
  return report.ok() ? std::string() : report.to_string(what);
}
}  // namespace

std::string check_against_reference(const float* reference, const float* actual, std::size_t n, Tolerance tolerance,
                                    const std::string& what, cudaStream_t stream) {
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  const Tolerance doubled{2 * tolerance.abs, 2 * tolerance.rel};
  return text_of(compare_floats_on_device(reference, actual, n, doubled), what);
}

std::string check_matches(const int* expected, const int* actual, std::size_t n, const std::string& what,
                          cudaStream_t stream) {
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  return text_of(compare_ints_on_device(expected, actual, n), what);
}

std::string check_matches(const unsigned* expected, const unsigned* actual, std::size_t n, const std::string& what,
                          cudaStream_t stream) {
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  return text_of(compare_uints_on_device(expected, actual, n), what);
}

std::string check_matches(const unsigned char* expected, const unsigned char* actual, std::size_t n, double abs,
                          const std::string& what, cudaStream_t stream) {
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  return text_of(compare_bytes_on_device(expected, actual, n, abs), what);
}

void poison_async(void* data, std::size_t bytes, unsigned char value, cudaStream_t stream) {
  if (bytes != 0) CUDALABS_CHECK(cudaMemsetAsync(data, value, bytes, stream));
}

BitDifference bit_difference_on_device(const void* before, const void* after, std::size_t n, std::size_t element_size) {
  BitDifference difference;
  if (n == 0) return difference;
  if (before == nullptr || after == nullptr || element_size == 0) {
    throw std::invalid_argument("bit_difference_on_device: null array or zero element size");
  }
  DeviceBuffer<u64> counters(2);
  const u64 start[2] = {0, kNone};
  CUDALABS_CHECK(cudaMemcpy(counters.data(), start, sizeof start, cudaMemcpyHostToDevice));
  count_differences<<<blocks_for(n), kThreads>>>(static_cast<const unsigned char*>(before),
                                                 static_cast<const unsigned char*>(after), n, element_size,
                                                 counters.data(), counters.data() + 1);
  CUDALABS_CHECK_LAUNCH();
  u64 result[2] = {0, 0};
  CUDALABS_CHECK(cudaMemcpy(result, counters.data(), sizeof result, cudaMemcpyDeviceToHost));
  difference.changed = result[0];
  if (difference.changed > 0) difference.first = result[1];
  return difference;
}

std::uint64_t device_checksum(const void* data, std::size_t bytes) {
  const ChecksumKey& key = checksum_key();
  if (bytes == 0) return element::mix(key.k1);
  if (data == nullptr) throw std::invalid_argument("device_checksum: null data for " + std::to_string(bytes) + " bytes");
  // One slot kept for the thread's life: no allocation (and no cudaFree, whose unmapping would
  // also cost the next context to run on the GPU its address translations) per checksum.
  static thread_local DeviceBuffer<u64> sum(1);
  sum.fill_bytes(0);
  const std::size_t words = (bytes + 7) / 8;
  checksum_words<<<blocks_for(words), kThreads>>>(static_cast<const unsigned char*>(data), bytes, key, sum.data());
  CUDALABS_CHECK_LAUNCH();
  u64 result = 0;
  CUDALABS_CHECK(cudaMemcpy(&result, sum.data(), sizeof result, cudaMemcpyDeviceToHost));
  return result ^ bytes;
}

}  // namespace cudalabs
