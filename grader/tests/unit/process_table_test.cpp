// The process table read from /proc, and the descendants found in it by parent links.
#include "sandbox/process_table.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

namespace labgrade {
namespace {

const ProcessEntry* find(const std::vector<ProcessEntry>& table, pid_t pid) {
  const auto found = std::find_if(table.begin(), table.end(), [&](const ProcessEntry& entry) { return entry.pid == pid; });
  return found == table.end() ? nullptr : &*found;
}

TEST(ProcessTable, ListsAChildWithItsParentAndGroup) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    ::pause();
    ::_exit(0);
  }
  ASSERT_GT(child, 0);
  ::setpgid(child, child);  // also here, so the group exists when the table is read
  const std::vector<ProcessEntry> table = list_processes();
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const ProcessEntry* self = find(table, ::getpid());
  ASSERT_NE(self, nullptr);
  EXPECT_EQ(self->parent, ::getppid());
  EXPECT_EQ(self->group, ::getpgrp());
  const ProcessEntry* entry = find(table, child);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->parent, ::getpid());
  EXPECT_EQ(entry->group, child);
}

TEST(ProcessTable, DescendantsOfAnyDepthAndNothingElse) {
  const std::vector<ProcessEntry> table = {
      {10, 1, 10}, {11, 10, 10}, {12, 11, 12}, {13, 12, 12},  // a chain under 10
      {20, 1, 20}, {21, 20, 20},                              // another tree
      {14, 10, 10},                                           // a second child of 10, listed last
  };
  EXPECT_EQ(with_descendants(table, {10}), (std::set<pid_t>{10, 11, 12, 13, 14}));
  EXPECT_EQ(with_descendants(table, {12, 21}), (std::set<pid_t>{12, 13, 21}));
  EXPECT_EQ(with_descendants(table, {99}), (std::set<pid_t>{99}));
}

}  // namespace
}  // namespace labgrade
