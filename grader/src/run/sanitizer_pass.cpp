#include "run/sanitizer_pass.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalabs/host_slot.hpp"
#include "cudalabs/result_stream.hpp"
#include "run/tool_run.hpp"

namespace labgrade {
namespace {

constexpr double kTimeoutFactor = 20;
constexpr double kMaxTimeoutSeconds = 600;
// The machine-wide slots of sanitizer runs (lock files in the GPU lock's directory).
constexpr const char* kSanitizerSlotName = "cudalabs-sanitizer-run";

// A finding that did not complete says how its test ended.
SanitizerFinding with_outcome(SanitizerFinding finding, const TestOutcome* outcome) {
  if (!finding.completed) {
    finding.excerpt = fmt::format("the sanitizer run did not finish ({}): {}\n{}",
                                  outcome ? to_string(outcome->status) : std::string_view("not run"),
                                  outcome ? outcome->message : std::string(), finding.excerpt);
  }
  return finding;
}

bool ran_to_its_end(const TestOutcome& outcome) {
  return outcome.status == TestStatus::Passed || outcome.status == TestStatus::Failed ||
         outcome.status == TestStatus::Skipped;
}

SanitizerFinding clean_finding(const std::string& tool) {
  SanitizerFinding finding;
  finding.tool = tool;
  finding.completed = true;
  finding.clean = true;
  return finding;
}

// One test's finding from the logs its student runners left in `logs` (the judge names them
// <test>.log, then <test>~2.log ... for runners started after a crash), and its outcome.
SanitizerFinding finding_of_test(const std::string& tool, const std::filesystem::path& logs, const std::string& test,
                                 const TestOutcome* outcome) {
  const std::vector<std::filesystem::path> files = tool_logs_of_test(logs, test, ".log");
  const bool ran = outcome && ran_to_its_end(*outcome);
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

// Whether a log in `logs` that the judge named after none of `tests` holds a report or lacks
// the tool's summary.
bool log_outside_every_test(const std::string& tool, const std::filesystem::path& logs,
                            const std::vector<std::string>& tests) {
  std::set<std::filesystem::path> of_tests;
  for (const std::string& test : tests) {
    for (const std::filesystem::path& file : tool_logs_of_test(logs, test, ".log")) of_tests.insert(file);
  }
  for (const auto& entry : std::filesystem::directory_iterator(logs)) {
    if (of_tests.count(entry.path()) != 0) continue;
    const SanitizerFinding part = parse_sanitizer_output(tool, read_whole_file(entry.path()));
    if (!part.completed || part.errors > 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::vector<std::string>> deal_by_cost(const std::vector<std::string>& tests, std::size_t count,
                                              const std::map<std::string, double>& seconds) {
  count = std::clamp<std::size_t>(count, 1, std::max<std::size_t>(tests.size(), 1));
  double most = 0;
  for (const auto& [test, s] : seconds) most = std::max(most, s);
  std::vector<std::pair<double, std::string>> costs;
  for (const std::string& test : tests) {
    const auto known = seconds.find(test);
    costs.emplace_back(known == seconds.end() ? most : known->second, test);
  }
  std::stable_sort(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::vector<std::string>> groups(count);
  std::vector<double> load(count, 0);
  for (const auto& [cost, test] : costs) {
    const std::size_t least = std::min_element(load.begin(), load.end()) - load.begin();
    groups[least].push_back(test);
    load[least] += cost + 0.01;  // every test costs something
  }
  // Each group in the suite's order.
  for (auto& group : groups) {
    std::sort(group.begin(), group.end(), [&](const std::string& a, const std::string& b) {
      return std::find(tests.begin(), tests.end(), a) < std::find(tests.begin(), tests.end(), b);
    });
  }
  groups.erase(std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.empty(); }), groups.end());
  return groups;
}

std::vector<std::size_t> shards_per_tool(std::size_t passes, unsigned runs_at_once, const std::vector<unsigned>& weights) {
  std::vector<std::size_t> shards(weights.size(), 1);
  unsigned total = 0;
  for (unsigned weight : weights) total += weight;
  if (passes > 1 || total == 0) return shards;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    shards[i] = std::max<std::size_t>(std::size_t{runs_at_once} * weights[i] / total, 1);
  }
  return shards;
}

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

namespace {

// Sanitizer runs under way in this process, over every grade a batch makes at once: at most
// sanitizer_runs_at_once(), so a batch's grades take turns rather than multiply the runs.
class RunSlots {
 public:
  void acquire() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return running_ < sanitizer_runs_at_once(); });
    ++running_;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    freed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  unsigned running_ = 0;
};

RunSlots& run_slots() {
  static RunSlots slots;
  return slots;
}

struct Shard {
  std::size_t tool;
  std::vector<std::string> tests;
  std::filesystem::path logs;
  bool spans_tests;  // one tool run for all its tests (first round) or one per test (second)
};

// Runs every shard, sanitizer_runs_at_once() at a time; the findings by test, per shard. Every
// test of a shard that spans its tests gets the shard's one verdict (clean only if the whole run
// was); a shard's test missing from its map did not run to its end.
std::vector<std::map<std::string, SanitizerFinding>> run_shards(const HarnessInvocation& normal,
                                                                const std::filesystem::path& sanitizer,
                                                                const std::vector<Shard>& shards, StudentCode where,
                                                                const HoldGpu& hold_gpu) {
  namespace fs = std::filesystem;
  const bool in_runners = where == StudentCode::in_runners;
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
      if (shard.spans_tests) invocation.env.emplace_back(cudalabs::kToolRunnerSpansTestsVariable, "1");
    } else {
      invocation.launcher = launcher;
    }
    const SuiteRun suite = run_tests(invocation, shard.tests);
    if (shard.spans_tests && in_runners) {
      // A log outside every test's that holds a report or lacks its summary (e.g. the student's
      // code at load time, in a runner started before the first test) belongs to no one test:
      // run the tests again, a runner each, so each test's log holds it.
      if (log_outside_every_test(tool, shard.logs, shard.tests)) return;
      // Each test that ran to its end with every log of its own complete has its own findings,
      // whatever happened to the others (a runner the tool's context teardown broke, a test
      // that timed out): the caller runs again only the tests missing here. The judge kept
      // each log the tool wrote anything in under the test that made it grow (judge.cpp,
      // keep_tool_log_for_current_test): a test without one of its own left no report in the
      // runner that served it. (Before, one broken test sent the whole shard again, a runner
      // per test, repeating every test's tool time, a storm of 100,000 memcheck errors too.)
      for (const std::string& test : shard.tests) {
        const auto outcome = std::find_if(suite.outcomes.begin(), suite.outcomes.end(),
                                          [&](const TestOutcome& o) { return o.name == test; });
        if (outcome == suite.outcomes.end() || !ran_to_its_end(*outcome)) continue;
        SanitizerFinding each = tool_logs_of_test(shard.logs, test, ".log").empty()
                                    ? clean_finding(tool)
                                    : finding_of_test(tool, shard.logs, test, &*outcome);
        if (!each.completed) continue;
        each.seconds = outcome->seconds;
        found[index][test] = std::move(each);
      }
      return;
    }
    if (shard.spans_tests) {
      // A self-check's one harness: its output is the whole shard's, complete only when every
      // test ran to its end and the tool printed its summary.
      const SanitizerFinding output = parse_sanitizer_output(tool, suite.output);
      bool completed = output.completed && suite.outcomes.size() == shard.tests.size();
      for (const TestOutcome& outcome : suite.outcomes) completed = completed && ran_to_its_end(outcome);
      if (!completed) return;  // no finding: the caller runs these tests again, a harness each
      SanitizerFinding whole;  // only a clean one is kept (the caller), so no excerpt
      whole.tool = tool;
      whole.errors = output.errors;
      whole.completed = true;
      whole.clean = output.errors == 0;
      for (std::size_t i = 0; i < shard.tests.size(); ++i) {
        SanitizerFinding each = whole;
        each.seconds = suite.outcomes[i].seconds;
        found[index][shard.tests[i]] = std::move(each);
      }
      return;
    }
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
      run_slots().acquire();
      struct Release {
        ~Release() { run_slots().release(); }
      } release;
      try {
        // The same bound over every labgrade on the machine (a second batch, ctest -j4).
        const cudalabs::HostSlot machine_slot = cudalabs::HostSlot::acquire(kSanitizerSlotName, sanitizer_runs_at_once());
        const cudalabs::GpuLock gpu = hold_gpu ? hold_gpu() : cudalabs::GpuLock();
        run_shard(i);
      } catch (const std::exception& error) {  // never past a thread: the shard's tests are reported unfinished
        for (const std::string& test : shards[i].tests) {
          SanitizerFinding& finding = found[i][test];
          finding = SanitizerFinding{};
          finding.tool = kSanitizerTools[shards[i].tool];
          finding.excerpt = fmt::format("the sanitizer run could not start: {}", error.what());
        }
      }
    }
  };
  std::vector<std::thread> workers;
  const std::size_t threads = std::min<std::size_t>(sanitizer_runs_at_once(), shards.size());
  for (std::size_t i = 1; i < threads; ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& thread : workers) thread.join();
  return found;
}

}  // namespace

std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests,
                                                                          StudentCode where,
                                                                          const std::map<std::string, double>& seconds,
                                                                          const HoldGpu& hold_gpu,
                                                                          const std::vector<std::string>& tools) {
  // Most submissions are clean, and most of a sanitizer run's time is the tool's start and its
  // instrumentation of the code it loads (1-7 s a test, against milliseconds of work). So the
  // first round runs each shard's tests under one tool start (in a grade: one student runner
  // serving all of them until a test its tool reports something in, whose log the judge keeps
  // under that test's name; in a self-check: one harness). A grade's shard whose round is
  // complete clears its tests, each with its own findings; a self-check's only when clean. Any
  // other shard (a crash of the harness, a time-out; a self-check's errors) runs again with a
  // fresh tool start per test, whose findings belong to exactly one test: the same findings, with
  // the same messages, as if every test had had its own run from the start.
  const std::filesystem::path logs = normal.working_dir / "sanitizer-logs";
  // Both tools' shards together fill the runs at once, unless other grades' passes do.
  static std::atomic<std::size_t> passes_running{0};
  struct PassUnderWay {
    PassUnderWay() { ++passes_running; }
    ~PassUnderWay() { --passes_running; }
  } under_way;
  // The tools that run (of kSanitizerTools, by index), and each one's shards.
  std::vector<std::size_t> running;
  std::vector<unsigned> weights;
  for (std::size_t tool = 0; tool < kSanitizerTools.size(); ++tool) {
    if (std::find(tools.begin(), tools.end(), kSanitizerTools[tool]) == tools.end()) continue;
    running.push_back(tool);
    weights.push_back(kSanitizerToolWeights[tool]);
  }
  for (const std::string& tool : tools) {
    if (std::find(kSanitizerTools.begin(), kSanitizerTools.end(), tool) == kSanitizerTools.end()) {
      throw std::invalid_argument(fmt::format("run_sanitizer_pass: unknown tool '{}'", tool));
    }
  }
  std::vector<std::size_t> per_tool(kSanitizerTools.size(), 0);
  if (running.empty()) return {};
  const std::vector<std::size_t> shards = shards_per_tool(passes_running.load(), sanitizer_runs_at_once(), weights);
  for (std::size_t j = 0; j < running.size(); ++j) per_tool[running[j]] = shards[j];
  std::vector<Shard> first;
  for (const std::size_t tool : running) {
    std::size_t k = 0;
    for (std::vector<std::string>& group : deal_by_cost(tests, per_tool[tool], seconds)) {
      first.push_back(Shard{tool, std::move(group), logs / fmt::format("shard-{}-{}", kSanitizerTools[tool], k++), true});
    }
  }
  std::vector<std::map<std::string, SanitizerFinding>> first_found = run_shards(normal, sanitizer, first, where, hold_gpu);
  std::vector<std::size_t> to_run_again;
  // Each shard's tests to run again: in a grade, those without a complete finding of their own
  // (the judge keeps a log per test with findings); in a self-check, all of a shard that was not
  // clean, since its one harness cannot say which test found what.
  std::vector<std::vector<std::string>> again_tests(first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    auto& found = first_found[i];
    const bool clean = found.size() == first[i].tests.size() &&
                       std::all_of(found.begin(), found.end(), [](const auto& item) { return item.second.clean; });
    for (const std::string& test : first[i].tests) {
      const auto kept = found.find(test);
      const bool cleared = where == StudentCode::in_runners ? kept != found.end() && kept->second.completed : clean;
      if (!cleared) again_tests[i].push_back(test);
    }
    for (const std::string& test : again_tests[i]) found.erase(test);
    if (!again_tests[i].empty()) to_run_again.push_back(i);
  }
  // The second round has the runs to itself (the clean shards are done): a shard to run again is
  // dealt over its share of all of them, not only its tool's. A tool start per test is the cost
  // either way; more harnesses side by side only shorten the wait (H100: lab 01's out-of-bounds
  // fixture spent 114 s of a 115 s grade in memcheck's second round on one harness).
  const std::size_t groups_each = std::max<std::size_t>(1, sanitizer_runs_at_once() / std::max<std::size_t>(to_run_again.size(), 1));
  std::vector<Shard> again;
  for (const std::size_t i : to_run_again) {
    const std::vector<std::string>& tests_again = again_tests[i];
    const auto rerun = [&](std::vector<std::string> tests_of_run, std::size_t k) {
      again.push_back(Shard{first[i].tool, std::move(tests_of_run),
                            logs / fmt::format("test-{}-{}-{}", kSanitizerTools[first[i].tool], i, k), false});
    };
    if (where == StudentCode::in_runners) {
      // Harnesses side by side, each starting a fresh student runner per test.
      std::size_t k = 0;
      for (std::vector<std::string>& group :
           deal_by_cost(tests_again, std::max(per_tool[first[i].tool], groups_each), seconds)) {
        rerun(std::move(group), k++);
      }
    } else {
      for (std::size_t k = 0; k < tests_again.size(); ++k) rerun({tests_again[k]}, k);  // a harness per test
    }
  }
  std::vector<std::map<std::string, SanitizerFinding>> again_found = run_shards(normal, sanitizer, again, where, hold_gpu);
  // In the order of the tools, as the reports list them.
  std::map<std::string, std::vector<SanitizerFinding>> findings;
  for (std::size_t tool = 0; tool < kSanitizerTools.size(); ++tool) {
    const auto take = [&](const std::vector<Shard>& shards, std::vector<std::map<std::string, SanitizerFinding>>& found) {
      for (std::size_t i = 0; i < shards.size(); ++i) {
        if (shards[i].tool != tool) continue;
        for (auto& [test, finding] : found[i]) findings[test].push_back(std::move(finding));
      }
    };
    take(first, first_found);
    take(again, again_found);
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
