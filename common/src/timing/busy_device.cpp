#include "cudalabs/timing/busy_device.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

namespace cudalabs::timing {

void BusyDeviceRule::check(double ms, const char* when, bool after_reference_call) {
  checks_.push_back({ms, when});
  if (after_reference_call) after_reference_ms_.push_back(ms);
}

double BusyDeviceRule::baseline_ms() const {
  if (after_reference_ms_.empty()) return 0;
  std::vector<double> sorted = after_reference_ms_;
  // The lower median: of an even count, the smaller middle figure (the one that counts more).
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return std::min(*middle, kHonestCheckCeilingMs);
}

int BusyDeviceRule::busy_samples() const {
  const double bar = baseline_ms() + kOutstandingWorkLimitMs;
  return static_cast<int>(std::count_if(checks_.begin(), checks_.end(), [&](const Check& c) { return c.ms > bar; }));
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
  const int busy = busy_samples();
  return busy >= kOutstandingWorkStrikes && 4 * busy >= rounds_done;
}

std::string BusyDeviceRule::verdict(int rounds_done, bool at_end) const {
  const int busy = busy_samples();
  const bool fails = at_end ? pending(rounds_done)
                            : rounds_done >= 8 && busy >= kOutstandingWorkStrikes && 2 * busy >= rounds_done;
  if (!fails) return "";
  const double bar = baseline_ms() + kOutstandingWorkLimitMs;
  const char* when = "";  // the last counted check's place
  for (const Check& c : checks_) {
    if (c.ms > bar) when = c.when;
  }
  return fmt::format(
      "work was still running on the GPU {} ({} times in {} rounds; the device needed up to {:.3f} ms longer to go "
      "idle than after the reference's calls): launch everything on the stream you were given, and finish it before "
      "you return",
      when, busy, rounds_done, max_busy_ms());
}

}  // namespace cudalabs::timing
