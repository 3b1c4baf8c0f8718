#include "sandbox/stray_processes.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <mutex>
#include <set>
#include <vector>

#include "sandbox/process_table.hpp"

namespace labgrade {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::multiset<pid_t>& live_groups() {
  static std::multiset<pid_t> groups;
  return groups;
}

}  // namespace

void become_subreaper() noexcept {
  static std::once_flag once;
  std::call_once(once, [] { static_cast<void>(::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)); });
}

void LiveRuns::begin_fork() { registry_mutex().lock(); }

void LiveRuns::end_fork(pid_t group) noexcept {
  if (group > 0) live_groups().insert(group);
  registry_mutex().unlock();
}

void LiveRuns::finished(pid_t group) noexcept {
  std::lock_guard lock(registry_mutex());
  const auto found = live_groups().find(group);
  if (found != live_groups().end()) live_groups().erase(found);
}

std::size_t kill_stray_processes() noexcept {
  std::lock_guard lock(registry_mutex());
  const pid_t self = ::getpid();
  const pid_t own_group = ::getpgrp();
  std::size_t killed = 0;
  // Each pass kills every stray child with all its descendants at once (a chain of daemons would
  // otherwise take a pass per level: each becomes ours only when the one above it dies), then
  // reaps the strays; what one forked meanwhile has become ours by then, for the next pass.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < give_up) {
    std::vector<pid_t> strays;
    std::set<pid_t> doomed;
    try {
      const std::vector<ProcessEntry> processes = list_processes();
      for (const ProcessEntry& process : processes) {
        if (process.parent == self && process.group != own_group && live_groups().count(process.group) == 0) {
          strays.push_back(process.pid);
        }
      }
      doomed = with_descendants(processes, {strays.begin(), strays.end()});
    } catch (...) {
      return killed;
    }
    if (strays.empty()) break;
    for (const pid_t pid : doomed) {
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
    for (const pid_t pid : strays) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  return killed;
}

}  // namespace labgrade
