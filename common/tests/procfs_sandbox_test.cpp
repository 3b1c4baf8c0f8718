// /proc under the test-process confinement (issue 27, item 3a): a confined process must not open
// /proc/self/mem, or any thread's /proc/.../task/<tid>/mem, for writing (writes through it use
// FOLL_FORCE and patch read-only pages, code included), while it can still read what CUDA reads
// there. Each check runs in a forked child confined as a test process is (the seccomp filter,
// then Landlock on its working directory), since neither can be lifted. Host-only: no GPU.
// Which files CUDA itself writes there is measured on the GPU machine by
// bench/probes/proc_write_probe.cpp.
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../src/filesystem_sandbox.hpp"
#include "../src/procfs_broker.hpp"
#include "../src/process_filter.hpp"
#include "cudalabs/confine_process.hpp"

namespace {

using cudalabs::ProcfsWrites;

int thread_id() { return static_cast<int>(::syscall(SYS_gettid)); }

// What a child found wrong, one line each; empty when every check held.
struct Findings {
  std::string text;
  void expect(bool held, const std::string& what) {
    if (!held) text += what + "\n";
  }
};

std::string errno_name(int error) {
  switch (error) {
    case 0: return "success";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EBADF: return "EBADF";
    case EIO: return "EIO";
    case EINVAL: return "EINVAL";
    default: return "errno " + std::to_string(error);
  }
}

// Opening `path` with `flags` must fail with EACCES.
void expect_refused(Findings& findings, const std::string& path, int flags) {
  // Always with a mode: a fortified open() aborts on O_CREAT without one (Ubuntu's default build).
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    findings.expect(false, path + " opened for writing");
  } else {
    findings.expect(errno == EACCES, path + ": " + errno_name(errno) + ", expected EACCES");
  }
}

bool readable(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char byte = 0;
  const bool read_one = ::read(fd, &byte, 1) == 1;
  ::close(fd);
  return read_one;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// A page of this process, made read-only (like code), and what writing through a mem file did.
struct ReadOnlyPage {
  unsigned char* page = nullptr;
  ReadOnlyPage() {
    void* mapped = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return;
    page = static_cast<unsigned char*>(mapped);
    std::memset(page, 0x5a, 4096);
    ::mprotect(page, 4096, PROT_READ);
  }
  bool intact() const { return page && page[0] == 0x5a; }
  // Writes one byte at the page through `mem_fd`: "" when the write went through.
  std::string patch_through(int mem_fd) const {
    const unsigned char byte = 0xcc;
    const ssize_t written = ::pwrite(mem_fd, &byte, 1, static_cast<off_t>(reinterpret_cast<std::uintptr_t>(page)));
    if (written == 1 && page[0] == 0xcc) return "";
    return written == 1 ? "write reported but page unchanged" : errno_name(errno);
  }
};

// A thread that lives until told to end, so that its /proc/self/task/<tid> exists meanwhile.
class ParkedThread {
 public:
  ParkedThread() : thread_([this] {
    tid_.store(thread_id());
    while (!stop_.load()) ::usleep(1000);
  }) {
    while (tid_.load() == 0) ::usleep(100);
  }
  ~ParkedThread() {
    stop_.store(true);
    thread_.join();
  }
  int tid() const { return tid_.load(); }
  pthread_t handle() { return thread_.native_handle(); }

 private:
  std::atomic<int> tid_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Brokered: a grade runner's confinement (confine_runner_process: Landlock with nothing under /proc
// writable, and the /proc comm broker's filter), its listener served by this test's process as the
// judge serves a runner's (cudalabs::ProcfsBroker).
enum class Confinement { AsBuilt, None, ThreadNames, WholeProcess, Brokered };

ProcfsWrites policy_of(Confinement how) {
  switch (how) {
    case Confinement::None: return ProcfsWrites::kNone;
    case Confinement::ThreadNames: return ProcfsWrites::kThreadNames;
    case Confinement::WholeProcess: return ProcfsWrites::kWholeProcess;
    case Confinement::Brokered: return ProcfsWrites::kNone;
    case Confinement::AsBuilt: break;
  }
  return cudalabs::default_procfs_writes();
}

// Confines this process as confine_test_process() does (the seccomp filter, then Landlock on the
// working directory), with the given /proc policy; AsBuilt calls confine_test_process() itself.
bool confine(Confinement how) {
  if (how == Confinement::AsBuilt) return cudalabs::confine_test_process() == nullptr;
  if (cudalabs::system_call_filter_supported() && !cudalabs::install_system_call_filter()) return false;
  const int scratch = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const bool confined = scratch >= 0 && cudalabs::confine_filesystem(scratch, policy_of(how)) > 0;
  if (scratch >= 0) ::close(scratch);
  return confined;
}

class ProcfsSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cudalabs::landlock_abi_version() == 0) GTEST_SKIP() << "this kernel offers no Landlock";
    if (!exists("/proc/self/mem")) GTEST_SKIP() << "no /proc here";
    std::string pattern = ::testing::TempDir() + "cudalabs_procfs_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
  }

  // What the confined children wrote goes with the test, so no run leaves a folder behind.
  void TearDown() override {
    std::error_code ignored;
    if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ignored);
  }

  // Runs `body(findings, early_thread)` in a child: one thread started before confinement, then
  // confined as `how`. Returns what the child found wrong ("" when all held).
  // Brokered: the child hands its listener over as a runner does, and `broker` serves it.
  template <class Body>
  std::string in_confined_child(Confinement how, Body body, cudalabs::ProcfsBroker* broker = nullptr) const {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return "pipe failed";
    int judge[2] = {-1, -1};
    if (how == Confinement::Brokered && ::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, judge) != 0) {
      return "socketpair failed";
    }
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      Findings findings;
      {
        ParkedThread early;  // alive when confined, as a thread CUDA started beforehand would be
        int listener = -1;
        if (::chdir(scratch_.c_str()) != 0) {
          findings.expect(false, "chdir to the scratch directory failed");
        } else if (how == Confinement::Brokered) {
          const char* refused = cudalabs::confine_runner_process(&listener);
          findings.expect(refused == nullptr, std::string("confine_runner_process: ") + (refused ? refused : ""));
          findings.expect(listener >= 0, "confine_runner_process gave no listener");
          const char hello = 'L';
          const bool sent = cudalabs::send_with_descriptor(judge[1], &hello, 1, listener);
          findings.expect(sent, "could not hand the listener over");
          if (listener >= 0) ::close(listener);
          ::close(judge[1]);
          if (refused == nullptr && listener >= 0 && sent) body(findings, early);
        } else if (!confine(how)) {
          findings.expect(false, "the kernel refused the confinement");
        } else {
          body(findings, early);
        }
      }
      const std::string& text = findings.text;
      for (std::size_t written = 0; written < text.size();) {
        const ssize_t n = ::write(pipe_fds[1], text.data() + written, text.size() - written);
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
      }
      ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string text;
    cudalabs::ProcfsBroker own_broker;
    if (how == Confinement::Brokered) {
      ::close(judge[1]);
      char hello = 0;
      int listener = -1;
      const long got = cudalabs::receive_with_descriptor(judge[0], &hello, 1, &listener);
      ::close(judge[0]);
      if (got == 1 && listener >= 0) {
        if (!(broker ? broker : &own_broker)->start(listener, child)) text += "the broker did not start\n";
      } else if (listener >= 0) {
        ::close(listener);
      }
    }
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (broker) broker->stop();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) text += "the child did not exit normally\n";
    return text;
  }

  std::string scratch_;
};

// Every name under which a thread's memory file can be reached, for the main thread, a thread
// alive when confined and one started after.
std::vector<std::string> memory_files(int early_tid, int late_tid) {
  const std::string pid = std::to_string(::getpid());
  std::vector<std::string> paths = {"/proc/self/mem", "/proc/" + pid + "/mem", "/proc/thread-self/mem"};
  for (const int tid : {static_cast<int>(::getpid()), early_tid, late_tid}) {
    const std::string t = std::to_string(tid);
    paths.push_back("/proc/self/task/" + t + "/mem");
    paths.push_back("/proc/" + pid + "/task/" + t + "/mem");
    paths.push_back("/proc/" + t + "/mem");  // a thread's own /proc/<tid>, not listed in /proc
  }
  return paths;
}

// The checks every policy but kWholeProcess must pass.
void check_memory_files_refused(Findings& findings, ParkedThread& early) {
  ParkedThread late;  // started after confinement, like every thread CUDA starts
  for (const std::string& path : memory_files(early.tid(), late.tid())) {
    for (const int flags : {O_RDWR, O_WRONLY, O_WRONLY | O_TRUNC}) expect_refused(findings, path, flags);
  }
  // Through the one mem descriptor the policy does let it open (read-only), no write lands.
  const ReadOnlyPage page;
  findings.expect(page.intact(), "could not map a read-only page");
  const int reading = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  findings.expect(reading >= 0, "/proc/self/mem is no longer readable: " + errno_name(errno));
  if (reading >= 0) {
    findings.expect(!page.patch_through(reading).empty(), "a read-only mem descriptor wrote into a read-only page");
    ::close(reading);
  }
  findings.expect(page.intact(), "the read-only page was changed");
}

// What CUDA (and the C library, the harness) read under /proc, /sys and /dev stays readable.
void check_reads_still_work(Findings& findings, ParkedThread& early) {
  const std::string self = "/proc/self/";
  for (const char* name : {"maps", "smaps", "status", "stat", "statm", "cmdline", "mountinfo", "limits", "auxv",
                           "environ", "cgroup", "comm"}) {
    findings.expect(readable(self + name), self + name + " is not readable");
  }
  const std::string early_task = "/proc/self/task/" + std::to_string(early.tid()) + "/";
  for (const char* name : {"stat", "status", "comm"}) {
    findings.expect(readable(early_task + name), early_task + name + " is not readable");
  }
  for (const char* path : {"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/modules",
                           "/proc/driver/nvidia/params", "/proc/driver/nvidia/version", "/sys/devices/system/cpu/online",
                           "/sys/devices/system/node/online", "/dev/urandom"}) {
    if (exists(path)) findings.expect(readable(path), std::string(path) + " is not readable");
  }
  char target[256];
  findings.expect(::readlink("/proc/self/exe", target, sizeof target) > 0, "readlink /proc/self/exe failed");
  findings.expect(::readlink("/proc/self/fd/0", target, sizeof target) > 0 || errno == ENOENT,
                  "readlink /proc/self/fd/0 failed");
  const int tasks = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  findings.expect(tasks >= 0, "/proc/self/task cannot be listed");
  if (tasks >= 0) ::close(tasks);
  // The reading side of /proc/self/mem (a debugger's view of its own memory) is not refused.
  const ReadOnlyPage page;
  const int mem = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  unsigned char byte = 0;
  findings.expect(mem >= 0 && ::pread(mem, &byte, 1, static_cast<off_t>(reinterpret_cast<std::uintptr_t>(page.page))) == 1 &&
                      byte == 0x5a,
                  "/proc/self/mem cannot be read");
  if (mem >= 0) ::close(mem);
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  findings.expect(null >= 0 && ::write(null, "x", 1) == 1, "/dev/null is not writable");
  if (null >= 0) ::close(null);
}

// The other knobs of /proc/self, and other processes' files, stay read-only.
void check_other_proc_files_refused(Findings& findings) {
  for (const char* name : {"oom_score_adj", "coredump_filter", "clear_refs", "timerslack_ns"}) {
    const std::string path = std::string("/proc/self/") + name;
    if (exists(path)) expect_refused(findings, path, O_WRONLY);
  }
  expect_refused(findings, "/proc/" + std::to_string(::getppid()) + "/comm", O_WRONLY);
}

// Whether `path` can be opened as CUDA's driver opens a thread's name (fopen "w") and written.
std::string rename_through(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_name(errno);
  const bool written = ::write(fd, "probe", 5) == 5;
  ::close(fd);
  return written ? "" : "write failed";
}

TEST_F(ProcfsSandbox, NoMemFileIsWritableWithoutProcWrites) {
  EXPECT_EQ(in_confined_child(Confinement::None,
                              [](Findings& findings, ParkedThread& early) {
                                check_memory_files_refused(findings, early);
                                check_reads_still_work(findings, early);
                                check_other_proc_files_refused(findings);
                                // No thread name either, but a thread still renames itself (prctl).
                                const std::string main_comm = "/proc/self/task/" + std::to_string(::getpid()) + "/comm";
                                findings.expect(rename_through(main_comm) == "EACCES", main_comm + " was writable");
                                findings.expect(::pthread_setname_np(::pthread_self(), "self-named") == 0,
                                                "a thread could not rename itself");
                              }),
            "");
}

TEST_F(ProcfsSandbox, ThreadNamesPolicyWritesNamesOfThreadsAliveWhenConfinedOnly) {
  EXPECT_EQ(in_confined_child(Confinement::ThreadNames,
                              [](Findings& findings, ParkedThread& early) {
                                check_memory_files_refused(findings, early);
                                check_reads_still_work(findings, early);
                                check_other_proc_files_refused(findings);
                                const std::string task = "/proc/self/task/";
                                for (const int tid : {static_cast<int>(::getpid()), early.tid()}) {
                                  const std::string comm = task + std::to_string(tid) + "/comm";
                                  findings.expect(rename_through(comm).empty(), comm + ": " + rename_through(comm));
                                }
                                findings.expect(rename_through("/proc/self/comm").empty(), "/proc/self/comm not writable");
                                findings.expect(::pthread_setname_np(early.handle(), "renamed") == 0,
                                                "pthread_setname_np of a thread alive when confined failed");
                                // The limit Landlock sets: a thread started later has no grant.
                                ParkedThread late;
                                const std::string late_comm = task + std::to_string(late.tid()) + "/comm";
                                findings.expect(rename_through(late_comm) == "EACCES", late_comm + " was writable");
                                findings.expect(::pthread_setname_np(late.handle(), "late") == EACCES,
                                                "pthread_setname_np of a later thread did not fail with EACCES");
                                findings.expect(::pthread_setname_np(::pthread_self(), "self-named") == 0,
                                                "a thread could not rename itself");
                              }),
            "");
}

TEST_F(ProcfsSandbox, TestProcessAsBuiltCannotWriteItsMemory) {
  if (cudalabs::procfs_memory_writable(cudalabs::default_procfs_writes())) {
    GTEST_SKIP() << "this build confines test processes with ProcfsWrites::kWholeProcess: /proc/self/mem stays "
                    "writable (see common/src/filesystem_sandbox.cpp; rebuild with -DCUDALABS_PROCFS_WRITES=kNone "
                    "or kThreadNames once bench/probes/proc_write_probe shows CUDA runs under it)";
  }
  EXPECT_EQ(in_confined_child(Confinement::AsBuilt,
                              [](Findings& findings, ParkedThread& early) {
                                check_memory_files_refused(findings, early);
                                check_reads_still_work(findings, early);
                                check_other_proc_files_refused(findings);
                              }),
            "");
}

// A /proc grant names an inode, and procfs makes a new one when a dropped dentry is looked up
// again: the confinement keeps the granted entries open so that its grants outlive the kernel
// dropping its dentry cache (memory pressure; here drop_caches, which needs root).
TEST_F(ProcfsSandbox, GrantsOutliveTheKernelDroppingProcDentries) {
  const int drop = ::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (drop < 0) GTEST_SKIP() << "dropping the dentry cache needs root (writable /proc/sys/vm/drop_caches)";
  for (const Confinement how : {Confinement::ThreadNames, Confinement::WholeProcess}) {
    int confined[2], dropped[2];
    ASSERT_EQ(::pipe(confined), 0);
    ASSERT_EQ(::pipe(dropped), 0);
    const pid_t child = ::fork();
    if (child == 0) {
      char byte = 0;
      if (::chdir(scratch_.c_str()) != 0 || !confine(how)) ::_exit(2);
      if (::write(confined[1], "c", 1) != 1 || ::read(dropped[0], &byte, 1) != 1) ::_exit(3);
      const std::string comm = "/proc/self/task/" + std::to_string(::getpid()) + "/comm";
      ::_exit(rename_through(comm).empty() ? 0 : 1);
    }
    char byte = 0;
    ASSERT_EQ(::read(confined[0], &byte, 1), 1);
    for (int i = 0; i < 5; ++i) {  // parents are freed only once their children are: several passes
      ASSERT_EQ(::pwrite(drop, "2", 1, 0), 1);
      ::usleep(100'000);
    }
    ASSERT_EQ(::write(dropped[1], "d", 1), 1);
    int status = 0;
    ::waitpid(child, &status, 0);
    for (const int fd : {confined[0], confined[1], dropped[0], dropped[1]}) ::close(fd);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "policy " << static_cast<int>(how) << ": the main thread's comm lost its grant (exit "
        << (WIFEXITED(status) ? WEXITSTATUS(status) : -1) << ")";
  }
  ::close(drop);
}

// Characterisation of the policy kept for drivers that need it, so that procfs_memory_writable
// stays true to it: under kWholeProcess the read-only page is patched through /proc/self/mem.
TEST_F(ProcfsSandbox, WholeProcessPolicyLeavesMemWritable) {
  EXPECT_EQ(in_confined_child(Confinement::WholeProcess,
                              [](Findings& findings, ParkedThread& early) {
                                check_reads_still_work(findings, early);
                                const ReadOnlyPage page;
                                const int mem = ::open("/proc/self/mem", O_RDWR | O_CLOEXEC);
                                findings.expect(mem >= 0, "/proc/self/mem was refused under kWholeProcess");
                                if (mem < 0) return;
                                const std::string patched = page.patch_through(mem);
                                findings.expect(patched.empty() || patched == "EIO",  // EIO: proc_mem.force_override=never
                                                "writing through /proc/self/mem: " + patched);
                                ::close(mem);
                              }),
            "");
  EXPECT_TRUE(cudalabs::procfs_memory_writable(ProcfsWrites::kWholeProcess));
  EXPECT_FALSE(cudalabs::procfs_memory_writable(ProcfsWrites::kNone));
  EXPECT_FALSE(cudalabs::procfs_memory_writable(ProcfsWrites::kThreadNames));
}

// The control: unconfined, the same write goes through (FOLL_FORCE), so the refusals above are
// the sandbox's doing and the page check would see a patch.
TEST(ProcfsSandboxControl, UnconfinedProcessCanPatchAReadOnlyPageThroughMem) {
  const pid_t child = ::fork();
  if (child == 0) {
    const ReadOnlyPage page;
    const int mem = ::open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (mem < 0) ::_exit(2);
    const std::string patched = page.patch_through(mem);
    ::_exit(patched.empty() ? 0 : patched == "EIO" ? 3 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "this kernel refuses forced writes through mem (proc_mem.force_override)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: /proc/self/mem not openable; 1: the write did not land";
}


// ---- the /proc comm broker (grade runners; common/src/procfs_broker.hpp) ------------------------

std::string read_name(const std::string& comm) {
  const int fd = ::open(comm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "(unreadable: " + errno_name(errno) + ")";
  char name[64] = {};
  const ssize_t n = ::read(fd, name, sizeof name - 1);
  ::close(fd);
  std::string text(name, n > 0 ? static_cast<std::size_t>(n) : 0);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// What the descriptor `fd` of this process is open on.
std::string target_of(int fd) {
  char target[256] = {};
  const ssize_t n = ::readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "?";
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

class ProcfsBrokerTest : public ProcfsSandbox {
 protected:
  void SetUp() override {
    ProcfsSandbox::SetUp();
    if (IsSkipped()) return;
    if (const char* why = cudalabs::procfs_broker_unavailable()) GTEST_SKIP() << "no /proc comm broker here: " << why;
  }
};

TEST(ProcfsBrokerRule, OpensOnlyTheNamesOfTheRunnersThreads) {
  using cudalabs::thread_named_by;
  const pid_t tgid = 4242, caller = 4250;
  EXPECT_EQ(thread_named_by("/proc/self/task/4250/comm", tgid, caller), 4250);
  EXPECT_EQ(thread_named_by("/proc/self/task/77/comm", tgid, caller), 77);  // whose: decided when opened
  EXPECT_EQ(thread_named_by("/proc/4242/task/4251/comm", tgid, caller), 4251);
  EXPECT_EQ(thread_named_by("/proc/thread-self/comm", tgid, caller), caller);
  EXPECT_EQ(thread_named_by("/proc/self/comm", tgid, caller), tgid);
  EXPECT_EQ(thread_named_by("/proc/4242/comm", tgid, caller), tgid);
  for (const char* other :
       {"/proc/self/mem", "/proc/self/task/4250/mem", "/proc/thread-self/mem", "/proc/4242/mem", "/proc/4243/comm",
        "/proc/4243/task/4243/comm", "/proc/self/task/4250/comm/", "/proc/self/task/4250/../4250/mem",
        "/proc/self/task/4250/./comm", "/proc/self//task/4250/comm", "//proc/self/comm", "/proc/self/task/04250/comm",
        "/proc/self/task/+4250/comm", "/proc/self/task//comm", "/proc/self/task/4250/commx", "/proc/self/task/4250",
        "/proc/self/task/99999999999/comm", "/proc/self/task/0/comm", "proc/self/comm", "comm", "/proc/04242/comm",
        "/proc/thread-self/comm/../mem", "/proc/self/attr/current", "/tmp/comm", ""}) {
    EXPECT_EQ(thread_named_by(other, tgid, caller), 0) << other;
  }
}

// (a) A brokered runner names the threads it starts after confinement, as the CUDA driver does.
TEST_F(ProcfsBrokerTest, RunnerNamesThreadsStartedAfterConfinement) {
  cudalabs::ProcfsBroker broker;
  EXPECT_EQ(in_confined_child(
                Confinement::Brokered,
                [](Findings& findings, ParkedThread& early) {
                  ParkedThread late;
                  const std::string pid = std::to_string(::getpid());
                  const std::string late_comm = "/proc/self/task/" + std::to_string(late.tid()) + "/comm";
                  // glibc: open("/proc/self/task/<tid>/comm", O_RDWR), then write
                  findings.expect(::pthread_setname_np(late.handle(), "late-named") == 0,
                                  "pthread_setname_np of a thread started after confinement failed");
                  findings.expect(read_name(late_comm) == "late-named", late_comm + " reads " + read_name(late_comm));
                  // the driver: fopen(..., "w") = O_WRONLY | O_CREAT | O_TRUNC
                  if (FILE* file = std::fopen(late_comm.c_str(), "w")) {
                    std::fputs("driver-named", file);
                    findings.expect(std::fclose(file) == 0, "writing " + late_comm + " through fopen failed");
                    findings.expect(read_name(late_comm) == "driver-named", late_comm + " reads " + read_name(late_comm));
                  } else {
                    findings.expect(false, "fopen " + late_comm + " \"w\": " + errno_name(errno));
                  }
                  const std::string by_number = "/proc/" + pid + "/task/" + std::to_string(late.tid()) + "/comm";
                  findings.expect(rename_through(by_number).empty(), by_number + ": " + rename_through(by_number));
                  findings.expect(::pthread_setname_np(early.handle(), "early-named") == 0,
                                  "pthread_setname_np of a thread alive when confined failed");
                  for (const char* own : {"/proc/thread-self/comm", "/proc/self/comm"}) {
                    findings.expect(rename_through(own).empty(), std::string(own) + ": " + rename_through(own));
                  }
                  findings.expect(read_name("/proc/self/comm") == "probe", "/proc/self/comm reads " + read_name("/proc/self/comm"));
                  // A descriptor the broker opened is a comm file, nothing more: reopened through
                  // /proc/self/fd for reading and writing, Landlock decides (refused).
                  const int named = ::open(late_comm.c_str(), O_WRONLY | O_CLOEXEC);
                  findings.expect(named >= 0 && ends_with(target_of(named), "/comm"), "the broker's descriptor is not a comm file");
                  if (named >= 0) {
                    expect_refused(findings, "/proc/self/fd/" + std::to_string(named), O_RDWR);
                    ::close(named);
                  }
                  // A name of no thread of this process.
                  const int none = ::open("/proc/self/task/1/comm", O_WRONLY | O_CLOEXEC);
                  findings.expect(none < 0 && errno == ENOENT, "/proc/self/task/1/comm: expected ENOENT");
                  if (none >= 0) ::close(none);
                  check_reads_still_work(findings, early);  // (c)
                },
                &broker),
            "");
  EXPECT_GE(broker.granted(), 6u) << "the judge's side opened fewer thread names than asked";
}

// (b) Whatever path reaches a memory file, a brokered runner cannot open one for writing.
TEST_F(ProcfsBrokerTest, RunnerCannotOpenAnyMemFileForWriting) {
  EXPECT_EQ(in_confined_child(Confinement::Brokered,
                              [](Findings& findings, ParkedThread& early) {
                                check_memory_files_refused(findings, early);
                                check_other_proc_files_refused(findings);
                                ParkedThread late;
                                const std::string task = "/proc/self/task/" + std::to_string(late.tid());
                                for (const std::string& trick :
                                     {task + "/../" + std::to_string(late.tid()) + "/mem", task + "/./mem",
                                      std::string("//proc/self/mem"), std::string("/proc/self/./mem"),
                                      std::string("/proc/thread-self/../../mem"),
                                      "/proc/self/task/" + std::to_string(::getpid()) + "/mem"}) {
                                  expect_refused(findings, trick, O_RDWR);
                                  expect_refused(findings, trick, O_WRONLY | O_CREAT | O_TRUNC);
                                }
                                // Relative forms are not brokered: Landlock decides, comm included.
                                const int dir = ::open(task.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
                                findings.expect(dir >= 0, task + " cannot be opened (O_PATH)");
                                for (const char* name : {"mem", "comm"}) {
                                  const int fd = ::openat(dir, name, O_RDWR | O_CLOEXEC);
                                  findings.expect(fd < 0 && errno == EACCES,
                                                  std::string("openat(") + task + ", " + name + ") was not refused");
                                  if (fd >= 0) ::close(fd);
                                }
                                if (dir >= 0) ::close(dir);
                                // creat(2) and openat2(2) (ENOSYS: the C library falls back).
                                const long created = ::syscall(SYS_creat, "/proc/self/mem", 0600);
                                findings.expect(created < 0 && errno == EACCES, "creat(/proc/self/mem) was not refused");
                                if (created >= 0) ::close(static_cast<int>(created));
                                struct {
                                  std::uint64_t flags, mode, resolve;
                                } how{O_RDWR, 0, 0};
                                const long opened2 = ::syscall(437, AT_FDCWD, "/proc/self/mem", &how, sizeof how);
                                findings.expect(opened2 < 0 && errno == ENOSYS, "openat2 did not answer ENOSYS");
                                if (opened2 >= 0) ::close(static_cast<int>(opened2));
                                // Writing beneath the scratch directory still works (let through).
                                const int scratch = ::open("written", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                                findings.expect(scratch >= 0 && ::write(scratch, "x", 1) == 1, "the scratch directory is not writable");
                                if (scratch >= 0) ::close(scratch);
                                const int outside = ::open("/tmp/cudalabs_broker_outside", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                                findings.expect(outside < 0 && errno == EACCES, "a file outside the scratch directory was created");
                                if (outside >= 0) ::close(outside);
                              }),
            "");
}

// (b) A path flipped between a thread name and a memory file while the broker reads it: the broker
// either opens the name itself or lets Landlock decide, so no open ever returns a mem descriptor.
TEST_F(ProcfsBrokerTest, PathSwappedWhileCheckedNeverOpensAMemFile) {
  EXPECT_EQ(in_confined_child(
                Confinement::Brokered,
                [](Findings& findings, ParkedThread&) {
                  ParkedThread late;
                  const ReadOnlyPage page;
                  for (const std::string& prefix :
                       {"/proc/self/task/" + std::to_string(late.tid()) + "/", std::string("/proc/thread-self/")}) {
                    // The last component, "comm" <-> "mem\0", flipped whole by one aligned 4-byte store.
                    alignas(8) char buffer[128] = {};
                    char* const path = buffer + (4 - prefix.size() % 4) % 4;
                    std::snprintf(path, 96, "%scomm", prefix.c_str());
                    auto* const name = reinterpret_cast<std::uint32_t*>(path + prefix.size());
                    std::uint32_t comm_word = 0, mem_word = 0;
                    std::memcpy(&comm_word, "comm", 4);
                    std::memcpy(&mem_word, "mem", 4);
                    std::atomic<bool> stop{false};
                    std::thread flipper([&] {
                      for (bool mem = false; !stop.load(std::memory_order_relaxed); mem = !mem) {
                        __atomic_store_n(name, mem ? mem_word : comm_word, __ATOMIC_RELAXED);
                      }
                    });
                    int names = 0, refused = 0, tries = 0;
                    for (; tries < 20000 && (tries < 2000 || names == 0 || refused == 0); ++tries) {
                      const int fd = ::open(path, O_RDWR | O_CLOEXEC);
                      if (fd < 0) {
                        // ENOENT too: the kernel copies the path a word at a time, so a copy made
                        // mid-flip can mix "comm" and "mem" into a name that does not exist.
                        findings.expect(errno == EACCES || errno == ENOENT,
                                        prefix + ": " + errno_name(errno) + ", expected EACCES (or ENOENT)");
                        ++refused;
                        continue;
                      }
                      const std::string target = target_of(fd);
                      if (ends_with(target, "/comm")) {
                        ++names;
                      } else {
                        findings.expect(false, prefix + ": a swapped path opened " + target + " for writing");
                        findings.expect(page.patch_through(fd) != "", "and patched a read-only page through it");
                      }
                      ::close(fd);
                    }
                    stop.store(true);
                    flipper.join();
                    findings.expect(names > 0 && refused > 0, prefix + ": the race never went both ways (" +
                                                                  std::to_string(names) + " names, " +
                                                                  std::to_string(refused) + " refusals in " +
                                                                  std::to_string(tries) + " tries)");
                  }
                  findings.expect(page.intact(), "the read-only page was changed");
                }),
            "");
}

// A child that installs the broker's filter, sends its listener over `socket` (as a runner does
// from .preinit_array), then exits with what `rest` returns.
template <typename Rest>
pid_t fork_filtered_child(int socket, Rest rest) {
  const pid_t child = ::fork();
  if (child != 0) return child;
  const int listener = cudalabs::install_procfs_broker_filter();
  const char hello = 'L';
  if (listener < 0 || !cudalabs::send_with_descriptor(socket, &hello, 1, listener)) ::_exit(2);
  ::close(listener);
  ::_exit(rest());
}

// (c) Read-only opens never wait for the judge: the filter notifies only opens that write,
// create or truncate. Here nobody serves the listener until the child has read.
TEST_F(ProcfsBrokerTest, OnlyOpensForWritingReachTheJudge) {
  int sockets[2], go[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets), 0);
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = fork_filtered_child(sockets[1], [&] {
    for (const char* path : {"/proc/self/maps", "/proc/self/status", "/proc/self/mem", "/proc/self/comm", "/etc/passwd"}) {
      const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) return 3;
      ::close(fd);
    }
    const int path_only = ::open("/proc/self/mem", O_PATH | O_CLOEXEC);
    const int dir = ::openat(AT_FDCWD, "/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (path_only < 0 || dir < 0) return 4;
    char byte = 0;
    if (::write(sockets[1], "r", 1) != 1 || ::read(go[0], &byte, 1) != 1) return 5;
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);  // waits for the judge's answer
    return null >= 0 ? 0 : 6;
  });
  ::close(go[0]);
  char message = 0;
  int listener = -1;
  ASSERT_EQ(cudalabs::receive_with_descriptor(sockets[0], &message, 1, &listener), 1);
  ASSERT_GE(listener, 0);
  pollfd ready{sockets[0], POLLIN, 0};
  ASSERT_EQ(::poll(&ready, 1, 10'000), 1) << "read-only opens waited for the judge";
  ASSERT_EQ(::read(sockets[0], &message, 1), 1);
  EXPECT_EQ(message, 'r');
  pollfd pending{listener, POLLIN, 0};
  EXPECT_EQ(::poll(&pending, 1, 0), 0) << "a read-only open was sent to the judge";
  ASSERT_EQ(::write(go[1], "g", 1), 1);
  EXPECT_EQ(::poll(&pending, 1, 10'000), 1) << "an open for writing did not reach the judge";
  bool granted = true;
  EXPECT_TRUE(cudalabs::serve_procfs_notification(listener, child, &granted));
  EXPECT_FALSE(granted) << "/dev/null is not a thread name";
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "exit " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  for (const int fd : {listener, sockets[0], sockets[1], go[1]}) ::close(fd);
}

// The judge's side ends cleanly: its thread stops when told, and on its own once the runner is gone.
TEST_F(ProcfsBrokerTest, BrokerStopsWhenTheRunnerEnds) {
  int sockets[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets), 0);
  const pid_t child = fork_filtered_child(sockets[1], [&] {
    char byte = 0;
    static_cast<void>(::read(sockets[1], &byte, 1));
    return 0;
  });
  char message = 0;
  int listener = -1;
  ASSERT_EQ(cudalabs::receive_with_descriptor(sockets[0], &message, 1, &listener), 1);
  cudalabs::ProcfsBroker broker;
  ASSERT_TRUE(broker.start(listener, child));
  EXPECT_TRUE(broker.running());
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  broker.stop();  // joins: would hang if the thread were stuck in the listener
  EXPECT_FALSE(broker.running());
  ::close(sockets[0]);
  ::close(sockets[1]);
}

}  // namespace
