// The harness's confinement, checked in forked children (neither the seccomp filter nor the
// Landlock domain can be removed, so the test process itself must never install them): no fork,
// vfork, exec or clone of a process by any route, no ptrace or process_vm_*, no network sockets,
// no writes outside the scratch directory, while threads keep working.
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "../src/filesystem_sandbox.hpp"
#include "../src/process_filter.hpp"

extern char** environ;

namespace {

// Runs `body` in a child with the filter installed and returns the child's exit code.
template <class Body>
int exit_code_under_filter(Body body) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (!cudalabs::install_system_call_filter()) ::_exit(100);
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

// A runner's CPUs are the judge's choice (cpu_partition.hpp): no call that widens them, moves a
// thread elsewhere or raises it above the reference's, by glibc's wrappers or raw calls; reading
// them still works (CUDA and the C++ library ask how many CPUs they have).
TEST(ProcessFilter, SchedulingStaysAsTheJudgeSetIt) {
  EXPECT_EQ(exit_code_under_filter([] {
              cpu_set_t set;
              if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
              if (::sched_setaffinity(0, sizeof set, &set) != -1 || errno != EPERM) return 2;
              std::thread other([&] {
                const bool refused = ::pthread_setaffinity_np(pthread_self(), sizeof set, &set) == EPERM;
                if (!refused) std::abort();
              });
              other.join();
              sched_param param{};
              if (::sched_setscheduler(0, SCHED_BATCH, &param) != -1 || errno != EPERM) return 3;
              if (::sched_setparam(0, &param) != -1 || errno != EPERM) return 4;
              if (::syscall(SYS_sched_setattr, 0, nullptr, 0) != -1 || errno != EPERM) return 5;
              if (::setpriority(PRIO_PROCESS, 0, 5) != -1 || errno != EPERM) return 6;
              if (::syscall(SYS_sched_setaffinity, 0, sizeof set, &set) != -1 || errno != EPERM) return 7;
              return std::thread::hardware_concurrency() > 0 ? 0 : 8;
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

TEST(ProcessFilter, PtraceAndProcessVmFail) {
  EXPECT_EQ(exit_code_under_filter([] {
              return ::ptrace(PTRACE_ATTACH, ::getppid(), nullptr, nullptr) == -1 && errno == EPERM ? 0 : 1;
            }),
            0);
  EXPECT_EQ(exit_code_under_filter([] {
              char buffer[16];
              iovec local{buffer, sizeof buffer}, remote{buffer, sizeof buffer};
              return ::process_vm_readv(::getppid(), &local, 1, &remote, 1, 0) == -1 && errno == EPERM ? 0 : 1;
            }),
            0);
  EXPECT_EQ(exit_code_under_filter([] {
              char buffer[16];
              iovec local{buffer, sizeof buffer}, remote{buffer, sizeof buffer};
              return ::syscall(SYS_process_vm_writev, ::getppid(), &local, 1, &remote, 1, 0) == -1 && errno == EPERM ? 0
                                                                                                                  : 1;
            }),
            0);
}

TEST(ProcessFilter, NetworkSocketsFailUnixSocketsWork) {
  EXPECT_EQ(exit_code_under_filter([] { return ::socket(AF_INET, SOCK_STREAM, 0) == -1 && errno == EPERM ? 0 : 1; }), 0);
  EXPECT_EQ(exit_code_under_filter([] { return ::syscall(SYS_socket, AF_INET6, SOCK_DGRAM, 0) == -1 ? 0 : 1; }), 0);
  EXPECT_EQ(exit_code_under_filter([] {
              int pair[2];
              return ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 ? 0 : 1;
            }),
            0);
}

TEST(ProcessFilter, IoUringIsRefused) {  // its operations would not pass through the filter
  EXPECT_EQ(exit_code_under_filter([] { return ::syscall(425, 8, nullptr) == -1 && errno == EPERM ? 0 : 1; }), 0);
}

#else

TEST(ProcessFilter, OnlyX86_64IsFiltered) {
  EXPECT_FALSE(cudalabs::install_system_call_filter());
}

#endif

// ---- the file-system sandbox (Landlock) --------------------------------------------------------

class FilesystemSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cudalabs::landlock_abi_version() == 0) GTEST_SKIP() << "this kernel offers no Landlock";
    scratch_ = make_dir("scratch");
    outside_ = make_dir("outside");
    existing_ = outside_ + "/course.yaml";
    const int fd = ::open(existing_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "lab: x\n", 7), 7);
    ::close(fd);
  }

  // What the confined children wrote goes with the test, so no run leaves a folder behind.
  void TearDown() override {
    std::error_code ignored;
    for (const std::string& dir : {scratch_, outside_}) {
      if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
  }

  static std::string make_dir(const char* name) {
    std::string pattern = ::testing::TempDir() + "cudalabs_sandbox_" + name + "_XXXXXX";
    return ::mkdtemp(pattern.data()) ? pattern : "";
  }

  // Runs `body` in a child confined as a test process is (filter and sandbox, scratch = its
  // working directory) and returns its exit code.
  template <class Body>
  int confined(Body body) const {
    const std::string scratch = scratch_;
    const pid_t child = ::fork();
    if (child == 0) {
      if (::chdir(scratch.c_str()) != 0) ::_exit(101);
      const int dir = ::open(".", O_PATH | O_DIRECTORY);
      if (cudalabs::confine_filesystem(dir) <= 0) ::_exit(102);
      ::close(dir);
      ::_exit(body());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }

  std::string scratch_, outside_, existing_;
};

TEST_F(FilesystemSandbox, WritesInsideTheScratchDirectory) {
  EXPECT_EQ(confined([] {
              const int fd = ::open("result.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
              if (fd < 0 || ::write(fd, "ok", 2) != 2) return 1;
              ::close(fd);
              if (::mkdir("sub", 0755) != 0 || ::rename("result.txt", "sub/moved.txt") != 0) return 2;
              return ::unlink("sub/moved.txt") == 0 ? 0 : 3;
            }),
            0);
}

TEST_F(FilesystemSandbox, CannotCreateAFileOutsideItsDirectoryByAnyCall) {
  const std::string target = outside_ + "/pwned";
  EXPECT_EQ(confined([&] {
              const bool libc = ::open(target.c_str(), O_WRONLY | O_CREAT, 0644) == -1 && errno == EACCES;
              const bool raw = ::syscall(SYS_openat, AT_FDCWD, target.c_str(), O_WRONLY | O_CREAT, 0644) == -1 &&
                               errno == EACCES;
              const bool dir = ::mkdir((target + "_dir").c_str(), 0755) == -1 && errno == EACCES;
              return libc && raw && dir ? 0 : 1;
            }),
            0);
  struct stat info {};
  EXPECT_NE(::stat(target.c_str(), &info), 0) << "the file was created";
}

TEST_F(FilesystemSandbox, CanReadButNotWriteTheCourseFiles) {
  EXPECT_EQ(confined([&] {
              const int reading = ::open(existing_.c_str(), O_RDONLY);
              if (reading < 0) return 1;
              ::close(reading);
              if (::open(existing_.c_str(), O_WRONLY) != -1 || errno != EACCES) return 2;
              if (::open(existing_.c_str(), O_RDWR | O_APPEND) != -1 || errno != EACCES) return 3;
              if (::truncate(existing_.c_str(), 0) == 0) return 4;
              if (::unlink(existing_.c_str()) == 0) return 5;
              return ::rename(existing_.c_str(), "stolen.yaml") == 0 ? 6 : 0;
            }),
            0);
}

TEST_F(FilesystemSandbox, DevNullStaysWritable) {
  EXPECT_EQ(confined([] {
              const int fd = ::open("/dev/null", O_WRONLY);
              return fd >= 0 && ::write(fd, "x", 1) == 1 ? 0 : 1;
            }),
            0);
}

TEST_F(FilesystemSandbox, TcpConnectIsRefusedFromAbi4) {
  if (cudalabs::landlock_abi_version() < 4) GTEST_SKIP() << "Landlock ABI < 4: no network rules";
  EXPECT_EQ(confined([] {
              const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
              if (fd < 0) return 1;
              sockaddr_in address{};
              address.sin_family = AF_INET;
              address.sin_port = htons(9);
              address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
              return ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == -1 && errno == EACCES ? 0
                                                                                                                    : 2;
            }),
            0);
}

TEST_F(FilesystemSandbox, ThreadsStillWork) {
  EXPECT_EQ(confined([] {
              int value = 0;
              std::thread worker([&] {
                const int fd = ::open("from_thread.txt", O_WRONLY | O_CREAT, 0644);
                value = fd >= 0 ? 42 : 1;
              });
              worker.join();
              return value == 42 ? 0 : 1;
            }),
            0);
}

}  // namespace
