// What a test process may do to files and the network, decided by the kernel (Landlock,
// unprivileged, Linux >= 5.13) rather than by a list of forbidden function names. Internal to the
// harness and to labgrade's probes.
//
// After confine_filesystem(scratch) the process, and any thread it starts, may:
//   - read (and map) any file and list any directory: CUDA, the C++ runtime and the harness read
//     libraries, /proc, /sys, /etc and the lab's YAML. Nothing readable is secret from code that
//     already runs inside the test program (the hidden suite and the reference are in its memory);
//   - open the existing files under /dev read-write and issue ioctls on them: the NVIDIA driver
//     is driven through /dev/nvidiactl, /dev/nvidia<N> and /dev/nvidia-uvm; no file can be made there;
//   - create, write, rename and delete only beneath `scratch` (its working directory);
//   - write under /proc only what the ProcfsWrites policy below allows (never /proc/<pid>/mem or
//     /proc/<pid>/task/<tid>/mem, except under kWholeProcess);
//   - neither bind nor connect TCP sockets (Landlock ABI >= 4), nor signal processes or reach
//     abstract UNIX sockets outside itself (ABI >= 6).
// It lasts for the life of the process and cannot be lifted. Each grant is one row of kPathRules
// in filesystem_sandbox.cpp: adjust there if a driver version needs another path.
#pragma once

namespace cudalabs {

// Which files of its own /proc/<pid> a confined process may open for writing. Landlock grants
// attach to the inodes that exist when the process is confined; there is no "deny" rule, and a
// grant on a directory covers everything beneath it, files of threads started later included.
// See filesystem_sandbox.cpp (the comment above confine_procfs) for why each exists and which
// one this build uses.
enum class ProcfsWrites {
  // Nothing under /proc.
  kNone,
  // Only the files named in filesystem_sandbox.cpp's kWritableOwnProcFiles ("comm": the thread
  // name), of the process and of each thread alive when it is confined. A thread started later
  // (every thread CUDA starts, when confined from .preinit_array) cannot be renamed through
  // /proc/self/task/<tid>/comm: its files do not exist when the rules are made.
  kThreadNames,
  // The whole /proc/<pid> tree, /proc/<pid>/mem and /proc/<pid>/task/<tid>/mem included: code in
  // the process can then patch its own read-only pages through them (issue 27). The grant before
  // issue 27; kept for drivers that refuse to start without renaming the threads they start.
  kWholeProcess,
};

// The Landlock ABI version this kernel offers: 0 when it offers none (too old, or Landlock not
// enabled among the kernel's security modules). Changes nothing.
int landlock_abi_version() noexcept;

// The policy confine_filesystem(scratch) uses in this build (compile with
// -DCUDALABS_PROCFS_WRITES=kNone, kThreadNames or kWholeProcess to choose another). A grade's
// runner with the /proc comm broker uses kNone instead (procfs_broker.hpp).
ProcfsWrites default_procfs_writes() noexcept;

// Whether a process confined under `policy` can open /proc/self/mem (or a thread's mem) for writing.
constexpr bool procfs_memory_writable(ProcfsWrites policy) { return policy == ProcfsWrites::kWholeProcess; }

// Confines this process as described above, with the scratch directory given as an open
// descriptor (e.g. of "."). Returns the ABI version enforced (> 0), 0 when the kernel offers no
// Landlock (nothing is changed then), or -1 when it offers one but confining failed (the process
// may then be left confined in part or not at all: treat it as an error). Requires no_new_privs
// (install_system_call_filter sets it). Async-signal-safe: usable from .preinit_array. Keeps a
// few O_PATH descriptors of the /proc entries it grants open for the life of the process (see
// filesystem_sandbox.cpp, pin_for_life).
int confine_filesystem(int scratch_dir_fd) noexcept;
int confine_filesystem(int scratch_dir_fd, ProcfsWrites procfs) noexcept;

}  // namespace cudalabs
