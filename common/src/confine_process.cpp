#include "cudalabs/confine_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "filesystem_sandbox.hpp"
#include "procfs_broker.hpp"
#include "process_filter.hpp"

namespace cudalabs {

const char* confine_test_process() noexcept {
  if (system_call_filter_supported() && !install_system_call_filter()) {
    return "the kernel refused the system-call filter (seccomp)";
  }
  const int scratch = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  const bool refused = scratch < 0 || confine_filesystem(scratch) < 0;
  if (scratch >= 0) ::close(scratch);
  return refused ? "the kernel refused the file-system sandbox (Landlock)" : nullptr;
}

const char* confine_runner_process(int* listener) noexcept {
  *listener = -1;
  if (procfs_broker_unavailable() != nullptr) return confine_test_process();
  if (!install_system_call_filter()) return "the kernel refused the system-call filter (seccomp)";
  const int scratch = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  // Nothing under /proc writable: thread names come from the judge (procfs_broker.hpp).
  const bool refused = scratch < 0 || confine_filesystem(scratch, ProcfsWrites::kNone) <= 0;
  if (scratch >= 0) ::close(scratch);
  if (refused) return "the kernel refused the file-system sandbox (Landlock)";
  // Last: from here on every open for writing waits for the judge, which gets the listener next.
  *listener = install_procfs_broker_filter();
  return *listener < 0 ? "the kernel refused the /proc broker's filter (seccomp user notification)" : nullptr;
}

}  // namespace cudalabs
