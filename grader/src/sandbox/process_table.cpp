#include "sandbox/process_table.hpp"

#include <dirent.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace labgrade {

// "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so the fields are read
// after its last ')'.
std::vector<ProcessEntry> list_processes() {
  std::vector<ProcessEntry> processes;
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

std::set<pid_t> with_descendants(const std::vector<ProcessEntry>& table, std::set<pid_t> roots) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const ProcessEntry& process : table) {
      if (roots.count(process.parent) != 0 && roots.insert(process.pid).second) grew = true;
    }
  }
  return roots;
}

}  // namespace labgrade
