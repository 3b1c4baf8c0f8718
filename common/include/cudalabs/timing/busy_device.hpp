#pragma once
// The rule for work a timed call leaves running on the GPU after it returns (or, in process, after
// its stream finished): work that runs on outside the timed window speeds up the figure unseen, or
// slows whatever is timed next. Fed with the device-idle checks of each round; host-only.
#include <string>
#include <vector>

namespace cudalabs::timing {

// A device-idle check that takes longer than this beyond the baseline (see BusyDeviceRule) found
// work still running. In process the check is cudaDeviceSynchronize, which on an idle device
// returns in a few microseconds (it only reads the context's completion markers); in a judge it
// is an empty kernel of the judge's, launched and waited for: on an H100 (labs 01 and 05's
// solutions, 600 checks) 11 us at the median wherever it is made, 13-17 us at the 90th percentile,
// and now and then (6 of 600) a spike to 0.06-0.17 ms. 50 us beyond the baseline is far above the
// usual jitter, and below the time of every timed case of the labs (0.05 ms and more), so work
// moved off the stream, or left running in a runner, cannot hide under it; the rare spikes are
// what verdict's rounds rule is for.
inline constexpr double kOutstandingWorkLimitMs = 0.05;
// The baseline is at most this: work of the student's that ran on through the reference's samples
// too (and so slowed the checks after the reference's calls as well) cannot raise the bar above
// what an honest check costs.
inline constexpr double kHonestCheckCeilingMs = 0.1;
// The case fails once this many rounds had a check that counted (and see verdict). One could be
// the host thread losing its core (that only lengthens the wait, never shortens it); work that
// escapes the measurement on purpose does so on every sample it wants to speed up, and must do so
// on half of them to move a median. Rounds, not checks, are counted: a round makes four checks,
// and on an H100 whose checks spiked more often than usual (after a heavy build or test run), a
// reference solution's case failed on 3 slow checks in 12 rounds when each check counted
// (lab 01, 4 of 16 grades in one run of 2026-11-27).
inline constexpr int kOutstandingWorkStrikes = 3;

class BusyDeviceRule {
 public:
  // A device-idle check that took `ms`, made `when` ("before your call started", "while the
  // reference was about to run"...). Every check counts against the student wherever it is made:
  // besides the judge's trusted runners, only the student's runner can have work on the GPU. The
  // checks right after the reference's calls (`after_reference_call`) are also the baseline:
  // their lower median, capped at kHonestCheckCeilingMs (0 while there are none).
  void check(double ms, const char* when, bool after_reference_call = false);

  // The checks from here on belong to a new round (before the first call, to the first round).
  void begin_round();
  // Forgets the checks of the round under way: a round measured again because a trusted thread
  // waited for a CPU timed the machine's load (interleaved.hpp), and so may its checks have (the
  // student's code cannot cause such a wait). Its rounds are not among verdict's rounds_done either.
  void discard_round();

  // The verdict after `rounds_done` rounds: "" or why the case fails. A check counts when it took
  // more than kOutstandingWorkLimitMs beyond the baseline, and a round counts when any of its
  // checks did. The case fails once kOutstandingWorkStrikes rounds counted and they are at least
  // half the rounds so far (from the 8th on: what escaping work on purpose looks like), or, at the
  // end, at least a quarter of them.
  std::string verdict(int rounds_done, bool at_end) const;

  // True while the end rule would fail the case on the rounds so far: a stop for precision or
  // settled points waits for more rounds then (up to the budget), so that a few slow checks of an
  // honest call are judged on more rounds than ten.
  bool pending(int rounds_done) const;

  // Rounds with a check that counted so far, and the most any check took beyond the baseline.
  int busy_rounds() const;
  double max_busy_ms() const;

 private:
  struct Check {
    double ms;
    const char* when;
    int round;
    bool after_reference_call;
  };
  double baseline_ms() const;

  std::vector<Check> checks_;
  int round_ = 0;
};

}  // namespace cudalabs::timing
