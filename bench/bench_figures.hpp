#pragma once
// Figures the lab benchmarks report alike: a sample summary as JSON, and GB/s from bytes and a
// time in milliseconds.
#include <nlohmann/json.hpp>

#include "cudalabs/timing/statistics.hpp"

namespace cudalabs::bench {

inline nlohmann::json summary_json(const timing::SampleSummary& s) {
  return {{"median", s.median}, {"ci_low", s.ci.low}, {"ci_high", s.ci.high}, {"samples", s.samples}};
}

inline double gbs(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

}  // namespace cudalabs::bench
