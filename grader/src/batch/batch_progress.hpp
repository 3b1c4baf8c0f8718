#pragma once
// How a running batch shows itself: on a terminal, one line redrawn in place (done/total,
// failures, rate, ETA, the last submission); otherwise one plain log line per submission, for
// log files and Slurm's output. Safe to call from several threads.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>

#include "results_store.hpp"

namespace labgrade::batch {

class BatchProgress {
 public:
  // `width`: the terminal's columns, to keep the progress line on one row (0: unknown).
  BatchProgress(std::ostream& out, bool is_tty, std::size_t width = 0);

  // `to_grade` submissions will be graded now; `kept` were already graded and are skipped.
  void start(std::size_t to_grade, std::size_t kept);
  void finished(const SubmissionRow& row);
  void note(const std::string& line);  // a line of its own, above the progress line on a terminal
  void end();

 private:
  void draw_locked();
  std::string rate_and_eta_locked() const;
  std::string tally_locked() const;  // "2 scored 0 untested, 1 not graded"

  std::ostream& out_;
  bool tty_;
  std::size_t width_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
  std::size_t total_ = 0;
  std::size_t done_ = 0;
  // The progress line and the end line count the same two things, in the same words as the
  // batch's last line and the summary page: a 0 decided before any test ran (compile error,
  // rejected, broken rule: graded), and no grade at all (no CUDA device, labgrade's failure).
  std::size_t zero_untested_ = 0;
  std::size_t not_graded_ = 0;
  std::string last_;
};

// "3m05s", "1h02m", "42s".
std::string format_duration(double seconds);

}  // namespace labgrade::batch
