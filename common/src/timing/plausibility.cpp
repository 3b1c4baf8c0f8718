#include "cudalabs/timing/plausibility.hpp"

#include <cstdio>

namespace cudalabs::timing {

Plausibility check_plausibility(double bytes, double flops, double student_ms, const DeviceCeilings& device) {
  Plausibility result;
  if (!(student_ms > 0)) {
    // Nothing measurable was timed at all: no work can take no time.
    result.implausible = bytes > 0 || flops > 0;
    if (result.implausible) result.reason = "the timed call took no measurable time";
    return result;
  }
  const double seconds = student_ms * 1e-3;
  char text[320];
  if (bytes > 2 * device.l2_bytes && device.copy_bandwidth_gbs > 0) {
    result.bandwidth_limit_gbs =
        kCopyBandwidthHeadroom * device.copy_bandwidth_gbs * bytes / (bytes - device.l2_bytes);
    const double gbs = bytes / seconds / 1e9;
    if (gbs > result.bandwidth_limit_gbs) {
      std::snprintf(text, sizeof text,
                    "%.0f GB/s is %.1fx this GPU's measured copy bandwidth (%.0f GB/s); at most %.0f GB/s is "
                    "physically possible for the %.3g bytes this case must move",
                    gbs, gbs / device.copy_bandwidth_gbs, device.copy_bandwidth_gbs, result.bandwidth_limit_gbs,
                    bytes);
      result.implausible = true;
      result.reason = text;
    }
  }
  if (flops > 0 && device.fp32_peak_gflops > 0) {
    result.flops_limit_gflops = kPeakFlopsHeadroom * device.fp32_peak_gflops;
    const double gflops = flops / seconds / 1e9;
    if (gflops > result.flops_limit_gflops) {
      std::snprintf(text, sizeof text, "%.0f GFLOP/s is %.1fx this GPU's FP32 peak (%.0f GFLOP/s)", gflops,
                    gflops / device.fp32_peak_gflops, device.fp32_peak_gflops);
      result.reason += std::string(result.implausible ? "; " : "") + text;
      result.implausible = true;
    }
  }
  return result;
}

}  // namespace cudalabs::timing
