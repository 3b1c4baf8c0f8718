// The harness's seccomp filter, checked in forked children (the filter cannot be removed, so the
// test process itself must never install it): no fork, vfork, exec or clone of a process by any
// route, while threads keep working.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

#include "../src/process_filter.hpp"

extern char** environ;

namespace {

// Runs `body` in a child with the filter installed and returns the child's exit code.
template <class Body>
int exit_code_under_filter(Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (!cudalabs::forbid_new_processes()) ::_exit(100);
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

#if defined(__x86_64__)

TEST(ProcessFilter, ForkFailsWithEperm) {
  EXPECT_EQ(exit_code_under_filter([] { return ::fork() == -1 && errno == EPERM ? 0 : 1; }), 0);
}

TEST(ProcessFilter, RawForkSyscallFails) {
  EXPECT_EQ(exit_code_under_filter([] { return ::syscall(SYS_fork) == -1 && errno == EPERM ? 0 : 1; }), 0);
  EXPECT_EQ(exit_code_under_filter([] { return ::syscall(SYS_vfork) == -1 && errno == EPERM ? 0 : 1; }), 0);
}

TEST(ProcessFilter, ExecFails) {
  EXPECT_EQ(exit_code_under_filter([] {
              char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
              ::execve("/bin/true", argv, environ);
              return errno == EPERM ? 0 : 1;
            }),
            0);
}

TEST(ProcessFilter, PosixSpawnFails) {
  EXPECT_EQ(exit_code_under_filter([] {
              pid_t pid = 0;
              char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
              return ::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ) != 0 ? 0 : 1;
            }),
            0);
}

TEST(ProcessFilter, ThreadsStillWork) {
  EXPECT_EQ(exit_code_under_filter([] {
              int value = 0;
              std::thread worker([&] { value = 42; });
              worker.join();
              return value == 42 ? 0 : 1;
            }),
            0);
}

#else

TEST(ProcessFilter, OnlyX86_64IsFiltered) {
  EXPECT_FALSE(cudalabs::forbid_new_processes());
}

#endif

}  // namespace
