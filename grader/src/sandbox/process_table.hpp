#pragma once
// The machine's processes as /proc lists them: who is whose parent, in which process group.
#include <sys/types.h>

#include <set>
#include <vector>

namespace labgrade {

struct ProcessEntry {
  pid_t pid;
  pid_t parent;
  pid_t group;
};

// Every process, from /proc/<pid>/stat; one that ends while it is read is left out. May throw
// std::bad_alloc.
std::vector<ProcessEntry> list_processes();

// `roots` and every process of `table` descended from one of them, by parent links.
std::set<pid_t> with_descendants(const std::vector<ProcessEntry>& table, std::set<pid_t> roots);

}  // namespace labgrade
