// labgrade: self-check, grade and list cudalabs labs. See README.md and `labgrade --help`.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "cudalabs/confinement.hpp"
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
#include "batch/batch_command.hpp"
#endif
#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "model/exit_codes.hpp"
#include "report/report_formats.hpp"
#include "release/release_commands.hpp"
#include "report/report_outputs.hpp"
#include "session/grading_session.hpp"

namespace {

#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
constexpr const char* kBatchExitCodes = R"(Exit codes:
  0    the batch ran to its end (whatever the grades: see gradebook.csv)
  2    bad arguments or unknown lab
  3    configuration error: a YAML file is invalid or disagrees with the test suite
  5    some submissions compiled but could not be tested: no CUDA device (not graded; the next run grades them)
  7    labgrade itself failed (build tree incomplete, I/O error, the results database)
  130  interrupted (Ctrl-C): what was graded is kept; run the same command again to grade the rest)";
#endif

constexpr const char* kSanitizeHelp =
    "Also run each correctness test alone under compute-sanitizer (memcheck, racecheck) and report what it "
    "finds; findings cost points only where the lab's YAML says sanitizer: {required: true}";

// `labgrade --version`: the version, then each protection of a test process and whether this
// machine's kernel enforces it, so a missing one is stated, never silently absent.
std::string version_text() {
  std::string text = fmt::format("labgrade {}\nProtections of a test process on this machine:\n", CUDALABS_VERSION);
  for (const cudalabs::Protection& protection : cudalabs::test_process_protections()) {
    text += fmt::format("  [{}] {} ({}){}\n", protection.enforced ? "enforced" : "MISSING ", protection.what,
                        protection.how, protection.detail.empty() ? "" : ": " + protection.detail);
  }
  return text + "(README.md, \"Threat model\", says what each one prevents and what remains possible)";
}

int report_and_exit_code(const labgrade::GradeResult& report, const labgrade::ReportOutputs& outputs) {
  labgrade::emit_reports(report, outputs, std::cout, ::isatty(STDOUT_FILENO), std::cerr);
  return static_cast<int>(report.status);
}

// "report.txt, report.json, ..., results.json (Gradescope), ...": the file names in --output-dir.
std::string output_dir_files() {
  std::string files;
  for (const auto& format : labgrade::report_formats()) {
    if (!files.empty()) files += ", ";
    files += format.default_file;
    if (format.default_file.rfind("report.", 0) != 0) files += fmt::format(" ({})", format.display_name);
  }
  return files;
}

// The same report options for `grade` and `check`, from the table of report formats.
void add_report_options(CLI::App& command, labgrade::ReportOutputs& outputs) {
  std::vector<std::string> names;
  for (const auto& format : labgrade::report_formats()) names.emplace_back(format.name);
  command.add_option("--format", outputs.formats,
                     fmt::format("Report format(s): {}. Without --output-dir the one format printed on stdout "
                                 "(default text); with it, the formats written there (default all)",
                                 labgrade::report_format_names()))
      ->delimiter(',')
      ->check(CLI::IsMember(names));
  command.add_option("--output-dir", outputs.output_dir,
                     "Write the --format reports here as " + output_dir_files());
  for (const auto& format : labgrade::report_formats()) {
    if (format.option.empty()) continue;
    command.add_option(std::string(format.option), outputs.files[std::string(format.name)],
                       std::string(format.option_help));
  }
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
  const std::string exit_codes_help = labgrade::exit_codes_help();
  CLI::App app{"labgrade: build, test and grade cudalabs CUDA labs"};
  app.footer(exit_codes_help);
  app.set_version_flag("--version", version_text, "Print the version and which protections this kernel enforces");
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
  check->footer(exit_codes_help);

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
  grade->footer(exit_codes_help);

  labgrade::batch::BatchCommand batch_command;
  labgrade::batch::add_batch_command(app, batch_command)->footer(kBatchExitCodes);
#endif
  labgrade::ReleaseCommands release_commands;
  labgrade::add_release_commands(app, release_commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return labgrade::kUsageExitCode;
  }

  try {
    if (app.got_subcommand("list")) return list_labs(paths);
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
    if (app.got_subcommand("batch")) return labgrade::batch::run_batch_command(paths, batch_command);
#endif
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
    return labgrade::kConfigExitCode;
  } catch (const labgrade::UsageError& error) {
    std::cerr << "labgrade: " << error.what() << "\n";
    return labgrade::kUsageExitCode;
  } catch (const std::exception& error) {
    std::cerr << "labgrade: " << error.what() << "\n";
    return labgrade::kInternalExitCode;
  }
}
