#pragma once
// What this device can actually do, measured in-process rather than read off a spec sheet, so a
// "fraction of peak" means the same on a throttled, shared or differently clocked GPU.
#include <string>

namespace cudalabs::timing {

// Achievable DRAM bandwidth of the current device in GB/s (1e9 bytes/s, read + write bytes):
// median of 20 L2-flushed runs of a grid-stride float4 copy between two buffers far larger than
// L2 (512 MiB each, less when free memory is short). Measured once per device per process
// (about 0.1 s), then cached; thread-safe. Throws CudaError on CUDA failure.
// Kernels that read more than they write can go slightly beyond it (fewer read/write turnarounds
// on the memory bus): on an H100, c = a + b measured 103.5% of this copy figure.
double measured_copy_bandwidth_gbs();

// FP32 peak of the current device in GFLOP/s: SMs x FP32 lanes per SM (by compute capability)
// x 2 (a fused multiply-add) x the maximum SM clock (cudaDevAttrClockRate; where the runtime does
// not offer it, 1.2x the clock measured now, as boost rarely exceeds that). Tensor cores are not
// counted. Cached per device; thread-safe. Throws CudaError on CUDA failure.
double fp32_peak_gflops();

// FP32 lanes per SM for a compute capability (64 on 6.0, 7.x and 8.0; 128 on the others from
// 6.1 on, and on unknown newer ones, erring high: a higher peak only loosens the check using it).
int fp32_lanes_per_sm(int major, int minor) noexcept;

struct ClockReading {
  double sm_clock_mhz_measured = 0;  // clock64() cycles per event-timed microsecond, now
  double sm_clock_mhz_max = 0;       // cudaDevAttrClockRate (peak), 0 when not offered
  double memory_clock_mhz = 0;       // cudaDevAttrMemoryClockRate (peak), 0 when not offered
  std::string note;                  // why a field is 0, if one is; empty otherwise
};

// The current device's clocks. The measured SM clock is the median of a few runs of a one-thread
// kernel spinning on clock64() for a fixed cycle count (about 10 ms each). Not cached: clocks
// change. Throws CudaError on CUDA failure.
ClockReading read_clocks();

}  // namespace cudalabs::timing
