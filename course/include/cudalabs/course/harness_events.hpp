#pragma once
// The events a lab harness sends labgrade on its result stream, one JSON object per line
// ({"event":"<name>", ...}; the channel itself and its token: cudalabs/result_stream.hpp). This
// header is the protocol's only schema: the harness writes these types (common/src/
// result_stream_listener.cpp, common/src/performance_case.cpp) and labgrade reads them back
// (grader/src/run/suite_runner.cpp), both through the to_json/from_json below.
//
// Reading is as forgiving as labgrade always was, except for a measurement: a field that is
// missing reads as empty or zero, but a measurement without one of the figures a verdict or the
// report needs is refused (from_json throws nlohmann::json::exception).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudalabs::events {

// Sent once, before any test: whether this process can use a CUDA device.
struct Environment {
  static constexpr const char* kName = "environment";
  bool cuda_device = false;
  std::string device;  // the device's name, when known
  std::string reason;  // why there is no usable device
  // The per-test device-memory leak check's figure: "" when it is this process's own (NVML),
  // else why it is the device-wide free memory (see common/src/result_stream_listener.cpp).
  std::string device_wide_memory_reason;
};

struct TestStart {
  static constexpr const char* kName = "start";
  std::string test;  // Suite.Name
};

// Sent before the first timed case starts, when labgrade gave the harness a way to answer
// (CUDALABS_GPU_ALONE_FD, cudalabs/result_stream.hpp): the harness then waits for labgrade to
// hold the GPU alone. So one harness runs the correctness tests with the GPU shared and the timed
// cases alone, instead of a second harness (and its runners' CUDA starts) for the timed cases.
struct GpuAloneWanted {
  static constexpr const char* kName = "gpu_alone";
  std::string test;  // the timed case about to start
  // Take the GPU alone only if that needs no wait; labgrade answers "busy" otherwise. Without it
  // labgrade waits for the GPU, then answers "go".
  bool at_once = false;
};

struct TestEnd {
  static constexpr const char* kName = "end";
  std::string test;
  std::string status;  // "passed", "failed" or "skipped"
  double ms = 0;
  std::string message;  // failure or skip messages, cut to a bounded length
  // A runner of the reference's side failed during the test (remote::take_trusted_runner_failed):
  // the machine's doing, worth running alone again. Written only when true.
  bool trusted_runner_failed = false;
};

// The test left the CUDA context unusable (a sticky error); the harness exits after this.
struct ContextLost {
  static constexpr const char* kName = "context_lost";
  std::string test;
  std::string error;  // "cudaErrorIllegalAddress: ..."
};

// The test kept device memory allocated after it ended; the harness exits after this.
struct Leaked {
  static constexpr const char* kName = "leaked";
  std::string test;
  std::uint64_t bytes = 0;
  std::uint64_t free_before = 0;
  std::uint64_t free_after = 0;
  std::uint64_t total = 0;
};

// The test's peak resident host memory passed the process's limit; the harness exits after this.
struct HostMemory {
  static constexpr const char* kName = "host_memory";
  std::string test;
  std::uint64_t peak_bytes = 0;
  std::uint64_t limit_bytes = 0;
};

// A median with its confidence interval.
struct Interval {
  double median = 0;
  double low = 0;
  double high = 0;
};

// A sampled quantity: its median, confidence interval and sample count.
struct Summary {
  double median = 0;
  double low = 0;
  double high = 0;
  std::size_t samples = 0;
};

struct Clocks {
  double sm_mhz_measured = 0;
  double sm_mhz_max = 0;
  double memory_mhz = 0;
  std::string note;
};

// A pipeline stage run alone over the whole input (cudalabs::PipelineStage).
struct StageTime {
  std::string name;
  Summary ms;
};

// Measurement::compared_with of a timing preview (cudalabs/performance_preview.hpp) that timed
// the student's code alone (a pipeline preview names its slowest stage instead, as a graded
// pipeline case does).
inline constexpr const char* kComparedWithNothing = "nothing";

// What one performance case measured (cudalabs/performance_case.hpp), from which labgrade draws
// its verdict with the same arithmetic as the harness (cudalabs/course/performance.hpp).
struct Measurement {
  static constexpr const char* kName = "measurement";
  std::string test;  // Performance.<case>
  std::string device;
  std::string threshold_kind;  // the YAML key of the case's threshold
  Interval figure;             // what the threshold was compared with, in its unit
  Summary student_ms;
  Summary solution_ms;
  Summary ratio;            // student time / solution time, paired per round
  bool target_met = false;  // the interval reached the course's precision target
  bool points_settled = false;  // sampling stopped once the points were the same anywhere in the intervals
  int rounds = 0;
  int remeasured = 0;  // extra measurements because the result was too close to call
  // Of several measurements by pairs of runner processes, whether the best was kept (else the
  // last: a longer measurement supersedes a shorter one).
  bool kept_best = false;
  // In a judge: whether the windows were gated (cudalabs/remote/judge.hpp), and when a gated
  // measurement was given up for windows timed from request to reply, why ("" otherwise).
  bool gated = false;
  std::string ungated_because;
  double seconds = 0;  // wall time spent measuring
  double bytes = 0;    // declared by the suite
  double flops = 0;    // declared by the suite
  double achieved_gbs = 0;
  double achieved_gflops = 0;
  double peak_bandwidth_gbs = 0;  // measured in-process
  double peak_gflops = 0;         // declared by the suite
  double fp32_peak_gflops = 0;    // this device's FP32 roof (SMs x lanes x 2 x clock); 0: unknown
  Clocks clocks;
  // How far the timed calls can be trusted (cudalabs/timing/plausibility.hpp). `implausible` is
  // required: a measurement that does not say whether it is believable is not scored.
  bool implausible = false;
  std::string implausible_reason;
  // Non-empty when most rounds' timed windows waited for a CPU (the machine's other work): what
  // happened. Such figures are never scored; optional in the event ("" when absent).
  std::string machine_busy;
  double bandwidth_limit_gbs = 0;  // the ceilings the figures were checked against
  double flops_limit_gflops = 0;
  int verified_samples = 0;  // timed student calls whose output was checked
  std::string timing_seed;   // the grade's seed and this case's, to reproduce the inputs
  std::string case_seed;
  // What solution_ms timed: "solution", or for a pipeline case (max_ratio_to_slowest_stage) the
  // name of its slowest stage, with every stage's time alone in `stages`; kComparedWithNothing
  // for a timing preview of the code alone (solution_ms and ratio then stay zero).
  std::string compared_with = "solution";
  std::vector<StageTime> stages;
};

// The last event of a harness that ran to its end.
struct Done {
  static constexpr const char* kName = "done";
};

void to_json(nlohmann::json& json, const Environment& event);
void from_json(const nlohmann::json& json, Environment& event);
void to_json(nlohmann::json& json, const TestStart& event);
void from_json(const nlohmann::json& json, TestStart& event);
void to_json(nlohmann::json& json, const GpuAloneWanted& event);
void from_json(const nlohmann::json& json, GpuAloneWanted& event);
void to_json(nlohmann::json& json, const TestEnd& event);
void from_json(const nlohmann::json& json, TestEnd& event);
void to_json(nlohmann::json& json, const ContextLost& event);
void from_json(const nlohmann::json& json, ContextLost& event);
void to_json(nlohmann::json& json, const Leaked& event);
void from_json(const nlohmann::json& json, Leaked& event);
void to_json(nlohmann::json& json, const HostMemory& event);
void from_json(const nlohmann::json& json, HostMemory& event);
void to_json(nlohmann::json& json, const Interval& value);
void from_json(const nlohmann::json& json, Interval& value);
void to_json(nlohmann::json& json, const Summary& value);
void from_json(const nlohmann::json& json, Summary& value);
void to_json(nlohmann::json& json, const Clocks& value);
void to_json(nlohmann::json& json, const StageTime& value);
void from_json(const nlohmann::json& json, StageTime& value);
void to_json(nlohmann::json& json, const Measurement& event);
void from_json(const nlohmann::json& json, Measurement& event);
void to_json(nlohmann::json& json, const Done& event);

// The event's name ("" when it has none): which type to read it as.
std::string name_of(const nlohmann::json& event);

// How a measurement's windows and its repeats are described, the same words in the harness's
// figures and in labgrade's report: "" when the windows were gated (or never could be), else
// "; each window timed from the request to the reply, since in gated windows <why>"; and of
// `remeasured` repeats (new runner pairs in a judge), which was kept: the best of the pairs, or
// the last (in process, and in a case that left the gated windows).
std::string ungated_note(const std::string& ungated_because);
std::string remeasured_note(int remeasured, bool kept_best);

// Throws std::invalid_argument naming the event and field when a number in `json` is NaN or
// infinite: JSON has no such numbers (they would be written as null and the whole event refused
// when read back, so a figure would vanish from the grade without a word).
void require_finite_numbers(const nlohmann::json& json, const std::string& event_name);

// One line of the stream: the event as a JSON object with its name, without a newline. Text that
// is not valid UTF-8 (a student's failure message) is replaced, never an error; a number that is
// not finite is refused (require_finite_numbers).
template <typename Event>
std::string to_line(const Event& event) {
  nlohmann::json json = event;
  require_finite_numbers(json, Event::kName);
  json["event"] = Event::kName;
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace cudalabs::events
