#pragma once
// A performance case as labgrade sees it: the figures the harness measured (its "measurement"
// event, see cudalabs/performance_case.hpp) and the verdict labgrade draws from them with the
// lab's YAML, using the same arithmetic as the harness (cudalabs/course/performance.hpp).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cudalabs/course/performance.hpp"

namespace labgrade {

struct TimedSummary {
  double median = 0;
  double low = 0;
  double high = 0;
  std::size_t samples = 0;
};

struct PerformanceMeasurement {
  std::string device;
  TimedSummary student_ms;
  TimedSummary solution_ms;
  TimedSummary ratio;
  bool target_met = false;  // the ratio's interval reached the course's precision target
  int rounds = 0;
  int remeasured = 0;       // extra measurements because the result was too close to call
  double seconds = 0;       // wall time spent measuring
  double bytes = 0;
  double flops = 0;
  double achieved_gbs = 0;
  double achieved_gflops = 0;
  double peak_bandwidth_gbs = 0;
  double peak_gflops = 0;
  double sm_clock_mhz = 0;  // measured during the run
  std::string clock_note;

  cudalabs::config::Timings timings() const;
};

// nullopt when the event lacks a field or has one of the wrong type.
std::optional<PerformanceMeasurement> parse_measurement(const nlohmann::json& event);

struct PerformanceResult {
  PerformanceMeasurement measurement;
  cudalabs::config::Verdict verdict;
};

nlohmann::json to_json(const PerformanceResult& result);

// One line with the figures behind a verdict, for the text report.
std::string describe(const PerformanceResult& result);

}  // namespace labgrade
