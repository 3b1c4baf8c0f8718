#include "model/roofline.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace labgrade {

std::optional<Roofline> roofline_of(const PerformanceMeasurement& m) {
  if (m.bytes <= 0 || m.peak_bandwidth_gbs <= 0 || m.student_ms.median <= 0) return std::nullopt;
  Roofline r;
  r.intensity = m.flops > 0 ? m.flops / m.bytes : 0;
  r.bandwidth_gbs = m.peak_bandwidth_gbs;
  r.compute_gflops = m.flops > 0 ? m.fp32_peak_gflops : 0;
  r.ridge = r.compute_gflops > 0 ? r.compute_gflops / r.bandwidth_gbs : 0;
  r.memory_bound = r.compute_gflops <= 0 || r.intensity < r.ridge;
  r.attainable_gflops = r.compute_gflops > 0 ? std::min(r.bandwidth_gbs * r.intensity, r.compute_gflops)
                                             : r.bandwidth_gbs * r.intensity;
  // Against the binding roof: GB/s of the bandwidth, or GFLOP/s of the FP32 peak.
  const auto fraction = [&](double ms) {
    const double seconds = ms * 1e-3;
    return r.memory_bound ? m.bytes / seconds / 1e9 / r.bandwidth_gbs : m.flops / seconds / 1e9 / r.compute_gflops;
  };
  r.student_fraction = fraction(m.student_ms.median);
  r.student_gflops = m.flops / (m.student_ms.median * 1e-3) / 1e9;
  if (!timed_alone(m) && m.solution_ms.median > 0 && m.stages.empty()) {
    r.reference_fraction = fraction(m.solution_ms.median);
    r.reference_gflops = m.flops / (m.solution_ms.median * 1e-3) / 1e9;
  }
  return r;
}

std::string describe(const Roofline& r) {
  const std::string roof = r.memory_bound ? fmt::format("memory roof ({:.0f} GB/s copy bandwidth)", r.bandwidth_gbs)
                                          : fmt::format("FP32 roof ({:.0f} GFLOP/s)", r.compute_gflops);
  std::string where;
  if (r.intensity <= 0) {
    where = "no FLOPs counted";
  } else if (r.ridge > 0) {
    where = fmt::format("{:.3g} FLOP/B, {} the ridge at {:.3g} FLOP/B", r.intensity, r.memory_bound ? "below" : "above",
                        r.ridge);
  } else {
    where = fmt::format("{:.3g} FLOP/B, FP32 peak unknown", r.intensity);
  }
  std::string line = fmt::format("roofline: {}; the {} binds: you reach {:.0f}% of it", where, roof,
                                 100 * r.student_fraction);
  if (r.reference_fraction) line += fmt::format(", the reference {:.0f}%", 100 * *r.reference_fraction);
  return line;
}

nlohmann::json to_json(const Roofline& r) {
  nlohmann::json json{{"intensity_flop_per_byte", r.intensity},
                      {"bandwidth_roof_gbs", r.bandwidth_gbs},
                      {"compute_roof_gflops", r.compute_gflops},
                      {"ridge_flop_per_byte", r.ridge},
                      {"binding_roof", r.memory_bound ? "memory" : "compute"},
                      {"student_fraction_of_roof", r.student_fraction},
                      {"student_gflops", r.student_gflops}};
  json["reference_fraction_of_roof"] = r.reference_fraction ? nlohmann::json(*r.reference_fraction) : nlohmann::json(nullptr);
  json["reference_gflops"] = r.reference_gflops ? nlohmann::json(*r.reference_gflops) : nlohmann::json(nullptr);
  return json;
}

}  // namespace labgrade
