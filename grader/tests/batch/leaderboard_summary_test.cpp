// The class leaderboard (pseudonymous, fastest first, only correct measured submissions) and the
// summary page built from the results database's rows.
#include <gtest/gtest.h>

#include "batch/leaderboard.hpp"
#include "batch/summary_page.hpp"

namespace {

using namespace labgrade::batch;

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
  EXPECT_NE(html.find("Score as a share of the points, 4 graded submissions"), std::string::npos);
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

TEST(SummaryPage, QuantilesInterpolate) {
  EXPECT_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_EQ(quantile({7}, 0.75), 7);
  EXPECT_EQ(quantile({1, 3}, 1.0), 3);
}

}  // namespace
