#pragma once
// The class leaderboard of each timed case: the fastest correct submissions, each student once,
// under a pseudonym that only the course's own database can link back to a student.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudalabs/course/lab_config.hpp"
#include "results_store.hpp"

namespace labgrade::batch {

struct LeaderboardEntry {
  std::string pseudonym;
  double student_ms = 0;   // the submission's median time
  double solution_ms = 0;  // the reference's, measured in the same run
};

struct CaseLeaderboard {
  std::string case_name;                 // the YAML's performance case name
  std::vector<LeaderboardEntry> entries;  // fastest first
};

// "anon-" and 8 hex digits of a keyed hash of the id; `secret` is the batch database's own
// random key, so the mapping cannot be rebuilt from a list of student ids.
std::string pseudonym(const std::string& secret, const std::string& student_id);

// Every timed case of the lab with the submissions whose test passed and was measured.
std::vector<CaseLeaderboard> build_leaderboards(const cudalabs::config::LabConfig& lab,
                                                const std::vector<SubmissionRow>& rows, const std::string& secret);

// Gradescope's "leaderboard" entries for one submission (its results.json): one per measured
// timed case, {"name", "value" (ms), "order": "asc"}; empty when none was measured.
nlohmann::json gradescope_leaderboard(const cudalabs::config::LabConfig& lab, const SubmissionRow& row);

}  // namespace labgrade::batch
