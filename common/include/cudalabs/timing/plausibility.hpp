#pragma once
// Whether a measured figure is something this GPU can physically do. A figure beyond it means the
// timed call did not do the work it was timed for (a result computed earlier, work hidden from
// the clock) or the measurement itself went wrong; either way it is never scored, and the report
// flags it for the instructor. Host-only.
#include <string>

namespace cudalabs::timing {

// What this device can do at most, measured in this process (device_peaks.hpp).
struct DeviceCeilings {
  double copy_bandwidth_gbs = 0;  // measured_copy_bandwidth_gbs(); 0: unknown
  double l2_bytes = 0;            // the device's L2 size
  double fp32_peak_gflops = 0;    // fp32_peak_gflops(); 0: unknown
};

// Headroom over the measured copy bandwidth. Kernels that read more than they write legitimately
// beat a 1:1 copy (fewer read/write turnarounds on the bus): c = a + b measured 1.035x on an
// H100, and a pure read stream a little more. 1.10 leaves room for that on other memories, and
// is far below what a result reused from an earlier call shows (224x was measured).
inline constexpr double kCopyBandwidthHeadroom = 1.10;
// Headroom over the FP32 peak (SM count x FP32 lanes x 2 FLOPs x maximum SM clock): the peak is
// what the FMA pipes can issue at the highest clock, and the declared FLOPs are the fewest any
// classical algorithm performs; 5% covers the event clock's resolution and clock readings.
inline constexpr double kPeakFlopsHeadroom = 1.05;

struct Plausibility {
  bool implausible = false;
  std::string reason;              // for the report; empty when plausible
  double bandwidth_limit_gbs = 0;  // the highest believable GB/s; 0 when not checked
  double flops_limit_gflops = 0;   // the highest believable GFLOP/s; 0 when not checked
};

// Checks the bytes and FLOPs a case declares against the student's median time.
//
// Bandwidth: the L2 was flushed before the sample, so the declared bytes came from or went to
// DRAM, except up to one L2 of written data that may still sit in L2 when the stop event fires.
// So the DRAM moved at least bytes - L2 bytes in `ms`, and the limit is
//     headroom x copy bandwidth x bytes / (bytes - L2 bytes).
// Cases that move less than 2 L2s are not checked this way (the bound would say little).
// FLOPs: flops / time may not exceed headroom x the FP32 peak.
Plausibility check_plausibility(double bytes, double flops, double student_ms, const DeviceCeilings& device);

}  // namespace cudalabs::timing
