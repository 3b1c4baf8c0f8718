// A runner confines itself before any constructor of any library runs (the submission's
// included): listed in .preinit_array, like the harness's result_channel_preinit.cpp. The judge
// asks for it with CUDALABS_CONFINE=1 when labgrade asked the judge; run by hand, nothing changes.
// Confined, it first sends the judge ReplyStatus::confined, with the listener of its /proc comm
// broker where the kernel offers one (common/src/procfs_broker.hpp).
// Linked as an object (cudalabs_runner is an OBJECT library) so the linker keeps the entry.
#include <unistd.h>

#include <cstring>

#include "../procfs_broker.hpp"
#include "cudalabs/confine_process.hpp"
#include "cudalabs/remote/protocol.hpp"
#include "cudalabs/result_stream.hpp"

namespace {

constexpr int kJudgeSocket = 3;  // cudalabs/remote/protocol.hpp

void write_error(const char* text) { static_cast<void>(::write(STDERR_FILENO, text, std::strlen(text))); }

void confine_runner(int, char**, char** envp) {
  const std::size_t length = std::strlen(cudalabs::kConfineVariable);
  bool asked = false;
  for (char** v = envp; v && *v; ++v) {
    if (std::strncmp(*v, cudalabs::kConfineVariable, length) == 0 && std::strcmp(*v + length, "=1") == 0) asked = true;
  }
  if (!asked) return;
  int listener = -1;
  if (const char* refused = cudalabs::confine_runner_process(&listener)) {
    write_error("cudalabs runner: ");
    write_error(refused);
    write_error("\n");
    ::_exit(cudalabs::kConfinementFailedExitCode);
  }
  // The judge reads this before anything else (Runner::spawn) and, with a listener, names the
  // threads CUDA starts; this process keeps no copy of it, so nothing here can answer for it.
  cudalabs::remote::Reply confined;
  confined.status = cudalabs::remote::ReplyStatus::confined;
  confined.value = listener >= 0 ? 1 : 0;
  const bool sent = cudalabs::send_with_descriptor(kJudgeSocket, &confined, sizeof confined, listener);
  if (listener >= 0) ::close(listener);
  if (!sent) {
    write_error("cudalabs runner: could not tell the judge it is confined (descriptor 3)\n");
    ::_exit(cudalabs::kConfinementFailedExitCode);
  }
}

}  // namespace

__attribute__((section(".preinit_array"), used)) static void (*const confine_runner_entry)(int, char**, char**) =
    confine_runner;
