#include "cudalabs/timing/device_peaks.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "cudalabs/timing/l2_flush.hpp"
#include "cudalabs/timing/statistics.hpp"

namespace cudalabs::timing {
namespace {

constexpr int kBlock = 256;
constexpr std::size_t kCopyFloats = std::size_t{1} << 27;  // 512 MiB each way
constexpr int kCopyWarmup = 3;
constexpr int kCopyRuns = 20;
constexpr long long kSpinCycles = 20'000'000;  // about 10 ms at 2 GHz
constexpr int kSpinRuns = 5;

__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = in[i];
  }
}

__global__ void spin_cycles(long long cycles, long long* spun) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  *spun = now - start;  // the loop overshoots a little; use what it actually spun
}

int current_device() {
  int device = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  return device;
}

// 512 MiB per buffer, halved while the two would take more than half the free memory (other
// tests' buffers, other processes), but never below 4x L2, where caching would inflate the figure.
std::size_t copy_float4_count(std::size_t l2_bytes) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDALABS_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = kCopyFloats * sizeof(float);
  while (2 * bytes > free_bytes / 2 && bytes / 2 >= 4 * l2_bytes) bytes /= 2;
  return bytes / sizeof(float4);
}

double measure_copy_bandwidth_gbs(int device) {
  L2Flusher flusher;
  const std::size_t count = copy_float4_count(flusher.l2_bytes());
  DeviceBuffer<float4> in(count);
  DeviceBuffer<float4> out(count);
  in.fill_bytes(0);

  int sms = 0;
  int blocks_per_sm = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDALABS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, copy_float4, kBlock, 0));
  const int grid = sms * (blocks_per_sm > 0 ? blocks_per_sm : 1);

  // Its own stream, so work other code left on the default stream is not timed.
  cudaStream_t stream = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { static_cast<void>(cudaStreamDestroy(s)); }
  } guard{stream};

  CUDALABS_CHECK(cudaDeviceSynchronize());  // the fill above is on the legacy stream
  for (int i = 0; i < kCopyWarmup; ++i) {
    copy_float4<<<grid, kBlock, 0, stream>>>(in.data(), out.data(), count);
    CUDALABS_CHECK_LAUNCH();
  }
  EventTimer timer;
  std::vector<double> ms;
  for (int i = 0; i < kCopyRuns; ++i) {
    flusher.flush(stream);
    timer.start(stream);
    copy_float4<<<grid, kBlock, 0, stream>>>(in.data(), out.data(), count);
    CUDALABS_CHECK_LAUNCH();
    timer.stop(stream);
    ms.push_back(timer.elapsed_ms());
  }
  const double bytes = 2.0 * static_cast<double>(count * sizeof(float4));
  return bytes / (median(ms) * 1e-3) / 1e9;
}

// Reads a clock attribute in kHz as MHz; 0 and a reason in `note` when the runtime does not offer it.
double clock_attribute_mhz(cudaDeviceAttr attribute, const char* name, int device, std::string& note) {
  int khz = 0;
  const cudaError_t status = cudaDeviceGetAttribute(&khz, attribute, device);
  if (status != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // not sticky; must not fail the next launch check
    note += std::string(note.empty() ? "" : "; ") + name + " not offered: " + cudaGetErrorName(status);
    return 0;
  }
  if (khz <= 0) {
    note += std::string(note.empty() ? "" : "; ") + name + " reported " + std::to_string(khz);
    return 0;
  }
  return khz / 1000.0;
}

}  // namespace

double measured_copy_bandwidth_gbs() {
  static std::mutex mutex;
  static std::map<int, double> cache;
  const int device = current_device();
  const std::lock_guard<std::mutex> lock(mutex);  // held while measuring: one measurement per device
  const auto found = cache.find(device);
  if (found != cache.end()) return found->second;
  const double gbs = measure_copy_bandwidth_gbs(device);
  cache.emplace(device, gbs);
  return gbs;
}

int fp32_lanes_per_sm(int major, int minor) noexcept {
  if (major < 6) return 128;  // Maxwell and Kepler (192) are far below any lab's figures; err high
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  return 128;
}

double fp32_peak_gflops() {
  static std::mutex mutex;
  static std::map<int, double> cache;
  const int device = current_device();
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(device);
    if (found != cache.end()) return found->second;
  }
  int sms = 0;
  int major = 0;
  int minor = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDALABS_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  std::string note;
  double mhz = clock_attribute_mhz(cudaDevAttrClockRate, "cudaDevAttrClockRate", device, note);
  if (mhz <= 0) mhz = 1.2 * read_clocks().sm_clock_mhz_measured;
  const double gflops = static_cast<double>(sms) * fp32_lanes_per_sm(major, minor) * 2.0 * mhz / 1000.0;
  const std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(device, gflops);
  return gflops;
}

ClockReading read_clocks() {
  const int device = current_device();
  ClockReading reading;
  reading.sm_clock_mhz_max = clock_attribute_mhz(cudaDevAttrClockRate, "cudaDevAttrClockRate", device, reading.note);
  reading.memory_clock_mhz =
      clock_attribute_mhz(cudaDevAttrMemoryClockRate, "cudaDevAttrMemoryClockRate", device, reading.note);

  DeviceBuffer<long long> spun(1);
  EventTimer timer;
  spin_cycles<<<1, 1>>>(kSpinCycles / 100, spun.data());  // warm-up: module load, clocks up
  CUDALABS_CHECK_LAUNCH();
  CUDALABS_CHECK(cudaDeviceSynchronize());
  std::vector<double> mhz;
  for (int i = 0; i < kSpinRuns; ++i) {
    timer.start(nullptr);
    spin_cycles<<<1, 1>>>(kSpinCycles, spun.data());
    CUDALABS_CHECK_LAUNCH();
    timer.stop(nullptr);
    const double ms = timer.elapsed_ms();
    const double cycles = static_cast<double>(spun.copy_to_host()[0]);
    mhz.push_back(cycles / (ms * 1e3));
  }
  reading.sm_clock_mhz_measured = median(mhz);
  return reading;
}

}  // namespace cudalabs::timing
