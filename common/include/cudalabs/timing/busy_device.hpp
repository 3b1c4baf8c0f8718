#pragma once
// The rule for work a timed call leaves running on the GPU after it returns (or, in process, after
// its stream finished): work that runs on outside the timed window speeds up the figure unseen, or
// slows whatever is timed next. Fed with the device-idle checks of each round; host-only.
#include <string>
#include <vector>

namespace cudalabs::timing {

// A device-idle check that follows the student's calls and takes longer than this beyond the same
// kind of check after the reference's calls (their median, see BusyDeviceRule) found work still
// running. In process the check is cudaDeviceSynchronize, which on an idle device returns in a few
// microseconds (it only reads the context's completion markers); in a judge it is an empty kernel
// of the judge's, launched and waited for: on an H100 (labs 01 and 05's solutions, 600 checks)
// 11 us at the median after either side's calls, 13-17 us at the 90th percentile, and now and then
// (6 of 600) a spike to 0.06-0.17 ms, on either side. 50 us beyond the reference's median is far
// above the usual jitter, and below the time of every timed case of the labs (0.05 ms and more),
// so work moved off the stream, or left running in a runner, cannot hide under it; the rare
// spikes are what verdict's rounds rule is for.
inline constexpr double kOutstandingWorkLimitMs = 0.05;
// The reference's checks are a baseline only up to this: work of the student's that ran on through
// the reference's samples too (and so slowed its checks as well) cannot raise the bar above what
// an honest switch between contexts costs.
inline constexpr double kHonestSwitchCeilingMs = 0.1;
// The case fails once this many student samples showed outstanding work (and see verdict). One
// could be the host thread losing its core inside the call (that only lengthens the wait, never
// shortens it); work that escapes the measurement on purpose does so on every sample it wants to
// speed up, and must do so on half of them to move a median.
inline constexpr int kOutstandingWorkStrikes = 3;

class BusyDeviceRule {
 public:
  // Where a check was made: right after a call (returned, or its stream finished), or before the
  // next sample's window.
  enum class Check { after_call, before_call };

  // A check that took `ms` and follows the reference's calls: the baseline for its kind.
  void reference_check(Check kind, double ms);
  // A check that took `ms` and follows the student's calls; `when` names it in the verdict
  // ("after your call had returned", "while the reference was about to run").
  void student_check(Check kind, double ms, const char* when);

  // The verdict after `rounds_done` rounds: "" or why the case fails. A student check counts when
  // it took more than kOutstandingWorkLimitMs beyond the lower median of the reference's checks of
  // its kind (capped at kHonestSwitchCeilingMs; 0 while there are none). The case fails once
  // kOutstandingWorkStrikes counted and they are at least half the rounds so far (from the 8th on:
  // what escaping work on purpose looks like), or, at the end, at least a quarter of them.
  std::string verdict(int rounds_done, bool at_end) const;

  // True while the end rule would fail the case on the rounds so far: a stop for precision or
  // settled points waits for more rounds then (up to the budget), so that a few slow checks of an
  // honest call are judged on more rounds than ten.
  bool pending(int rounds_done) const;

  // Student checks counted so far, and the most any took beyond its baseline.
  int busy_samples() const;
  double max_busy_ms() const;

 private:
  struct StudentCheck {
    Check kind;
    double ms;
    const char* when;
  };
  double baseline_ms(Check kind) const;

  std::vector<double> reference_after_ms_;
  std::vector<double> reference_before_ms_;
  std::vector<StudentCheck> student_;
};

}  // namespace cudalabs::timing
