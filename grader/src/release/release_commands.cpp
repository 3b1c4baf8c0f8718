#include "release/release_commands.hpp"

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "release/next_steps.hpp"
#include "release/todo_scan.hpp"
#include "model/exit_codes.hpp"
#include "stage/staging.hpp"

namespace labgrade {
namespace {

constexpr int kRejectedExitCode = 4;  // as for a grade: a student file is missing, too large or not text

int submit(const SubmitRequest& request, const RemoteSubmitOptions& remote, const CoursePaths& paths) {
  if (remote.server.empty() && (remote.check || remote.history || !remote.token_file.empty() || !remote.html.empty() ||
                                !remote.json.empty() || !remote.gradescope.empty())) {
    throw UsageError("--check, --history, --token-file, --html, --json and --gradescope go with --server URL");
  }
  if (!remote.server.empty()) {
#ifdef CUDALABS_HAS_HTTP
    return submit_to_server(paths, request, remote, std::cout, std::cerr);
#else
    std::cerr << "labgrade submit: --server is not in this build: CMake did not find cpp-httplib when labgrade was "
                 "configured.\nInstall it (Debian/Ubuntu: sudo apt-get install libcpp-httplib-dev), then configure "
                 "and build again.\n";
    return kInternalExitCode;
#endif
  }
  try {
    const SubmissionArchive packed = pack_submission(paths, request);
    std::cout << fmt::format("{}\nsha256 {}\nholds: {}\n", packed.archive.string(), packed.sha256,
                             fmt::join(packed.files, ", "));
    for (const std::string& warning : packed.warnings) std::cerr << "labgrade submit: warning: " << warning << "\n";
    std::cout << fmt::format("Hand in {} where your course collects lab {} (an upload to Gradescope or your LMS, "
                             "or as your instructor says); it holds only the files above, and `labgrade grade` "
                             "takes it as it is. If your course runs a grading service, `labgrade submit {} "
                             "--server URL` sends your files there instead.\n",
                             packed.archive.filename().string(), request.lab, request.lab);
    return 0;
  } catch (const SubmissionError& error) {
    std::cerr << "labgrade submit: nothing was written: " << error.what() << "\n";
    return kRejectedExitCode;
  }
}

#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
int release(const ReleaseRequest& request, const CoursePaths& paths) {
  const auto files = write_release(paths, request);
  std::cout << fmt::format("wrote the student release to {} ({} files)\n", request.out.string(), files.size());
  return 0;
}
#endif

}  // namespace

void add_release_commands(CLI::App& app, ReleaseCommands& commands) {
  commands.submit = app.add_subcommand(
      "submit", "Pack exactly the lab's student files (config/labs/<lab>.yaml student_files) into a .tar.gz "
                "to hand in; prints its name and SHA-256 checksum");
  commands.submit->add_option("lab", commands.submit_request.lab, "Lab id, e.g. 01_vector_add")->required();
  commands.submit->add_option("--from", commands.submit_request.from, "Folder with your files (default: labs/<lab>)")
      ->type_name("DIR");
  commands.submit->add_option("--output,-o", commands.submit_request.archive,
                              "Archive to write, ending in .tar.gz; never overwritten (default: "
                              "<lab>-submission-<UTC time>.tar.gz in this folder)")
      ->type_name("FILE");
  RemoteSubmitOptions& remote = commands.remote;
  commands.submit->add_option("--server", remote.server,
                              "Upload to the course's submission service (labgrade serve) and wait for the report: "
                              "a graded run, or with --check a self-check; the token comes from $LABGRADE_TOKEN or "
                              "--token-file")
      ->type_name("URL");
  commands.submit->add_flag("--check", remote.check, "With --server: a self-check (public tests) rather than a graded run");
  commands.submit->add_option("--token-file", remote.token_file, "With --server: a file holding your token")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  commands.submit->add_option("--html", remote.html, "With --server: save the HTML report here (default "
                                                     "<lab>-report-<id>.html)")
      ->type_name("FILE");
  commands.submit->add_option("--json", remote.json, "With --server: also save the JSON report here")->type_name("FILE");
  commands.submit->add_option("--gradescope", remote.gradescope,
                              "With --server: also save Gradescope's results.json here (graded runs)")
      ->type_name("FILE");
  commands.submit->add_flag("--history", remote.history,
                            "With --server: list your submissions of the lab there (and graded runs left); sends "
                            "nothing");
  commands.submit->add_option("--poll-seconds", remote.poll_seconds, "With --server: seconds between two looks at "
                                                                     "the queue (default 1)")
      ->check(CLI::PositiveNumber)
      ->group("");
  commands.submit->add_option("--wait-minutes", remote.wait_minutes,
                              "With --server: how long to wait for the report (default 120)")
      ->check(CLI::PositiveNumber);
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
  commands.release = app.add_subcommand(
      "release", "Write the student release: labs, common code, public tests and config, no solutions, hidden "
                 "suites or hidden YAML entries (see README.md)");
  commands.release->add_option("--out", commands.release_request.out, "New or empty folder to write it into")
      ->required()
      ->type_name("DIR");
  commands.release->add_option("--labs", commands.release_request.labs, "Only these labs (default: all)")
      ->type_name("LAB");
#endif
}

std::optional<int> run_release_commands(const ReleaseCommands& commands, const CoursePaths& paths) {
  if (commands.submit && commands.submit->parsed()) return submit(commands.submit_request, commands.remote, paths);
#ifndef CUDALABS_STUDENT_COMMANDS_ONLY
  if (commands.release && commands.release->parsed()) return release(commands.release_request, paths);
#endif
  return std::nullopt;
}

void print_next_steps(const GradeResult& result, const CoursePaths& paths, const ReportOutputs& outputs) {
  namespace fs = std::filesystem;
  const bool text_on_stdout =
      !outputs.output_dir.empty() || outputs.formats.empty() || outputs.formats == std::vector<std::string>{"text"};
  if (!text_on_stdout) return;
  // The student's own files (a check reads them where they are): what they still mark TODO.
  std::vector<fs::path> sources;
  const fs::path submission(result.submission);
  for (const std::string& file : result.staged_files) {
    sources.push_back(fs::is_directory(submission) ? submission / file : submission);
  }
  std::cout << next_steps(result, paths.lab_dir(result.lab) / "README.md", functions_marked_todo_in(sources));
}

}  // namespace labgrade
