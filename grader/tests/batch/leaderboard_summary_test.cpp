// The class leaderboard (pseudonymous, fastest first, only correct measured submissions) and the
// summary page built from the results database's rows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "batch/batch_engine.hpp"
#include "batch/batch_progress.hpp"
#include "batch/leaderboard.hpp"
#include "batch/summary_page.hpp"
#include "stage/work_directories.hpp"

namespace {

using namespace labgrade::batch;
using labgrade::make_work_dir;
using labgrade::remove_stale_work_dirs;

cudalabs::config::LabConfig timed_lab() {
  cudalabs::config::LabConfig lab;
  lab.id = "demo";
  lab.title = "Demo lab";
  lab.tests = {{"Add.Small", 50, cudalabs::config::Visibility::Public, 0}};
  cudalabs::config::PerformanceSpec timed;
  timed.name = "add_big";
  timed.points = 50;
  lab.performance = {timed};
  return lab;
}

SubmissionRow timed_row(const std::string& id, const std::string& status, std::optional<double> ms,
                        const std::string& test_status = "passed") {
  SubmissionRow row;
  row.student_id = id;
  row.status = status;
  row.points_possible = 100;
  if (status == status::kGraded || status == status::kCompileError) {
    row.total = ms ? 90 : 40;
    row.raw_points = row.total;
  }
  row.total_seconds = 8;
  row.build_seconds = 3;
  row.test_seconds = 4;
  row.tests = {{"Add.Small", false, ms ? "passed" : "failed", ms ? 50.0 : 0.0, 50, {}, {}},
               {"Performance.add_big", true, test_status, ms ? 40.0 : 0.0, 50, ms, ms ? std::optional(1.0) : std::nullopt}};
  return row;
}

TEST(Leaderboard, FastestCorrectFirstUnderPseudonyms) {
  const std::vector<SubmissionRow> rows{timed_row("alice", status::kGraded, 2.0),
                                        timed_row("bob", status::kGraded, 1.5),
                                        timed_row("carol", status::kGraded, std::nullopt),
                                        timed_row("dave", status::kGraded, 0.5, "failed")};
  const auto boards = build_leaderboards(timed_lab(), rows, "secret");
  ASSERT_EQ(boards.size(), 1u);
  EXPECT_EQ(boards[0].case_name, "add_big");
  ASSERT_EQ(boards[0].entries.size(), 2u) << "carol was not measured, dave's answer was wrong";
  EXPECT_EQ(boards[0].entries[0].pseudonym, pseudonym("secret", "bob"));
  EXPECT_EQ(boards[0].entries[0].student_ms, 1.5);
  EXPECT_EQ(boards[0].entries[1].pseudonym, pseudonym("secret", "alice"));

  EXPECT_EQ(pseudonym("secret", "bob").rfind("anon-", 0), 0u);
  EXPECT_EQ(pseudonym("secret", "bob").size(), 13u);
  EXPECT_NE(pseudonym("secret", "bob"), pseudonym("other secret", "bob")) << "the key decides the pseudonym";
  EXPECT_NE(pseudonym("secret", "bob"), pseudonym("secret", "alice"));

  const auto entries = gradescope_leaderboard(timed_lab(), rows[1]);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["name"], "add_big (ms)");
  EXPECT_EQ(entries[0]["value"], 1.5);
  EXPECT_EQ(entries[0]["order"], "asc");
  EXPECT_TRUE(gradescope_leaderboard(timed_lab(), rows[2]).empty());
}

TEST(SummaryPage, ShowsTheClassAtAGlance) {
  const auto lab = timed_lab();
  const std::vector<SubmissionRow> rows{timed_row("alice", status::kGraded, 2.0),
                                        timed_row("bob", status::kGraded, 1.5),
                                        timed_row("carol", status::kGraded, std::nullopt, "crashed"),
                                        timed_row("erin", status::kCompileError, std::nullopt, "not run"),
                                        timed_row("gus", status::kNoCudaDevice, std::nullopt, "skipped")};
  const auto boards = build_leaderboards(lab, rows, "secret");
  SummaryInput input{&lab, &rows, 65.0, &boards};
  const std::string html = summary_page(input);
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos) << "self-contained, no script";
  EXPECT_NE(html.find("<div class=\"value\">5</div>submissions"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">1</div>compile errors"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">1</div>no GPU: not graded"), std::string::npos);
  EXPECT_NE(html.find("1m05s"), std::string::npos) << "the run's wall time";
  EXPECT_NE(html.find("Score as a share of the points: 4 submissions with a grade"), std::string::npos);
  // carol's timed case crashed: she needs a look although she has a grade.
  EXPECT_NE(html.find("Performance.add_big crashed"), std::string::npos);
  // Most failed: Add.Small failed for carol among the three graded normally.
  EXPECT_NE(html.find("<td class=\"name\">Add.Small</td><td class=\"num\">1</td><td class=\"num\">3</td>"),
            std::string::npos);
  EXPECT_NE(html.find("2 submissions measured"), std::string::npos);
  EXPECT_NE(html.find(pseudonym("secret", "bob")), std::string::npos);
  EXPECT_NE(html.find("1.50x"), std::string::npos) << "bob against the reference";

  SummaryInput without{&lab, &rows, std::nullopt, nullptr};
  EXPECT_EQ(summary_page(without).find("Leaderboard"), std::string::npos);
}

// What an instructor hit (issue 30): previews among the timed cases, histogram labels without
// their '[', "0.5 submissions" on the axis, "1 graded submissions" beside "0 graded normally",
// student names that did not lead to their reports.
TEST(SummaryPage, ReadsConsistently) {
  auto lab = timed_lab();
  cudalabs::config::PerformanceSpec preview;
  preview.name = "add_big_preview";
  preview.preview = true;
  preview.visibility = cudalabs::config::Visibility::Public;
  lab.performance.push_back(preview);
  const std::vector<SubmissionRow> rows{timed_row("erin", status::kCompileError, std::nullopt, "not run")};
  SummaryInput input{&lab, &rows, std::nullopt, nullptr};
  const std::string html = summary_page(input);
  EXPECT_NE(html.find("<h3><span class=\"name\">add_big</span></h3>"), std::string::npos) << html;
  EXPECT_EQ(html.find("add_big_preview"), std::string::npos) << "a preview is never graded: not a timed case here";
  EXPECT_NE(html.find(">[90-100%]</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">[0-10%)</text>"), std::string::npos) << html;
  EXPECT_EQ(html.find("0.5 submissions"), std::string::npos) << "counts are whole";
  EXPECT_EQ(html.find("0.25 submissions"), std::string::npos) << "counts are whole";
  EXPECT_NE(html.find(">1 submissions</text>"), std::string::npos) << "the axis's one tick past 0";
  EXPECT_NE(html.find("Score as a share of the points: 1 submission with a grade"), std::string::npos) << html;
  EXPECT_NE(html.find("<div class=\"value\">0</div>compiled and tested"), std::string::npos) << html;
  EXPECT_EQ(html.find("graded normally"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"reports/erin/report.html\">erin</a>"), std::string::npos)
      << "a student who needs a look links to their report";
}

TEST(BatchProgress, CountsTheSameThingsInTheSameWords) {
  std::ostringstream out;
  BatchProgress progress(out, false);
  progress.start(3, 0);
  SubmissionRow graded = timed_row("alice", status::kGraded, 2.0);
  SubmissionRow zero = timed_row("bob", status::kCompileError, std::nullopt);
  SubmissionRow no_gpu = timed_row("gus", status::kNoCudaDevice, std::nullopt);
  progress.finished(graded);
  progress.finished(zero);
  progress.finished(no_gpu);
  progress.end();
  const std::string text = out.str();
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("[", 0) == 0) {
      EXPECT_EQ(line.find("failed"), std::string::npos) << "a missing GPU is no failure: " << line;
    }
  }
  EXPECT_NE(text.find("[3/3] gus: no grade (no_cuda_device) in 8.0 s; so far 1 scored 0 untested, 1 not graded"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("labgrade batch: 3 of 3 submissions done in 0s: 2 graded (1 of them 0 before any test ran: "
                      "compile error, rejected or a broken rule), 1 not graded (no CUDA device, or labgrade failed on "
                      "it)"),
            std::string::npos)
      << text;
}

TEST(GradebookDetail, ACompileErrorSaysWhereTheCompilersMessagesAre) {
  labgrade::GradeResult report;
  report.mode = "grade";
  report.status_detail = "the code did not compile; the compiler's messages are below";
  report.build.attempted = true;
  report.build.succeeded = false;
  EXPECT_EQ(gradebook_detail(report, "bob smith"),
            "the code did not compile; the compiler's messages are in reports/bob_smith/report.txt");
  report.build.succeeded = true;
  report.status_detail = "graded";
  EXPECT_EQ(gradebook_detail(report, "bob"), "graded");
}

// A grade or batch killed with kill -9 leaves its work directories; the next labgrade run on the
// machine removes them (issue 30: ctest left a labgrade-01_vector_add-XXXXXX folder behind every run).
TEST(WorkDirectories, ThoseOfAKilledGradeAreRemovedByTheNext) {
  namespace fs = std::filesystem;
  const fs::path temp = fs::path(::testing::TempDir()) / "batch_work_dirs";
  fs::remove_all(temp);
  fs::create_directories(temp);
  const char* previous = std::getenv("TMPDIR");
  const std::string saved = previous ? previous : "";
  ::setenv("TMPDIR", temp.c_str(), 1);
  const fs::path mine = make_work_dir("01_vector_add");
  const pid_t child = ::fork();
  if (child == 0) std::_Exit(0);
  ::waitpid(child, nullptr, 0);  // a pid that is gone
  const std::string own = "-p" + std::to_string(::getpid()) + "-";
  std::string name = mine.filename().string();
  ASSERT_EQ(name.rfind("labgrade-01_vector_add" + own, 0), 0u) << name;
  const auto named_for = [&](const std::string& tag) {
    return temp / (name.substr(0, name.find(own)) + tag + std::to_string(child) + "-" +
                   name.substr(name.find(own) + own.size()));
  };
  const fs::path killed = named_for("-p");
  const fs::path killed_batch_of_before = named_for("-b");  // how batches named theirs until 2026-11-26
  std::string other_host_name = killed.filename().string();
  const std::string tag = other_host_name.substr(other_host_name.size() - 15, 8);
  other_host_name.replace(other_host_name.size() - 15, 8, tag == "00000000" ? "11111111" : "00000000");
  const fs::path other_host = temp / other_host_name;  // another machine's, on a shared temp: never touched
  const fs::path unrelated = temp / "labgrade-01_vector_add-AbC123";  // not named by make_work_dir: never touched
  for (const fs::path& dir : {killed, killed_batch_of_before, other_host, unrelated}) fs::create_directories(dir / "build");
  remove_stale_work_dirs();
  if (previous) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  EXPECT_FALSE(fs::exists(killed)) << killed;
  EXPECT_FALSE(fs::exists(killed_batch_of_before)) << killed_batch_of_before;
  EXPECT_TRUE(fs::exists(mine)) << "this process's own";
  EXPECT_TRUE(fs::exists(other_host));
  EXPECT_TRUE(fs::exists(unrelated));
  fs::remove_all(temp);
}

TEST(SummaryPage, QuantilesInterpolate) {
  EXPECT_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_EQ(quantile({7}, 0.75), 7);
  EXPECT_EQ(quantile({1, 3}, 1.0), 3);
}

}  // namespace
