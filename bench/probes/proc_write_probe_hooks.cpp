// The probe's own definitions of the C library's open functions. The executable is linked with
// ENABLE_EXPORTS (-rdynamic), so these come first in the global lookup scope: the CUDA runtime and
// driver (libcuda.so, dlopen'ed) call them instead of the C library's, and each forwards to the
// next definition (dlsym RTLD_NEXT) after noting a call that opens for writing. Calls the C
// library makes inside itself (pthread_setname_np's open of /proc/self/task/<tid>/comm) do not
// pass through here; the probe's seccomp tracer (proc_write_probe.cpp) sees those, and
// pthread_setname_np itself is wrapped below.
//
// No C library header that declares these functions is included (their declarations differ
// between versions and with _FORTIFY_SOURCE); the types are spelled out.
#include <dlfcn.h>

#include <cstdarg>
#include <cstring>

#include "proc_write_probe.hpp"

struct _IO_FILE;
typedef struct _IO_FILE FILE;
typedef unsigned long pthread_t;

namespace proc_write_probe {

OpenRecord g_records[kMaxRecords];
std::atomic<int> g_record_count{0};
std::atomic<bool> g_recording{false};
std::atomic<int> g_step{-1};

namespace {

thread_local int t_inside = 0;  // a wrapper is running on this thread: nested calls are not noted

template <class Function>
Function next(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

// The C library's definitions, looked up once by resolve_next_functions() (from main, before any
// thread exists) or on first use before main: never inside a wrapper on a second thread, where
// dlsym could wait for the loader lock held by a thread that is itself waiting in a wrapper.
using OpenNext = int (*)(const char*, int, ...);
using OpenAtNext = int (*)(int, const char*, int, ...);
using CreatNext = int (*)(const char*, unsigned);
using FopenNext = FILE* (*)(const char*, const char*);
using FreopenNext = FILE* (*)(const char*, const char*, FILE*);
using TruncateNext = int (*)(const char*, long);
using SetNameNext = int (*)(pthread_t, const char*);
using SelfNext = pthread_t (*)();
OpenNext next_open, next_open64, next_open_2, next_open64_2;
OpenAtNext next_openat, next_openat64, next_openat_2, next_openat64_2;
CreatNext next_creat, next_creat64;
FopenNext next_fopen, next_fopen64;
FreopenNext next_freopen, next_freopen64;
TruncateNext next_truncate;
SetNameNext next_setname;
SelfNext next_self;

template <class Function>
Function resolved(Function& slot, const char* name) {
  if (!slot) slot = next<Function>(name);
  return slot;
}

void copy(char* out, unsigned size, const char* text) {
  if (!text) text = "";
  std::strncpy(out, text, size - 1);
  out[size - 1] = '\0';
}

// Starts a record when recording and `flags` write; -1 otherwise.
int begin(const char* function, int dir_fd, const char* path, int flags, const char* detail, void* caller) {
  if (!g_recording.load(std::memory_order_relaxed) || t_inside > 0 || !writes(flags)) return -1;
  const int index = g_record_count.fetch_add(1);
  if (index >= kMaxRecords) return -1;
  OpenRecord& record = g_records[index];
  record.step = g_step.load();
  record.tid = thread_id();
  record.flags = flags;
  record.result = kPending;
  record.caller = caller;
  copy(record.function, sizeof record.function, function);
  copy(record.detail, sizeof record.detail, detail);
  record.library[0] = '\0';
  ++t_inside;
  absolute_path(dir_fd, path, record.path, sizeof record.path);
  return index;
}

void end(int index, int result, int error) {
  if (index < 0) return;
  g_records[index].result = result >= 0 ? result : -error;
  --t_inside;
}

// What fopen's mode asks of open(2).
int fopen_flags(const char* mode) {
  if (!mode) return 0;
  int flags = 0;
  switch (mode[0]) {
    case 'w': flags = kOpenWriteOnly | kOpenCreate | kOpenTruncate; break;
    case 'a': flags = kOpenWriteOnly | kOpenCreate | kOpenAppend; break;
    default: break;
  }
  if (std::strchr(mode, '+')) flags = (flags & ~kOpenAccessMode) | kOpenReadWrite;
  return flags;
}

bool takes_mode(int flags) { return (flags & (kOpenCreate | kOpenTmpFileBit)) != 0; }

}  // namespace

void resolve_next_functions() {
  resolved(next_open, "open");
  resolved(next_open64, "open64");
  resolved(next_open_2, "__open_2");
  resolved(next_open64_2, "__open64_2");
  resolved(next_openat, "openat");
  resolved(next_openat64, "openat64");
  resolved(next_openat_2, "__openat_2");
  resolved(next_openat64_2, "__openat64_2");
  resolved(next_creat, "creat");
  resolved(next_creat64, "creat64");
  resolved(next_fopen, "fopen");
  resolved(next_fopen64, "fopen64");
  resolved(next_freopen, "freopen");
  resolved(next_freopen64, "freopen64");
  resolved(next_truncate, "truncate");
  resolved(next_setname, "pthread_setname_np");
  resolved(next_self, "pthread_self");
}

}  // namespace proc_write_probe

using namespace proc_write_probe;

#define PROBE_CALLER __builtin_return_address(0)

// errno is read through the C library's accessor, which this file may declare without <errno.h>.
extern "C" int* __errno_location() noexcept;

#define PROBE_OPEN(name, slot, ...)                                 \
  const OpenNext real = resolved(slot, name);                      \
  const int index = begin(name, kAtCurrentDirectory, path, flags, nullptr, PROBE_CALLER); \
  const int result = real(__VA_ARGS__);                            \
  const int error = *__errno_location();                           \
  end(index, result, error);                                       \
  *__errno_location() = error;                                     \
  return result

extern "C" {

__attribute__((visibility("default"))) int open(const char* path, int flags, ...) {
  unsigned mode = 0;
  if (takes_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, unsigned);
    va_end(args);
  }
  PROBE_OPEN("open", next_open, path, flags, mode);
}

__attribute__((visibility("default"))) int open64(const char* path, int flags, ...) {
  unsigned mode = 0;
  if (takes_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, unsigned);
    va_end(args);
  }
  PROBE_OPEN("open64", next_open64, path, flags, mode);
}

__attribute__((visibility("default"))) int __open_2(const char* path, int flags) { PROBE_OPEN("__open_2", next_open_2, path, flags); }

__attribute__((visibility("default"))) int __open64_2(const char* path, int flags) {
  PROBE_OPEN("__open64_2", next_open64_2, path, flags);
}

#define PROBE_OPENAT(name, slot, ...)                               \
  const OpenAtNext real = resolved(slot, name);                    \
  const int index = begin(name, dir_fd, path, flags, nullptr, PROBE_CALLER); \
  const int result = real(__VA_ARGS__);                            \
  const int error = *__errno_location();                           \
  end(index, result, error);                                       \
  *__errno_location() = error;                                     \
  return result

__attribute__((visibility("default"))) int openat(int dir_fd, const char* path, int flags, ...) {
  unsigned mode = 0;
  if (takes_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, unsigned);
    va_end(args);
  }
  PROBE_OPENAT("openat", next_openat, dir_fd, path, flags, mode);
}

__attribute__((visibility("default"))) int openat64(int dir_fd, const char* path, int flags, ...) {
  unsigned mode = 0;
  if (takes_mode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = va_arg(args, unsigned);
    va_end(args);
  }
  PROBE_OPENAT("openat64", next_openat64, dir_fd, path, flags, mode);
}

__attribute__((visibility("default"))) int __openat_2(int dir_fd, const char* path, int flags) {
  PROBE_OPENAT("__openat_2", next_openat_2, dir_fd, path, flags);
}

__attribute__((visibility("default"))) int __openat64_2(int dir_fd, const char* path, int flags) {
  PROBE_OPENAT("__openat64_2", next_openat64_2, dir_fd, path, flags);
}

__attribute__((visibility("default"))) int creat(const char* path, unsigned mode) {
  const CreatNext real = resolved(next_creat, "creat");
  const int index = begin("creat", kAtCurrentDirectory, path, kOpenWriteOnly | kOpenCreate | kOpenTruncate, nullptr,
                          PROBE_CALLER);
  const int result = real(path, mode);
  const int error = *__errno_location();
  end(index, result, error);
  *__errno_location() = error;
  return result;
}

__attribute__((visibility("default"))) int creat64(const char* path, unsigned mode) {
  const CreatNext real = resolved(next_creat64, "creat64");
  const int index = begin("creat64", kAtCurrentDirectory, path, kOpenWriteOnly | kOpenCreate | kOpenTruncate, nullptr,
                          PROBE_CALLER);
  const int result = real(path, mode);
  const int error = *__errno_location();
  end(index, result, error);
  *__errno_location() = error;
  return result;
}

#define PROBE_FOPEN(name, slot, ...)                                                             \
  const auto real = resolved(slot, name);                                                       \
  const int index = begin(name, kAtCurrentDirectory, path, fopen_flags(mode), mode, PROBE_CALLER); \
  FILE* const result = real(__VA_ARGS__);                                                       \
  const int error = *__errno_location();                                                        \
  end(index, result ? 0 : -1, error);                                                           \
  *__errno_location() = error;                                                                  \
  return result

__attribute__((visibility("default"))) FILE* fopen(const char* path, const char* mode) {
  PROBE_FOPEN("fopen", next_fopen, path, mode);
}

__attribute__((visibility("default"))) FILE* fopen64(const char* path, const char* mode) {
  PROBE_FOPEN("fopen64", next_fopen64, path, mode);
}

__attribute__((visibility("default"))) FILE* freopen(const char* path, const char* mode, FILE* stream) {
  PROBE_FOPEN("freopen", next_freopen, path, mode, stream);
}

__attribute__((visibility("default"))) FILE* freopen64(const char* path, const char* mode, FILE* stream) {
  PROBE_FOPEN("freopen64", next_freopen64, path, mode, stream);
}

__attribute__((visibility("default"))) int truncate(const char* path, long length) noexcept {
  const TruncateNext real = resolved(next_truncate, "truncate");
  const int index = begin("truncate", kAtCurrentDirectory, path, kOpenWriteOnly | kOpenTruncate, nullptr, PROBE_CALLER);
  const int result = real(path, length);
  const int error = *__errno_location();
  end(index, result, error);
  *__errno_location() = error;
  return result;
}

// Naming another thread: the C library opens /proc/self/task/<tid>/comm inside itself (read-write,
// no truncation), out of reach of the wrappers above. Naming the calling thread is a prctl, no
// file, and is not noted.
__attribute__((visibility("default"))) int pthread_setname_np(pthread_t thread, const char* name) noexcept {
  const SetNameNext real = resolved(next_setname, "pthread_setname_np");
  const bool other = thread != resolved(next_self, "pthread_self")();
  const int index =
      other ? begin("pthread_setname_np", kAtCurrentDirectory, "/proc/self/task/?/comm", kOpenReadWrite, name, PROBE_CALLER)
            : -1;
  const int result = real(thread, name);  // 0 or an error number
  end(index, result == 0 ? 0 : -1, result);
  return result;
}

}  // extern "C"
