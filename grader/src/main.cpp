// labgrade: self-check, grade and list cudalabs labs. See README.md and `labgrade --help`.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "release/release_commands.hpp"
#include "report/report_outputs.hpp"
#include "session/grading_session.hpp"

namespace {

constexpr int kUsageExitCode = 2;
constexpr int kConfigExitCode = 3;
constexpr int kInternalExitCode = 7;

constexpr const char* kExitCodes = R"(Exit codes:
  0  grade: the submission was graded (whatever the score); check: every public test passed
  1  check: some public test failed
  2  bad arguments or unknown lab
  3  configuration error: a YAML file is invalid or disagrees with the test suite
  4  the submission was rejected (a student file missing, ambiguous, too large or not text; an unsafe archive): score 0
  5  no CUDA device visible: the code compiled but its tests could not run, so there is no grade
  6  check: the code did not compile (a grade of code that does not compile is a 0 with exit code 0)
  7  labgrade itself failed (build tree incomplete, I/O error)
  8  the code includes or calls something the lab forbids (its YAML's or the course's forbid:): score 0)";

constexpr const char* kSanitizeHelp =
    "Also run each correctness test alone under compute-sanitizer (memcheck, racecheck) and report what it "
    "finds; findings cost points only where the lab's YAML says sanitizer: {required: true}";

int report_and_exit_code(const labgrade::GradeResult& report, const labgrade::ReportOutputs& outputs) {
  labgrade::emit_reports(report, outputs, std::cout, ::isatty(STDOUT_FILENO), std::cerr);
  return static_cast<int>(report.status);
}

// The same report options for `grade` and `check`.
void add_report_options(CLI::App& command, labgrade::ReportOutputs& outputs) {
  command.add_option("--format", outputs.formats,
                     "Report format(s): text, json, junit, gradescope, html. Without --output-dir the one "
                     "format printed on stdout (default text); with it, the formats written there (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember(labgrade::kReportFormats));
  command.add_option("--output-dir", outputs.output_dir,
                     "Write the --format reports here as report.txt, report.json, report.junit.xml, "
                     "results.json (Gradescope), report.html");
  command.add_option("--json", outputs.json, "Also write the report as JSON to this file");
  command.add_option("--junit", outputs.junit, "Also write the report as JUnit XML to this file");
  command.add_option("--gradescope", outputs.gradescope, "Also write Gradescope's results.json to this file");
  command.add_option("--html", outputs.html, "Also write the report as a self-contained HTML page to this file");
  command.add_flag("--student-view", outputs.student_view,
                   "Hide hidden tests' details (not their names, status or points) in text, JUnit and HTML; "
                   "the Gradescope report always hides them");
}

int list_labs(const labgrade::CoursePaths& paths) {
  const auto course = cudalabs::config::load_course_config(paths.course_config());
  std::cout << course.course << "\n\n";
  for (const auto& id : paths.lab_ids()) {
    const auto lab = cudalabs::config::load_lab_config(paths.lab_config(id));
    std::cout << fmt::format("  {:<18} {:<44} {:>5g} points\n", lab.id, lab.title, lab.total_points);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"labgrade: build, test and grade cudalabs CUDA labs"};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  labgrade::CoursePaths paths{CUDALABS_SOURCE_DIR, CUDALABS_BINARY_DIR};
  app.add_option("--root", paths.root, "Course tree with config/, labs/, solutions/ (default: this source tree)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--build-dir", paths.build_dir, "CMake build tree with the lab harnesses (default: this build)")
      ->check(CLI::ExistingDirectory);

  app.add_subcommand("list", "List the labs with their titles and points");

  labgrade::RunRequest check_request;
  labgrade::ReportOutputs check_outputs;
  auto* check = app.add_subcommand("check", "Self-check: build your code in labs/<lab>/ and run the public tests");
  check->add_option("lab", check_request.lab, "Lab id, e.g. 01_vector_add")->required();
  add_report_options(*check, check_outputs);
  check->add_option("--work-dir", check_request.work_dir, "Build here (new or empty directory) instead of a temp dir");
  check->add_flag("--keep-work-dir", check_request.keep_work_dir, "Keep the build directory for inspection");
  check->add_flag("--sanitize", check_request.sanitize, kSanitizeHelp);
  check->footer(kExitCodes);

#ifndef CUDALABS_STUDENT_COMMANDS_ONLY  // a student release has no hidden suites to grade with
  labgrade::RunRequest grade_request;
  labgrade::ReportOutputs grade_outputs;
  auto* grade = app.add_subcommand("grade", "Grade a submission against the hidden suite and the lab's YAML");
  grade->add_option("lab", grade_request.lab, "Lab id, e.g. 01_vector_add")->required();
  grade->add_option("--submission,-s", grade_request.submission, "Submission directory or file")
      ->required()
      ->check(CLI::ExistingPath);
  add_report_options(*grade, grade_outputs);
  grade->add_option("--work-dir", grade_request.work_dir, "Build here (new or empty directory) instead of a temp dir");
  grade->add_flag("--keep-work-dir", grade_request.keep_work_dir, "Keep the build directory for inspection");
  grade->add_flag("--sanitize", grade_request.sanitize, kSanitizeHelp);
  grade->footer(kExitCodes);
#endif
  labgrade::ReleaseCommands release_commands;
  labgrade::add_release_commands(app, release_commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kUsageExitCode;
  }

  try {
    if (app.got_subcommand("list")) return list_labs(paths);
    if (check->parsed()) {
      labgrade::prepare_report_outputs(check_outputs);
      const labgrade::GradeResult result = labgrade::self_check(paths, check_request);
      const int code = report_and_exit_code(result, check_outputs);
      labgrade::print_next_steps(result, paths, check_outputs);
      return code;
    }
    if (const auto code = labgrade::run_release_commands(release_commands, paths)) return *code;
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
    labgrade::prepare_report_outputs(grade_outputs);
    return report_and_exit_code(labgrade::grade_submission(paths, grade_request), grade_outputs);
#endif
  } catch (const cudalabs::config::ConfigError& error) {
    std::cerr << "labgrade: configuration error:\n" << error.what() << "\n";
    return kConfigExitCode;
  } catch (const labgrade::UsageError& error) {
    std::cerr << "labgrade: " << error.what() << "\n";
    return kUsageExitCode;
  } catch (const std::exception& error) {
    std::cerr << "labgrade: " << error.what() << "\n";
    return kInternalExitCode;
  }
}
