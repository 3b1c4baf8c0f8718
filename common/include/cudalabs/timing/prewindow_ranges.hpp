#pragma once
// Which memory the timing engine's pre-window check covers (timing/interleaved.cu; issue 27), and
// the comparison of its two checksums; host-only bookkeeping, so it is unit-tested without a GPU.
//
// In a judge the student's runner holds mappings of every replica's buffers from earlier calls,
// and a thread of its own could write a timed call's outputs before the call is made (while the
// judge prepares and seals the sample), so that the call returns at once. The engine therefore
// checksums each replica's writable memory right behind that replica's prepare, again just before
// the window opens, and fails the sample when the two differ. Which memory a call may write is
// known from the calls themselves (remote::last_call_outputs(): every allocation a non-const
// pointer argument points into), learnt from the warm-up calls on and refreshed by every timed
// call; a sample checks what was known when it began (freeze), so a range learnt in its window
// applies from the next sample on.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudalabs/remote/judge.hpp"

namespace cudalabs::timing {

class PreWindowRanges {
 public:
  explicit PreWindowRanges(int replicas = 1) : known_(replicas > 0 ? static_cast<std::size_t>(replicas) : 1) {}

  // What replica `replica`'s call may write, as its latest call showed it (replaces what was
  // known of that replica). Out-of-range replicas are ignored.
  void learn(int replica, const std::vector<remote::WritableRange>& ranges) {
    if (replica < 0 || static_cast<std::size_t>(replica) >= known_.size()) return;
    known_[static_cast<std::size_t>(replica)] = ranges;
  }

  // At the start of a sample: what the sample checks, from what is known now. Each distinct range
  // once, in the order of the calls (replica 0's first); a range several replicas write belongs to
  // the last of them, so its first checksum is taken after every prepare that may write it.
  void freeze() {
    ranges_.clear();
    owner_.clear();
    for (std::size_t r = 0; r < known_.size(); ++r) {
      for (const remote::WritableRange& range : known_[r]) {
        if (range.data == nullptr || range.bytes == 0) continue;
        std::size_t at = 0;
        while (at < ranges_.size() && !same(ranges_[at], range)) ++at;
        if (at == ranges_.size()) {
          ranges_.push_back(range);
          owner_.push_back(static_cast<int>(r));
        } else {
          owner_[at] = static_cast<int>(r);
        }
      }
    }
  }

  // The frozen ranges, and the replica each belongs to (its first checksum follows that
  // replica's prepare; the message names that replica's call).
  const std::vector<remote::WritableRange>& ranges() const { return ranges_; }
  int owner(std::size_t index) const { return owner_[index]; }

  // Indices into ranges() whose first checksum is taken right after `replica`'s prepare.
  std::vector<std::size_t> after_prepare_of(int replica) const {
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < owner_.size(); ++i) {
      if (owner_[i] == replica) indices.push_back(i);
    }
    return indices;
  }

  // `sums`: ranges().size() first checksums (after prepare), then as many second ones (before
  // the window). The index of the first range whose two differ, or -1 when none does.
  static std::ptrdiff_t first_changed(const std::vector<std::uint64_t>& sums) {
    const std::size_t n = sums.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
      if (sums[i] != sums[n + i]) return static_cast<std::ptrdiff_t>(i);
    }
    return -1;
  }

 private:
  static bool same(const remote::WritableRange& a, const remote::WritableRange& b) {
    return a.data == b.data && a.bytes == b.bytes && a.host == b.host;
  }

  std::vector<std::vector<remote::WritableRange>> known_;
  std::vector<remote::WritableRange> ranges_;
  std::vector<int> owner_;
};

}  // namespace cudalabs::timing
