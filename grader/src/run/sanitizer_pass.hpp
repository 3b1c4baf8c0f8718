#pragma once
// The sanitizer pass of `labgrade grade|check --sanitize` (or of a lab whose YAML says
// `sanitizer: {required: true}`): the correctness tests run again, once per tool, with their
// student runner (and nothing else: not the judge's generators and comparisons, not the
// reference) under compute-sanitizer. The tests of each tool are dealt into shards that run side
// by side, sanitizer_runs_at_once() in all. First round: one tool start serves all of a shard's
// tests (a grade: one student runner across them; a self-check: one harness), and a clean,
// complete round clears them. A shard with anything to report runs again with a fresh tool start
// per test (a grade: the judge starts a student runner for every test, the tool's report in a file
// named after it), so every finding belongs to exactly one test.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cudalabs/gpu_lock.hpp"
#include "model/grade_result.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {

inline const std::string kMemcheck = "memcheck";
inline const std::string kRacecheck = "racecheck";
inline const std::vector<std::string> kSanitizerTools = {kMemcheck, kRacecheck};
// Each tool's share of the runs at once, as its cost weighs against the other's: racecheck follows
// every shared-memory access (over lab 11's tests on the H100: 51 s of tool time to memcheck's 8.4).
inline const std::vector<unsigned> kSanitizerToolWeights = {1, 3};
// How many sanitizer runs go side by side in this process (a grade, or all the grades of a
// batch): CUDALABS_SANITIZER_JOBS (a positive integer; anything else is an error naming the
// variable), else one per four hardware threads, between 1 and kDefaultMaxSanitizerRuns. The runs
// are untimed; each costs mostly the tool's start, and starts contend: on the H100 machine (16
// threads) the first test of a shard took 1.7 s at 4 runs at once and 5.5 s at 8. Each holds four
// small CUDA contexts (the harness's judge and its three runners), and the driver creates contexts
// one at a time (bench/probes/cuda_start_probe.cu), so more runs than 4 lose on one GPU however
// many cores there are: a sanitized batch of 20 took 92.0 s with 4 at once, 103.5 s with 6 and
// 112.7 s with 8, its CPUs 15-47% busy throughout (H100, 2026-11-27); lab 11's lone grade 33 s
// with 4, 32 s with 6, 35 s with 8.
inline constexpr unsigned kDefaultMaxSanitizerRuns = 4;
unsigned sanitizer_runs_at_once();

// `tests` in `count` groups (fewer when there are fewer tests) of about equal cost, each in the
// suite's order: the costliest first, each to the group with the least so far. A test's cost is
// its seconds in the normal run (which grow with its data, as the tool's time does); a test with
// none costs the most known.
std::vector<std::vector<std::string>> deal_by_cost(const std::vector<std::string>& tests, std::size_t count,
                                                   const std::map<std::string, double>& seconds);

// How many shards each tool's tests are dealt into (one count per weight, in the tools' order),
// with `passes` sanitizer passes under way in this process (this one included): alone, the runs
// at once shared between the tools by their weights, at least one each; beside other grades'
// passes (a batch), one per tool, since the other passes fill the runs and every further shard
// costs another tool start (1.7-5.5 s on the H100 machine).
std::vector<std::size_t> shards_per_tool(std::size_t passes, unsigned runs_at_once, const std::vector<unsigned>& weights);

// Where the student's code runs, so where the tool goes.
enum class StudentCode {
  in_runners,     // a grade: the judge starts its student runners through the tool
  in_the_harness  // a self-check: the student's code is linked into the harness, which runs under
                  // the tool, each test alone (its output is that test's report)
};

// Takes the GPU for one tool run (the shared lock), held until the returned lock goes.
using HoldGpu = std::function<cudalabs::GpuLock()>;

// Findings by test, one per tool. `normal` is the invocation of the normal run: its timeout is
// multiplied (sanitizers run 10-100x slower). `seconds`: each test's time in the normal run, by
// which the tests are dealt into shards of about equal cost. `hold_gpu`, when given, is called
// for each tool run once it has its run slot, and the lock it returns is held for that run only:
// another labgrade's grade waiting to time its cases alone (ctest -j4, a second batch) waits for
// one tool run, not a whole pass (up to 100 s for lab 01's out-of-bounds fixture in a batch).
// Not given: the caller holds the GPU for the pass. `tools`: those of kSanitizerTools to run
// (their shards share the runs by their weights); the findings hold only theirs.
std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests,
                                                                          StudentCode where,
                                                                          const std::map<std::string, double>& seconds = {},
                                                                          const HoldGpu& hold_gpu = {},
                                                                          const std::vector<std::string>& tools = kSanitizerTools);

// Attaches the findings to `tests`. With `required`, a test with a sanitizer error earns 0 and
// fails with the finding as its reason; otherwise the findings are only reported. A run that did
// not finish (timed out under the sanitizer) is reported but never costs points.
void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required);

}  // namespace labgrade
