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
//   - neither bind nor connect TCP sockets (Landlock ABI >= 4), nor signal processes or reach
//     abstract UNIX sockets outside itself (ABI >= 6).
// It lasts for the life of the process and cannot be lifted. Each grant is one row of kPathRules
// in filesystem_sandbox.cpp: adjust there if a driver version needs another path.
#pragma once

namespace cudalabs {

// The Landlock ABI version this kernel offers: 0 when it offers none (too old, or Landlock not
// enabled among the kernel's security modules). Changes nothing.
int landlock_abi_version() noexcept;

// Confines this process as described above, with the scratch directory given as an open
// descriptor (e.g. of "."). Returns the ABI version enforced (> 0), 0 when the kernel offers no
// Landlock (nothing is changed then), or -1 when it offers one but confining failed (the process
// may then be left confined in part or not at all: treat it as an error). Requires no_new_privs
// (install_system_call_filter sets it). Async-signal-safe: usable from .preinit_array.
int confine_filesystem(int scratch_dir_fd) noexcept;

}  // namespace cudalabs
