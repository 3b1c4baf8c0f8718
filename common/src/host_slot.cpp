#include "cudalabs/host_slot.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lock_files.hpp"

namespace cudalabs {

HostSlot::HostSlot(HostSlot&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), index_(std::exchange(other.index_, -1)) {}

HostSlot& HostSlot::operator=(HostSlot&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases its flock
    fd_ = std::exchange(other.fd_, -1);
    index_ = std::exchange(other.index_, -1);
  }
  return *this;
}

HostSlot::~HostSlot() {
  if (fd_ >= 0) ::close(fd_);
}

HostSlot HostSlot::acquire(const std::string& name, unsigned count) {
  return acquire_in(lock_files::lock_directory(), name, count);
}

HostSlot HostSlot::acquire_in(const std::string& directory, const std::string& name, unsigned count) {
  if (count == 0) count = 1;
  // Each slot's own descriptor: flock belongs to the open file description, so two threads of one
  // process holding two descriptors of one file exclude each other as two processes would.
  std::vector<int> fds;
  for (unsigned k = 0; k < count; ++k) {
    const std::string path = directory + "/" + name + "-" + std::to_string(k) + ".lock";
    const int fd = lock_files::open_lock_file(path);
    if (fd < 0) {
      std::fprintf(stderr, "cudalabs: warning: cannot open %s (%s); not bounding %s across processes\n", path.c_str(),
                   std::strerror(errno), name.c_str());
      for (const int open : fds) ::close(open);
      return HostSlot();
    }
    fds.push_back(fd);
  }
  HostSlot slot;
  for (;;) {
    for (unsigned k = 0; k < count; ++k) {
      if (::flock(fds[k], LOCK_EX | LOCK_NB) != 0) continue;
      slot.fd_ = fds[k];
      slot.index_ = static_cast<int>(k);
      for (unsigned other = 0; other < count; ++other) {
        if (other != k) ::close(fds[other]);
      }
      return slot;
    }
    // Said once per process: a grade started beside a batch would otherwise look hung.
    static std::atomic<bool> told{false};
    if (!told.exchange(true)) {
      std::fprintf(stderr, "cudalabs: waiting for one of this machine's %u %s slots (all held)\n", count, name.c_str());
      std::fflush(stderr);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace cudalabs
