#include "session/stages.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build/shared_memory_use.hpp"
#include "build/submission_builder.hpp"
#include "checks/include_scan.hpp"
#include "checks/kernel_requirements.hpp"
#include "checks/review_scan.hpp"
#include "checks/symbol_scan.hpp"
#include "cudalabs/result_stream.hpp"
#include "cudalabs/timing/grade_seed.hpp"
#include "run/device_check.hpp"
#include "run/profile_pass.hpp"
#include "run/sanitizer_pass.hpp"
#include "run/trusted_events.hpp"
#include "sandbox/containment_rules.hpp"
#include "stage/archive_extract.hpp"
#include "stage/lab_files.hpp"
#include "score/scoring.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

namespace {

// Breaking a `forbid:` rule scores 0 and nothing of the code runs.
std::optional<Stop> stop_for_violations(SessionState& session, const std::vector<RuleViolation>& violations) {
  if (violations.empty()) return std::nullopt;
  for (const auto& violation : violations) session.result.rule_violations.push_back(violation.describe());
  const std::string more = violations.size() > 1 ? fmt::format(" (and {} more)", violations.size() - 1) : "";
  return Stop{RunStatus::RuleViolation, "score 0: " + violations.front().describe() + more,
              "not run: the code breaks a rule of the lab"};
}

std::string compiled_code(const SessionState& session) {
  return fmt::format("the compiled code of {}", fmt::join(session.staged.taken_from, ", "));
}

// Code that does not compile (or load) is a 0 in a grade and its own status in a self-check.
RunStatus not_built(const SessionState& session) {
  return session.graded ? RunStatus::Graded : RunStatus::BuildFailed;
}

// The compiler names the staged copies (/tmp/labgrade-.../src/vector_add.cu(14)); the student
// knows the files by their own paths: the submission's folder and the file's place in it, the
// file itself, or its path inside an archive.
void name_students_own_files(std::string& output, const SessionState& session) {
  std::vector<std::pair<std::string, std::string>> names;
  for (std::size_t i = 0; i < session.staged.files.size() && i < session.staged.taken_from.size(); ++i) {
    const std::filesystem::path own = std::filesystem::is_directory(session.submission)
                                          ? (session.submission / session.staged.taken_from[i]).lexically_normal()
                                      : is_archive(session.submission) ? std::filesystem::path(session.staged.taken_from[i])
                                                                       : session.submission;
    names.emplace_back(session.staged.files[i].string(), own.string());
  }
  // Longer paths first, so "a.cuh" is not rewritten as "a.cu" plus an "h".
  std::sort(names.begin(), names.end(), [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  for (const auto& [staged, own] : names) {
    for (std::size_t at = output.find(staged); at != std::string::npos; at = output.find(staged, at + own.size())) {
      output.replace(at, staged.size(), own);
    }
  }
}

}  // namespace

std::optional<Stop> stage_student_files(SessionState& session) {
  GradeResult& result = session.result;
  try {
    session.staged = stage_submission(session.submission, session.lab.student_files, session.source_dir,
                                      session.course.max_source_bytes);
  } catch (const SubmissionError& error) {
    result.stage_seconds = seconds_since(session.start);
    return Stop{RunStatus::SubmissionRejected, error.what(), error.what()};
  }
  // A self-check's submission is the lab's folder: its handout and tests are not the student's.
  if (!session.graded) forget_lab_own_files(session.staged, session.submission);
  result.staged_files = session.staged.taken_from;
  result.ignored_files = session.staged.ignored;
  result.ignored_not_listed = session.staged.ignored_not_listed;
  result.stage_seconds = seconds_since(session.start);
  return std::nullopt;
}

std::optional<Stop> check_forbidden_includes(SessionState& session) {
  session.rules = forbid_rules_for(session.course, session.lab, session.paths.root);
  return stop_for_violations(session,
                             scan_includes(session.staged.files, session.staged.taken_from, session.rules.includes));
}

std::optional<Stop> build_student_code(SessionState& session) {
  session.result.build = build_student_library(
      BuildRequest{session.recipe, session.staged.files, session.binary_dir, session.course.build_timeout_seconds,
                   session.course.max_output_bytes, session.course.compiler_limits});
  name_students_own_files(session.result.build.output, session);
  if (session.result.build.succeeded) {
    session.result.build.unmet_requirements = unmet_kernel_requirements(session.lab.kernels, session.result.build.kernels);
    return std::nullopt;
  }
  return Stop{not_built(session), "the code did not compile; the compiler's messages are below",
              "not run: the code did not compile"};
}

std::optional<Stop> check_forbidden_symbols(SessionState& session) {
  std::vector<std::string> called;
  for (const auto& object : session.result.build.object_files) {
    for (auto& symbol : undefined_symbols(object, session.course.compiler_limits)) {
      called.push_back(std::move(symbol));
    }
  }
  const std::string compiled = compiled_code(session);
  if (auto stop = stop_for_violations(session, check_symbols(called, session.rules.symbols, compiled))) return stop;
  // Device code loaded at run time is not in the PTX the build read for shared memory.
  if (const std::optional<std::string> loader = device_code_loader(called)) {
    session.result.build.may_use_shared_memory = true;
    session.result.build.shared_memory_evidence = fmt::format("{} loads device code the PTX does not show", *loader);
  }
  // Only the lab's API may be defined at global scope, and only it is exported (checks/symbol_scan.hpp).
  std::vector<RuleViolation> definitions;
  for (const auto& object : session.result.build.object_files) {
    for (auto& violation : check_definitions(defined_symbols(object, session.course.compiler_limits), compiled)) {
      definitions.push_back(std::move(violation));
    }
  }
  if (definitions.empty()) {
    definitions = check_definitions(
        defined_symbols(session.binary_dir / session.recipe.student_library, session.course.compiler_limits),
        "the student library", "exporting");
  }
  return stop_for_violations(session, definitions);
}

std::optional<Stop> list_for_review(SessionState& session) {
  GradeResult& result = session.result;
  // From the compiled objects, not the sources: a macro or a string split evades a source regex.
  result.review = review_objects(result.build.object_files, compiled_code(session), session.course.compiler_limits);
  return std::nullopt;
}

std::optional<Stop> load_test_suite(SessionState& session) {
  session.test_start = SessionClock::now();
  HarnessInvocation& invocation = session.invocation;
  invocation.harness = place_harness(session.harness, session.binary_dir);
  // A judge's runners go beside it (and the student runner beside the submission's library).
  if (session.graded) {
    for (const std::string& runner : {session.recipe.student_runner, session.recipe.reference_runner}) {
      place_harness(runner, session.binary_dir);
    }
  }
  invocation.working_dir = session.run_dir;
  invocation.env = {{"CUDALABS_LAB_CONFIG", fs::absolute(session.paths.lab_config(session.request.lab)).string()},
                    {"CUDALABS_COURSE_CONFIG", fs::absolute(session.paths.course_config()).string()},
                    {cudalabs::timing::kTimingSeedVariable, new_timing_seed()}};  // one per grade
  invocation.test_timeout_seconds = session.lab.timeout_for_tests(session.course);
  invocation.max_output_bytes = session.course.max_output_bytes;
  invocation.limits = session.lab.test_limits(session.course);

  const TestListing listing = list_tests(invocation);
  if (!listing.ok()) {
    // Typically a function of the API that the submission deleted or renamed.
    BuildSummary& build = session.result.build;
    build.succeeded = false;
    build.output += fmt::format("\nThe library compiled, but the test program could not load it ({}):\n{}",
                                listing.process.describe_end(invocation.test_timeout_seconds),
                                listing.process.output);
    return Stop{not_built(session), "the code compiled but does not provide the lab's API (see the build output)",
                "not run: the test program could not load the code"};
  }
  const auto mismatches = config::check_against_suite(session.lab, listing.tests, session.only_public());
  if (!mismatches.empty()) throw config::ConfigError(mismatches);
  return std::nullopt;
}

namespace {

// Takes the GPU lock as `access`, letting go of what the session held first (a shared holder
// asking for exclusive access would otherwise wait for itself). Time spent waiting is not test
// time.
// labgrade's own CUDA start (begun beside the build), which the GPU lock's device query needs.
void wait_for_cuda_start(SessionState& session) {
  if (session.cuda_runtime_started.valid()) session.cuda_runtime_started.wait();
}

std::string gpu_holder(const SessionState& session) {
  return fmt::format("labgrade {} {}", session.result.mode, session.request.lab);
}

void take_gpu(SessionState& session, cudalabs::GpuAccess access) {
  const SessionClock::time_point waiting = SessionClock::now();
  wait_for_cuda_start(session);
  if (access == cudalabs::GpuAccess::Exclusive && session.gpu_lock.held()) {
    session.gpu_lock.make_exclusive(gpu_holder(session));  // in its place, after a failed try
  } else {
    session.gpu_lock = cudalabs::GpuLock();
    session.gpu_lock = cudalabs::GpuLock::acquire(0, gpu_holder(session), access);
  }
  session.holds_gpu_alone = access == cudalabs::GpuAccess::Exclusive;
  session.result.gpu_wait_seconds += seconds_since(waiting);
}

// The shared run's harness asks before its first timed case (GpuAloneHook): the GPU alone at once
// when nothing else holds or waits for it, so that the student's runner may go on; else the
// harness ends that runner and asks again, and this waits.
bool take_gpu_alone(SessionState& session, bool at_once) {
  if (session.holds_gpu_alone) return true;
  if (at_once && session.gpu_lock.held()) {
    if (!session.gpu_lock.try_make_exclusive(gpu_holder(session))) return false;
    session.holds_gpu_alone = true;
    return true;
  }
  // Asked to wait (after "busy"), or no lock held (a parent holds it, or none could be opened):
  // then taking it costs no wait.
  take_gpu(session, cudalabs::GpuAccess::Exclusive);
  return true;
}

// One harness runs the correctness tests with the GPU shared, waits for labgrade to take it alone,
// then runs the timed cases: a second harness, and its runners' CUDA starts, cost a lab 01 grade
// most of a second. Not in a batch, whose second parts come after every grade's first part (a
// harness waiting for the GPU alone would keep its contexts on it meanwhile), nor with a
// sanitizer pass, which runs between the two on the correctness tests' outcomes.
bool timed_cases_in_shared_run(const SessionState& session) {
  return session.request.gpu_slots == nullptr && session.sanitizer.empty();
}

bool is_one_of(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Correctness tests whose outcome while the GPU was shared a neighbour could explain (its memory
// use: TestOutcome::neighbour_may_have_caused): run again alone. Not wrong values, crashes or a
// broken context: processes share neither memory nor contexts, and the code fails them alone
// too (running a crashing submission's tests again cost a batch 3.3 s of exclusive GPU time per
// submission, 2026-11-24). Not time-outs: a neighbour can slow a test by at most the number of
// grades sharing the GPU (a few), and a test that passes takes a small part of its time-out;
// except a deferred test that passed only after the lab's time-out under a stretched one, which
// comes here as a time-out with the flag (suite_runner.hpp, hold_to_the_labs_time_out).
// (`timed`: cases the shared run's harness ran alone already, as the second run would.)
std::vector<std::string> failed_while_sharing(const SuiteRun& shared, const std::vector<std::string>& timed) {
  std::vector<std::string> again;
  for (const TestOutcome& outcome : shared.outcomes) {
    if (outcome.status != TestStatus::Passed && outcome.neighbour_may_have_caused && !is_one_of(timed, outcome.name)) {
      again.push_back(outcome.name);
    }
  }
  return again;
}

// Every test of a shared run whose harness found no usable device although labgrade holds the
// GPU's lock (so there is one): its context could not be created beside the neighbours (their
// memory use), so none of its outcomes says anything about the code.
std::vector<std::string> every_test_of(const SuiteRun& shared) {
  std::vector<std::string> names;
  for (const TestOutcome& outcome : shared.outcomes) names.push_back(outcome.name);
  return names;
}

// `alone`'s outcomes replace `shared`'s for the same tests; its measurements join them.
void merge_runs(SuiteRun& shared, SuiteRun&& alone) {
  for (TestOutcome& outcome : alone.outcomes) {
    const auto same = std::find_if(shared.outcomes.begin(), shared.outcomes.end(),
                                   [&](const TestOutcome& earlier) { return earlier.name == outcome.name; });
    if (same != shared.outcomes.end()) {
      *same = std::move(outcome);
    } else {
      shared.outcomes.push_back(std::move(outcome));
    }
  }
  for (auto& [test, measurement] : alone.measurements) shared.measurements[test] = std::move(measurement);
  if (shared.device.empty()) shared.device = alone.device;
  shared.cuda_device = shared.cuda_device && alone.cuda_device;
  if (shared.no_device_reason.empty()) shared.no_device_reason = alone.no_device_reason;
  shared.processes += alone.processes;
  shared.untrusted_lines += alone.untrusted_lines;
  shared.output += alone.output;
}

// The test program found no usable device, but labgrade's check in a process without the
// submission's code, run right after it alone on the GPU, found one: the code hid it (changed
// CUDA_VISIBLE_DEVICES, broke CUDA's initialisation), so every test it kept from running fails
// rather than the grade becoming "no device, not a grade". (The one innocent explanation, a
// process outside cudalabs holding the GPU in exclusive mode just then and letting go before the
// check, is what the GPU lock is for: grade on GPUs nothing else uses.)
void charge_hidden_device(SuiteRun& suite, const DeviceCheck& control, GradeResult& result) {
  const std::string verdict = fmt::format(
      "the test program found no usable CUDA device, but a process without your code, confined the same way and "
      "run right after, found the {}: your code hid the GPU or broke CUDA's initialisation (for example by "
      "changing CUDA_VISIBLE_DEVICES)",
      control.device);
  for (TestOutcome& outcome : suite.outcomes) {
    if (outcome.status != TestStatus::Skipped) continue;  // a test that saw no device skips itself
    outcome.status = TestStatus::Failed;
    outcome.message = verdict + "; this test counts as failed";
  }
  suite.cuda_device = true;
  if (suite.device.empty()) suite.device = control.device;
  result.review.push_back({"the GPU hidden from the test program", "the test processes",
                           verdict + fmt::format(" (the test program said: {})", suite.no_device_reason)});
}

// For the report: how the correctness tests shared the GPU, and what the leak check counted.
std::string describe_sharing(bool lock_held, const SuiteRun& shared) {
  if (!shared.cuda_device) return "unshared (no usable GPU)";
  if (!lock_held) return "unshared (no GPU lock held: a parent holds it, or its file could not be opened)";
  if (shared.device_wide_memory_reason.empty()) return "shared correctness, exclusive timing";
  return fmt::format("shared correctness (leak check on the device's free memory: {}), exclusive timing",
                     shared.device_wide_memory_reason);
}

// A judge run that times nothing (a batch's first part, a sanitized grade's first run, the
// sanitizer's tool runs) calls the solution linked into it instead of starting a reference runner
// (kReferenceInJudgeVariable): one CUDA start in three fewer, where a batch's runs start contexts
// side by side and the driver makes them one at a time.
HarnessInvocation with_reference_in_judge(const SessionState& session, HarnessInvocation invocation) {
  if (!session.graded) return invocation;
  invocation.env.emplace_back(cudalabs::kReferenceInJudgeVariable, "1");
  // Its work is serial: one queue, unless labgrade's own environment names a setting (a number,
  // or anything else for CUDA's default: the judge takes only 1 to 32).
  const char* chosen = std::getenv(cudalabs::kJudgeCudaQueuesVariable);
  invocation.env.emplace_back(cudalabs::kJudgeCudaQueuesVariable, chosen != nullptr ? chosen : "1");
  return invocation;
}

// In a batch, a harness that has sent no result for a quarter of the test time-out (at least 5 s)
// is most likely hanging: left to its time-out (20 s for lab 01, for each hanging test) it would
// keep one of the few grades allowed on the GPU at once waiting while it only spins, and its
// spinning kernel would slow every other grade's correctness tests beside it (the GPU
// time-slices between contexts). So its correctness slot is let go and the harness ended; the
// test it was in and those after it run again once every grade's first part is done
// (rerun_deferred_tests), with the whole time-out. With a sanitizer pass, which runs on the
// correctness tests' outcomes right after them, the harness is let go on instead, without the slot.
HarnessInvocation letting_a_quiet_harness_go(SessionState& session) {
  HarnessInvocation invocation = session.invocation;
  if (session.gpu_slot) {
    invocation.quiet_seconds = std::max(5.0, invocation.test_timeout_seconds / 4);
    invocation.on_quiet = [&session] { session.gpu_slot.reset(); };
    invocation.defer_quiet_tests = session.sanitizer.empty();
  }
  return invocation;
}

}  // namespace

std::optional<Stop> run_correctness_tests(SessionState& session) {
  // Two phases (cudalabs/gpu_lock.hpp). This one: the correctness tests, sharing the GPU with
  // other grades' correctness tests. The harnesses are told the lock is held and take none of
  // their own. The shared lock is let go at the end, so a grade whose second phase waits (a
  // batch runs every grade's first phase, then their second ones) holds nothing. Outside a batch
  // and without a sanitizer pass, the same harness goes on with the timed cases once labgrade
  // holds the GPU alone (timed_cases_in_shared_run), and the lock stays exclusive from there.
  take_gpu(session, cudalabs::GpuAccess::Shared);
  session.invocation.env.emplace_back(cudalabs::kGpuLockHeldVariable,
                                      session.gpu_lock.held() ? session.gpu_lock.uuid() : "none");
  const bool shared_lock_held = session.gpu_lock.held();
  std::vector<std::string> tests = session.lab.test_names(session.only_public());
  GpuAloneHook gpu_alone;
  session.timed_in_shared_run = timed_cases_in_shared_run(session);
  if (session.timed_in_shared_run) {
    const std::vector<std::string> timed = session.lab.performance_test_names(session.only_public());
    tests.insert(tests.end(), timed.begin(), timed.end());
    gpu_alone = [&session](bool at_once) { return take_gpu_alone(session, at_once); };
  }
  HarnessInvocation invocation = letting_a_quiet_harness_go(session);
  if (!session.timed_in_shared_run) invocation = with_reference_in_judge(session, std::move(invocation));
  session.shared_run = run_tests(invocation, tests, gpu_alone);
  session.result.gpu_sharing = describe_sharing(shared_lock_held, session.shared_run);
  if (!session.holds_gpu_alone) session.gpu_lock = cudalabs::GpuLock();
  session.result.test_seconds = seconds_since(session.test_start) - session.result.gpu_wait_seconds;
  return std::nullopt;
}

std::optional<Stop> rerun_deferred_tests(SessionState& session) {
  // The tests a first part left for later (letting_a_quiet_harness_go), the GPU shared as there:
  // a batch runs them for every such grade at once, after every first part and before any second
  // part, so a hang spins its whole time-out beside other hangs only, never beside a timed case.
  if (session.shared_run.deferred.empty()) return std::nullopt;
  const SessionClock::time_point started = SessionClock::now();
  const double waited_before = session.result.gpu_wait_seconds;
  take_gpu(session, cudalabs::GpuAccess::Shared);
  const std::vector<std::string> tests = std::exchange(session.shared_run.deferred, {});
  HarnessInvocation invocation = with_reference_in_judge(session, session.invocation);
  invocation.test_timeout_seconds *= session.deferred_timeout_stretch;  // the other grades' hangs share the GPU
  SuiteRun rerun = run_tests(invocation, tests);
  hold_to_the_labs_time_out(rerun, session.invocation.test_timeout_seconds, invocation.test_timeout_seconds);
  merge_runs(session.shared_run, std::move(rerun));
  session.gpu_lock = cudalabs::GpuLock();
  session.result.test_seconds += seconds_since(started) - (session.result.gpu_wait_seconds - waited_before);
  return std::nullopt;
}

std::optional<Stop> run_alone_and_score(SessionState& session) {
  GradeResult& result = session.result;
  const bool only_public = session.only_public();
  // The second phase, alone on the GPU (exclusive from here to the end of the run, sanitizer
  // pass included): the timed cases (unless the first phase's harness ran them, alone), and every
  // correctness test that failed while sharing, whose second outcome is the one that counts. So
  // neither a figure nor a verdict depends on what else ran beside the first phase.
  const SessionClock::time_point started = SessionClock::now();
  SuiteRun suite = std::move(session.shared_run);
  const double waited_before = result.gpu_wait_seconds;
  if (!session.holds_gpu_alone) take_gpu(session, cudalabs::GpuAccess::Exclusive);
  const bool device_unusable_while_sharing = !suite.cuda_device && session.gpu_lock.held();
  const std::vector<std::string> timed = session.lab.performance_test_names(only_public);
  std::vector<std::string> alone = suite.cuda_device                  ? failed_while_sharing(suite, timed)
                                   : device_unusable_while_sharing ? every_test_of(suite)
                                                                   : std::vector<std::string>{};
  result.tests_rerun_alone = static_cast<int>(
      std::count_if(alone.begin(), alone.end(), [&](const std::string& test) { return !is_one_of(timed, test); }));
  // The timed cases, unless the shared run's harness ran them alone already (a run that found no
  // usable device while sharing runs every test again, the timed ones among them).
  if (!session.timed_in_shared_run || device_unusable_while_sharing) {
    for (const std::string& test : timed) {
      if (!is_one_of(alone, test)) alone.push_back(test);
    }
  }
  // No device: the timed cases are skipped like the rest (the harness says why). A device the
  // shared run could not use: this run alone replaces it, and says whether there is one.
  if (device_unusable_while_sharing) {
    SuiteRun shared = std::move(suite);
    suite = run_tests(session.invocation, alone);
    suite.processes += shared.processes;
    suite.untrusted_lines += shared.untrusted_lines;
    suite.output = shared.output + suite.output;
    result.gpu_sharing = fmt::format("exclusive (every test ran again alone: beside other grades, {})",
                                     shared.no_device_reason);
  } else if (!alone.empty()) {
    merge_runs(suite, run_tests(session.invocation, alone));
  }
  if (!suite.cuda_device) {
    const DeviceCheck control = check_device_without_submission(session.invocation);
    if (control.usable) charge_hidden_device(suite, control, result);
  }
  result.device = suite.device;
  result.tests = score_tests(session.lab, suite.outcomes, only_public);
  for (ScoredTest& timed_case : score_performance(session.lab, suite.outcomes, suite.measurements, only_public)) {
    result.tests.push_back(std::move(timed_case));
  }
  // The first phase's time plus this one's, without the waits for the GPU.
  result.test_seconds += seconds_since(started) - (result.gpu_wait_seconds - waited_before);
  if (suite.cuda_device) return std::nullopt;
  std::string reason = suite.no_device_reason;
  const std::string redundant = "no CUDA device: ";
  if (reason.rfind(redundant, 0) == 0) reason.erase(0, redundant.size());
  return Stop{RunStatus::NoCudaDevice,
              fmt::format("not a grade: the code compiled, but no CUDA device is usable here, so its tests "
                          "were skipped; {}", reason),
              ""};
}

namespace {

// `hold_gpu`: see run_sanitizer_pass; empty when the caller holds the GPU already.
void sanitize(SessionState& session, const HoldGpu& hold_gpu) {
  // Not Performance.*: far too slow under a sanitizer; nor the tests the lab's YAML leaves out
  // (sanitizer.skip: at the timed size, their kernels run under the tool in the smaller tests).
  // Nor a test that timed out in the normal run: under the tool it would only time out again,
  // twenty times later.
  const std::vector<std::string>& skip = session.lab.sanitizer.skip;
  std::vector<std::string> correctness;
  std::vector<std::string> timed_out;
  std::map<std::string, double> seconds;
  for (const TestOutcome& outcome : session.shared_run.outcomes) seconds[outcome.name] = outcome.seconds;
  for (const std::string& test : session.lab.test_names(session.only_public())) {
    if (std::find(skip.begin(), skip.end(), test) != skip.end()) continue;
    const auto& outcomes = session.shared_run.outcomes;
    const auto outcome = std::find_if(outcomes.begin(), outcomes.end(), [&](const TestOutcome& o) { return o.name == test; });
    (outcome != outcomes.end() && outcome->status == TestStatus::TimedOut ? timed_out : correctness).push_back(test);
  }
  // racecheck finds hazards in shared memory only: code that never touches it is clean for it
  // without a run. Not inferred where the findings cost points (sanitizer.required): there the
  // tool runs whatever the PTX says (build/shared_memory_use.hpp says what it cannot see).
  const BuildSummary& build = session.result.build;
  std::vector<std::string> tools = kSanitizerTools;
  const bool racecheck_needed = build.may_use_shared_memory || session.lab.sanitizer.required;
  if (!racecheck_needed) tools.erase(std::find(tools.begin(), tools.end(), kRacecheck));
  const SessionClock::time_point started = SessionClock::now();
  session.sanitizer_findings =
      run_sanitizer_pass(with_reference_in_judge(session, session.invocation), session.sanitizer, correctness,
                         session.graded ? StudentCode::in_runners : StudentCode::in_the_harness, seconds, hold_gpu,
                         tools);
  if (!racecheck_needed) {
    for (const std::string& test : correctness) {
      session.sanitizer_findings[test].push_back(not_needed_finding(
          kRacecheck, "not run: racecheck looks for races in shared memory, and your kernels never use it (no "
                      "shared-memory access in the PTX of your .cu files)"));
    }
  }
  for (const std::string& test : timed_out) {
    for (const std::string& tool : kSanitizerTools) {
      SanitizerFinding finding;
      finding.tool = tool;
      finding.excerpt = "not run under the sanitizer: this test timed out in the normal run\n";
      session.sanitizer_findings[test].push_back(std::move(finding));
    }
  }
  session.sanitizer_ran = true;
  session.sanitizer_seconds = seconds_since(started);
}

// The GPU shared for each tool run, not for the whole pass: another labgrade's grade waiting to
// time its cases alone (its exclusive lock lets no new shared taker in) then waits for one tool run.
// In a batch, a tool run also waits while any grade waits to run its correctness tests: they come
// first, so every grade's correctness run (a hang among them) starts early, and the tool runs,
// mostly CPU work, go beside the last of them and the hangs. Sanitizer runs beside correctness runs had put
// 20-29 contexts on the GPU and slowed them: on the H100 a sanitized batch of 20 reached its
// second never_returns grade's correctness run only at 57-61 s (2026-11-27).
HoldGpu gpu_shared_per_tool_run(SessionState& session) {
  wait_for_cuda_start(session);
  std::string holder = fmt::format("labgrade {} {} (sanitizer)", session.result.mode, session.request.lab);
  CountingSlots* correctness = session.request.gpu_slots;
  return [holder = std::move(holder), correctness] {
    if (correctness) correctness->wait_until_none_waiting();
    return cudalabs::GpuLock::acquire(0, holder, cudalabs::GpuAccess::Shared);
  };
}

}  // namespace

std::optional<Stop> run_sanitizer_while_sharing(SessionState& session) {
  if (session.sanitizer.empty() || !session.shared_run.cuda_device) return std::nullopt;
  sanitize(session, gpu_shared_per_tool_run(session));
  return std::nullopt;
}

std::optional<Stop> apply_sanitizer(SessionState& session) {
  if (session.sanitizer.empty()) return std::nullopt;
  if (!session.sanitizer_ran) {
    // The shared run had no usable device, so the pass runs now, sharing the GPU run by run as in
    // a first part; the exclusive lock is let go meanwhile, since a tool run of this grade could
    // otherwise wait for a run slot that another grade's tool run holds while it waits for the GPU.
    session.gpu_lock = cudalabs::GpuLock();
    sanitize(session, gpu_shared_per_tool_run(session));
    take_gpu(session, cudalabs::GpuAccess::Exclusive);  // the profile pass, if any, runs alone
  }
  apply_sanitizer_findings(session.result.tests, session.sanitizer_findings, session.lab.sanitizer.required);
  session.result.test_seconds += session.sanitizer_seconds;
  return std::nullopt;
}

std::optional<Stop> run_profile(SessionState& session) {
  if (session.ncu.empty()) return std::nullopt;  // not asked for, or result.profile says why not
  // Only the cases that were measured: one not measured did not compute the right answer (or was
  // never written), and its kernels' figures would say nothing.
  ProfilePassRequest request{session.ncu, session.lab.profile, {}, {}, session.graded};
  for (const ScoredTest& test : session.result.tests) {
    if (!test.performance) continue;
    request.tests.push_back(test.name);
    if (test.visibility == config::Visibility::Hidden) request.hidden.insert(test.name);
  }
  session.result.profile = run_profile_pass(session.invocation, request);
  return std::nullopt;
}

std::optional<Stop> judge_timing_fairness(SessionState& session) {
  if (!session.graded) return std::nullopt;
  const std::vector<std::string> unmeasured = cases_timed_on_a_busy_machine(session.result.tests);
  if (unmeasured.empty()) return std::nullopt;
  return Stop{RunStatus::MachineBusy,
              fmt::format("not graded: the machine was too busy to time {} fairly (other work kept the grader's timed "
                          "processes waiting for a CPU); grade again when it is quieter",
                          fmt::join(unmeasured, ", ")),
              ""};
}

std::optional<Stop> judge_self_check(SessionState& session) {
  const auto& tests = session.result.tests;
  const bool all_passed = std::all_of(tests.begin(), tests.end(), [](const ScoredTest& test) {
    return test.outcome.status == TestStatus::Passed;
  });
  if (session.graded || all_passed) return std::nullopt;
  return Stop{RunStatus::TestsFailed, "some public tests did not pass", ""};
}

}  // namespace labgrade
