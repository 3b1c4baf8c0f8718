#include "lock_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace cudalabs::lock_files {

std::string lock_directory() {
  if (const char* chosen = std::getenv("CUDALABS_LOCK_DIR"); chosen && *chosen) return chosen;
  struct stat info {};
  if (::stat("/run/lock", &info) == 0 && S_ISDIR(info.st_mode) && ::access("/run/lock", W_OK) == 0) return "/run/lock";
  return "/tmp";
}

int open_lock_file(const std::string& path) {
  constexpr int kFlags = O_CLOEXEC | O_NOFOLLOW;
  int fd = ::open(path.c_str(), O_RDWR | kFlags);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | kFlags, 0666);
    if (fd >= 0) {
      ::fchmod(fd, 0666);  // not narrowed by our umask: the next grader may be another user
    } else if (errno == EEXIST) {
      fd = ::open(path.c_str(), O_RDWR | kFlags);
    }
  }
  if (fd < 0 && errno == EACCES) fd = ::open(path.c_str(), O_RDONLY | kFlags);
  return fd;
}

}  // namespace cudalabs::lock_files
