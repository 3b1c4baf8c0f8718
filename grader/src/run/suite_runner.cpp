#include "run/suite_runner.hpp"

#include <algorithm>
#include <csignal>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudalabs/course/harness_events.hpp"
#include "cudalabs/result_stream.hpp"
#include "run/trusted_events.hpp"
#include "text/text_lines.hpp"

namespace labgrade {
namespace {

namespace events = cudalabs::events;

constexpr int kResultFd = 3;
constexpr int kResultTokenFd = 4;
constexpr int kGpuAloneFd = 5;
constexpr std::size_t kOutputTailShown = 2000;

ProcessSpec harness_spec(const HarnessInvocation& invocation, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = invocation.launcher;
  spec.argv.push_back(invocation.harness.string());
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.working_dir = invocation.working_dir;
  spec.extra_env = invocation.env;
  // The harness then confines itself to its working directory, the GPU and its own memory
  // (cudalabs/result_stream.hpp); not under a tool (a launcher, or one the judge puts before a
  // runner): compute-sanitizer's and ncu's tooling works inside the process it watches.
  const bool under_a_tool =
      !invocation.launcher.empty() ||
      std::any_of(invocation.env.begin(), invocation.env.end(),
                  [](const auto& variable) {
                    return variable.first == cudalabs::kStudentRunnerLauncherVariable ||
                           variable.first == cudalabs::kReferenceRunnerLauncherVariable;
                  });
  if (!under_a_tool) spec.extra_env.emplace_back(cudalabs::kConfineVariable, "1");
  spec.timeout_seconds = invocation.test_timeout_seconds;
  spec.quiet_seconds = invocation.quiet_seconds;
  spec.on_quiet = invocation.on_quiet;
  spec.end_when_quiet = invocation.defer_quiet_tests;
  spec.max_output_bytes = invocation.max_output_bytes;
  spec.limits = invocation.limits;
  spec.end_strays = true;  // student code: nothing it starts outlives the run (not confined under a tool)
  return spec;
}

std::string output_tail(const ProcessResult& process) {
  if (process.output.empty()) return "";
  const std::size_t start = process.output.size() > kOutputTailShown ? process.output.size() - kOutputTailShown : 0;
  return fmt::format("\nLast output of the test process:\n{}{}", start > 0 ? "[...]\n" : "",
                     process.output.substr(start));
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string host_memory_verdict(double limit_bytes) {
  return fmt::format("this test used more than {:g} GiB of host memory, the most a test process may use "
                     "(course.yaml host_memory_gib, or the lab's)", limit_bytes / kGiB);
}

// A test that ran into the host-memory limit usually fails in one of two ways: new throws
// std::bad_alloc (GoogleTest catches it and fails the test), or malloc returns null and the code
// crashes on it. Say which limit it was, so the student is not left guessing.
void explain_host_memory(TestOutcome& outcome, std::uint64_t limit_bytes, std::uint64_t peak_bytes) {
  if (limit_bytes == 0 || outcome.message.find("GiB of host memory") != std::string::npos) return;
  const bool threw = outcome.message.find("std::bad_alloc") != std::string::npos;
  // A crash with the resident set at 3/4 of the limit or more ran out of it: the allocation that
  // failed was the one that crossed it. (The limit counts virtual data, part of which, CUDA's
  // included, is never resident: the peak resident set stays somewhat below it. Lab tests use far
  // less than 3/4 of any sensible limit.)
  // Under the judge/runner split the student's code crashes in its runner, and the judge fails the
  // test saying so (the peak counts the runner: the judge reaps it).
  const bool runner_crashed = outcome.message.find("your code (in its runner process)") != std::string::npos &&
                              outcome.message.find("killed by signal") != std::string::npos;
  const bool crashed_at_limit = (outcome.status == TestStatus::Crashed || runner_crashed) &&
                                static_cast<double>(peak_bytes) >= 0.75 * static_cast<double>(limit_bytes);
  if (!threw && !crashed_at_limit) return;
  outcome.message = host_memory_verdict(static_cast<double>(limit_bytes)) +
                    ": an allocation beyond it failed\n" + outcome.message;
}

// CUDA's words for a device allocation that failed (std::bad_alloc is the process's own host
// memory limit, not a neighbour's doing).
bool mentions_out_of_memory(const std::string& message) {
  for (const char* words : {"cudaErrorMemoryAllocation", "out of memory"}) {
    if (message.find(words) != std::string::npos) return true;
  }
  return false;
}

// SIGKILL we did not send: the kernel's OOM killer, when the machine ran out of memory.
bool killed_by_the_system(const ProcessResult& process) {
  return process.started && !process.exited && !process.timed_out && process.signal == SIGKILL;
}

// What one harness process told us.
struct StreamState {
  std::string token;                 // what a line must carry to be believed
  std::set<std::string> requested;   // events about other tests are ignored
  int untrusted_lines = 0;
  std::map<std::string, TestOutcome> finished;
  std::map<std::string, PerformanceMeasurement> measurements;
  std::string running;  // started, not finished
  bool done = false;
  bool gpu_alone_wanted = false;  // a gpu_alone event came, not answered yet
  bool gpu_alone_at_once = false;  // ... asking for the GPU only if it needs no wait
  std::string context_lost_error;
  std::string device;
  bool environment_seen = false;
  bool cuda_device = true;
  std::string no_device_reason;
  std::string device_wide_memory_reason;
};

void read_event(StreamState& state, const std::string& line) {
  const std::optional<nlohmann::json> trusted = trusted_event(line, state.token);
  const bool about_other_test = trusted && trusted->contains("test") && !state.requested.count(trusted->value("test", ""));
  // An end must follow its own start: the harness always sends both, in that order.
  const bool end_without_start = trusted && trusted->value("event", "") == "end" &&
                                 trusted->value("test", "") != state.running;
  if (!trusted || about_other_test || end_without_start) {
    ++state.untrusted_lines;
    return;
  }
  const nlohmann::json& event = *trusted;
  const std::string kind = events::name_of(event);
  if (kind == events::Environment::kName) {
    const auto environment = event.get<events::Environment>();
    state.environment_seen = true;
    state.cuda_device = environment.cuda_device;
    state.device = environment.device;
    state.no_device_reason = environment.reason;
    state.device_wide_memory_reason = environment.device_wide_memory_reason;
  } else if (kind == events::GpuAloneWanted::kName) {
    state.gpu_alone_wanted = true;
    state.gpu_alone_at_once = event.get<events::GpuAloneWanted>().at_once;
  } else if (kind == events::TestStart::kName) {
    state.running = event.get<events::TestStart>().test;
  } else if (kind == events::TestEnd::kName) {
    const auto end = event.get<events::TestEnd>();
    TestOutcome outcome;
    outcome.name = end.test;
    outcome.status = end.status == "passed"    ? TestStatus::Passed
                     : end.status == "skipped" ? TestStatus::Skipped
                                               : TestStatus::Failed;
    outcome.message = end.message;
    outcome.seconds = end.ms / 1000.0;
    // A runner of the reference's side failed (the judge says so in a field of its own): it runs
    // the trusted solution, so the machine was the cause (a neighbour's memory, a slow start under
    // load; seen once under ctest -j4 on the H100: a call mirrored to a checker runner, since folded
    // into the judge), worth running alone again. Never read from the message, which carries the
    // student's runner's own words.
    outcome.neighbour_may_have_caused = outcome.status == TestStatus::Failed &&
                                        (mentions_out_of_memory(end.message) || end.trusted_runner_failed);
    state.finished[outcome.name] = outcome;
    if (state.running == outcome.name) state.running.clear();
  } else if (kind == events::ContextLost::kName) {
    const auto lost = event.get<events::ContextLost>();
    state.context_lost_error = lost.error;
    const std::string& test = lost.test;
    // The harness reports it after the test's end event; a test that never ended is charged too.
    auto found = state.finished.find(test);
    if (found == state.finished.end()) found = state.finished.emplace(test, TestOutcome{test, TestStatus::Crashed, "", 0}).first;
    if (state.running == test) state.running.clear();
    found->second.status = TestStatus::Crashed;
    found->second.message = fmt::format(
        "this test broke the GPU context ({}): usually a kernel that reads or writes outside its buffers{}",
        state.context_lost_error, found->second.message.empty() ? "" : "\n" + found->second.message);
  } else if (kind == events::Leaked::kName) {
    // Reported after the test's end event: the test is charged, the process ends, the rest rerun.
    const auto leaked = event.get<events::Leaked>();
    auto found = state.finished.find(leaked.test);
    if (found == state.finished.end()) {
      found = state.finished.emplace(leaked.test, TestOutcome{leaked.test, TestStatus::Failed, "", 0}).first;
    }
    constexpr double kMiB = 1024.0 * 1024.0;
    const std::string earlier = found->second.message;
    found->second.status = TestStatus::Failed;
    // Counted in the device's free memory (no per-process figure): a neighbour's allocations too.
    found->second.neighbour_may_have_caused = !state.device_wide_memory_reason.empty();
    found->second.message = fmt::format(
        "this test left {:.0f} MiB of device memory allocated after it ended ({:.0f} of {:.0f} MiB free before it, "
        "{:.0f} after): free what the code allocates (cudaFree / cudaFreeAsync), or allocate a small scratch "
        "buffer once; the tests after it ran in a fresh process{}",
        leaked.bytes / kMiB, leaked.free_before / kMiB, leaked.total / kMiB, leaked.free_after / kMiB,
        earlier.empty() ? "" : "\n" + earlier);
  } else if (kind == events::HostMemory::kName) {
    // Reported after the test's end event: the test is charged, the process ends, the rest rerun.
    const auto host = event.get<events::HostMemory>();
    auto found = state.finished.find(host.test);
    if (found == state.finished.end()) {
      found = state.finished.emplace(host.test, TestOutcome{host.test, TestStatus::Failed, "", 0}).first;
    }
    const std::string earlier = found->second.message;
    found->second.status = TestStatus::Failed;
    found->second.message = fmt::format("{} (its resident memory peaked at {:.1f} GiB); the tests after it ran in a "
                                        "fresh process{}",
                                        host_memory_verdict(static_cast<double>(host.limit_bytes)),
                                        static_cast<double>(host.peak_bytes) / kGiB, earlier.empty() ? "" : "\n" + earlier);
  } else if (kind == events::Measurement::kName) {
    if (auto measurement = parse_measurement(event)) state.measurements[event.value("test", "")] = *measurement;
  } else if (kind == events::Done::kName) {
    state.done = true;
  }
}

// Why a process ended before reporting `test`, in words a student understands.
TestOutcome charge_interrupted_test(const std::string& test, const ProcessResult& process, double timeout) {
  TestOutcome outcome{test, process.timed_out ? TestStatus::TimedOut : TestStatus::Crashed, "", process.wall_seconds};
  if (process.timed_out) {
    outcome.message = fmt::format("timed out: no result after {:g} s, so the test process was killed "
                                  "(a kernel or loop that never finishes?)", timeout);
  } else if (process.exited) {
    outcome.message = fmt::format("the test process exited with code {} in the middle of this test "
                                  "(does the code call exit() or abort()?)", process.exit_code);
  } else {
    outcome.message = fmt::format("the test process was {} during this test", process.describe_end(timeout));
  }
  outcome.message += output_tail(process);
  outcome.neighbour_may_have_caused = killed_by_the_system(process);
  return outcome;
}

}  // namespace

void hold_to_the_labs_time_out(SuiteRun& run, double lab_timeout_seconds, double stretched_seconds) {
  if (stretched_seconds <= lab_timeout_seconds) return;
  for (TestOutcome& outcome : run.outcomes) {
    if (outcome.status == TestStatus::TimedOut) {
      outcome.message.insert(std::min(outcome.message.find('\n'), outcome.message.size()),
                             fmt::format(" (it ran again after the other grades' correctness tests, beside other grades' "
                                         "likely hangs, so its time-out of {:g} s was stretched to {:g} s: at least the "
                                         "share of the GPU it had among the correctness tests)",
                                         lab_timeout_seconds, stretched_seconds));
    } else if (outcome.status == TestStatus::Passed && outcome.seconds > lab_timeout_seconds) {
      // Passed only thanks to the stretch, which other submissions' quiet code can widen: not
      // believed here. Alone on the GPU (stages.cpp, failed_while_sharing) the lab's time-out holds.
      outcome.status = TestStatus::TimedOut;
      outcome.message = fmt::format("passed after {:.1f} s beside other grades' likely hangs, longer than the lab's "
                                    "time-out of {:g} s (stretched to {:g} s there): run again alone, where the lab's "
                                    "time-out holds",
                                    outcome.seconds, lab_timeout_seconds, stretched_seconds);
      outcome.neighbour_may_have_caused = true;
    }
  }
}

std::vector<std::string> parse_test_listing(const std::string& output) {
  std::vector<std::string> tests;
  std::string suite;
  for (std::string line : split_lines(output)) {
    const auto comment = line.find('#');
    if (comment != std::string::npos) line.erase(comment);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    if (line[0] != ' ') {
      suite = line.back() == '.' ? line : "";  // "Suite." header; anything else is stray output
    } else if (!suite.empty()) {
      tests.push_back(suite + line.substr(line.find_first_not_of(' ')));
    }
  }
  return tests;
}

TestListing list_tests(const HarnessInvocation& invocation) {
  TestListing listing;
  listing.process = run_process(harness_spec(invocation, {"--gtest_list_tests"}));
  if (listing.ok()) listing.tests = parse_test_listing(listing.process.output);
  return listing;
}

SuiteRun run_tests(const HarnessInvocation& invocation, const std::vector<std::string>& tests,
                   const GpuAloneHook& gpu_alone) {
  SuiteRun run;
  std::vector<std::string> remaining = tests;
  std::map<std::string, TestOutcome> outcomes;
  while (!remaining.empty()) {
    StreamState state;
    state.token = new_result_token();
    state.requested.insert(remaining.begin(), remaining.end());
    std::string filter;
    for (const auto& test : remaining) filter += (filter.empty() ? "" : ":") + test;
    ProcessSpec spec = harness_spec(invocation, {"--gtest_filter=" + filter, "--gtest_color=no"});
    spec.result_fd = kResultFd;
    spec.result_fd_env = cudalabs::kResultFdVariable;
    spec.secret = state.token;
    spec.secret_fd = kResultTokenFd;
    spec.secret_fd_env = cudalabs::kResultTokenFdVariable;
    if (gpu_alone) {
      spec.reply_fd = kGpuAloneFd;
      spec.reply_fd_env = cudalabs::kGpuAloneFdVariable;
    }
    const ProcessResult process = run_process(spec, LineAnswerer([&](const std::string& line) {
                                                read_event(state, line);
                                                if (!state.gpu_alone_wanted || !gpu_alone) return std::string();
                                                state.gpu_alone_wanted = false;
                                                return std::string(gpu_alone(state.gpu_alone_at_once) ? "go\n" : "busy\n");
                                              }));
    ++run.processes;
    run.output += process.output;
    run.untrusted_lines += state.untrusted_lines;
    // One process without a device makes the run deviceless, whichever came first: its tests
    // skipped, and the caller must find out why (the code can hide the GPU from some processes).
    if (state.environment_seen && run.device.empty()) run.device = state.device;
    if (state.environment_seen && !state.cuda_device && run.cuda_device) {
      run.cuda_device = false;
      run.no_device_reason = state.no_device_reason;
    }
    if (state.environment_seen && run.device_wide_memory_reason.empty()) {
      run.device_wide_memory_reason = state.device_wide_memory_reason;
    }
    for (auto& [name, outcome] : state.finished) {
      if (outcome.status == TestStatus::Failed) explain_host_memory(outcome, invocation.limits.max_data_bytes, 0);
      outcomes[name] = outcome;
    }
    for (auto& [name, measurement] : state.measurements) run.measurements[name] = measurement;

    std::vector<std::string> next;
    for (const auto& test : remaining) {
      if (!state.finished.count(test) && test != state.running) next.push_back(test);
    }
    if (process.ended_quiet) {
      for (const auto& test : remaining) {
        if (state.finished.count(test)) continue;
        run.deferred.push_back(test);
        outcomes[test] = TestOutcome{test, TestStatus::NotRun,
                                     fmt::format("not run yet: the test process sent no result for {:g} s beside other "
                                                 "grades' tests, so this test and those after it run again, with the "
                                                 "whole time-out, once their correctness tests are done",
                                                 invocation.quiet_seconds),
                                     0, false};
      }
      break;
    }
    if (!state.running.empty()) {
      outcomes[state.running] = charge_interrupted_test(state.running, process, invocation.test_timeout_seconds);
      explain_host_memory(outcomes[state.running], invocation.limits.max_data_bytes, process.peak_resident_bytes);
    } else if (!state.done && state.context_lost_error.empty() && next.size() == remaining.size()) {
      // It died before any test started (e.g. in a static constructor): nothing to retry.
      for (const auto& test : next) {
        outcomes[test] = TestOutcome{test, TestStatus::Crashed,
                                     fmt::format("the test process {} before this test could start{}",
                                                 process.describe_end(invocation.test_timeout_seconds),
                                                 output_tail(process)), 0, killed_by_the_system(process)};
      }
      next.clear();
    } else if (state.done) {
      for (const auto& test : next) {
        outcomes[test] = TestOutcome{test, TestStatus::NotRun, "the suite finished without running this test", 0, true};
      }
      next.clear();
    }
    remaining = std::move(next);
  }
  for (const auto& test : tests) {
    const auto found = outcomes.find(test);  // no trusted result is never a pass
    run.outcomes.push_back(found != outcomes.end() ? found->second
                                                   : TestOutcome{test, TestStatus::NotRun, "no result was reported for this test", 0, true});
  }
  return run;
}

}  // namespace labgrade
