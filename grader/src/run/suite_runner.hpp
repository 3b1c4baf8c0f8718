#pragma once
// Runs a lab harness (a GoogleTest binary holding student code) in child processes and collects
// one outcome per test from the harness's result stream (see cudalabs/result_stream.hpp).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/grade_result.hpp"
#include "model/performance_result.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {

struct HarnessInvocation {
  std::filesystem::path harness;
  std::vector<std::string> launcher;  // run before the harness, e.g. compute-sanitizer and its options
  std::filesystem::path working_dir;
  std::vector<std::pair<std::string, std::string>> env;
  double test_timeout_seconds = 30;
  std::uint64_t max_output_bytes = 1 << 20;
  ResourceLimits limits;  // never an address-space cap: see resource_limits.hpp
  // Called once per harness process whose result channel has been silent for quiet_seconds
  // (ProcessSpec::on_quiet): a batch lets a likely hanging grade's correctness slot go.
  double quiet_seconds = 0;
  std::function<void()> on_quiet;
  // With quiet_seconds: a harness gone quiet that long is ended, and the test it was in and those
  // it had not reached are left for a later run (SuiteRun::deferred) instead of being charged.
  bool defer_quiet_tests = false;
};

struct TestListing {
  std::vector<std::string> tests;  // "Suite.Test", in binary order
  ProcessResult process;           // how the listing run ended (a missing symbol shows up here)
  bool ok() const { return process.succeeded(); }
};

TestListing list_tests(const HarnessInvocation& invocation);

// Parses `--gtest_list_tests` output ("Suite.\n  Test  # GetParam() = ...").
std::vector<std::string> parse_test_listing(const std::string& output);

struct SuiteRun {
  std::vector<TestOutcome> outcomes;  // one per requested test, in request order
  std::string device;                 // GPU name reported by the harness
  bool cuda_device = true;            // false when the harness saw no GPU
  std::string no_device_reason;
  // Why a harness's leak check used the device-wide free memory rather than its own (NVML); ""
  // when every harness process had its own figure.
  std::string device_wide_memory_reason;
  int processes = 0;                  // how many harness processes it took
  std::map<std::string, PerformanceMeasurement> measurements;  // by test, for performance cases
  int untrusted_lines = 0;            // result lines ignored: wrong or no token, or a test not asked for
  std::string output;                 // stdout and stderr of every process, in order (a sanitizer's report)
  // Tests left for a later run (HarnessInvocation::defer_quiet_tests), in request order; their
  // outcomes here are NotRun until that run's replace them (stages.cpp, merge_runs).
  std::vector<std::string> deferred;
};

// For a run whose time-out was stretched from `lab_timeout_seconds` to `stretched_seconds` (a
// batch's deferred tests, beside other grades' likely hangs: counting_slots.hpp,
// deferred_timeout_stretch): each time-out says both figures on its first line, and a test that
// passed only after more than the lab's time-out is a time-out here, to run again alone
// (neighbour_may_have_caused), since a class's quiet submissions widen the stretch. Nothing when
// not stretched.
void hold_to_the_labs_time_out(SuiteRun& run, double lab_timeout_seconds, double stretched_seconds);

// Called when a harness is about to start its first timed case (the gpu_alone event). With
// `at_once`, takes the GPU alone only if that needs no wait, and says whether it did (the harness
// then ends the student's runner and asks again); without, returns true once the caller holds the
// GPU alone. May be called again by a later process of the same run (after a crash), so it must
// return true at once when the GPU is already held.
using GpuAloneHook = std::function<bool(bool at_once)>;

// Runs `tests` in as few processes as possible: when a process dies, hangs or loses its CUDA
// context, the test it was in is charged for it and the tests after it continue in a new process.
// With `gpu_alone`, the harness waits before its first timed case (Performance.*, Preview.*) until
// the hook returns: one harness runs the correctness tests with the GPU shared, then the timed
// cases alone. Without it, the harness does not wait.
SuiteRun run_tests(const HarnessInvocation& invocation, const std::vector<std::string>& tests,
                   const GpuAloneHook& gpu_alone = {});

}  // namespace labgrade
