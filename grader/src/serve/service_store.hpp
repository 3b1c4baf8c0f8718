#pragma once
// Everything `labgrade serve` keeps, in one SQLite file (DATA/service.sqlite): the tokens (hashed),
// the queue of submissions and their reports. A submission is written to DATA/uploads/<id>.tar.gz
// before its row is committed; its reports are stored in the same transaction that marks it done,
// so a restart finds each submission either done (never graded again) or still to grade (queued,
// or running when the service stopped: it is queued again, since nothing of it was recorded).
// Safe to share between threads (one connection, one mutex).
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace labgrade::batch {
class SqliteDatabase;
}

namespace labgrade::serve {

struct TokenRow {
  std::string student_id;
  std::int64_t issued_at = 0;
  std::optional<std::int64_t> revoked_at;
};

struct Job {
  std::int64_t id = 0;
  std::string student_id;
  std::string lab;
  std::string mode;  // service_api::kModeCheck or kModeGrade
  std::filesystem::path archive;
  std::string state;  // service_api::kQueued, kRunning, kDone
  std::int64_t received_at = 0;
  // Once done:
  std::string status;  // graded, tests_failed, build_failed, submission_rejected, ..., error
  std::string detail;
  std::optional<double> points_earned;
  double points_possible = 0;
  std::optional<int> exit_code;
  double grade_seconds = 0;
};

struct JobOutcome {
  std::string status;
  std::string detail;
  std::optional<double> points_earned;
  double points_possible = 0;
  int exit_code = 0;
  double grade_seconds = 0;
  std::map<std::string, std::string> reports;  // file name (report.txt, ...) -> content
};

class ServiceStore {
 public:
  // Opens or creates DATA/service.sqlite and DATA/uploads/.
  explicit ServiceStore(const std::filesystem::path& data_dir);
  ~ServiceStore();

  // Tokens. A new token is returned once, in clear; only its SHA-256 is kept. Empty when the
  // student already holds a live token and `replace` is false.
  std::string issue_token(const std::string& student_id, bool replace);
  bool revoke_token(const std::string& student_id);  // false when the student has no live token
  std::vector<TokenRow> tokens() const;
  std::optional<std::string> student_for_token(const std::string& token) const;

  // The queue.
  std::int64_t enqueue(const std::string& student_id, const std::string& lab, const std::string& mode,
                       const std::string& archive_bytes);
  std::size_t requeue_interrupted();   // running -> queued; at start-up
  std::optional<Job> claim_next();     // the oldest queued submission, now running
  void finish(std::int64_t id, const JobOutcome& outcome);
  std::optional<Job> job_of(std::int64_t id, const std::string& student_id) const;  // only the student's own
  std::size_t position(std::int64_t id) const;  // submissions ahead of it (running included); 0 once running
  std::optional<std::string> report_of(std::int64_t id, const std::string& student_id, const std::string& file) const;
  std::size_t submissions_since(const std::string& student_id, std::int64_t since) const;
  // The student's runs of `lab` in `mode` received since `since` (Unix seconds), leaving out those
  // that ended without a grade (status no_cuda_device, machine_busy or error).
  std::size_t counted_runs(const std::string& student_id, const std::string& lab, const std::string& mode,
                           std::int64_t since) const;
  std::size_t queue_length() const;  // queued and running
  std::vector<Job> jobs_of_lab(const std::string& lab) const;  // every student's, by student then id
  std::vector<Job> jobs_of_student(const std::string& student_id, const std::string& lab) const;  // oldest first

  const std::filesystem::path& uploads() const { return uploads_; }

 private:
  std::filesystem::path uploads_;
  std::unique_ptr<batch::SqliteDatabase> database_;
  mutable std::mutex mutex_;
};

std::int64_t unix_now();

}  // namespace labgrade::serve
