#include "leaderboard.hpp"

#include <algorithm>
#include <cmath>

#include "content_hash.hpp"

namespace labgrade::batch {

std::string pseudonym(const std::string& secret, const std::string& student_id) {
  ContentHash hash;
  hash.add(secret);
  hash.add(std::string_view("\0", 1));
  hash.add(student_id);
  return "anon-" + hash.hex().substr(8);
}

namespace {

const TestRow* measured(const SubmissionRow& row, const std::string& test_name) {
  for (const TestRow& test : row.tests) {
    if (test.name == test_name && test.status == "passed" && test.student_ms && std::isfinite(*test.student_ms)) {
      return &test;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<CaseLeaderboard> build_leaderboards(const cudalabs::config::LabConfig& lab,
                                                const std::vector<SubmissionRow>& rows, const std::string& secret) {
  std::vector<CaseLeaderboard> boards;
  for (const auto& spec : lab.performance) {
    CaseLeaderboard board{spec.name, {}};
    for (const SubmissionRow& row : rows) {  // one row per student: the entry is that student's best
      if (const TestRow* test = measured(row, spec.test_name())) {
        board.entries.push_back({pseudonym(secret, row.student_id), *test->student_ms, test->solution_ms.value_or(0)});
      }
    }
    std::sort(board.entries.begin(), board.entries.end(), [](const LeaderboardEntry& a, const LeaderboardEntry& b) {
      return a.student_ms != b.student_ms ? a.student_ms < b.student_ms : a.pseudonym < b.pseudonym;
    });
    boards.push_back(std::move(board));
  }
  return boards;
}

nlohmann::json gradescope_leaderboard(const cudalabs::config::LabConfig& lab, const SubmissionRow& row) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& spec : lab.performance) {
    if (const TestRow* test = measured(row, spec.test_name())) {
      entries.push_back({{"name", spec.name + " (ms)"}, {"value", *test->student_ms}, {"order", "asc"}});
    }
  }
  return entries;
}

}  // namespace labgrade::batch
