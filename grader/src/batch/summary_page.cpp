#include "summary_page.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "batch_progress.hpp"
#include "submission_inventory.hpp"
#include "report/report_common.hpp"
#include "report/svg_charts.hpp"

namespace labgrade::batch {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; color: #222; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 12px 3px 0; vertical-align: top; border-bottom: 1px solid #eee; }
th { border-bottom: 2px solid #ccc; }
.num { text-align: right; white-space: nowrap; }
.name { font-family: ui-monospace, monospace; word-break: break-all; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { padding: 8px 14px; border-radius: 6px; background: #eef4fb; border-left: 5px solid #4c78a8; }
.card .value { font-size: 22px; font-weight: bold; }
.card.bad { background: #fbeeee; border-left-color: #c0392b; }
svg.chart { display: block; margin: 6px 0; max-width: 100%; height: auto; }
.note { color: #666; font-size: 13px; }
footer { margin-top: 32px; color: #888; font-size: 12px; }
)";

std::string h(std::string_view text) { return markup_escape(text); }

std::string points(double value) { return fmt::format("{:g}", std::round(value * 100) / 100); }

// "1 submission", "3 submissions".
std::string submissions(std::size_t n) { return fmt::format("{} submission{}", n, n == 1 ? "" : "s"); }

std::string card(const std::string& label, const std::string& value, bool bad = false) {
  return fmt::format("<div class=\"card{}\"><div class=\"value\">{}</div>{}</div>\n", bad ? " bad" : "", h(value),
                     h(label));
}

void overview(std::string& html, const std::vector<SubmissionRow>& rows, std::optional<double> batch_seconds) {
  std::map<std::string, std::size_t> by_status;
  std::vector<double> totals;
  for (const auto& row : rows) {
    ++by_status[row.status];
    if (row.total) totals.push_back(*row.total);
  }
  std::sort(totals.begin(), totals.end());
  html += "<div class=\"cards\">\n" + card("submissions", std::to_string(rows.size()));
  html += card("compiled and tested", std::to_string(by_status[status::kGraded]));
  if (!totals.empty()) html += card("median score", points(quantile(totals, 0.5)));
  html += card("compile errors", std::to_string(by_status[status::kCompileError]),
               by_status[status::kCompileError] > 0);
  for (const auto& [name, label] : {std::pair{status::kRejected, "rejected (unpack, missing file)"},
                                    std::pair{status::kRuleViolation, "broke a rule"},
                                    std::pair{status::kNoCudaDevice, "no GPU: not graded"},
                                    std::pair{status::kMachineBusy, "machine too busy to time: not graded"},
                                    std::pair{status::kError, "labgrade failed"}}) {
    if (by_status[name] > 0) html += card(label, std::to_string(by_status[name]), true);
  }
  if (batch_seconds) html += card("this run's wall time", format_duration(*batch_seconds));
  html += "</div>\n";
}

void histogram(std::string& html, const std::vector<SubmissionRow>& rows) {
  constexpr int kBins = 10;
  std::vector<std::size_t> counts(kBins, 0);
  std::size_t graded = 0;
  for (const auto& row : rows) {
    if (!row.total || row.points_possible <= 0) continue;
    ++graded;
    const double fraction = std::clamp(*row.total / row.points_possible, 0.0, 1.0);
    ++counts[std::min(kBins - 1, static_cast<int>(fraction * kBins))];
  }
  html += "<section>\n<h2>Scores</h2>\n";
  if (graded == 0) {
    html += "<p class=\"note\">No submission has a grade yet.</p>\n</section>\n";
    return;
  }
  std::vector<svg::Bar> bars;
  for (int bin = kBins - 1; bin >= 0; --bin) {
    const auto count = static_cast<double>(counts[bin]);
    // Half-open bins, the last one closed: [90-100%] holds full marks.
    bars.push_back({fmt::format("[{}-{}%{}", bin * 10, bin * 10 + 10, bin == kBins - 1 ? "]" : ")"), count, count,
                    count, fmt::format("{}", counts[bin]), "#4c78a8"});
  }
  html += svg::bar_chart(fmt::format("Score as a share of the points: {} with a grade (a compile error, a rejected "
                                     "submission or a broken rule is a grade of 0)",
                                     submissions(graded)),
                         bars, "submissions", svg::Ticks::Whole);
  html += "</section>\n";
}

// The student's id, linked to their HTML report (reports/<student>/report.html, beside this page).
std::string student_link(const std::string& student_id) {
  return fmt::format("<a href=\"reports/{}/report.html\">{}</a>", markup_escape(file_name_for(student_id), true),
                     h(student_id));
}

// Submissions without a normal grade, or with a test that crashed or hung.
void broken(std::string& html, const std::vector<SubmissionRow>& rows) {
  std::string table;
  for (const auto& row : rows) {
    std::vector<std::string> trouble;
    for (const auto& test : row.tests) {
      if (test.status == "crashed" || test.status == "timed out") trouble.push_back(test.name + " " + test.status);
    }
    if (row.status == status::kGraded && trouble.empty()) continue;
    std::string detail = row.detail;
    for (const auto& item : trouble) detail += (detail.empty() ? "" : "; ") + item;
    table += fmt::format("<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>\n", student_link(row.student_id),
                         h(row.status), h(detail));
  }
  html += "<section>\n<h2>Submissions that need a look</h2>\n";
  if (table.empty()) {
    html += "<p class=\"note\">None: every submission compiled and ran without a crash or a hang.</p>\n";
  } else {
    html += "<table>\n<tr><th>student</th><th>status</th><th>why</th></tr>\n" + table + "</table>\n";
  }
  html += "</section>\n";
}

void most_failed(std::string& html, const std::vector<SubmissionRow>& rows) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> failed_of_ran;  // test -> (not passed, ran)
  for (const auto& row : rows) {
    if (row.status != status::kGraded) continue;  // tests that never ran say nothing about the test
    for (const auto& test : row.tests) {
      auto& [failed, ran] = failed_of_ran[test.name];
      ++ran;
      if (test.status != "passed") ++failed;
    }
  }
  std::vector<std::pair<std::string, std::pair<std::size_t, std::size_t>>> sorted(failed_of_ran.begin(),
                                                                                   failed_of_ran.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  html += "<section>\n<h2>Most failed tests</h2>\n";
  if (sorted.empty() || sorted.front().second.first == 0) {
    html += "<p class=\"note\">No test failed in a submission that compiled and ran.</p>\n</section>\n";
    return;
  }
  html += "<p class=\"note\">Among the submissions that compiled and ran.</p>\n"
          "<table>\n<tr><th>test</th><th class=\"num\">failed</th><th class=\"num\">of</th></tr>\n";
  for (const auto& [name, counts] : sorted) {
    if (counts.first == 0) break;
    html += fmt::format("<tr><td class=\"name\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                        h(name), counts.first, counts.second);
  }
  html += "</table>\n</section>\n";
}

void timings(std::string& html, const cudalabs::config::LabConfig& lab, const std::vector<SubmissionRow>& rows) {
  // Timing previews are the students' self-check only: a grade never runs them.
  const bool any_graded = std::any_of(lab.performance.begin(), lab.performance.end(),
                                      [](const auto& spec) { return !spec.preview; });
  if (!any_graded) return;
  html += "<section>\n<h2>Timed cases</h2>\n<p class=\"note\">Median times of the submissions whose result was "
          "correct and measured, and the reference's in the same runs.</p>\n";
  for (const auto& spec : lab.performance) {
    if (spec.preview) continue;
    std::vector<double> student, solution;
    for (const auto& row : rows) {
      for (const auto& test : row.tests) {
        if (test.name != spec.test_name() || !test.student_ms) continue;
        student.push_back(*test.student_ms);
        if (test.solution_ms) solution.push_back(*test.solution_ms);
      }
    }
    html += fmt::format("<h3><span class=\"name\">{}</span></h3>\n", h(spec.name));
    if (student.empty()) {
      html += "<p class=\"note\">No submission was measured.</p>\n";
      continue;
    }
    std::sort(student.begin(), student.end());
    std::sort(solution.begin(), solution.end());
    std::vector<svg::Bar> bars;
    for (const auto& [label, q] : {std::pair{"fastest", 0.0}, std::pair{"25%", 0.25}, std::pair{"median", 0.5},
                                   std::pair{"75%", 0.75}, std::pair{"slowest", 1.0}}) {
      const double value = quantile(student, q);
      bars.push_back({label, value, value, value, fmt::format("{:.4g} ms", value), "#4c78a8"});
    }
    if (!solution.empty()) {
      const double value = quantile(solution, 0.5);
      bars.push_back({"reference", value, value, value, fmt::format("{:.4g} ms (median)", value), "#59a14f"});
    }
    html += svg::bar_chart(fmt::format("{} submissions measured", student.size()), bars, "ms");
  }
  html += "</section>\n";
}

void grading_time(std::string& html, const std::vector<SubmissionRow>& rows) {
  std::vector<double> build, test, total;
  for (const auto& row : rows) {
    if (row.build_seconds > 0) build.push_back(row.build_seconds);
    if (row.test_seconds > 0) test.push_back(row.test_seconds);
    total.push_back(row.total_seconds);
  }
  if (total.empty()) return;
  html += "<section>\n<h2>Grading time per submission</h2>\n<table>\n"
          "<tr><th></th><th class=\"num\">median</th><th class=\"num\">slowest</th><th class=\"num\">sum</th></tr>\n";
  for (const auto& [label, values] : {std::pair{"compile", &build}, std::pair{"tests", &test}, std::pair{"whole grade", &total}}) {
    if (values->empty()) continue;
    std::sort(values->begin(), values->end());
    double sum = 0;
    for (double v : *values) sum += v;
    html += fmt::format("<tr><td>{}</td><td class=\"num\">{:.1f} s</td><td class=\"num\">{:.1f} s</td>"
                        "<td class=\"num\">{}</td></tr>\n",
                        label, quantile(*values, 0.5), values->back(), format_duration(sum));
  }
  html += "</table>\n</section>\n";
}

void leaderboards(std::string& html, const std::vector<CaseLeaderboard>& boards, std::size_t size) {
  html += "<section>\n<h2>Leaderboard</h2>\n<p class=\"note\">The fastest correct submissions of each timed case, "
          "one entry per student, under a pseudonym.</p>\n";
  for (const auto& board : boards) {
    html += fmt::format("<h3><span class=\"name\">{}</span></h3>\n", h(board.case_name));
    if (board.entries.empty()) {
      html += "<p class=\"note\">No correct measured submission yet.</p>\n";
      continue;
    }
    html += "<table>\n<tr><th class=\"num\">#</th><th>who</th><th class=\"num\">median</th>"
            "<th class=\"num\">vs reference</th></tr>\n";
    for (std::size_t i = 0; i < board.entries.size() && i < size; ++i) {
      const auto& entry = board.entries[i];
      html += fmt::format("<tr><td class=\"num\">{}</td><td class=\"name\">{}</td><td class=\"num\">{:.4g} ms</td>"
                          "<td class=\"num\">{}</td></tr>\n",
                          i + 1, h(entry.pseudonym), entry.student_ms,
                          entry.solution_ms > 0 ? fmt::format("{:.2f}x", entry.student_ms / entry.solution_ms) : "-");
    }
    html += "</table>\n";
  }
  html += "</section>\n";
}

// --canvas-roster: who canvas.csv could not place (also in canvas_unmatched.csv).
void canvas_section(std::string& html, const CanvasGradebook& canvas) {
  html += fmt::format("<section>\n<h2>Canvas import</h2>\n<p>canvas.csv: {} of {} roster students matched a "
                      "submission by SIS User ID.</p>\n",
                      canvas.matched, canvas.roster_students);
  if (canvas.without_submission.empty() && canvas.not_on_roster.empty()) {
    html += "<p class=\"note\">Every roster student has a submission and every submission is on the roster.</p>\n"
            "</section>\n";
    return;
  }
  html += "<table>\n<tr><th>unmatched</th><th>SIS User ID</th><th>submission</th><th>name</th><th>status</th>"
          "<th class=\"num\">total</th></tr>\n";
  for (const RosterStudent& student : canvas.without_submission) {
    html += fmt::format("<tr><td>roster student without a submission (empty cell in canvas.csv)</td>"
                        "<td class=\"name\">{}</td><td></td><td>{}</td><td></td><td></td></tr>\n",
                        h(student.sis_user_id), h(student.name));
  }
  for (const UnmatchedSubmission& submission : canvas.not_on_roster) {
    html += fmt::format("<tr><td>submission not on the roster (not in canvas.csv)</td><td class=\"name\">{}</td>"
                        "<td class=\"name\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                        h(submission.sis_user_id), h(submission.student_id), h(submission.name),
                        h(submission.status), submission.total ? points(*submission.total) : "");
  }
  html += "</table>\n</section>\n";
}

}  // namespace

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - static_cast<double>(below));
}

std::string summary_page(const SummaryInput& input) {
  const auto& lab = *input.lab;
  const auto& rows = *input.rows;
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>Class summary of {}</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>Class summary of {} <span class=\"note\">{}</span></h1>\n",
      h(lab.id), kStyle, h(lab.id), h(lab.title));
  overview(html, rows, input.batch_seconds);
  histogram(html, rows);
  broken(html, rows);
  most_failed(html, rows);
  timings(html, lab, rows);
  grading_time(html, rows);
  if (input.leaderboards) leaderboards(html, *input.leaderboards, input.leaderboard_size);
  if (input.canvas) canvas_section(html, *input.canvas);
  if (input.similarity_section) html += *input.similarity_section;
  html += "<footer>labgrade batch summary; each student's reports are in reports/&lt;student&gt;/</footer>\n"
          "</body>\n</html>\n";
  return html;
}

}  // namespace labgrade::batch
