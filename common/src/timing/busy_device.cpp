#include "cudalabs/timing/busy_device.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

namespace cudalabs::timing {

void BusyDeviceRule::reference_check(Check kind, double ms) {
  (kind == Check::after_call ? reference_after_ms_ : reference_before_ms_).push_back(ms);
}

void BusyDeviceRule::student_check(Check kind, double ms, const char* when) { student_.push_back({kind, ms, when}); }

double BusyDeviceRule::baseline_ms(Check kind) const {
  std::vector<double> sorted = kind == Check::after_call ? reference_after_ms_ : reference_before_ms_;
  if (sorted.empty()) return 0;
  // The lower median: of an even count, the smaller middle figure (the one that charges more).
  const auto middle = sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2);
  std::nth_element(sorted.begin(), middle, sorted.end());
  return std::min(*middle, kHonestSwitchCeilingMs);
}

int BusyDeviceRule::busy_samples() const {
  const double after = baseline_ms(Check::after_call);
  const double before = baseline_ms(Check::before_call);
  return static_cast<int>(std::count_if(student_.begin(), student_.end(), [&](const StudentCheck& check) {
    return check.ms - (check.kind == Check::after_call ? after : before) > kOutstandingWorkLimitMs;
  }));
}

double BusyDeviceRule::max_busy_ms() const {
  const double after = baseline_ms(Check::after_call);
  const double before = baseline_ms(Check::before_call);
  double most = 0;
  for (const StudentCheck& check : student_) {
    const double beyond = check.ms - (check.kind == Check::after_call ? after : before);
    if (beyond > kOutstandingWorkLimitMs) most = std::max(most, beyond);
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
  // Name the last counted check's place.
  const double after = baseline_ms(Check::after_call);
  const double before = baseline_ms(Check::before_call);
  const char* when = "";
  for (const StudentCheck& check : student_) {
    if (check.ms - (check.kind == Check::after_call ? after : before) > kOutstandingWorkLimitMs) when = check.when;
  }
  return fmt::format(
      "work was still running on the GPU {} ({} times in {} rounds; the device needed up to {:.3f} ms longer to go "
      "idle than after the reference's calls): launch everything on the stream you were given, and finish it before "
      "you return",
      when, busy, rounds_done, max_busy_ms());
}

}  // namespace cudalabs::timing
