// A runner confines itself before any constructor of any library runs (the submission's
// included): listed in .preinit_array, like the harness's result_channel_preinit.cpp. The judge
// asks for it with CUDALABS_CONFINE=1 when labgrade asked the judge; run by hand, nothing changes.
// Linked as an object (cudalabs_runner is an OBJECT library) so the linker keeps the entry.
#include <unistd.h>

#include <cstring>

#include "cudalabs/confine_process.hpp"
#include "cudalabs/result_stream.hpp"

namespace {

void write_error(const char* text) { static_cast<void>(::write(STDERR_FILENO, text, std::strlen(text))); }

void confine_runner(int, char**, char** envp) {
  const std::size_t length = std::strlen(cudalabs::kConfineVariable);
  bool asked = false;
  for (char** v = envp; v && *v; ++v) {
    if (std::strncmp(*v, cudalabs::kConfineVariable, length) == 0 && std::strcmp(*v + length, "=1") == 0) asked = true;
  }
  if (!asked) return;
  if (const char* refused = cudalabs::confine_test_process()) {
    write_error("cudalabs runner: ");
    write_error(refused);
    write_error("\n");
    ::_exit(cudalabs::kConfinementFailedExitCode);
  }
}

}  // namespace

__attribute__((section(".preinit_array"), used)) static void (*const confine_runner_entry)(int, char**, char**) =
    confine_runner;
