#include "sandbox/resource_limits.hpp"

#include <csignal>

#include <sys/resource.h>

namespace labgrade {
namespace {

// Lowers one limit to `value` (soft) and `hard`, never above what we inherited.
bool lower(int resource, rlim_t value, rlim_t hard) noexcept {
  rlimit current{};
  if (::getrlimit(resource, &current) != 0) return false;
  if (current.rlim_max != RLIM_INFINITY && hard > current.rlim_max) hard = current.rlim_max;
  if (value > hard) value = hard;
  const rlimit wanted{value, hard};
  return ::setrlimit(resource, &wanted) == 0;
}

}  // namespace

const char* apply_resource_limits(const ResourceLimits& limits) noexcept {
  if (!limits.core_dumps && !lower(RLIMIT_CORE, 0, 0)) return "core dumps (RLIMIT_CORE)";
  // The soft limit sends SIGXCPU, which code may catch; the hard limit a second later is SIGKILL.
  if (limits.cpu_seconds > 0 && !lower(RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)) {
    return "CPU time (RLIMIT_CPU)";
  }
  if (limits.max_open_files > 0 && !lower(RLIMIT_NOFILE, limits.max_open_files, limits.max_open_files)) {
    return "open files (RLIMIT_NOFILE)";
  }
  if (limits.max_file_bytes > 0 && !lower(RLIMIT_FSIZE, limits.max_file_bytes, limits.max_file_bytes)) {
    return "file size (RLIMIT_FSIZE)";
  }
  if (limits.max_address_space_bytes > 0 &&
      !lower(RLIMIT_AS, limits.max_address_space_bytes, limits.max_address_space_bytes)) {
    return "address space (RLIMIT_AS)";
  }
  return nullptr;
}

std::string limit_hint(int signal) {
  if (signal == SIGXCPU) return "it used more CPU time than the course allows";
  if (signal == SIGXFSZ) return "it tried to write a file larger than the course allows";
  return "";
}

}  // namespace labgrade
