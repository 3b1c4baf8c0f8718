#pragma once
// The batch's results: an SQLite database in the output directory (results.sqlite), one row per
// submission and one per test of it. A submission's row carries the hash of what was submitted
// (its files and submission time) and of the lab's configuration, so a later run knows whether
// it may keep the row (resume, skip unchanged) or must grade again. Safe to share between threads.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace labgrade::batch {

class SqliteDatabase;

struct TestRow {
  std::string name;    // GoogleTest name; Performance.<case> for a timed case
  bool timed = false;  // a performance case
  std::string status;  // passed, failed, crashed, timed_out, skipped, not_run
  double points_earned = 0;
  double points_possible = 0;
  std::optional<double> student_ms;   // timed cases that were measured: the medians
  std::optional<double> solution_ms;
};

// What a submission's grade came to. Only these statuses are final; the others are graded again
// by the next run (a machine without a GPU, labgrade's own failure).
namespace status {
inline constexpr const char* kGraded = "graded";
inline constexpr const char* kCompileError = "compile_error";
inline constexpr const char* kRejected = "rejected";
inline constexpr const char* kRuleViolation = "rule_violation";
inline constexpr const char* kNoCudaDevice = "no_cuda_device";  // not a grade
inline constexpr const char* kMachineBusy = "machine_busy";      // not a grade: timed on a busy machine
inline constexpr const char* kError = "error";                  // labgrade failed on it: not a grade
bool is_final(const std::string& status);
}  // namespace status

struct SubmissionRow {
  std::string student_id;
  std::string name;    // empty when unknown
  std::string source;  // the folder or archive graded
  std::optional<std::int64_t> submitted_at;  // Unix seconds; unknown without metadata
  std::string files_hash;
  std::string config_hash;
  std::string status;
  std::string detail;  // one sentence: why the grade is what it is
  std::optional<double> raw_points;  // before any late penalty; nullopt: no grade
  double points_possible = 0;
  std::optional<std::int64_t> late_days;  // nullopt: no policy or no submission time
  double late_penalty_percent = 0;
  double late_penalty_points = 0;
  std::optional<double> total;  // raw_points less the late penalty; nullopt: no grade
  double build_seconds = 0;
  double test_seconds = 0;
  double total_seconds = 0;  // wall time of this submission's grade
  std::int64_t graded_at = 0;  // Unix seconds
  std::vector<TestRow> tests;  // in the lab's YAML order
};

class ResultsStore {
 public:
  // Opens or creates `file`. Throws std::runtime_error when it holds the results of another lab.
  ResultsStore(const std::filesystem::path& file, const std::string& lab);
  ~ResultsStore();

  // True when the student's stored row has these hashes and a final status.
  bool has_final_result(const std::string& student_id, const std::string& files_hash,
                        const std::string& config_hash) const;
  // Replaces the student's previous row and tests, atomically.
  void save(const SubmissionRow& row);
  // This database's random key for pseudonyms (leaderboard.hpp), made on first use.
  std::string pseudonym_secret();
  // Every row with its tests, by student id.
  std::vector<SubmissionRow> load_all() const;
  // Copies every row of another store of the same lab (a Slurm task's shard) into this one,
  // replacing the same students' rows; returns how many.
  std::size_t merge_from(const std::filesystem::path& shard);

 private:
  std::unique_ptr<SqliteDatabase> database_;
  std::string lab_;
  mutable std::mutex mutex_;
};

}  // namespace labgrade::batch
