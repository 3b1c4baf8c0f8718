// labgrade: self-check, grade and list cudalabs labs. See README.md and `labgrade --help`.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "cudalabs/config/course_config.hpp"
#include "cudalabs/config/lab_config.hpp"
#include "grading_session.hpp"
#include "json_report.hpp"
#include "text_report.hpp"

namespace {

constexpr int kUsageExitCode = 2;
constexpr int kConfigExitCode = 3;
constexpr int kInternalExitCode = 7;

constexpr const char* kExitCodes = R"(Exit codes:
  0  grade: the submission was graded (whatever the score); check: every public test passed
  1  check: some public test failed
  2  bad arguments or unknown lab
  3  configuration error: a YAML file is invalid or disagrees with the test suite
  4  the submission was rejected (a student file missing, ambiguous or too large): score 0
  5  no CUDA device visible: the code compiled but its tests could not run, so there is no grade
  6  check: the code did not compile (a grade of code that does not compile is a 0 with exit code 0)
  7  labgrade itself failed (build tree incomplete, I/O error))";

int report_and_exit_code(const labgrade::GradeReport& report, const std::string& json_path) {
  labgrade::write_text_report(std::cout, report, labgrade::text_style_for_terminal(::isatty(STDOUT_FILENO)));
  if (!json_path.empty()) {
    labgrade::write_json_report(json_path, report);
    std::cout << "  JSON report: " << json_path << "\n";
  }
  return static_cast<int>(report.status);
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
  std::string check_json;
  auto* check = app.add_subcommand("check", "Self-check: build your code in labs/<lab>/ and run the public tests");
  check->add_option("lab", check_request.lab, "Lab id, e.g. 01_vector_add")->required();
  check->add_option("--json", check_json, "Also write the report as JSON to this file");
  check->add_option("--work-dir", check_request.work_dir, "Build here (new or empty directory) instead of a temp dir");
  check->add_flag("--keep-work-dir", check_request.keep_work_dir, "Keep the build directory for inspection");
  check->footer(kExitCodes);

  labgrade::RunRequest grade_request;
  std::string grade_json;
  auto* grade = app.add_subcommand("grade", "Grade a submission against the hidden suite and the lab's YAML");
  grade->add_option("lab", grade_request.lab, "Lab id, e.g. 01_vector_add")->required();
  grade->add_option("--submission,-s", grade_request.submission, "Submission directory or file")
      ->required()
      ->check(CLI::ExistingPath);
  grade->add_option("--json", grade_json, "Also write the report as JSON to this file");
  grade->add_option("--work-dir", grade_request.work_dir, "Build here (new or empty directory) instead of a temp dir");
  grade->add_flag("--keep-work-dir", grade_request.keep_work_dir, "Keep the build directory for inspection");
  grade->footer(kExitCodes);

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
    if (check->parsed()) return report_and_exit_code(labgrade::self_check(paths, check_request), check_json);
    return report_and_exit_code(labgrade::grade_submission(paths, grade_request), grade_json);
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
