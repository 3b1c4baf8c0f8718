#pragma once
// The lock files every labgrade on a machine shares (gpu_lock.cpp, host_slot.cpp).
#include <string>

namespace cudalabs::lock_files {

// CUDALABS_LOCK_DIR, else /run/lock when writable, else /tmp.
std::string lock_directory();

// Opens the lock file `path` for everyone's use (created 0666 when missing), or -1 with errno.
// The file may belong to another user (a lock directory is shared and sticky): then it is opened
// as it is, never re-created; flock works read-only too.
int open_lock_file(const std::string& path);

}  // namespace cudalabs::lock_files
