#include "process_filter.hpp"

#if defined(__x86_64__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#endif

namespace cudalabs {

#if defined(__x86_64__)

bool forbid_new_processes() noexcept {
  constexpr unsigned kDeny = SECCOMP_RET_ERRNO | EPERM;
  constexpr unsigned kNoSuchCall = SECCOMP_RET_ERRNO | ENOSYS;
  constexpr unsigned kX32Bit = 0x40000000;  // syscalls of the x32 ABI carry this bit
  // Jump offsets count instructions after the jump; the targets are named in the comments.
  sock_filter program[] = {
      /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),  // -> 3, else 2
      /*  2 */ BPF_STMT(BPF_RET | BPF_K, kDeny),  // i386 calls (int 0x80) from a 64-bit process
      /*  3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /*  4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 10, 0),  // -> 15 deny
      /*  5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fork, 9, 0),  // -> 15 deny
      /*  6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_vfork, 8, 0),
      /*  7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 7, 0),
      /*  8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 6, 0),
      /*  9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 4, 0),  // -> 14 ENOSYS
      /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 2),   // -> 11, else 13 allow
      /* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),  // flags, low word
      /* 12 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 2),  // a thread -> 13, else 15
      /* 13 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, kNoSuchCall),
      /* 15 */ BPF_STMT(BPF_RET | BPF_K, kDeny),
  };
  sock_fprog filter{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  // Required to install a filter without privileges; it also stops set-uid programs gaining any.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0) == 0;
}

#else

bool forbid_new_processes() noexcept { return false; }

#endif

}  // namespace cudalabs
