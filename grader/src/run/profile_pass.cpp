#include "run/profile_pass.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalabs/result_stream.hpp"
#include "run/ncu_tool.hpp"
#include "run/profile_figures.hpp"
#include "run/tool_run.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

namespace {

// ncu replays each kernel once per group of counters it collects and starts slowly: a test under
// it takes several times its normal run, never less than a couple of minutes' allowance.
constexpr double kTimeoutFactor = 10;
constexpr double kMinTimeoutSeconds = 120;
constexpr double kMaxTimeoutSeconds = 600;

constexpr const char* kStudentSide = "student";
constexpr const char* kReferenceSide = "reference";

// Every log ncu wrote for `test` in `dir`: <name>.csv, and <name>~N.csv for runners started again
// in the same test (after a crash), merged into one.
NcuLog log_of_test(const fs::path& dir, const std::string& test) {
  const std::vector<fs::path> files = tool_logs_of_test(dir, test, ".csv");
  NcuLog merged;
  for (const fs::path& file : files) {
    NcuLog part = parse_ncu_log(read_whole_file(file));
    merged.permission_denied = merged.permission_denied || part.permission_denied;
    for (auto& launch : part.launches) merged.launches.push_back(std::move(launch));
    for (auto& [metric, unit] : part.units) merged.units.emplace(metric, unit);
    for (auto& message : part.errors) merged.errors.push_back(std::move(message));
  }
  return merged;
}

// One side's logs and the tests' outcomes under ncu.
struct SideRun {
  std::map<std::string, NcuLog> logs;
  std::map<std::string, TestOutcome> outcomes;
  std::string unavailable;  // set when ncu may not read the counters: the pass stops there
};

HarnessInvocation profiled(const HarnessInvocation& normal, const std::string& side) {
  HarnessInvocation invocation = with_tool_time(normal, kTimeoutFactor, kMinTimeoutSeconds, kMaxTimeoutSeconds);
  invocation.env.emplace_back(cudalabs::kProfilePassVariable, side);
  return invocation;
}

SideRun profile_side(const HarnessInvocation& normal, const ProfilePassRequest& request, const std::string& side) {
  SideRun run;
  const fs::path dir = normal.working_dir / "profile-logs" / side;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> metrics = config::ncu_metrics_for(request.spec);
  const auto run_some = [&](const std::vector<std::string>& tests) {
    HarnessInvocation invocation = profiled(normal, side);
    if (request.in_runners) {
      // The judge starts a fresh runner of this side under ncu for every test, its log named
      // after the test.
      const auto words =
          ncu_launcher(request.ncu, metrics, dir / (std::string(cudalabs::kCurrentTestPlaceholder) + ".csv"), false);
      invocation.env.emplace_back(side == kStudentSide ? cudalabs::kStudentRunnerLauncherVariable
                                                       : cudalabs::kReferenceRunnerLauncherVariable,
                                  fmt::format("{}", fmt::join(words, "\x1f")));
      const SuiteRun suite = run_tests(invocation, tests);
      for (const TestOutcome& outcome : suite.outcomes) run.outcomes[outcome.name] = outcome;
      return;
    }
    // The harness under ncu writes one log for all it runs: one test per harness.
    for (const std::string& test : tests) {
      invocation.launcher = ncu_launcher(request.ncu, metrics, dir / (cudalabs::tool_log_name(test) + ".csv"), true);
      const SuiteRun suite = run_tests(invocation, {test});
      for (const TestOutcome& outcome : suite.outcomes) run.outcomes[outcome.name] = outcome;
    }
  };
  if (request.tests.empty()) return run;
  // The first test alone: ncu says at once when it may not read the counters, and the others
  // would only say it again.
  run_some({request.tests.front()});
  run.logs[request.tests.front()] = log_of_test(dir, request.tests.front());
  if (run.logs[request.tests.front()].permission_denied) {
    run.unavailable = counters_not_permitted();
    return run;
  }
  const std::vector<std::string> rest(request.tests.begin() + 1, request.tests.end());
  if (!rest.empty()) run_some(rest);
  for (const std::string& test : rest) run.logs[test] = log_of_test(dir, test);
  return run;
}

const TestOutcome* find_outcome(const SideRun& run, const std::string& test) {
  const auto found = run.outcomes.find(test);
  return found == run.outcomes.end() ? nullptr : &found->second;
}

// The first line of `text`, for a one-line reason.
std::string first_line_of(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::string counters_not_permitted() {
  return "not run: Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM: the user does not "
         "have permission to access NVIDIA GPU Performance Counters; an administrator can allow it, see "
         "https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
}

ProfiledCase profiled_case(const std::string& test, const config::ProfileSpec& spec, const NcuLog& student,
                           const NcuLog* reference, const TestOutcome* outcome) {
  ProfiledCase profiled;
  profiled.test = test;
  const std::vector<const NcuLaunch*> student_launches = code_launches(student);
  std::vector<const NcuLaunch*> reference_launches;
  if (reference) reference_launches = code_launches(*reference);
  profiled.student_kernels = kernels_of(student_launches);
  profiled.reference_kernels = kernels_of(reference_launches);
  profiled.metrics = profile_figures(spec, student_launches, student, reference ? &reference_launches : nullptr,
                                     reference);
  std::vector<std::string> problems;
  if (outcome && outcome->status != TestStatus::Passed) {
    problems.push_back(fmt::format("the case did not finish under ncu ({}): {}", to_string(outcome->status),
                                   first_line_of(outcome->message)));
  }
  if (student_launches.empty()) {
    problems.push_back(student.errors.empty() ? "ncu measured no kernel of your code in this case"
                                              : "ncu: " + student.errors.front());
  }
  if (reference && reference_launches.empty() && !student_launches.empty()) {
    problems.push_back(reference->errors.empty() ? "ncu measured no kernel of the reference in this case"
                                                 : "ncu (reference): " + reference->errors.front());
  }
  profiled.problem = fmt::format("{}", fmt::join(problems, "; "));
  return profiled;
}

ProfileReport run_profile_pass(const HarnessInvocation& normal, const ProfilePassRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  ProfileReport report;
  report.ncu = request.ncu.string();
  report.with_reference = request.in_runners;
  const auto finish = [&] {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
  };
  if (request.tests.empty()) {
    report.unavailable = "not run: no timed case was measured, so there is nothing to profile";
    return finish();
  }
  try {
    const SideRun student = profile_side(normal, request, kStudentSide);
    if (!student.unavailable.empty()) {
      report.unavailable = student.unavailable;
      return finish();
    }
    const SideRun reference = request.in_runners ? profile_side(normal, request, kReferenceSide) : SideRun{};
    const NcuLog none;
    const auto log_in = [&](const SideRun& run, const std::string& test) {
      const auto found = run.logs.find(test);
      return found == run.logs.end() ? &none : &found->second;
    };
    for (const std::string& test : request.tests) {
      const NcuLog* reference_log = request.in_runners ? log_in(reference, test) : nullptr;
      // The student side's outcome first: a crash there is the one to explain.
      const TestOutcome* outcome = find_outcome(student, test);
      if (outcome && outcome->status == TestStatus::Passed && request.in_runners) outcome = find_outcome(reference, test);
      ProfiledCase profiled = profiled_case(test, request.spec, *log_in(student, test), reference_log, outcome);
      profiled.hidden = request.hidden.count(test) > 0;
      report.cases.push_back(std::move(profiled));
    }
    report.ran = true;
  } catch (const std::exception& error) {  // the harness could not be started, a log not written
    report.unavailable = fmt::format("not run: the profile pass failed: {}", error.what());
  }
  return finish();
}

}  // namespace labgrade
