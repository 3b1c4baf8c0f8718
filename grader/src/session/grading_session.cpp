#include "session/grading_session.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "cudalabs/confinement.hpp"
#include "run/ncu_tool.hpp"
#include "score/scoring.hpp"
#include "session/session_state.hpp"
#include "session/stages.hpp"
#include "stage/work_directories.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

std::vector<std::string> CoursePaths::lab_ids() const {
  std::vector<std::string> ids;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root / "config" / "labs", error)) {
    if (entry.path().extension() == ".yaml") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

double seconds_since(SessionClock::time_point start) {
  return std::chrono::duration<double>(SessionClock::now() - start).count();
}

namespace {

// The pipeline: each stage runs only when every stage before it let the run go on.
// The first part runs with the GPU shared (or not at all), the second with the GPU alone; a
// batch runs every grade's first part before any second part (see begin_grade).
// A stage and its name in the report's timing.stages.
struct NamedStage {
  const char* name;
  Stage run;
};

constexpr NamedStage kSharedPart[] = {
    {"staging", stage_student_files},                  // stage/
    {"include rules", check_forbidden_includes},       // checks/
    {"build", build_student_code},                     // build/
    {"symbol rules", check_forbidden_symbols},         // checks/
    {"review", list_for_review},                       // checks/
    {"test listing", load_test_suite},                 // run/
    {"correctness tests", run_correctness_tests},      // run/
    {"sanitizer", run_sanitizer_while_sharing},        // run/
};
// The shared part's stage whose GPU work RunRequest::gpu_slots limits. Not the sanitizer's pass:
// it limits its own tool runs (sanitizer_pass.hpp), which spend most of their time on the CPU. On
// the H100 a sanitized batch of 20 took 240 s with the pass inside the four slots and 253 s
// outside them: the slots are not what holds it back.
bool holds_gpu_slot(Stage stage) { return stage == run_correctness_tests; }
// The stages that keep a CPU core busy: the compiler, and objdump over what it made.
bool holds_compile_slot(Stage stage) { return stage == build_student_code || stage == list_for_review; }

// Between the parts, in a batch (GradeInProgress::run_deferred_tests).
constexpr NamedStage kDeferredTests{"deferred tests", rerun_deferred_tests};

constexpr NamedStage kAlonePart[] = {
    {"tests alone", run_alone_and_score},              // run/, score/
    {"sanitizer findings", apply_sanitizer},           // run/
    {"profile", run_profile},                          // run/
    {"self-check verdict", judge_self_check},          // score/
    {"timing fairness", judge_timing_fairness},        // score/
};

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Runs `stage`, holding a slot of `gpu` and of `compile` where given (a batch's limits: the wait
// for them is part of the stage's time), and records when it started and how long it took.
std::optional<Stop> run_timed(SessionState& session, const NamedStage& stage, CountingSlots* gpu = nullptr,
                              CountingSlots* compile = nullptr) {
  const double started_at = unix_seconds_now();
  const SessionClock::time_point began = SessionClock::now();
  std::optional<CountingSlots::Slot> compile_slot;
  if (gpu) session.gpu_slot = std::make_unique<CountingSlots::Slot>(*gpu);
  if (compile) compile_slot.emplace(*compile);
  struct LetGo {  // the GPU slot, however the stage ends (the stage may have let it go already)
    SessionState& session;
    ~LetGo() { session.gpu_slot.reset(); }
  } let_go{session};
  std::optional<Stop> stop = stage.run(session);
  session.result.stage_times.push_back({stage.name, started_at, seconds_since(began)});
  return stop;
}

// The work directory: ours to create and, unless asked to keep it, to delete. An existing
// non-empty directory is never used, so nothing of the caller's is overwritten.
class WorkDirectory {
 public:
  WorkDirectory(const fs::path& requested, const std::string& lab, bool keep) : keep_(keep) {
    if (requested.empty()) {
      remove_stale_work_dirs();  // those of grades killed before they could remove their own
      path_ = make_work_dir(lab);
    } else {
      if (fs::exists(requested) && !fs::is_empty(requested)) {
        throw UsageError(fmt::format("--work-dir {} exists and is not empty; give a new or empty directory",
                                     requested.string()));
      }
      fs::create_directories(requested);
      path_ = fs::absolute(requested);
    }
  }
  ~WorkDirectory() {
    std::error_code ignored;
    if (!keep_) fs::remove_all(path_, ignored);
  }
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_;
};

// Everything a run needs, loaded and checked before anything is staged or built: a mistake in
// the request or the YAML ends the run here, with an exception rather than a report.
SessionState open_session(const CoursePaths& paths, const RunRequest& request, bool graded) {
  SessionState session;
  session.start = SessionClock::now();
  session.paths = paths;
  session.request = request;
  session.graded = graded;
  const auto ids = paths.lab_ids();
  if (std::find(ids.begin(), ids.end(), request.lab) == ids.end()) {
    throw UsageError(fmt::format("unknown lab '{}'; the labs are: {}", request.lab, fmt::join(ids, ", ")));
  }
  session.course = config::load_course_config(paths.course_config());
  session.lab = config::load_lab_config(paths.lab_config(request.lab));
  static_cast<void>(session.lab.timing_settings(session.course));  // a contradiction fails here, before any build
  session.recipe = load_build_recipe(paths.build_recipe(request.lab));
  session.harness = graded ? session.recipe.grade_harness : session.recipe.selfcheck_harness;
  if (session.harness.empty()) {
    throw UsageError(fmt::format("this tree has no hidden suite for {} (a student release?); use `labgrade check {}`",
                                 request.lab, request.lab));
  }
  if (std::error_code error; !fs::is_regular_file(session.harness, error)) {
    throw std::runtime_error(fmt::format(
        "{}'s test program is not built: {} is missing (named by {}). Build it with `cmake --build {} --target {}`, "
        "or build the whole tree",
        request.lab, session.harness, paths.build_recipe(request.lab).string(), paths.build_dir.string(),
        fs::path(session.harness).filename().string()));
  }
  session.submission = request.submission.empty() ? paths.lab_dir(request.lab) : request.submission;
  // Found before anything is built, so a missing sanitizer costs no time.
  const bool sanitize = request.sanitize || (graded && session.lab.sanitizer.required);
  session.sanitizer = sanitize ? find_compute_sanitizer(session.recipe.nvcc) : fs::path{};
  if (sanitize && session.sanitizer.empty()) {
    throw UsageError(fmt::format("{} needs compute-sanitizer, found neither next to {} nor on PATH",
                                 request.sanitize ? "--sanitize" : request.lab + " (its YAML says sanitizer: "
                                                                                 "{required: true})",
                                 session.recipe.nvcc.empty() ? "nvcc" : session.recipe.nvcc));
  }
  GradeResult& result = session.result;
  // A profile pass that cannot run (no ncu) is reported in one line and changes nothing else.
  const config::ProfileSpec& profile = session.lab.profile;
  if (request.profile || (graded ? profile.on_grade : profile.on_check)) {
    std::string why_not;
    session.ncu = find_ncu(session.recipe.nvcc, why_not);
    result.profile.emplace().unavailable =
        session.ncu.empty() ? "not run: " + why_not : "not run: the timed cases did not run (see the status)";
  }
  result.mode = graded ? "grade" : "check";
  result.lab = session.lab.id;
  result.title = session.lab.title;
  result.submission = session.submission.string();
  for (const cudalabs::Protection& protection : cudalabs::test_process_protections()) {
    if (!protection.enforced) {
      result.unenforced_protections.push_back(
          fmt::format("{} ({}): {}", protection.what, protection.how, protection.detail));
    }
  }
  return session;
}

// The GPU lock's device queries (no context, so no GPU memory) on a thread of their own, so that
// the driver's initialisation (0.2 s of a lab 01 grade's 4.5 s on the
// H100, all of it reported as waiting for the GPU) overlaps staging and the build.
std::shared_future<void> start_cuda_runtime() {
  return std::async(std::launch::async, [] {
           cudaDeviceProp properties{};
           static_cast<void>(cudalabs::GpuLock::query_device(0, properties));
         }).share();
}

GradeResult finish(SessionState& session, const Stop& stop) {
  GradeResult& result = session.result;
  if (!stop.tests_not_run_because.empty()) {
    result.tests = unscored_tests(session.lab, TestStatus::NotRun, stop.tests_not_run_because, session.only_public());
  }
  result.status = stop.status;
  result.status_detail = stop.detail;
  total_points(result);
  // Nothing ran: the possible points still come from the YAML.
  if (result.points_possible == 0) result.points_possible = session.lab.points_possible(session.only_public());
  result.total_seconds = seconds_since(session.start);
  return result;
}

}  // namespace

struct GradeInProgress::Parts {
  SessionState session;
  std::unique_ptr<WorkDirectory> work;
  std::optional<GradeResult> ended;  // set when the first part already ended the run
};

GradeInProgress::GradeInProgress() = default;
GradeInProgress::GradeInProgress(GradeInProgress&&) noexcept = default;
GradeInProgress& GradeInProgress::operator=(GradeInProgress&&) noexcept = default;
GradeInProgress::~GradeInProgress() = default;

GradeInProgress GradeInProgress::begin(const CoursePaths& paths, const RunRequest& request, bool graded) {
  GradeInProgress grade;
  grade.parts_ = std::make_unique<GradeInProgress::Parts>();
  GradeInProgress::Parts& parts = *grade.parts_;
  parts.session = open_session(paths, request, graded);
  SessionState& session = parts.session;
  session.cuda_runtime_started = start_cuda_runtime();
  parts.work = std::make_unique<WorkDirectory>(request.work_dir, request.lab, request.keep_work_dir);
  session.source_dir = parts.work->path() / "src";
  session.binary_dir = parts.work->path() / "bin";
  session.run_dir = parts.work->path() / "run";
  fs::create_directories(session.binary_dir);
  fs::create_directories(session.run_dir);
  for (const NamedStage& stage : kSharedPart) {
    if (std::optional<Stop> stop = run_timed(session, stage, holds_gpu_slot(stage.run) ? request.gpu_slots : nullptr,
                                             holds_compile_slot(stage.run) ? request.compile_slots : nullptr)) {
      parts.ended = finish(session, *stop);
      break;
    }
  }
  return grade;
}

bool GradeInProgress::needs_gpu_alone() const { return parts_ && !parts_->ended; }

bool GradeInProgress::has_deferred_tests() const {
  return needs_gpu_alone() && !parts_->session.shared_run.deferred.empty();
}

void GradeInProgress::run_deferred_tests(double timeout_stretch) {
  if (!has_deferred_tests()) return;
  parts_->session.deferred_timeout_stretch = std::max(1.0, timeout_stretch);
  static_cast<void>(run_timed(parts_->session, kDeferredTests));
}

GradeInProgress begin_grade(const CoursePaths& paths, const RunRequest& request) {
  return GradeInProgress::begin(paths, request, true);
}

GradeResult finish_grade(GradeInProgress&& grade) {
  if (!grade.parts_) throw std::logic_error("finish_grade: a grade that was never begun, or finished already");
  grade.run_deferred_tests(1);  // any a batch left: by itself, so with the lab's time-out
  const std::unique_ptr<GradeInProgress::Parts> parts = std::move(grade.parts_);  // the work directory goes with it
  if (parts->ended) return *parts->ended;
  SessionState& session = parts->session;
  for (const NamedStage& stage : kAlonePart) {
    if (std::optional<Stop> stop = run_timed(session, stage)) return finish(session, *stop);
  }
  return finish(session, Stop{RunStatus::Graded, session.graded ? "graded" : "all public tests passed", ""});
}

GradeResult grade_submission(const CoursePaths& paths, const RunRequest& request) {
  return finish_grade(GradeInProgress::begin(paths, request, true));
}

GradeResult self_check(const CoursePaths& paths, const RunRequest& request) {
  return finish_grade(GradeInProgress::begin(paths, request, false));
}

}  // namespace labgrade
