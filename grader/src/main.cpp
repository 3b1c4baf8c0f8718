// labgrade: self-check, grade and list cudalabs labs. See README.md and `labgrade --help`.
#include <algorithm>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "cli/command_suggestion.hpp"
#include "cli/help_format.hpp"
#include "cli/lab_list.hpp"
#include "cudalabs/confinement.hpp"
// batch needs SQLite: a build without it (CUDALABS_NO_BATCH) keeps the command to say so.
#if !defined(CUDALABS_STUDENT_COMMANDS_ONLY) && !defined(CUDALABS_NO_BATCH)
#define CUDALABS_HAS_BATCH 1
#include "batch/batch_command.hpp"
#endif
// serve and tokens need SQLite and cpp-httplib (CUDALABS_NO_SERVE without either).
#if !defined(CUDALABS_STUDENT_COMMANDS_ONLY) && !defined(CUDALABS_NO_SERVE)
#define CUDALABS_HAS_SERVE 1
#include "serve/serve_command.hpp"
#endif
#include "cudalabs/course/diagnostics.hpp"
#include "model/exit_codes.hpp"
#include "report/report_formats.hpp"
#include "release/release_commands.hpp"
#include "report/report_outputs.hpp"
#include "run/device_check.hpp"
#include "session/grading_session.hpp"

namespace {

#ifdef CUDALABS_HAS_BATCH
constexpr const char* kBatchExitCodes = R"(Exit codes:
  0    the batch ran to its end (whatever the grades: see gradebook.csv)
  2    bad arguments or unknown lab
  3    configuration error: a YAML file is invalid or disagrees with the test suite
  5    some submissions compiled but could not be tested: no CUDA device (not graded; the next run grades them)
  7    labgrade itself failed (build tree incomplete, I/O error, the results database)
  130  interrupted (Ctrl-C): what was graded is kept; run the same command again to grade the rest)";
#endif

constexpr const char* kSanitizeHelp =
    "Also run the correctness tests under compute-sanitizer (memcheck, racecheck) and report what each test's "
    "run finds; findings cost points only where the lab's YAML says sanitizer: {required: true}";

constexpr const char* kProfileHelp =
    "Also run each timed case's call once under Nsight Compute (ncu) and report the lab's profile figures (beside "
    "the reference's in a grade) with its hints; never scored. Without ncu, or without permission to read the GPU's "
    "counters, the report says so and nothing else changes";

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
      ->check(CLI::IsMember(names))
      ->type_name("FORMAT[,...]");
  command.add_option("--output-dir", outputs.output_dir,
                     "Write the --format reports here as " + output_dir_files())
      ->type_name("DIR");
  for (const auto& format : labgrade::report_formats()) {
    if (format.option.empty()) continue;
    command.add_option(std::string(format.option), outputs.files[std::string(format.name)],
                       std::string(format.option_help))
        ->type_name("FILE");
  }
  command.add_flag("--student-view", outputs.student_view,
                   "Hide hidden tests' details (not their names, status or points) in text, JUnit and HTML; "
                   "the Gradescope report always hides them");
}

// "Examples:" lines of a command's help: `program` then each command line, with what it does.
std::string examples(const std::string& program, std::initializer_list<std::pair<const char*, const char*>> lines) {
  std::size_t widest = 0;
  for (const auto& [command, what] : lines) widest = std::max(widest, program.size() + 1 + std::string(command).size());
  std::string text = "Examples:";
  for (const auto& [command, what] : lines) {
    text += fmt::format("\n  {:<{}}  # {}", program + " " + command, widest, what);
  }
  return text;
}

// Under each command's help: its examples, and where the exit codes are (the top-level help).
std::string command_footer(const std::string& program, const std::string& examples_text) {
  return fmt::format("{}\n\nExit codes: `{} --help` lists them.", examples_text, program);
}

// Under `labgrade --help`: an example of each command, then the exit codes, listed only here.
std::string top_level_footer(const std::string& program) {
#ifdef CUDALABS_STUDENT_COMMANDS_ONLY
  const std::string lines = examples(program, {{"list", "the labs"},
                                               {"check 01_vector_add", "build your code and run the public tests"},
                                               {"submit 01_vector_add", "pack your files to hand in"}});
#else
  const std::string lines =
      examples(program, {{"list", "the labs"},
                         {"check 01_vector_add", "self-check the code in labs/01_vector_add/"},
                         {"grade 01_vector_add -s alice.zip --json alice.json", "grade one submission"},
                         {"batch 01_vector_add submissions/ --out grades/", "grade a class"},
                         {"serve --data /srv/labgrade", "take submissions over HTTP"},
                         {"release --out ../cudalabs-student", "write the student release"}});
#endif
  return fmt::format("{}\nEach command has its own --help: {} check --help\n\n{}", lines, program,
                     labgrade::exit_codes_help());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string program = labgrade::cli::program_name(argc > 0 ? argv[0] : nullptr);
#ifdef CUDALABS_STUDENT_COMMANDS_ONLY
  CLI::App app{"labgrade: build and self-check your cudalabs CUDA labs, and pack them to hand in", program};
  const char* root_help = "Course tree with config/ and labs/ (default: this release)";
#else
  CLI::App app{"labgrade: build, test and grade cudalabs CUDA labs", program};
  const char* root_help = "Course tree with config/, labs/, solutions/ (default: this source tree)";
#endif
  app.formatter(std::make_shared<labgrade::cli::HelpFormatter>());  // before the commands: they inherit it
  app.failure_message(labgrade::cli::failure_message);  // "labgrade: " before CLI11's own messages too
  app.set_version_flag("--version", version_text, "Print the version and which protections this kernel enforces");
  app.require_subcommand(1);
  labgrade::CoursePaths paths{CUDALABS_SOURCE_DIR, CUDALABS_BINARY_DIR};
  app.add_option("--root", paths.root, root_help)
      ->check(CLI::ExistingDirectory)
      ->type_name("DIR");
  app.add_option("--build-dir", paths.build_dir, "CMake build tree with the lab harnesses (default: this build)")
      ->check(CLI::ExistingDirectory)
      ->type_name("DIR");

  // Internal, not in --help: labgrade checks a test program's "no device" in a process of its own
  // (run/device_check.hpp).
  auto* device_check = app.add_subcommand(labgrade::kDeviceCheckCommand, "")->group("");

  app.add_subcommand("list", "List the labs with their titles and points")
      ->footer(command_footer(program, examples(program, {{"list", "every lab, its title and points"}})) +
               " A lab whose YAML is broken is named with the error; the exit code is then 3.");

  labgrade::RunRequest check_request;
  labgrade::ReportOutputs check_outputs;
  auto* check = app.add_subcommand("check", "Self-check: build your code in labs/<lab>/ and run the public tests");
  check->add_option("lab", check_request.lab, "Lab id, e.g. 01_vector_add")->required();
  add_report_options(*check, check_outputs);
  check->add_option("--work-dir", check_request.work_dir, "Build here (new or empty directory) instead of a temp dir")
      ->type_name("DIR");
  check->add_flag("--keep-work-dir", check_request.keep_work_dir, "Keep the build directory for inspection");
  check->add_flag("--sanitize", check_request.sanitize, kSanitizeHelp);
  check->add_flag("--profile", check_request.profile, kProfileHelp);
  check->footer(command_footer(
      program, examples(program, {{"check 01_vector_add", "build labs/01_vector_add/ and run its public tests"},
                                  {"check 01_vector_add --sanitize", "also look for out-of-bounds accesses and races"},
                                  {"check 04_transpose --profile", "also measure your timed kernels with Nsight Compute"},
                                  {"check 01_vector_add --html check.html", "also write an HTML report"}})));

#ifndef CUDALABS_STUDENT_COMMANDS_ONLY  // a student release has no hidden suites to grade with
  labgrade::RunRequest grade_request;
  labgrade::ReportOutputs grade_outputs;
  auto* grade = app.add_subcommand("grade", "Grade a submission against the hidden suite and the lab's YAML");
  grade->add_option("lab", grade_request.lab, "Lab id, e.g. 01_vector_add")->required();
  grade->add_option("--submission,-s", grade_request.submission,
                    "The submission: a folder (files found at any depth), one source file, or a .zip/.tar.gz")
      ->required()
      ->check(CLI::ExistingPath)
      ->type_name("PATH");
  add_report_options(*grade, grade_outputs);
  grade->add_option("--work-dir", grade_request.work_dir, "Build here (new or empty directory) instead of a temp dir")
      ->type_name("DIR");
  grade->add_flag("--keep-work-dir", grade_request.keep_work_dir, "Keep the build directory for inspection");
  grade->add_flag("--sanitize", grade_request.sanitize, kSanitizeHelp);
  grade->add_flag("--profile", grade_request.profile, kProfileHelp);
  grade->footer(command_footer(
      program, examples(program, {{"grade 01_vector_add -s alice/", "a folder"},
                                  {"grade 01_vector_add -s alice.zip --json alice.json", "an archive, and a JSON report"},
                                  {"grade 01_vector_add -s alice/ --gradescope results.json", "for Gradescope"},
                                  {"grade 04_transpose -s alice/ --profile", "with Nsight Compute figures beside the reference's"},
                                  {"grade 01_vector_add -s alice/ --output-dir reports/", "every report format"}})));

#ifdef CUDALABS_HAS_BATCH
  labgrade::batch::BatchCommand batch_command;
  labgrade::batch::add_batch_command(app, batch_command)
      ->footer(examples(program, {{"batch 01_vector_add submissions/ --out grades/", "grade a class"},
                                  {"batch 01_vector_add export/ --out grades/", "a Gradescope export, the same way"},
                                  {"batch 01_vector_add submissions/ --slurm --gres gpu:1", "on a Slurm cluster"}}) +
               "\n\n" + kBatchExitCodes);
  labgrade::similarity::SimilarityCommand similarity_command;
  labgrade::similarity::add_similarity_command(app, similarity_command)
      ->footer(command_footer(
          program, examples(program, {{"similarity 01_vector_add submissions/ --out similarity/",
                                       "rank the class's pairs"},
                                      {"batch 01_vector_add submissions/ --similarity", "the same, after grading"}})));
#else
  auto* batch_missing =
      app.add_subcommand("batch", "Grade a class (not in this build: SQLite3 was missing when it was configured)");
  batch_missing->allow_extras();
#endif
#ifdef CUDALABS_HAS_SERVE
  labgrade::serve::ServeCommand serve_command;
  labgrade::serve::add_serve_command(app, serve_command)
      ->footer(command_footer(
          program, examples(program, {{"serve --data /srv/labgrade", "serve on 127.0.0.1:8642 (TLS in front: README)"},
                                      {"serve --data /srv/labgrade --rate 5 --rate-window 60",
                                       "5 submissions an hour each"}})));
  labgrade::serve::TokensCommand tokens_command;
  labgrade::serve::add_tokens_command(app, tokens_command)
      ->footer(command_footer(
          program, examples(program, {{"tokens issue --data /srv/labgrade --roster roster.csv --out tokens.csv",
                                       "a token for each student"},
                                      {"tokens revoke --data /srv/labgrade alice", "alice's token stops working"},
                                      {"tokens bridge --data /srv/labgrade --out bridge_token",
                                       "the Gradescope bridge's token"}})));
#else
  auto* serve_missing = app.add_subcommand(
      "serve", "Run the submission service (not in this build: SQLite3 or cpp-httplib was missing when it was configured)");
  serve_missing->allow_extras();
  auto* tokens_missing = app.add_subcommand("tokens", "Issue and revoke the service's tokens (not in this build)");
  tokens_missing->allow_extras();
#endif
#endif
  labgrade::ReleaseCommands release_commands;
  labgrade::add_release_commands(app, release_commands);
  release_commands.submit->footer(command_footer(
      program, examples(program, {{"submit 01_vector_add", "pack labs/01_vector_add/'s student files"},
                                  {"submit 01_vector_add --from ~/work -o mine.tar.gz", "from another folder"},
                                  {"submit 01_vector_add --server https://gpu.example.edu --check",
                                   "self-check on the course's GPU ($LABGRADE_TOKEN)"},
                                  {"submit 01_vector_add --server https://gpu.example.edu",
                                   "a graded run there"}})));
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
  release_commands.release->footer(command_footer(
      program, examples(program, {{"release --out ../cudalabs-student", "every lab"},
                                  {"release --out ../student --labs 01_vector_add 02_image", "two labs"}})));
#endif
  app.footer(top_level_footer(program));

  // A mistyped command: name the nearest one rather than CLI11's "arguments were not expected".
  if (const auto message = labgrade::cli::unknown_command_message(app, {argv + std::min(argc, 1), argv + argc})) {
    std::cerr << program << ": " << *message << "\n";
    return labgrade::kUsageExitCode;
  }

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
    if (device_check->parsed()) return labgrade::run_device_check_command();
    if (app.got_subcommand("list")) return labgrade::cli::list_labs(paths, std::cout, std::cerr);
#ifdef CUDALABS_HAS_BATCH
    if (app.got_subcommand("batch")) return labgrade::batch::run_batch_command(paths, batch_command);
    if (app.got_subcommand("similarity")) {
      return labgrade::similarity::run_similarity_command(paths, similarity_command);
    }
#elif !defined(CUDALABS_STUDENT_COMMANDS_ONLY)
    if (batch_missing->parsed()) {
      std::cerr << "labgrade: batch is not in this build: CMake did not find SQLite3 when labgrade was configured.\n"
                   "Install it (Debian/Ubuntu: sudo apt-get install libsqlite3-dev), then configure and build again "
                   "(./cudalabs setup does both).\n";
      return labgrade::kInternalExitCode;
    }
#endif
#ifdef CUDALABS_HAS_SERVE
    if (app.got_subcommand("serve")) return labgrade::serve::run_serve_command(paths, serve_command);
    if (app.got_subcommand("tokens")) return labgrade::serve::run_tokens_command(tokens_command);
#elif !defined(CUDALABS_STUDENT_COMMANDS_ONLY)
    if (serve_missing->parsed() || tokens_missing->parsed()) {
      std::cerr << "labgrade: serve and tokens are not in this build: CMake did not find SQLite3 and cpp-httplib when "
                   "labgrade was configured.\nInstall them (Debian/Ubuntu: sudo apt-get install libsqlite3-dev "
                   "libcpp-httplib-dev), then configure and build again.\n";
      return labgrade::kInternalExitCode;
    }
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
