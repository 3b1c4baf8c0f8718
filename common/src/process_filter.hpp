// The system calls a test process may not make, whatever the student code does (a call through
// syscall(), inline assembly, a library function): a seccomp filter that lasts for the life of
// the process and cannot be removed. Internal to the harness and to labgrade's probes.
//
// Refused with EPERM:
//   - new processes and programs: fork, vfork, execve, execveat, and clone without CLONE_THREAD
//     (clone3 answers ENOSYS instead, so the C library falls back to clone: threads, which CUDA
//     needs, still work);
//   - other processes' memory: ptrace, process_vm_readv, process_vm_writev, pidfd_getfd;
//   - the network: socket() of any family but AF_UNIX (the CUDA driver may talk to local daemons
//     such as MPS or nvidia-persistenced through UNIX sockets);
//   - io_uring (its operations would bypass this filter), and unshare/setns (new namespaces);
//   - every i386 (int 0x80) and x32 system call, which would bypass the numbers above.
#pragma once

namespace cudalabs {

// Installs the filter on this process (and sets no_new_privs, which it requires). Returns false
// where the kernel or the architecture does not support it (only x86-64 is filtered); nothing is
// changed then. Async-signal-safe: usable before the C library is set up (from .preinit_array)
// and in a forked child.
bool install_system_call_filter() noexcept;

// Whether install_system_call_filter() would work here, without changing this process.
bool system_call_filter_supported() noexcept;

}  // namespace cudalabs
