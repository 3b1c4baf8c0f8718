// Shared by proc_write_probe.cpp (the probe) and proc_write_probe_hooks.cpp (its open/fopen
// wrappers). The hooks file includes no C library header that declares the functions it
// replaces, so the open flags it tests are spelled out here; proc_write_probe.cpp checks them
// against <fcntl.h> (static_assert).
#pragma once

#include <atomic>

namespace proc_write_probe {

constexpr int kOpenAccessMode = 03, kOpenWriteOnly = 01, kOpenReadWrite = 02;
constexpr int kOpenCreate = 0100, kOpenTruncate = 01000, kOpenAppend = 02000;
constexpr int kOpenTmpFileBit = 020000000;  // __O_TMPFILE: O_TMPFILE also takes a mode argument
constexpr int kAtCurrentDirectory = -100;   // AT_FDCWD

// Opened with the intent to write, create or truncate.
constexpr bool writes(int flags) {
  return (flags & kOpenAccessMode) != 0 || (flags & (kOpenCreate | kOpenTruncate | kOpenTmpFileBit)) != 0;
}

constexpr int kPending = -100000;  // OpenRecord::result before the call returned

// One call of an interposed function that opens a file for writing (or names another thread).
struct OpenRecord {
  int step;    // the probe's step running when it was called (-1: before the first)
  int tid;     // the calling thread
  int flags;   // open flags (fopen: what its mode means)
  int result;  // >= 0: success (descriptor or 0); < 0: -errno; kPending: did not return
  void* caller;
  char function[24];
  char detail[24];   // fopen's mode, the name given to a thread
  char library[64];  // the caller's shared object (filled in before the record is sent)
  char path[256];    // absolute where it could be made so
};

constexpr int kMaxRecords = 4096;
extern OpenRecord g_records[kMaxRecords];
extern std::atomic<int> g_record_count;
extern std::atomic<bool> g_recording;  // only while the CUDA steps run
extern std::atomic<int> g_step;

// Looks up the C library's definitions that the wrappers forward to; call before any thread starts.
void resolve_next_functions();

// Provided by proc_write_probe.cpp.
int thread_id();
// `path` as an absolute path where it is relative (to `dir_fd` or the working directory).
void absolute_path(int dir_fd, const char* path, char* out, unsigned size);

}  // namespace proc_write_probe
