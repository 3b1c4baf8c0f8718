#pragma once
// What a batch leaves in its output folder besides each student's reports: gradebook.csv and
// summary.html, rebuilt from the whole results database (so a resumed or merged batch shows every
// student), and with --leaderboard the Gradescope leaderboard entries in each results.json.
#include <filesystem>
#include <optional>
#include <string>

#include "canvas_csv.hpp"
#include "cudalabs/course/lab_config.hpp"

namespace labgrade::batch {

class ResultsStore;

struct OutputOptions {
  OutputOptions() = default;
  OutputOptions(bool with_leaderboard, std::optional<double> seconds = std::nullopt)
      : leaderboard(with_leaderboard), batch_seconds(seconds) {}
  bool leaderboard = false;
  std::optional<double> batch_seconds;  // the run's wall time, shown in the summary
  // --canvas-roster: canvas.csv and canvas_unmatched.csv from this roster, for this assignment column.
  std::optional<std::vector<RosterStudent>> canvas_roster;
  std::string canvas_assignment;
  // --similarity: the summary's section on it (similarity_outputs.hpp), written beside the page.
  std::string similarity_section;
};

struct WrittenOutputs {
  std::filesystem::path gradebook;
  std::filesystem::path summary;
  std::size_t students = 0;
  std::optional<CanvasGradebook> canvas;  // with a roster: what canvas.csv holds and who is unmatched
};

// canvas.csv and canvas_unmatched.csv in `out` (canvas_csv.hpp).
CanvasGradebook write_canvas_outputs(const cudalabs::config::LabConfig& lab, const std::vector<SubmissionRow>& rows,
                                     const std::filesystem::path& out, const std::vector<RosterStudent>& roster,
                                     const std::string& assignment);

WrittenOutputs write_batch_outputs(const cudalabs::config::LabConfig& lab, ResultsStore& store,
                                   const std::filesystem::path& out, const OutputOptions& options);

}  // namespace labgrade::batch
