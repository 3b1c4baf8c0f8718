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
// Takes the GPU for the test phase (sanitizer pass included), runs the tests and scores them
// (run/, score/).
std::optional<Stop> run_and_score_tests(SessionState& session);
// With --sanitize or a lab that requires it: the correctness tests again under compute-sanitizer.
std::optional<Stop> run_sanitizer(SessionState& session);
// A self-check with a test that did not pass ends as TestsFailed.
std::optional<Stop> judge_self_check(SessionState& session);

}  // namespace labgrade
