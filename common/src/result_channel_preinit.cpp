// Takes the result channel out of student code's reach before student code can run.
//
// The harness executable lists capture_result_channel in its .preinit_array: the dynamic linker
// runs it before the constructors of every shared library, so before any static constructor of
// the student library. It reads the token labgrade wrote into the pipe named by
// CUDALABS_RESULT_TOKEN_FD and closes that pipe, marks the result descriptor (and the gpu-alone
// one, CUDALABS_GPU_ALONE_FD) close-on-exec, and removes these variables from the environment
// (their text too, so /proc/self/environ no longer shows them). Every event line then carries the
// token, and labgrade ignores lines without it.
//
// Limits, honestly: student code runs in this process, so it can still find the descriptor (by
// trying numbers) and, in principle, read the token out of this process's memory. What this
// removes is the easy forgery: writing "passed" lines, from a constructor or anywhere else,
// without knowing the token. Reading memory to steal it is deliberate cheating that leaves code
// to show for it; labgrade also ignores events for tests it did not ask for, and never counts a
// test as passed without its own end event.
//
// This file must be linked as an object (cudalabs_harness is an OBJECT library), not from a
// static library: nothing refers to the entry below, and the linker would drop it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

#include "cudalabs/confine_process.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "result_stream_fd.hpp"

// Defined only in a grade harness (common/src/remote/lab_thunks.cpp): a judge, which maps no
// student code and starts the runners that do.
extern "C" __attribute__((weak)) const char cudalabs_judge_lab_id[];

namespace {

constexpr std::size_t kMaxTokenBytes = 128;

// Copies the value of NAME from envp into `value` and removes the entry, in place. The C library
// has not set up environ yet (getenv does not work here); it later uses this same array.
void take_variable(char** envp, const char* name, char* value, std::size_t capacity) {
  value[0] = '\0';
  if (!envp) return;
  const std::size_t length = std::strlen(name);
  char** out = envp;
  for (char** in = envp; *in; ++in) {
    if (std::strncmp(*in, name, length) == 0 && (*in)[length] == '=') {
      char* text = *in + length + 1;
      std::size_t i = 0;
      for (; text[i] != '\0' && i + 1 < capacity; ++i) value[i] = text[i];
      value[i] = '\0';
      std::memset(text, 0, std::strlen(text));
      continue;
    }
    *out++ = *in;
  }
  *out = nullptr;
}

int parse_fd(const char* text) {
  if (text[0] == '\0') return -1;
  long fd = 0;
  for (const char* c = text; *c; ++c) {
    if (*c < '0' || *c > '9' || fd > 1'000'000) return -1;
    fd = fd * 10 + (*c - '0');
  }
  return fd >= 3 ? static_cast<int>(fd) : -1;
}

// Reads the token until end of file; only hex digits are kept, so it can go into JSON as is.
void read_token(int fd, char* token) {
  std::size_t size = 0;
  char buffer[64];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      const char c = buffer[i];
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      if (hex && size < kMaxTokenBytes) token[size++] = c;
    }
  }
  token[size] = '\0';
}

void write_error(const char* text) {
  const std::size_t length = std::strlen(text);
  for (std::size_t written = 0; written < length;) {
    const ssize_t n = ::write(STDERR_FILENO, text + written, length - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

// Confines this process to its working directory, the GPU and its own memory, or ends it: a
// test process the kernel could confine must never run student code unconfined. Where the kernel
// offers no means (no seccomp, no Landlock) it goes on; labgrade --version and the report say so.
void confine_or_exit() {
  const char* refused = cudalabs::confine_test_process();
  if (!refused) return;
  write_error("cudalabs harness: ");
  write_error(refused);
  write_error("\n");
  ::_exit(cudalabs::kConfinementFailedExitCode);
}

void capture_result_channel(int, char**, char** envp) {
  char fd_text[32], token_fd_text[32], confine[4], gpu_alone_text[32];
  take_variable(envp, cudalabs::kResultFdVariable, fd_text, sizeof fd_text);
  take_variable(envp, cudalabs::kGpuAloneFdVariable, gpu_alone_text, sizeof gpu_alone_text);
  take_variable(envp, cudalabs::kResultTokenFdVariable, token_fd_text, sizeof token_fd_text);
  take_variable(envp, cudalabs::kConfineVariable, confine, sizeof confine);
  // Before any student constructor: from here on this process cannot start processes, touch
  // other processes, use the network or write outside its working directory, however asked.
  // A judge leaves that to its runners, which confine themselves the same way before the
  // submission's library is loaded (common/src/remote/runner_preinit.cpp).
  if (std::strcmp(confine, "1") == 0) {
    if (cudalabs_judge_lab_id != nullptr) {
      cudalabs::remote::detail::set_confine_runners();
    } else {
      confine_or_exit();
    }
  }
  char token[kMaxTokenBytes + 1] = {};
  if (const int token_fd = parse_fd(token_fd_text); token_fd >= 0) {
    read_token(token_fd, token);
    ::close(token_fd);
  }
  if (const int gpu_alone = parse_fd(gpu_alone_text); gpu_alone >= 0 && ::fcntl(gpu_alone, F_SETFD, FD_CLOEXEC) == 0) {
    cudalabs::set_gpu_alone_channel(gpu_alone);
  }
  const int fd = parse_fd(fd_text);
  if (fd < 0 || ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return;  // no (usable) stream: a run by hand
  cudalabs::set_trusted_result_channel(fd, token);
}

}  // namespace

__attribute__((section(".preinit_array"), used)) static void (*const capture_result_channel_entry)(int, char**, char**) =
    capture_result_channel;
