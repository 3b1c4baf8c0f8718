#include "cudalabs/confine_process.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "filesystem_sandbox.hpp"
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

}  // namespace cudalabs
