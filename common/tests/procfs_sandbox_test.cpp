// /proc under the test-process confinement (issue 27, item 3a): a confined process must not open
// /proc/self/mem, or any thread's /proc/.../task/<tid>/mem, for writing (writes through it use
// FOLL_FORCE and patch read-only pages, code included), while it can still read what CUDA reads
// there. Each check runs in a forked child confined as a test process is (the seccomp filter,
// then Landlock on its working directory), since neither can be lifted. Host-only: no GPU.
// Which files CUDA itself writes there is measured on the GPU machine by
// bench/probes/proc_write_probe.cpp.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../src/filesystem_sandbox.hpp"
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
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
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

enum class Confinement { AsBuilt, None, ThreadNames, WholeProcess };

ProcfsWrites policy_of(Confinement how) {
  switch (how) {
    case Confinement::None: return ProcfsWrites::kNone;
    case Confinement::ThreadNames: return ProcfsWrites::kThreadNames;
    case Confinement::WholeProcess: return ProcfsWrites::kWholeProcess;
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

  // Runs `body(findings, early_thread)` in a child: one thread started before confinement, then
  // confined as `how`. Returns what the child found wrong ("" when all held).
  template <class Body>
  std::string in_confined_child(Confinement how, Body body) const {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      Findings findings;
      {
        ParkedThread early;  // alive when confined, as a thread CUDA started beforehand would be
        if (::chdir(scratch_.c_str()) != 0) {
          findings.expect(false, "chdir to the scratch directory failed");
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
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
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

}  // namespace
