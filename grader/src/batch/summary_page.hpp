#pragma once
// summary.html: the class at a glance, one self-contained page like the HTML report (no script,
// no network): score histogram, the submissions without a normal grade, the most failed tests,
// the spread of each timed case, grading time, and the leaderboards when asked for.
#include <optional>
#include <string>
#include <vector>

#include "canvas_csv.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "leaderboard.hpp"
#include "results_store.hpp"

namespace labgrade::batch {

struct SummaryInput {
  const cudalabs::config::LabConfig* lab = nullptr;
  const std::vector<SubmissionRow>* rows = nullptr;
  std::optional<double> batch_seconds;  // wall time of the run that wrote the page, when it graded
  const std::vector<CaseLeaderboard>* leaderboards = nullptr;  // null: no leaderboard
  std::size_t leaderboard_size = 20;
  const CanvasGradebook* canvas = nullptr;  // null: no --canvas-roster
  const std::string* similarity_section = nullptr;  // null: no --similarity (an HTML section)
};

std::string summary_page(const SummaryInput& input);

// The q-quantile (0..1) of sorted values, interpolated; values must not be empty.
double quantile(const std::vector<double>& sorted, double q);

}  // namespace labgrade::batch
