#include "run_queue_wait.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace cudalabs::remote {

int open_schedstat(pid_t pid, pid_t tid) noexcept {
  char path[64];
  if (tid == 0) {
    std::snprintf(path, sizeof path, "/proc/thread-self/schedstat");
  } else {
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", static_cast<int>(pid), static_cast<int>(tid));
  }
  return ::open(path, O_RDONLY | O_CLOEXEC);
}

std::int64_t parse_run_queue_wait_ns(const char* text) noexcept {
  char* end = nullptr;
  errno = 0;
  std::strtoull(text, &end, 10);
  if (end == text || errno != 0 || *end != ' ') return -1;
  const char* second = end + 1;
  const unsigned long long waited = std::strtoull(second, &end, 10);
  if (end == second || errno != 0 || *end != ' ') return -1;
  return static_cast<std::int64_t>(waited);
}

std::int64_t read_run_queue_wait_ns(int fd) noexcept {
  if (fd < 0) return -1;
  char text[128];
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  if (got <= 0) return -1;
  text[got] = '\0';
  return parse_run_queue_wait_ns(text);
}

}  // namespace cudalabs::remote
