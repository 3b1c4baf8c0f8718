#pragma once
// What a batch leaves in its output folder besides each student's reports: gradebook.csv and
// summary.html, rebuilt from the whole results database (so a resumed or merged batch shows every
// student), and with --leaderboard the Gradescope leaderboard entries in each results.json.
#include <filesystem>
#include <optional>
#include <string>

#include "cudalabs/course/lab_config.hpp"

namespace labgrade::batch {

class ResultsStore;

struct OutputOptions {
  bool leaderboard = false;
  std::optional<double> batch_seconds;  // the run's wall time, shown in the summary
};

struct WrittenOutputs {
  std::filesystem::path gradebook;
  std::filesystem::path summary;
  std::size_t students = 0;
};

WrittenOutputs write_batch_outputs(const cudalabs::config::LabConfig& lab, ResultsStore& store,
                                   const std::filesystem::path& out, const OutputOptions& options);

}  // namespace labgrade::batch
