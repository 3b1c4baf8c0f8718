#pragma once
// A performance case as labgrade sees it: the figures the harness measured (its "measurement"
// event, see cudalabs/performance_case.hpp) and the verdict labgrade draws from them with the
// lab's YAML, using the same arithmetic as the harness (cudalabs/course/performance.hpp).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalabs/course/harness_events.hpp"
#include "cudalabs/course/performance.hpp"

namespace labgrade {

// A sampled quantity as the harness reports it: median, confidence interval, sample count.
using TimedSummary = cudalabs::events::Summary;

struct PerformanceMeasurement {
  std::string device;
  TimedSummary student_ms;
  TimedSummary solution_ms;
  TimedSummary ratio;
  bool target_met = false;  // the ratio's interval reached the course's precision target
  bool points_settled = false;  // sampling stopped once the points were the same anywhere in the intervals
  int rounds = 0;
  int remeasured = 0;       // extra measurements because the result was too close to call
  bool kept_best = false;   // of those, the best was kept (else the last)
  bool gated = false;       // timed in gated windows (no runner's host path in the clock)
  std::string ungated_because;  // why a gated measurement was given up ("" when it was not)
  double seconds = 0;       // wall time spent measuring
  double bytes = 0;
  double flops = 0;
  double achieved_gbs = 0;
  double achieved_gflops = 0;
  double peak_bandwidth_gbs = 0;
  double peak_gflops = 0;
  double fp32_peak_gflops = 0;  // the compute roof of the roofline (0: unknown)
  double sm_clock_mhz = 0;  // measured during the run
  std::string clock_note;
  // How far the timed calls can be trusted (cudalabs/timing/plausibility.hpp, grade_seed.hpp).
  bool implausible = false;          // beyond what the GPU can do: never scored, flagged for review
  std::string implausible_reason;
  std::string machine_busy;          // non-empty: timed beside other work on the CPUs; never scored
  double bandwidth_limit_gbs = 0;    // the highest believable figures; 0 when not checked
  double flops_limit_gflops = 0;
  int verified_samples = 0;          // timed student calls whose output was checked
  std::string timing_seed;           // the grade's seed: reruns the harness on the same inputs
  std::string case_seed;
  // "solution", or the slowest stage of a pipeline case, with each stage's time alone.
  std::string compared_with = "solution";
  std::vector<cudalabs::events::StageTime> stages;

  cudalabs::config::Timings timings() const;
};

// A "measurement" event (cudalabs/course/harness_events.hpp) as the report shows it; nullopt when
// the event lacks a field or has one of the wrong type ("implausible" is required: a measurement
// that does not say whether it is believable is not scored).
std::optional<PerformanceMeasurement> parse_measurement(const nlohmann::json& event);

struct PerformanceResult {
  PerformanceMeasurement measurement;
  cudalabs::config::Verdict verdict;
};

nlohmann::json to_json(const PerformanceResult& result);

// Whether the student's code was timed alone (a timing preview, cudalabs/performance_preview.hpp).
bool timed_alone(const PerformanceMeasurement& m);

// "solution", or "slowest stage (transform)" for a pipeline case: what the student was timed against.
std::string compared_with_label(const PerformanceMeasurement& m);

// One line with the figures behind a verdict, for the text report.
std::string describe(const PerformanceResult& result);

}  // namespace labgrade
