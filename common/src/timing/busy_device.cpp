#include "cudalabs/timing/busy_device.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

namespace cudalabs::timing {

void BusyDeviceRule::check(double ms, const char* when, bool after_reference_call) {
  checks_.push_back({ms, when, round_, after_reference_call});
}

void BusyDeviceRule::begin_round() {
  if (!checks_.empty() && checks_.back().round == round_) ++round_;
}

void BusyDeviceRule::discard_round() {
  while (!checks_.empty() && checks_.back().round == round_) checks_.pop_back();
}

double BusyDeviceRule::baseline_ms() const {
  std::vector<double> sorted;
  for (const Check& c : checks_) {
    if (c.after_reference_call) sorted.push_back(c.ms);
  }
  if (sorted.empty()) return 0;
  // The lower median: of an even count, the smaller middle figure (the one that counts more).
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return std::min(*middle, kHonestCheckCeilingMs);
}

int BusyDeviceRule::busy_rounds() const {
  const double bar = baseline_ms() + kOutstandingWorkLimitMs;
  int rounds = 0;
  int last_counted = -1;
  for (const Check& c : checks_) {  // in round order
    if (c.ms > bar && c.round != last_counted) {
      ++rounds;
      last_counted = c.round;
    }
  }
  return rounds;
}

double BusyDeviceRule::max_busy_ms() const {
  const double baseline = baseline_ms();
  double most = 0;
  for (const Check& c : checks_) {
    if (c.ms - baseline > kOutstandingWorkLimitMs) most = std::max(most, c.ms - baseline);
  }
  return most;
}

bool BusyDeviceRule::pending(int rounds_done) const {
  const int busy = busy_rounds();
  return busy >= kOutstandingWorkStrikes && 4 * busy >= rounds_done;
}

std::string BusyDeviceRule::verdict(int rounds_done, bool at_end) const {
  const int busy = busy_rounds();
  const bool fails = at_end ? pending(rounds_done)
                            : rounds_done >= 8 && busy >= kOutstandingWorkStrikes && 2 * busy >= rounds_done;
  if (!fails) return "";
  const double bar = baseline_ms() + kOutstandingWorkLimitMs;
  const char* when = "";  // the last counted check's place
  for (const Check& c : checks_) {
    if (c.ms > bar) when = c.when;
  }
  return fmt::format(
      "work was still running on the GPU {} (in {} of {} rounds; the device needed up to {:.3f} ms longer to go "
      "idle than after the reference's calls): launch everything on the stream you were given, and finish it before "
      "you return",
      when, busy, rounds_done, max_busy_ms());
}

}  // namespace cudalabs::timing
