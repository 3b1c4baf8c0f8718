#include "procfs_broker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "filesystem_sandbox.hpp"
#include "process_filter.hpp"

#include "seccomp_notify.hpp"

namespace cudalabs {
namespace {

constexpr int kOpenat2 = 437;  // same number on every architecture
// The open flags that ask for more than reading.
constexpr unsigned kWriteFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
// Longer than any path the broker grants ("/proc/<tgid>/task/<tid>/comm"): a longer one is simply
// not a thread name, and is let through to Landlock.
constexpr std::size_t kMaxGrantedPath = 64;

bool kernel_at_least(int major, int minor) {
  utsname name{};
  if (::uname(&name) != 0) return false;
  int found[2] = {0, 0};
  const char* c = name.release;
  for (int part = 0; part < 2; ++part) {
    if (*c < '0' || *c > '9') return false;
    while (*c >= '0' && *c <= '9' && found[part] < 100000) found[part] = found[part] * 10 + (*c++ - '0');
    if (part == 0 && *c++ != '.') return false;
  }
  return found[0] > major || (found[0] == major && found[1] >= minor);
}

// Parses a decimal thread id of `length` characters (no sign, no leading zero); 0 if not one.
pid_t parse_id(const char* text, std::size_t length) {
  if (length == 0 || length > 10 || text[0] == '0') return 0;
  long long value = 0;
  for (std::size_t i = 0; i < length; ++i) {
    if (text[i] < '0' || text[i] > '9') return 0;
    value = value * 10 + (text[i] - '0');
  }
  return value > 0 && value <= INT_MAX ? static_cast<pid_t>(value) : 0;
}

bool starts_with(const char* text, const char* prefix, const char** rest) {
  const std::size_t length = std::strlen(prefix);
  if (std::strncmp(text, prefix, length) != 0) return false;
  *rest = text + length;
  return true;
}

// Reads the NUL-terminated string at `address` of thread `tid` into `out` (kMaxGrantedPath
// bytes). 1: read; 0: longer than the buffer (not a granted path); -1: unreadable.
int read_path(pid_t tid, std::uint64_t address, char* out) {
  std::size_t have = 0;
  while (have < kMaxGrantedPath) {
    const std::uint64_t at = address + have;
    std::size_t chunk = 4096 - static_cast<std::size_t>(at % 4096);  // never across a page: one may be unmapped
    if (chunk > kMaxGrantedPath - have) chunk = kMaxGrantedPath - have;
    iovec local{out + have, chunk};
    iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(at)), chunk};
    const ssize_t n = ::process_vm_readv(tid, &local, 1, &remote, 1, 0);
    if (n <= 0) return -1;
    if (::memchr(out + have, '\0', static_cast<std::size_t>(n)) != nullptr) return 1;
    have += static_cast<std::size_t>(n);
  }
  return 0;
}

#if defined(__x86_64__)

bool notification_valid(int listener, std::uint64_t id) {
  return ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void answer(int listener, std::uint64_t id, int error, bool go_on) {
  seccomp_notif_resp response;
  std::memset(&response, 0, sizeof response);
  response.id = id;
  if (go_on) {
    response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  } else {
    response.error = -error;
  }
  static_cast<void>(::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response));  // ENOENT: it went away
}

#endif

}  // namespace

const char* procfs_broker_unavailable() noexcept {
#if !CUDALABS_PROCFS_BROKER
  return "this build confines runners without it (-DCUDALABS_PROCFS_BROKER=0)";
#elif !defined(__x86_64__)
  return "only x86-64 runners are filtered";
#else
  if (!system_call_filter_supported()) return "this kernel (or architecture) offers no seccomp filter";
  unsigned action = SECCOMP_RET_USER_NOTIF;
  if (::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
    return "this kernel offers no seccomp user notification (Linux >= 5.14)";
  }
  if (!kernel_at_least(5, 14)) return "needs Linux >= 5.14 (SECCOMP_ADDFD_FLAG_SEND)";
  if (landlock_abi_version() < 1) return "this kernel offers no Landlock (Linux >= 5.13 with lsm=landlock)";
  // The judge reads the path out of the runner's memory: Yama's "admin-only" (2) or "no attach"
  // (3) would refuse it, and every write-open of the runner would then fail.
  const int yama = ::open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);
  if (yama >= 0) {
    char scope = '0';
    const bool read_one = ::read(yama, &scope, 1) == 1;
    ::close(yama);
    if (read_one && scope >= '2') return "Yama's ptrace_scope >= 2 keeps the judge from reading its runners' memory";
  }
  return nullptr;
#endif
}

int install_procfs_broker_filter() noexcept {
#if defined(__x86_64__)
  constexpr unsigned kFlagsOfOpenat = offsetof(seccomp_data, args) + 8 * 2;  // low word (little-endian)
  constexpr unsigned kFlagsOfOpen = offsetof(seccomp_data, args) + 8 * 1;
  // 0 arch, 2 nr; 8 openat's flags, 10 open's flags; 12 notify, 13 allow, 14 ENOSYS. The other
  // filter (process_filter.cpp) refuses every call of another architecture or ABI, and its
  // answer (EPERM) outranks this one's.
  sock_filter program[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 11),
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 4, 0),
      /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 5, 0),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_creat, 6, 0),
      /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kOpenat2, 7, 0),
      /* 7 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kFlagsOfOpenat),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kWriteFlags, 2, 3),
      /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kFlagsOfOpen),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kWriteFlags, 0, 1),
      /* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      /* 13 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
  };
  sock_fprog filter{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  // The listener is close-on-exec from the start (the kernel makes it so).
  return static_cast<int>(::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter));
#else
  errno = ENOSYS;
  return -1;
#endif
}

bool send_with_descriptor(int socket, const void* data, std::size_t bytes, int fd) noexcept {
  iovec io{const_cast<void*>(data), bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  std::memset(control, 0, sizeof control);
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof fd);
  }
  for (;;) {
    const ssize_t sent = ::sendmsg(socket, &message, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    return sent == static_cast<ssize_t>(bytes);
  }
}

long receive_with_descriptor(int socket, void* data, std::size_t bytes, int* fd, int flags) noexcept {
  *fd = -1;
  iovec io{data, bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got = -1;
  do {
    got = ::recvmsg(socket, &message, flags | MSG_TRUNC | MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  for (cmsghdr* header = got >= 0 ? CMSG_FIRSTHDR(&message) : nullptr; header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int received = -1;
      std::memcpy(&received, CMSG_DATA(header) + i * sizeof(int), sizeof received);
      if (*fd < 0) {
        *fd = received;
      } else {
        ::close(received);  // one descriptor is all a message may carry
      }
    }
  }
  return static_cast<long>(got);
}

pid_t thread_named_by(const char* path, pid_t tgid, pid_t caller) noexcept {
  const char* rest = nullptr;
  if (!starts_with(path, "/proc/", &rest)) return 0;
  if (std::strcmp(rest, "thread-self/comm") == 0) return caller;
  // "self/" or "<tgid>/"
  const char* after = nullptr;
  if (!starts_with(rest, "self/", &after)) {
    const char* slash = std::strchr(rest, '/');
    if (!slash || parse_id(rest, static_cast<std::size_t>(slash - rest)) != tgid) return 0;
    after = slash + 1;
  }
  if (std::strcmp(after, "comm") == 0) return tgid;
  if (!starts_with(after, "task/", &rest)) return 0;
  const char* slash = std::strchr(rest, '/');
  if (!slash || std::strcmp(slash, "/comm") != 0) return 0;
  return parse_id(rest, static_cast<std::size_t>(slash - rest));
}

bool serve_procfs_notification(int listener, pid_t tgid, bool* granted) noexcept {
  *granted = false;
#if defined(__x86_64__)
  seccomp_notif request;
  std::memset(&request, 0, sizeof request);
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return false;  // its thread is gone
  const pid_t caller = static_cast<pid_t>(request.pid);
  std::uint64_t path_at = 0;
  int flags = 0;
  switch (request.data.nr) {
    case __NR_openat:
      path_at = request.data.args[1];
      flags = static_cast<int>(request.data.args[2]);
      break;
    case __NR_open:
      path_at = request.data.args[0];
      flags = static_cast<int>(request.data.args[1]);
      break;
    case __NR_creat:
      path_at = request.data.args[0];
      flags = O_WRONLY | O_CREAT | O_TRUNC;
      break;
    default:  // the filter sends nothing else; let the kernel (and Landlock) decide
      answer(listener, request.id, 0, true);
      return true;
  }
  char path[kMaxGrantedPath];
  const int got = read_path(caller, path_at, path);
  // The caller is still in this very call: what was read is its memory, not a reused id's.
  if (!notification_valid(listener, request.id)) return true;
  if (got < 0) {
    answer(listener, request.id, EACCES, false);
    return true;
  }
  const pid_t thread = got > 0 ? thread_named_by(path, tgid, caller) : 0;
  if (thread == 0) {
    // Not a thread name: the kernel performs the call as asked, and the runner's Landlock domain
    // decides on the path the kernel reads then (see procfs_broker.hpp: no TOCTOU hole).
    answer(listener, request.id, 0, true);
    return true;
  }
  char target[kMaxGrantedPath];
  std::snprintf(target, sizeof target, "/proc/%d/task/%d/comm", static_cast<int>(tgid), static_cast<int>(thread));
  // Opening through /proc/<tgid>/task/ finds only threads of that process (ENOENT otherwise).
  const int fd = ::open(target, (flags & O_ACCMODE) | (flags & O_TRUNC) | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    answer(listener, request.id, errno == ENOENT ? ENOENT : EACCES, false);
    return true;
  }
  seccomp_notif_addfd add;
  std::memset(&add, 0, sizeof add);
  add.id = request.id;
  add.flags = SECCOMP_ADDFD_FLAG_SEND;  // the injected descriptor is the call's result
  add.srcfd = static_cast<__u32>(fd);
  add.newfd_flags = static_cast<__u32>(flags & O_CLOEXEC);
  const int added = ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
  const int error = errno;
  ::close(fd);
  if (added >= 0) {
    *granted = true;
  } else if (error != ENOENT) {  // ENOENT: the call went away meanwhile
    answer(listener, request.id, error == EMFILE ? EMFILE : EACCES, false);
  }
  return true;
#else
  static_cast<void>(listener);
  static_cast<void>(tgid);
  return false;
#endif
}

bool ProcfsBroker::start(int listener, pid_t tgid) noexcept {
  stop();
  listener_ = listener;
  tgid_ = tgid;
  granted_.store(0);
  wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_ < 0) {
    stop();
    return false;
  }
  try {
    thread_ = std::thread([this] { serve(); });
  } catch (...) {
    stop();
    return false;
  }
  return true;
}

void ProcfsBroker::serve() noexcept {
  // Not on the core the judge pinned itself to while timing (a thread inherits its creator's
  // affinity): anywhere this process may run.
  cpu_set_t anywhere;
  CPU_ZERO(&anywhere);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &anywhere);
  static_cast<void>(::sched_setaffinity(0, sizeof anywhere, &anywhere));
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
    const int polled = ::poll(fds, 2, -1);
    if (polled < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;  // stop()
    if (fds[0].revents & POLLIN) {
      // A pending notification: RECV does not block (see poll's contract for seccomp listeners).
      bool granted = false;
      if (serve_procfs_notification(listener_, tgid_, &granted) && granted) granted_.fetch_add(1);
      continue;
    }
    if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) return;  // the runner (its filter) is gone
  }
}

void ProcfsBroker::stop() noexcept {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    static_cast<void>(::write(wake_, &one, sizeof one));
    thread_.join();
  }
  if (wake_ >= 0) ::close(wake_);
  if (listener_ >= 0) ::close(listener_);
  wake_ = -1;
  listener_ = -1;
}

}  // namespace cudalabs
