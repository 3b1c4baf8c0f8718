#include "filesystem_sandbox.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace cudalabs {
namespace {

// The kernel's Landlock interface (include/uapi/linux/landlock.h), spelled out here so that the
// build does not depend on how recent the machine's kernel headers are: a harness built against
// old headers still uses every right the running kernel offers.
constexpr long kCreateRuleset = 444, kAddRule = 445, kRestrictSelf = 446;  // same number on every architecture
constexpr unsigned kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI >= 4
  std::uint64_t scoped;              // ABI >= 6
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

enum : std::uint64_t {
  kExecute = 1ull << 0,
  kWriteFile = 1ull << 1,
  kReadFile = 1ull << 2,
  kReadDir = 1ull << 3,
  kRemoveDir = 1ull << 4,
  kRemoveFile = 1ull << 5,
  kMakeChar = 1ull << 6,
  kMakeDir = 1ull << 7,
  kMakeReg = 1ull << 8,
  kMakeSock = 1ull << 9,
  kMakeFifo = 1ull << 10,
  kMakeBlock = 1ull << 11,
  kMakeSym = 1ull << 12,
  kRefer = 1ull << 13,     // ABI >= 2
  kTruncate = 1ull << 14,  // ABI >= 3
  kIoctlDev = 1ull << 15,  // ABI >= 5
};
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;               // ABI >= 4
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;  // ABI >= 6

// Every file-system right a kernel of this ABI knows: all of them are refused unless granted.
std::uint64_t known_fs_rights(int abi) {
  std::uint64_t rights = (1ull << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

// What each kind of grant allows (masked by what the kernel knows, so older ABIs still work).
enum class Grant { Read, Device, OwnProcessTree, OwnProcessFile, Scratch };

std::uint64_t rights_of(Grant grant, int abi) {
  const std::uint64_t known = known_fs_rights(abi);
  switch (grant) {
    case Grant::Read:  // execute: mapping code needs only read; exec itself is refused by seccomp
      return (kReadFile | kReadDir | kExecute) & known;
    case Grant::Device:  // open existing device files read-write (also with O_TRUNC) and drive them
      return (kReadFile | kReadDir | kWriteFile | kTruncate | kIoctlDev | kExecute) & known;
    case Grant::OwnProcessTree:  // ProcfsWrites::kWholeProcess: everything beneath /proc/<pid>
      return (kReadFile | kReadDir | kWriteFile | kTruncate) & known;
    case Grant::OwnProcessFile:  // one existing file (a rule on a file takes only file rights)
      return (kReadFile | kWriteFile | kTruncate) & known;
    case Grant::Scratch:
      return known;
  }
  return 0;
}

struct PathRule {
  const char* path;
  Grant grant;
};

// The one table to adjust. A path that does not exist on this machine is skipped. The scratch
// directory (the test's working directory, given by labgrade) is added with Grant::Scratch, and
// /proc as the ProcfsWrites policy says (confine_procfs below).
constexpr PathRule kPathRules[] = {
    // Libraries (also under /usr/local/cuda or /opt), /proc, /sys, /etc, the lab's YAML, the harness.
    {"/", Grant::Read},
    // /dev/nvidiactl, /dev/nvidia<N>, /dev/nvidia-uvm(-tools), /dev/nvidia-modeset, /dev/nvidia-caps/*,
    // /dev/null, /dev/urandom: opened read-write, driven by ioctl. No file can be created here.
    {"/dev", Grant::Device},
};

// ---- /proc ----------------------------------------------------------------------------------
//
// Why /proc needs a policy of its own (issue 27, item 3a). Until then this table granted write
// to all of /proc/self, because the CUDA runtime fails to initialise (cudaErrorOperatingSystem)
// unless it may write and truncate a file there (measured on the H100 machine with
// bench/probes/landlock_bisect.cpp, which stopped at the directory). That grant also made
// /proc/self/mem and /proc/self/task/<tid>/mem writable, and writes through them use FOLL_FORCE:
// a submission patched a read-only code page of its own test process that way.
//
// What the driver writes: reports of NVIDIA drivers >= 570 under Landlock (nono, OpenShell) name
// /proc/<pid>/task/<tid>/comm, opened for writing (fopen "w": write and truncate, as measured)
// by the driver to name each thread it starts, a refusal ending cuInit with error 304 (= our
// cudaErrorOperatingSystem). bench/probes/proc_write_probe.cpp lists exactly what this machine's
// driver opens for writing under /proc and runs CUDA under each policy below; run it on the GPU
// machine before changing the default.
//
// What Landlock can express: rules attach to the inodes that exist when the ruleset is made, and
// grant only (there is no deny rule). A grant on a directory covers everything beneath it, files
// of threads started later included; a grant on a file covers that file only. So:
//   - the comm file of a thread started after confinement (every thread CUDA starts: the test
//     process is confined from .preinit_array, before CUDA is loaded) exists only later: no
//     file rule can name it, and the directories above it (/proc/<pid>/task, /proc/<pid>) also
//     hold that thread's mem, and every other thread's. Writing a new thread's name and keeping
//     /proc/<pid>/task/<tid>/mem read-only cannot both be had from Landlock;
//   - hence three policies (ProcfsWrites): none; the thread names of the threads alive when
//     confined (normally the main thread alone); or the whole /proc/<pid> tree (mem writable).
//     kNone and kThreadNames never make a mem file writable, whatever the thread.
// The driver does need its new threads' names (measured on the H100 with the probe: without a
// /proc write, cuInit fails at the first new thread's comm), so the way out is outside this
// process: the /proc comm broker (procfs_broker.hpp). A grade's runner is confined with kNone
// (no mem file writable, whatever path reaches it) plus a seccomp filter that sends every open for
// writing to the judge as a user notification; the judge opens /proc/<pid>/task/<tid>/comm itself
// for exactly a thread name of that runner and injects the descriptor (SECCOMP_IOCTL_NOTIF_ADDFD),
// and lets every other call go on, decided by this Landlock domain. confine_runner_process()
// (confine_process.cpp) does this wherever the kernel offers the pieces (Linux >= 5.14, Landlock,
// seccomp user notification); -DCUDALABS_PROCFS_BROKER=0 turns it off. On a kernel >= 6.12 booted
// with proc_mem.force_override=never, writes through any mem file no longer get FOLL_FORCE, which
// closes the read-only-page patching whatever the policy.
//
// The policy below is what every other confined process gets: the self-check harness, labgrade's
// device check (which have no judge to broker for them), and a runner where the broker is
// unavailable. It stays kWholeProcess, since what is known says CUDA does not run under the other
// two: the bisection measured that CUDA does not initialise without a write under /proc/self
// (kNone), and the driver names threads started after confinement (kThreadNames cannot reach
// them). A narrower default would then fail every GPU test there (cudaErrorOperatingSystem).
// Choose another with -DCUDALABS_PROCFS_WRITES=kNone (or kThreadNames); the test
// ProcfsSandbox.TestProcessAsBuiltCannotWriteItsMemory (common/tests) then runs instead of
// skipping, and the ProcfsBrokerTest tests cover the brokered runner.
#ifndef CUDALABS_PROCFS_WRITES
#define CUDALABS_PROCFS_WRITES kWholeProcess
#endif
constexpr ProcfsWrites kDefaultProcfsWrites = ProcfsWrites::CUDALABS_PROCFS_WRITES;

// The files of /proc/<pid>/ and of /proc/<pid>/task/<tid>/ that ProcfsWrites::kThreadNames
// makes writable. Add a name only if the probe shows the driver fails without it; never "mem".
constexpr const char* kWritableOwnProcFiles[] = {"comm"};

constexpr bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr bool lists_no_memory_file() {
  for (const char* name : kWritableOwnProcFiles) {
    if (same_name(name, "mem")) return false;
  }
  return true;
}
static_assert(lists_no_memory_file(), "a writable mem file lets code patch its own read-only pages (issue 27)");

// A /proc rule holds the inode its descriptor named. procfs makes a new inode whenever a dentry
// of /proc/<pid> is looked up again after the kernel dropped it from its cache (memory pressure,
// drop_caches), and the grant would silently vanish with the old one: the descriptors of the
// granted entries stay open (O_PATH, close-on-exec, at most kMaxPinned) for the life of the
// process, which keeps their dentries, and so the grants, alive. Allocates nothing.
constexpr int kMaxPinned = 64;
int pinned_count = 0;

void pin_for_life(int fd) {
  if (pinned_count < kMaxPinned) {
    ++pinned_count;  // deliberately never closed
    return;
  }
  ::close(fd);
}

long create_ruleset(const RulesetAttr* attr, std::size_t size, unsigned flags) {
  return ::syscall(kCreateRuleset, attr, size, flags);
}

bool add_path_rule(int ruleset, int fd, std::uint64_t access) {
  const PathBeneathAttr rule{access, fd};
  return ::syscall(kAddRule, ruleset, kRulePathBeneath, &rule, 0) == 0;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Grants write on the kWritableOwnProcFiles of `dir` (/proc/<pid> or /proc/<pid>/task/<tid>).
bool grant_own_files(int ruleset, int abi, int dir) {
  for (const char* name : kWritableOwnProcFiles) {
    const int file = ::openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (file < 0) continue;  // not offered by this kernel
    const bool added = add_path_rule(ruleset, file, rights_of(Grant::OwnProcessFile, abi));
    pin_for_life(file);
    if (!added) return false;
  }
  return true;
}

struct LinuxDirent64 {  // what getdents64 writes (the C library's readdir allocates)
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

bool is_number(const char* text) {
  if (*text == '\0') return false;
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9') return false;
  }
  return true;
}

// The /proc rules of `policy` (see the comment above kDefaultProcfsWrites). /proc/self resolves
// now, while the rules are made, to this process's /proc/<pid>: other processes' files stay
// read-only whatever the policy. False when the kernel refuses a rule.
bool confine_procfs(int ruleset, int abi, ProcfsWrites policy) {
  if (policy == ProcfsWrites::kNone) return true;
  const int self = ::open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (self < 0) return true;  // no /proc on this machine
  if (policy == ProcfsWrites::kWholeProcess) {
    const bool added = add_path_rule(ruleset, self, rights_of(Grant::OwnProcessTree, abi));
    pin_for_life(self);
    return added;
  }
  const Fd process{self};
  if (!grant_own_files(ruleset, abi, process.fd)) return false;
  // Each thread alive now (from .preinit_array: the main thread alone). Later threads have no
  // files yet, so no rule can reach them (see above).
  const Fd tasks{::openat(process.fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (tasks.fd < 0) return true;
  alignas(8) char buffer[2048];
  for (;;) {
    const long size = ::syscall(SYS_getdents64, tasks.fd, buffer, sizeof buffer);
    if (size <= 0) break;
    for (long offset = 0; offset < size;) {
      const char* name = buffer + offset + offsetof(LinuxDirent64, d_name);
      offset += reinterpret_cast<const LinuxDirent64*>(buffer + offset)->d_reclen;
      if (!is_number(name)) continue;
      const Fd thread{::openat(tasks.fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC)};
      if (thread.fd >= 0 && !grant_own_files(ruleset, abi, thread.fd)) return false;
    }
  }
  return true;
}

}  // namespace

int landlock_abi_version() noexcept {
  const long abi = create_ruleset(nullptr, 0, kCreateRulesetVersion);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

ProcfsWrites default_procfs_writes() noexcept { return kDefaultProcfsWrites; }

int confine_filesystem(int scratch_dir_fd) noexcept { return confine_filesystem(scratch_dir_fd, kDefaultProcfsWrites); }

int confine_filesystem(int scratch_dir_fd, ProcfsWrites procfs) noexcept {
  const int abi = landlock_abi_version();
  if (abi <= 0) return 0;
  RulesetAttr attr{known_fs_rights(abi), 0, 0};
  std::size_t attr_size = sizeof attr.handled_access_fs;
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule grants either: TCP is refused
    attr_size += sizeof attr.handled_access_net;
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    attr_size += sizeof attr.scoped;
  }
  const Fd ruleset{static_cast<int>(create_ruleset(&attr, attr_size, 0))};
  if (ruleset.fd < 0) return -1;
  for (const PathRule& rule : kPathRules) {
    const Fd dir{::open(rule.path, O_PATH | O_CLOEXEC)};
    if (dir.fd < 0) continue;  // not on this machine
    if (!add_path_rule(ruleset.fd, dir.fd, rights_of(rule.grant, abi))) return -1;
  }
  if (!confine_procfs(ruleset.fd, abi, procfs)) return -1;
  if (!add_path_rule(ruleset.fd, scratch_dir_fd, rights_of(Grant::Scratch, abi))) return -1;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  if (::syscall(kRestrictSelf, ruleset.fd, 0) != 0) return -1;
  return abi;
}

}  // namespace cudalabs
