#include "batch_progress.hpp"

#include <cmath>

#include <fmt/format.h>

namespace labgrade::batch {

namespace {

// A grade of 0 decided before any test ran (compile error, rejected, broken rule).
bool scored_zero_untested(const SubmissionRow& row) {
  return status::is_final(row.status) && row.status != status::kGraded;
}
// Not a grade at all: no CUDA device (the tests could not run), or labgrade failed on it.
bool not_graded(const SubmissionRow& row) { return !status::is_final(row.status); }

std::string describe(const SubmissionRow& row) {
  const std::string score =
      row.total ? fmt::format("{:g}/{:g}", std::round(*row.total * 100) / 100, row.points_possible) : "no grade";
  const std::string late = row.late_days && *row.late_days > 0 ? fmt::format(", {} days late", *row.late_days) : "";
  return fmt::format("{}: {} ({}{}) in {:.1f} s", row.student_id, score, row.status, late, row.total_seconds);
}

}  // namespace

std::string format_duration(double seconds) {
  const auto whole = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  if (whole >= 3600) return fmt::format("{}h{:02}m", whole / 3600, whole % 3600 / 60);
  if (whole >= 60) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}s", whole);
}

BatchProgress::BatchProgress(std::ostream& out, bool is_tty, std::size_t width)
    : out_(out), tty_(is_tty), width_(width) {}

void BatchProgress::start(std::size_t to_grade, std::size_t kept) {
  std::lock_guard lock(mutex_);
  start_ = std::chrono::steady_clock::now();
  total_ = to_grade;
  out_ << fmt::format("labgrade batch: {} to grade, {} unchanged since their last grade (kept)\n", to_grade, kept);
  if (tty_) draw_locked();
  out_.flush();
}

std::string BatchProgress::tally_locked() const {
  return fmt::format("{} scored 0 untested, {} not graded", zero_untested_, not_graded_);
}

std::string BatchProgress::rate_and_eta_locked() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (done_ == 0 || elapsed <= 0) return "rate -, ETA -";
  const double per_hour = static_cast<double>(done_) / elapsed * 3600;
  const double eta = static_cast<double>(total_ - done_) * elapsed / static_cast<double>(done_);
  return fmt::format("{:.0f}/h, ETA {}", per_hour, format_duration(eta));
}

void BatchProgress::draw_locked() {
  std::string line = fmt::format("[{}/{}] {}, {}{}", done_, total_, tally_locked(), rate_and_eta_locked(),
                                 last_.empty() ? "" : " | " + last_);
  if (width_ > 1 && line.size() >= width_) line.resize(width_ - 1);  // a wrapped line could not be redrawn
  out_ << "\r\033[K" << line;
  out_.flush();
}

void BatchProgress::finished(const SubmissionRow& row) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (scored_zero_untested(row)) ++zero_untested_;
  if (not_graded(row)) ++not_graded_;
  last_ = describe(row);
  if (tty_) {
    draw_locked();
  } else {
    out_ << fmt::format("[{}/{}] {}; so far {}, {}\n", done_, total_, last_, tally_locked(), rate_and_eta_locked());
    out_.flush();
  }
}

void BatchProgress::note(const std::string& line) {
  std::lock_guard lock(mutex_);
  out_ << (tty_ ? "\r\033[K" : "") << line << "\n";
  if (tty_) draw_locked();
  out_.flush();
}

void BatchProgress::end() {
  std::lock_guard lock(mutex_);
  if (tty_) out_ << "\n";
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  out_ << fmt::format("labgrade batch: {} of {} submissions done in {}: {} graded ({} of them 0 before any test "
                      "ran: compile error, rejected or a broken rule), {} not graded (no CUDA device, or labgrade "
                      "failed on it)\n",
                      done_, total_, format_duration(elapsed), done_ - not_graded_, zero_untested_, not_graded_);
  out_.flush();
}

}  // namespace labgrade::batch
