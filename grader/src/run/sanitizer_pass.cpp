#include "run/sanitizer_pass.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalabs/result_stream.hpp"
#include "run/tool_run.hpp"

namespace labgrade {
namespace {

constexpr double kTimeoutFactor = 20;
constexpr double kMaxTimeoutSeconds = 600;

// A finding that did not complete says how its test ended.
SanitizerFinding with_outcome(SanitizerFinding finding, const TestOutcome* outcome) {
  if (!finding.completed) {
    finding.excerpt = fmt::format("the sanitizer run did not finish ({}): {}\n{}",
                                  outcome ? to_string(outcome->status) : std::string_view("not run"),
                                  outcome ? outcome->message : std::string(), finding.excerpt);
  }
  return finding;
}

// One test's finding from the logs its student runners left in `logs` (the judge names them
// <test>.log, then <test>~2.log ... for runners started after a crash), and its outcome.
SanitizerFinding finding_of_test(const std::string& tool, const std::filesystem::path& logs, const std::string& test,
                                 const TestOutcome* outcome) {
  const std::vector<std::filesystem::path> files = tool_logs_of_test(logs, test, ".log");
  const bool ran = outcome && (outcome->status == TestStatus::Passed || outcome->status == TestStatus::Failed ||
                               outcome->status == TestStatus::Skipped);
  SanitizerFinding finding;
  finding.tool = tool;
  if (files.empty()) {
    // No student runner started: none of the student's code ran in this test, so nothing to check.
    finding.completed = ran;
    finding.clean = ran;
    if (ran) finding.excerpt = "no call to your code in this test: nothing to check\n";
  } else {
    finding.completed = true;
    finding.clean = true;
    for (const auto& file : files) {
      const SanitizerFinding part = parse_sanitizer_output(tool, read_whole_file(file));
      finding.completed = finding.completed && part.completed;
      finding.errors += part.errors;
      finding.excerpt += part.excerpt;
    }
    finding.clean = finding.completed && finding.errors == 0;
  }
  return with_outcome(std::move(finding), outcome);
}

}  // namespace

unsigned sanitizer_runs_at_once() {
  if (const char* value = std::getenv("CUDALABS_SANITIZER_JOBS"); value != nullptr && *value != '\0') {
    char* end = nullptr;
    const unsigned long jobs = std::strtoul(value, &end, 10);
    if (*end != '\0' || jobs == 0 || jobs > 256 || value[0] == '-') {
      throw std::invalid_argument(fmt::format("CUDALABS_SANITIZER_JOBS is '{}'; expected a whole number from 1 to 256 "
                                              "(how many sanitizer runs go side by side)", value));
    }
    return static_cast<unsigned>(jobs);
  }
  const unsigned threads = std::thread::hardware_concurrency();
  return std::clamp(threads / 4, 1u, kDefaultMaxSanitizerRuns);
}

std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests,
                                                                          StudentCode where) {
  namespace fs = std::filesystem;
  // The tests of each tool are dealt into shards, one harness process each (restarted after a
  // crash like any run's), all side by side. The judge starts a fresh student runner under the
  // tool for every test, its report in a log file named after the test, so each finding belongs
  // to exactly one test while the harness, the judge's CUDA context and the reference's runners
  // start once per shard rather than once per test.
  const unsigned jobs = sanitizer_runs_at_once();
  const bool in_runners = where == StudentCode::in_runners;
  // A harness under the tool reports for all its tests at once: there, each test is its own shard.
  const std::size_t shards_per_tool =
      in_runners ? std::clamp<std::size_t>(jobs / kSanitizerTools.size(), 1, std::max<std::size_t>(tests.size(), 1))
                 : tests.size();
  struct Shard {
    std::size_t tool;
    std::vector<std::string> tests;
    fs::path logs;
  };
  std::vector<Shard> shards;
  for (std::size_t tool = 0; tool < kSanitizerTools.size(); ++tool) {
    for (std::size_t k = 0; k < shards_per_tool; ++k) {
      Shard shard{tool, {}, normal.working_dir / "sanitizer-logs" / fmt::format("{}-{}", kSanitizerTools[tool], k)};
      for (std::size_t i = k; i < tests.size(); i += shards_per_tool) shard.tests.push_back(tests[i]);
      if (!shard.tests.empty()) shards.push_back(std::move(shard));
    }
  }
  std::vector<std::map<std::string, SanitizerFinding>> found(shards.size());
  const auto run_shard = [&](std::size_t index) {
    const Shard& shard = shards[index];
    const std::string& tool = kSanitizerTools[shard.tool];
    fs::remove_all(shard.logs);
    fs::create_directories(shard.logs);
    std::vector<std::string> launcher = sanitizer_launcher(sanitizer, tool);
    HarnessInvocation invocation = with_tool_time(normal, kTimeoutFactor, 0, kMaxTimeoutSeconds);
    if (in_runners) {
      launcher.push_back("--log-file");
      launcher.push_back((shard.logs / (std::string(cudalabs::kCurrentTestPlaceholder) + ".log")).string());
      invocation.env.emplace_back(cudalabs::kStudentRunnerLauncherVariable, fmt::format("{}", fmt::join(launcher, "\x1f")));
    } else {
      invocation.launcher = launcher;
    }
    const SuiteRun suite = run_tests(invocation, shard.tests);
    for (std::size_t i = 0; i < shard.tests.size(); ++i) {
      const TestOutcome* outcome = i < suite.outcomes.size() ? &suite.outcomes[i] : nullptr;
      SanitizerFinding& finding = found[index][shard.tests[i]];
      finding = in_runners ? finding_of_test(tool, shard.logs, shard.tests[i], outcome)
                           : with_outcome(parse_sanitizer_output(tool, suite.output), outcome);
      if (outcome) finding.seconds = outcome->seconds;
    }
  };
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < shards.size(); i = next++) {
      try {
        run_shard(i);
      } catch (const std::exception& error) {  // never past a thread: the shard's tests are reported unfinished
        for (const std::string& test : shards[i].tests) {
          SanitizerFinding& finding = found[i][test];
          finding.tool = kSanitizerTools[shards[i].tool];
          finding.excerpt = fmt::format("the sanitizer run could not start: {}", error.what());
        }
      }
    }
  };
  std::vector<std::thread> workers;
  for (std::size_t i = 1; i < shards.size(); ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& thread : workers) thread.join();
  // In the order of the tools, as the reports list them.
  std::map<std::string, std::vector<SanitizerFinding>> findings;
  for (std::size_t tool = 0; tool < kSanitizerTools.size(); ++tool) {
    for (std::size_t i = 0; i < shards.size(); ++i) {
      if (shards[i].tool != tool) continue;
      for (auto& [test, finding] : found[i]) findings[test].push_back(std::move(finding));
    }
  }
  return findings;
}

void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required) {
  for (ScoredTest& test : tests) {
    const auto found = findings.find(test.name);
    if (found == findings.end()) continue;
    test.sanitizer = found->second;
    if (!required) continue;
    for (const SanitizerFinding& finding : test.sanitizer) {
      if (!finding.completed || finding.clean) continue;
      const std::string was = test.outcome.status == TestStatus::Passed ? "passed, but " : "";
      test.points_earned = 0;
      test.outcome.status = TestStatus::Failed;
      test.outcome.message = fmt::format("{}compute-sanitizer {} (this lab requires a clean run):\n{}{}", was,
                                         summarize(finding), finding.excerpt,
                                         test.outcome.message.empty() ? "" : "\n" + test.outcome.message);
    }
  }
}

}  // namespace labgrade
