#include "batch_command.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/ioctl.h>
#include <unistd.h>

#include "batch_engine.hpp"
#include "batch_outputs.hpp"
#include "canvas_csv.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "results_store.hpp"
#include "slurm_batch.hpp"
#include "similarity/similarity_outputs.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;

namespace {

constexpr int kNoDeviceExitCode = 5;
constexpr int kInterruptedExitCode = 130;

std::atomic<bool> g_stop{false};

// The first Ctrl-C lets the grades under way finish (their results are kept); a second one ends
// labgrade at once (the children of a grade are in their own process groups and die with it
// through their pipes and time limits).
extern "C" void on_interrupt(int) {
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

std::vector<std::string> read_ids(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read the list of students " + file.string());
  std::vector<std::string> ids;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) ids.push_back(line);
  }
  return ids;
}

}  // namespace

CLI::App* add_batch_command(CLI::App& app, BatchCommand& command) {
  auto* batch = app.add_subcommand(
      "batch", "Grade a folder of submissions (one folder or archive per student, or a Gradescope export) into a "
               "results database, gradebook.csv, summary.html and every student's reports");
  batch->add_option("lab", command.lab, "Lab id, e.g. 01_vector_add");
  batch->add_option("submissions", command.submissions,
                    "Folder of per-student folders or .zip/.tar.gz archives, or of a Gradescope export "
                    "(submission_metadata.yml)")
      ->check(CLI::ExistingDirectory);
  batch->add_option("--out,-o", command.out, "Output folder (default: ./<lab>-batch); a second run resumes there")
      ->type_name("DIR");
  batch->add_option("--jobs,-j", command.jobs, "Submissions compiled at once (default: one per CPU core; up to four "
                                              "times as many are under way, at most four of them run correctness "
                                              "tests at a time, and timed cases take the GPU one at a time)");
  batch->add_flag("--regrade", command.regrade, "Grade every submission again, even those unchanged since their grade");
  batch->add_flag("--sanitize", command.sanitize,
                  "Also run every submission's correctness tests under compute-sanitizer (memcheck, racecheck), "
                  "beside the other grades' first parts; findings cost points only where the lab's YAML says "
                  "sanitizer: {required: true}");
  batch->add_flag("--leaderboard", command.leaderboard,
                  "Add a leaderboard of each timed case (pseudonymous, best per student) to summary.html and each "
                  "results.json (Gradescope)");
  batch->add_flag("--slurm", command.slurm, "Grade on a Slurm cluster: a job array, one task per chunk");
  batch->add_option("--partition", command.partition, "Slurm partition (sbatch --partition)");
  batch->add_option("--gres", command.gres, "Slurm generic resources per task, e.g. gpu:1 (sbatch --gres)");
  batch->add_option("--time", command.time_limit, "Slurm time limit per task, e.g. 01:00:00 (sbatch --time)");
  batch->add_option("--chunk", command.chunk, "Submissions per Slurm task (default 20)")->check(CLI::PositiveNumber);
  batch->add_flag("--no-wait", command.no_wait, "Return once the Slurm job is submitted; finish with --collect");
  batch->add_option("--max-attempts", command.max_attempts,
                    "Slurm jobs in all before submissions still missing are given up (default 3)")
      ->check(CLI::PositiveNumber);
  batch->add_option("--collect", command.collect,
                    "Finish the Slurm batch in this output folder: wait, merge, resubmit what is missing, write the "
                    "gradebook")
      ->check(CLI::ExistingDirectory);
  batch->add_option("--canvas-roster", command.canvas_roster,
                    "Also write canvas.csv, a Canvas gradebook import, for the students of this roster (CSV with "
                    "Student and SIS User ID columns, e.g. Canvas's gradebook export), matched by SIS User ID; "
                    "unmatched students and submissions go to canvas_unmatched.csv")
      ->check(CLI::ExistingFile)
      ->option_text("ROSTER.csv");
  batch->add_option("--canvas-assignment", command.canvas_assignment,
                    "canvas.csv's assignment column (default: the lab's id); \"Name (123)\" names Canvas assignment "
                    "123")
      ->option_text("NAME");
  // Written into the Slurm task script by labgrade itself.
  batch->add_flag("--similarity", command.similarity,
                  "Also rank the pairs of submissions by shared code (similarity.csv, similarity.html, a section "
                  "of the summary; needs sim_c++)");
  similarity::add_similarity_options(*batch, command.similarity_options);
  batch->add_option("--only", command.only, "Grade only the students listed in this file (one id a line)")
      ->check(CLI::ExistingFile)
      ->group("");
  batch->add_option("--database", command.database, "Results database (default: OUT/results.sqlite)")
      ->type_name("FILE")
      ->group("");
  batch->add_flag("--no-outputs", command.no_outputs, "Write no gradebook or summary")->group("");
  return batch;
}

namespace {

// The roster, read before any grading so that a mistake in it costs no time.
std::optional<std::vector<RosterStudent>> roster_of(const BatchCommand& command) {
  if (command.canvas_roster.empty()) {
    if (!command.canvas_assignment.empty()) throw UsageError("--canvas-assignment needs --canvas-roster ROSTER.csv");
    return std::nullopt;
  }
  try {
    return read_canvas_roster(command.canvas_roster);
  } catch (const RosterError& error) {
    throw UsageError(std::string("--canvas-roster: ") + error.what());
  }
}

// After a Slurm batch (which writes the gradebook and summary itself): canvas.csv beside them.
int with_canvas(int exit_code, const CoursePaths& paths, const fs::path& out,
                const std::optional<std::vector<RosterStudent>>& roster, const BatchCommand& command) {
  if (!roster || !fs::exists(out / "results.sqlite")) return exit_code;
  std::string lab_id = command.lab;
  if (lab_id.empty()) {  // --collect: the lab the batch in `out` graded
    std::ifstream state(out / "slurm" / "state.json");
    const auto json = nlohmann::json::parse(state, nullptr, false);
    if (json.is_object()) lab_id = json.value("lab", "");
  }
  if (lab_id.empty()) return exit_code;
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(lab_id));
  ResultsStore store(out / "results.sqlite", lab_id);
  const CanvasGradebook canvas =
      write_canvas_outputs(lab, store.load_all(), out, *roster, command.canvas_assignment);
  std::cout << "labgrade batch: " << canvas_summary_line(canvas) << "\n";
  return exit_code;
}

// --similarity: the comparison's files beside the gradebook, and its section for the summary. A
// comparison that cannot be made (sim_c++ missing) says so there; the batch goes on.
std::string similarity_section_for(const CoursePaths& paths, const BatchCommand& command, const fs::path& out) {
  similarity::SimilarityCommand options = command.similarity_options;
  options.lab = command.lab;
  options.submissions = command.submissions;
  const similarity::ClassSimilarity found = similarity::compare_and_write(paths, options, out, std::cout);
  return similarity::similarity_section(found, "similarity.html");
}

}  // namespace

int run_batch_command(const CoursePaths& paths, const BatchCommand& command) {
  const auto roster = roster_of(command);
  if (!command.collect.empty()) {
    if (command.similarity) throw UsageError("--similarity goes with the batch that grades, not with --collect");
    if (!command.lab.empty() || !command.submissions.empty()) {
      throw UsageError("--collect DIR takes no lab or submissions: the Slurm batch in DIR knows them");
    }
    return with_canvas(slurm_collect(command.collect, !command.no_wait, std::cout), paths, command.collect, roster,
                       command);
  }
  if (command.lab.empty() || command.submissions.empty()) {
    throw UsageError("batch needs a lab and a folder of submissions (or --collect DIR)");
  }
  BatchRequest request;
  request.lab = command.lab;
  request.submissions = command.submissions;
  request.out = command.out.empty() ? fs::path(command.lab + "-batch") : command.out;
  request.database = command.database;
  request.jobs = command.jobs;
  request.regrade = command.regrade;
  request.sanitize = command.sanitize;
  if (!command.only.empty()) {
    request.only_students = read_ids(command.only);
    if (request.only_students.empty()) throw UsageError(command.only.string() + " lists no student");
  }
  if (command.slurm) {
    SlurmOptions options;
    options.partition = command.partition;
    options.gres = command.gres;
    options.time_limit = command.time_limit;
    options.chunk = command.chunk;
    options.wait = !command.no_wait;
    options.max_attempts = command.max_attempts;
    options.leaderboard = command.leaderboard;
    const int code = slurm_batch(paths, request, options, std::cout);
    if (command.similarity) {
      // The Slurm tasks write the summary; the comparison needs no GPU and is made here.
      static_cast<void>(similarity_section_for(paths, command, request.out));
    }
    if (command.no_wait && roster) {
      std::cout << "labgrade batch: canvas.csv is written when the batch is collected: give --canvas-roster to "
                   "--collect\n";
    }
    return command.no_wait ? code : with_canvas(code, paths, request.out, roster, command);
  }

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);  // Slurm's scancel and time limit: keep what is done
  const auto start = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDOUT_FILENO) != 0;
  winsize size{};
  const std::size_t width = tty && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
  BatchProgress progress(std::cout, tty, width);
  const BatchOutcome outcome = run_batch(paths, request, progress, g_stop);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ResultsStore store(database_path(request), request.lab);
  std::size_t no_device = 0;
  std::size_t machine_busy = 0;
  for (const SubmissionRow& row : store.load_all()) {
    if (row.status == status::kNoCudaDevice) ++no_device;
    if (row.status == status::kMachineBusy) ++machine_busy;
  }
  if (!command.no_outputs) {
    const auto lab = cudalabs::config::load_lab_config(paths.lab_config(request.lab));
    OutputOptions options{command.leaderboard, outcome.graded > 0 ? std::optional(seconds) : std::nullopt};
    options.canvas_roster = roster;
    options.canvas_assignment = command.canvas_assignment;
    if (command.similarity) options.similarity_section = similarity_section_for(paths, command, request.out);
    const WrittenOutputs written = write_batch_outputs(lab, store, request.out, options);
    std::cout << fmt::format("labgrade batch: {} students in {}; summary in {}; reports in {}\n", written.students,
                             written.gradebook.string(), written.summary.string(), (request.out / "reports").string());
    if (written.canvas) std::cout << "labgrade batch: " << canvas_summary_line(*written.canvas) << "\n";
  }
  if (outcome.interrupted) {
    std::cout << "labgrade batch: interrupted; run the same command again to grade the rest\n";
    return kInterruptedExitCode;
  }
  if (no_device > 0) {
    std::cout << fmt::format("labgrade batch: {} not graded: no CUDA device is usable here, so {} tests could not "
                             "run (the next run grades {})\n",
                             no_device == 1 ? "1 submission" : std::to_string(no_device) + " submissions",
                             no_device == 1 ? "its" : "their", no_device == 1 ? "it" : "them");
    return kNoDeviceExitCode;
  }
  if (machine_busy > 0) {
    std::cout << fmt::format("labgrade batch: {} not graded: the machine was too busy to time {} fairly (other work "
                             "kept the grader's timed processes waiting for a CPU); run the same command again on a "
                             "quieter machine to grade {}\n",
                             machine_busy == 1 ? "1 submission" : std::to_string(machine_busy) + " submissions",
                             machine_busy == 1 ? "it" : "them", machine_busy == 1 ? "it" : "them");
    return static_cast<int>(RunStatus::MachineBusy);
  }
  return 0;
}

}  // namespace labgrade::batch
