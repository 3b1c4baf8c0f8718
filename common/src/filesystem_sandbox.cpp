#include "filesystem_sandbox.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
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
enum class Grant { Read, Device, OwnProcess, Scratch };

std::uint64_t rights_of(Grant grant, int abi) {
  const std::uint64_t known = known_fs_rights(abi);
  switch (grant) {
    case Grant::Read:  // execute: mapping code needs only read; exec itself is refused by seccomp
      return (kReadFile | kReadDir | kExecute) & known;
    case Grant::Device:  // open existing device files read-write (also with O_TRUNC) and drive them
      return (kReadFile | kReadDir | kWriteFile | kTruncate | kIoctlDev | kExecute) & known;
    case Grant::OwnProcess:  // write this process's own /proc files (the CUDA driver needs it)
      return (kReadFile | kReadDir | kWriteFile | kTruncate) & known;
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
// directory (the test's working directory, given by labgrade) is added with Grant::Scratch.
constexpr PathRule kPathRules[] = {
    // Libraries (also under /usr/local/cuda or /opt), /proc, /sys, /etc, the lab's YAML, the harness.
    {"/", Grant::Read},
    // /dev/nvidiactl, /dev/nvidia<N>, /dev/nvidia-uvm(-tools), /dev/nvidia-modeset, /dev/nvidia-caps/*,
    // /dev/null, /dev/urandom: opened read-write, driven by ioctl. No file can be created here.
    {"/dev", Grant::Device},
    // /proc/self resolves now, while the rule is made, to this process's /proc/<pid>: the CUDA
    // runtime fails to initialise (cudaErrorOperatingSystem) unless it may write and truncate a
    // file there (measured on the H100 machine with bench/probes/landlock_bisect.cpp). Other
    // processes' /proc files stay read-only. Writing /proc/self/mem patches only this process,
    // which its own code can do anyway (README, "Threat model").
    {"/proc/self", Grant::OwnProcess},
};

long create_ruleset(const RulesetAttr* attr, std::size_t size, unsigned flags) {
  return ::syscall(kCreateRuleset, attr, size, flags);
}

bool add_path_rule(int ruleset, int dir_fd, std::uint64_t access) {
  const PathBeneathAttr rule{access, dir_fd};
  return ::syscall(kAddRule, ruleset, kRulePathBeneath, &rule, 0) == 0;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

int landlock_abi_version() noexcept {
  const long abi = create_ruleset(nullptr, 0, kCreateRulesetVersion);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

int confine_filesystem(int scratch_dir_fd) noexcept {
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
  if (!add_path_rule(ruleset.fd, scratch_dir_fd, rights_of(Grant::Scratch, abi))) return -1;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  if (::syscall(kRestrictSelf, ruleset.fd, 0) != 0) return -1;
  return abi;
}

}  // namespace cudalabs
