#include "batch_outputs.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "batch_engine.hpp"
#include "gradebook_csv.hpp"
#include "leaderboard.hpp"
#include "report/report_common.hpp"
#include "results_store.hpp"
#include "summary_page.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;

namespace {

// Adds (or replaces) "leaderboard" in a student's Gradescope results.json.
void add_leaderboard_entries(const fs::path& results_json, const nlohmann::json& entries) {
  std::ifstream in(results_json);
  if (!in) return;  // no report (labgrade failed on the submission): nothing to add to
  nlohmann::json results = nlohmann::json::parse(in, nullptr, false);
  if (results.is_discarded() || !results.is_object()) return;
  results["leaderboard"] = entries;
  write_report_file(results_json, results.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "Gradescope");
}

}  // namespace

CanvasGradebook write_canvas_outputs(const cudalabs::config::LabConfig& lab, const std::vector<SubmissionRow>& rows,
                                     const fs::path& out, const std::vector<RosterStudent>& roster,
                                     const std::string& assignment) {
  CanvasGradebook canvas = canvas_gradebook(roster, rows, assignment.empty() ? lab.id : assignment, lab.total_points);
  write_report_file(out / "canvas.csv", canvas.csv, "Canvas gradebook");
  write_report_file(out / "canvas_unmatched.csv", canvas.unmatched_csv, "Canvas unmatched list");
  return canvas;
}

WrittenOutputs write_batch_outputs(const cudalabs::config::LabConfig& lab, ResultsStore& store, const fs::path& out,
                                   const OutputOptions& options) {
  const std::vector<SubmissionRow> rows = store.load_all();
  WrittenOutputs written{out / "gradebook.csv", out / "summary.html", rows.size(), std::nullopt};
  std::ostringstream csv;
  write_gradebook(csv, lab, rows);
  write_report_file(written.gradebook, csv.str(), "gradebook");

  std::vector<CaseLeaderboard> boards;
  if (options.leaderboard) {
    boards = build_leaderboards(lab, rows, store.pseudonym_secret());
    for (const SubmissionRow& row : rows) {
      add_leaderboard_entries(reports_folder(out, row.student_id) / "results.json", gradescope_leaderboard(lab, row));
    }
  }
  if (options.canvas_roster) {
    written.canvas = write_canvas_outputs(lab, rows, out, *options.canvas_roster, options.canvas_assignment);
  }
  SummaryInput summary{&lab, &rows, options.batch_seconds, options.leaderboard ? &boards : nullptr};
  if (written.canvas) summary.canvas = &*written.canvas;
  if (!options.similarity_section.empty()) summary.similarity_section = &options.similarity_section;
  write_report_file(written.summary, summary_page(summary), "summary");
  return written;
}

}  // namespace labgrade::batch
