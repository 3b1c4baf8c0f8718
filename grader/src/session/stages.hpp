#pragma once
// The stages of a labgrade run, in the order grading_session.cpp runs them. Each one calls the
// folder that does the work (stage/, checks/, build/, run/, score/) and returns a Stop when the
// run cannot go on.
#include <optional>

#include "session/session_state.hpp"

namespace labgrade {

// Copies the lab's student files out of the submission (stage/).
std::optional<Stop> stage_student_files(SessionState& session);
// The lab's `forbid:` include rules on the staged sources (checks/).
std::optional<Stop> check_forbidden_includes(SessionState& session);
// Compiles the student library (build/).
std::optional<Stop> build_student_code(SessionState& session);
// The lab's `forbid:` symbol rules on what the compiled code calls, and the rule that only the
// lab's API is defined at global scope and exported (checks/).
std::optional<Stop> check_forbidden_symbols(SessionState& session);
// Constructs only in-process memory-patching tricks need, listed for the instructor (checks/).
std::optional<Stop> list_for_review(SessionState& session);
// The harness loads the library and lists its tests, which must match the lab's YAML (run/).
std::optional<Stop> load_test_suite(SessionState& session);
// The correctness tests, sharing the GPU with other grades' correctness tests (run/).
std::optional<Stop> run_correctness_tests(SessionState& session);
// In a batch, the tests a harness gone quiet left for later (SuiteRun::deferred), the GPU shared,
// with the whole time-out: after every first part, before any second part (run/).
std::optional<Stop> rerun_deferred_tests(SessionState& session);
// With the GPU to itself from here to the end of the run: the timed cases and every correctness
// test that failed while sharing, then scores them all (run/, score/).
std::optional<Stop> run_alone_and_score(SessionState& session);
// With --sanitize or a lab that requires it: the correctness tests again under compute-sanitizer,
// while the GPU is shared (the pass is untimed, so a batch runs it beside other grades' first
// parts); then, once the tests are scored, its findings attached (run first, alone, when the
// shared part had no usable device but the second part has).
std::optional<Stop> run_sanitizer_while_sharing(SessionState& session);
std::optional<Stop> apply_sanitizer(SessionState& session);
// With --profile or a lab that asks: the timed cases' calls again, under Nsight Compute.
std::optional<Stop> run_profile(SessionState& session);
// A self-check with a test that did not pass ends as TestsFailed.
std::optional<Stop> judge_self_check(SessionState& session);
// A grade with a timed case the machine's load kept from being measured fairly
// (PerformanceMeasurement::machine_busy) is no grade: RunStatus::MachineBusy, to grade again.
std::optional<Stop> judge_timing_fairness(SessionState& session);

}  // namespace labgrade
