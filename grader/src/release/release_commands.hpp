#pragma once
// labgrade's subcommands for the student release: `submit` (every build) and `release` (the
// instructor's build only: CUDALABS_STUDENT_COMMANDS_ONLY compiles it out), and the next steps
// that `check` prints after its report. main.cpp registers them with add_release_commands().
#include <optional>

#include <CLI/CLI.hpp>

#include "release/release_writer.hpp"
#include "remote_submit/remote_submit.hpp"
#include "release/submission_archive.hpp"
#include "report/report_outputs.hpp"

namespace labgrade {

struct ReleaseCommands {
  CLI::App* submit = nullptr;
  SubmitRequest submit_request;
  RemoteSubmitOptions remote;  // submit --server: upload to `labgrade serve` (remote_submit/)
  CLI::App* release = nullptr;  // nullptr in the student build
  ReleaseRequest release_request;
};

void add_release_commands(CLI::App& app, ReleaseCommands& commands);

// The exit code of the chosen command, or nullopt when neither was chosen.
std::optional<int> run_release_commands(const ReleaseCommands& commands, const CoursePaths& paths);

// After `check`'s text report on stdout: the TODOs left and the handout's next step.
void print_next_steps(const GradeResult& result, const CoursePaths& paths, const ReportOutputs& outputs);

}  // namespace labgrade
