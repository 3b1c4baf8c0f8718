#pragma once
// One of a few slots shared by every process on this machine: a flock on one of the files
// `<name>-0.lock` ... `<name>-(count-1).lock` in the lock directory the GPU lock uses
// (CUDALABS_LOCK_DIR, else /run/lock, else /tmp). For work whose count at once must be bounded
// on the machine, not per process: compute-sanitizer runs, which slow each other (a batch of 20
// on the H100: 169 s with 4 at once, 197 s with 12), whose tool reaches its target through one of
// 10 ports by default, and of which four `labgrade grade --sanitize` started at once (up to 16
// runs) did not finish within 300 s on the H100 while one alone took about 10 s (cause unknown).
#include <string>

namespace cudalabs {

class HostSlot {
 public:
  HostSlot() = default;
  HostSlot(HostSlot&& other) noexcept;
  HostSlot& operator=(HostSlot&& other) noexcept;
  HostSlot(const HostSlot&) = delete;
  HostSlot& operator=(const HostSlot&) = delete;
  ~HostSlot();

  // Waits for a free slot of `count` (at least 1) in `directory` and takes it. flock cannot wait
  // on several files at once, so a taker finding every slot held tries again every 20 ms (the
  // work held is seconds long). Holds nothing, without waiting, when no slot file can be opened
  // (a warning on stderr names the file): the caller's own per-process bound still holds.
  static HostSlot acquire(const std::string& name, unsigned count);
  static HostSlot acquire_in(const std::string& directory, const std::string& name, unsigned count);

  bool held() const { return fd_ >= 0; }
  int index() const { return index_; }  // which slot, when held

 private:
  int fd_ = -1;
  int index_ = -1;
};

}  // namespace cudalabs
