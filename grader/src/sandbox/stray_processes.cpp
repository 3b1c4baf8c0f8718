#include "sandbox/stray_processes.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

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

struct Process {
  pid_t pid;
  pid_t parent;
  pid_t group;
};

// Every process, from /proc/<pid>/stat ("pid (comm) state ppid pgrp ..."; comm may hold spaces
// and parentheses, so the fields are read after its last ')').
std::vector<Process> all_processes() {
  std::vector<Process> processes;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return processes;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE* file = std::fopen(path, "r");
    if (file == nullptr) continue;
    char text[1024];
    const std::size_t got = std::fread(text, 1, sizeof text - 1, file);
    std::fclose(file);
    text[got] = '\0';
    const char* after_comm = std::strrchr(text, ')');
    char state = 0;
    long parent = 0, group = 0;
    if (after_comm == nullptr || std::sscanf(after_comm + 1, " %c %ld %ld", &state, &parent, &group) != 3) continue;
    processes.push_back({static_cast<pid_t>(pid), static_cast<pid_t>(parent), static_cast<pid_t>(group)});
  }
  ::closedir(proc);
  return processes;
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
      const std::vector<Process> processes = all_processes();
      for (const Process& process : processes) {
        if (process.parent == self && process.group != own_group && live_groups().count(process.group) == 0) {
          strays.push_back(process.pid);
          doomed.insert(process.pid);
        }
      }
      for (bool grew = true; grew;) {  // their descendants, by parent links
        grew = false;
        for (const Process& process : processes) {
          if (doomed.count(process.parent) != 0 && doomed.insert(process.pid).second) grew = true;
        }
      }
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
