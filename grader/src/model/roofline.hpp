#pragma once
// Where a timed case stands on this GPU's roofline: its arithmetic intensity (FLOPs per byte the
// case declares), the roof that binds there (the measured copy bandwidth, or the FP32 peak past
// the ridge) and the fraction of that roof the student's code, and the reference's, reached.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/performance_result.hpp"

namespace labgrade {

struct Roofline {
  double intensity = 0;       // FLOP per byte (0: the case declares no FLOPs)
  double bandwidth_gbs = 0;   // the memory roof: this device's copy bandwidth, measured in the run
  double compute_gflops = 0;  // the compute roof: FP32 peak (0: unknown)
  double ridge = 0;           // FLOP per byte where the roofs meet (0 without a compute roof)
  bool memory_bound = true;   // which roof binds at `intensity`
  double attainable_gflops = 0;  // the roof there, in GFLOP/s (0 for a case without FLOPs)
  double student_fraction = 0;   // of the binding roof
  std::optional<double> reference_fraction;  // none when the student was timed alone (a preview)
  double student_gflops = 0;
  std::optional<double> reference_gflops;
};

// None when the case declares no bytes or the copy bandwidth was not measured.
std::optional<Roofline> roofline_of(const PerformanceMeasurement& m);

// "roofline: 0.25 FLOP/B, below the ridge at 23.4 FLOP/B; the memory roof (2865 GB/s copy
// bandwidth) binds: you reach 96% of it, the reference 95%".
std::string describe(const Roofline& roofline);

nlohmann::json to_json(const Roofline& roofline);

}  // namespace labgrade
