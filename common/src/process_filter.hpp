// Keeps the test process from starting other processes or programs, whatever the student code
// does (a fork through syscall(), inline assembly, posix_spawn): a seccomp filter makes fork,
// vfork, execve, execveat and clone without CLONE_THREAD fail with EPERM, and clone3 with ENOSYS
// (the C library then falls back to clone, so threads still work: CUDA needs them). It lasts for
// the life of the process and cannot be removed. Internal to the harness.
#pragma once

namespace cudalabs {

// Installs the filter on this process. Returns false where the kernel or the architecture does
// not support it (only x86-64 is filtered); nothing is changed then. Async-signal-safe: usable
// before the C library is set up (from .preinit_array) and in a forked child.
bool forbid_new_processes() noexcept;

}  // namespace cudalabs
