#include "process_filter.hpp"

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#endif

namespace cudalabs {

#if defined(__x86_64__)

namespace {

// Refused outright, whatever their arguments. Edit this list to refuse more.
constexpr unsigned kRefusedCalls[] = {
    __NR_fork,           __NR_vfork,          __NR_execve,        __NR_execveat,                     // new processes
    __NR_ptrace,         __NR_process_vm_readv, __NR_process_vm_writev, 438 /* pidfd_getfd */,    // other processes
    425 /* io_uring_setup */, 426 /* io_uring_enter */, 427 /* io_uring_register */,              // bypasses seccomp
    __NR_unshare,        __NR_setns,                                                            // namespaces
    // Its CPUs and its standing with the scheduler stay as the judge started it: a thread moved
    // onto the reference's core, or raised above it, would slow the reference while it is timed.
    __NR_sched_setaffinity, __NR_sched_setscheduler, __NR_sched_setparam, __NR_sched_setattr,
    __NR_setpriority,
};
constexpr unsigned kCount = sizeof kRefusedCalls / sizeof kRefusedCalls[0];

constexpr unsigned kDeny = SECCOMP_RET_ERRNO | EPERM;
constexpr unsigned kNoSuchCall = SECCOMP_RET_ERRNO | ENOSYS;
constexpr unsigned kX32Bit = 0x40000000;  // system calls of the x32 ABI carry this bit

// The program, laid out as:
//   [0] load arch; [1] x86-64? -> [3]; [2] deny; [3] load nr; [4] x32 -> DENY;
//   [5 .. 5+kCount) refused -> DENY; then clone3 -> ENOSYS, clone -> CLONE, socket -> SOCKET;
//   ALLOW; CLONE: load flags, CLONE_THREAD -> ALLOW_ARGS else DENY; SOCKET: load family,
//   AF_UNIX -> ALLOW_ARGS else DENY; ALLOW_ARGS; ENOSYS; DENY. (BPF jumps only forward.)
constexpr unsigned kFirstRefused = 5;
constexpr unsigned kClone3 = kFirstRefused + kCount;
constexpr unsigned kClone = kClone3 + 1;
constexpr unsigned kSocket = kClone + 1;
constexpr unsigned kAllow = kSocket + 1;
constexpr unsigned kCloneCheck = kAllow + 1;  // load, jset
constexpr unsigned kSocketCheck = kCloneCheck + 2;  // load, jeq
constexpr unsigned kAllowArgs = kSocketCheck + 2;
constexpr unsigned kEnosys = kAllowArgs + 1;
constexpr unsigned kDenyAt = kEnosys + 1;
constexpr unsigned kLength = kDenyAt + 1;

// Jump offset from the instruction at `from` to `to` (offsets count instructions after `from`).
constexpr unsigned char hop(unsigned from, unsigned to) { return static_cast<unsigned char>(to - from - 1); }

static_assert(kLength - 1 < 256, "every jump must fit in 8 bits");

}  // namespace

bool install_system_call_filter() noexcept {
  sock_filter program[kLength];
  program[0] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  program[1] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  program[2] = BPF_STMT(BPF_RET | BPF_K, kDeny);  // i386 calls (int 0x80) from a 64-bit process
  program[3] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
  program[4] = BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, hop(4, kDenyAt), 0);
  for (unsigned i = 0; i < kCount; ++i) {
    const unsigned at = kFirstRefused + i;
    program[at] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kRefusedCalls[i], hop(at, kDenyAt), 0);
  }
  program[kClone3] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, hop(kClone3, kEnosys), 0);
  program[kClone] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, hop(kClone, kCloneCheck), 0);
  program[kSocket] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, hop(kSocket, kSocketCheck), 0);
  program[kAllow] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  program[kCloneCheck] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0]));  // flags, low word
  program[kCloneCheck + 1] =
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, hop(kCloneCheck + 1, kAllowArgs), hop(kCloneCheck + 1, kDenyAt));
  program[kSocketCheck] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0]));  // family
  program[kSocketCheck + 1] =
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, hop(kSocketCheck + 1, kAllowArgs), hop(kSocketCheck + 1, kDenyAt));
  program[kAllowArgs] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  program[kEnosys] = BPF_STMT(BPF_RET | BPF_K, kNoSuchCall);
  program[kDenyAt] = BPF_STMT(BPF_RET | BPF_K, kDeny);

  sock_fprog filter{static_cast<unsigned short>(kLength), program};
  // Required to install a filter without privileges; it also stops set-uid programs gaining any.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) == 0;
}

bool system_call_filter_supported() noexcept {
  // Asks whether the kernel knows the action the filter returns; changes nothing.
  unsigned action = SECCOMP_RET_ERRNO;
  return ::syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

#else

bool install_system_call_filter() noexcept { return false; }
bool system_call_filter_supported() noexcept { return false; }

#endif

}  // namespace cudalabs
