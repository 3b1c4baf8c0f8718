#include "cpu_partition.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace cudalabs::remote {
namespace {

// The kernel's CPU list format: "0", "0,8", "0-1", "0-3,8-11".
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, end - at);
    at = end + 1;
    if (item.empty()) continue;
    char* rest = nullptr;
    const long first = std::strtol(item.c_str(), &rest, 10);
    long last = first;
    if (rest != nullptr && *rest == '-') last = std::strtol(rest + 1, nullptr, 10);
    for (long cpu = first; cpu <= last && cpu >= 0 && cpu < CPU_SETSIZE; ++cpu) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

void append(std::vector<int>& to, const Core& core) { to.insert(to.end(), core.begin(), core.end()); }

}  // namespace

CpuPartition partition_cores(const std::vector<Core>& cores) {
  CpuPartition partition;
  if (cores.size() < 2) return partition;
  const std::size_t kept = cores.size() >= 3 ? 2 : 1;
  for (std::size_t i = 0; i < cores.size(); ++i) append(i < kept ? partition.trusted : partition.student, cores[i]);
  if (kept == 2) {
    partition.judge_cpu = cores[0].front();
    partition.reference_cpu = cores[1].front();
    partition.student_cpu = cores[2].front();
    partition.reference_core = cores[1];
  }
  return partition;
}

std::vector<Core> allowed_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {};
  // Keyed by the core's first sibling, so the cores come out in the order of their first CPU.
  std::map<int, Core> by_core;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    std::ifstream siblings("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
    std::string text;
    std::getline(siblings, text);
    const std::vector<int> listed = parse_cpu_list(text);
    const int key = listed.empty() ? cpu : *std::min_element(listed.begin(), listed.end());
    by_core[key].push_back(cpu);
  }
  std::vector<Core> cores;
  for (auto& [key, core] : by_core) cores.push_back(std::move(core));
  std::sort(cores.begin(), cores.end(), [](const Core& a, const Core& b) { return a.front() < b.front(); });
  return cores;
}

cpu_set_t cpu_set_of(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  return set;
}

std::vector<int> all_but(const std::vector<int>& cpus, int cpu) {
  std::vector<int> rest;
  for (int other : cpus) {
    if (other != cpu) rest.push_back(other);
  }
  return rest;
}

void set_thread_affinities(pid_t pid, const std::vector<int>& others, int main_cpu) noexcept {
  if (pid <= 0 || others.empty()) return;
  try {
    const cpu_set_t rest = cpu_set_of(others);
    const cpu_set_t main_set = main_cpu >= 0 ? cpu_set_of({main_cpu}) : rest;
    DIR* tasks = ::opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
    if (tasks == nullptr) {
      static_cast<void>(::sched_setaffinity(pid, sizeof main_set, &main_set));
      return;
    }
    while (const dirent* entry = ::readdir(tasks)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
      if (tid <= 0) continue;
      const cpu_set_t& set = tid == pid ? main_set : rest;
      static_cast<void>(::sched_setaffinity(tid, sizeof set, &set));
    }
    ::closedir(tasks);
  } catch (...) {
    // Out of memory for a path: the threads keep the CPUs they had.
  }
}

}  // namespace cudalabs::remote
