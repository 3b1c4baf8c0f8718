#pragma once
// Confines the calling process the way every test process is confined (README.md, "Threat
// model"): the system-call filter (seccomp), then the file-system sandbox (Landlock) limited to
// the current working directory, the GPU's device files and what CUDA reads. Used by the
// harness before any student code runs (result_channel_preinit.cpp) and by labgrade's device
// check, which must see the GPU exactly as a test process does.
namespace cudalabs {

// nullptr when confined; otherwise which layer the kernel refused, as a sentence. Allocates
// nothing (usable from .preinit_array, before the C library is set up).
const char* confine_test_process() noexcept;

// A grade's runner (common/src/remote/runner_preinit.cpp): where the /proc comm broker is
// available (common/src/procfs_broker.hpp), the seccomp filter, Landlock with nothing under /proc
// writable, and the broker's filter, whose listener is returned in *listener for the judge (the
// caller hands it over and closes it); elsewhere exactly confine_test_process(), *listener = -1.
// nullptr when confined, else which layer the kernel refused. Allocates nothing.
const char* confine_runner_process(int* listener) noexcept;

}  // namespace cudalabs
