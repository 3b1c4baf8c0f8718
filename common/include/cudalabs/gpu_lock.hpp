#pragma once
// One GPU, one timed measurement (or GPU test program) at a time; correctness tests may share.
//
// Two gradings on one GPU disturb each other's figures: timings, and the per-test device-memory
// leak check (which reads the device's free memory, so another process's allocations look like
// this test's). Whatever runs GPU work that must be alone takes the lock on the GPU exclusively:
// labgrade for a grade's timed cases and for whatever it must run again alone, a lab harness run
// by hand, and every GpuTest fixture. A grade's correctness tests take it shared: several grades'
// correctness tests run at once, never while anything holds it exclusively; labgrade runs again,
// alone, every correctness test that failed while sharing (except a time-out), so no verdict
// depends on a neighbour (see grader/src/session/stages.cpp).
//
// The lock is flock(2) on /run/lock/cudalabs-gpu-<UUID>.lock (the FHS place for lock files: a
// tmpfs, writable by every user, emptied at boot; /tmp when it is missing; CUDALABS_LOCK_DIR
// overrides both, e.g. for a shared machine's policy). Keyed by the GPU's UUID, not its index,
// because CUDA_VISIBLE_DEVICES renumbers devices. The kernel releases it when the last descriptor
// of it closes, so it goes with the process however the process ends (crash, SIGKILL), and no
// stale lock can outlive its holder. While it is busy the waiter prints once
//   waiting for GPU NVIDIA H100 80GB HBM3 (GPU-1a2b...), held by pid 1234 (labgrade grade 01_vector_add) since ...
//
// No self-deadlock: labgrade holds the lock while its child harnesses run, so it tells them with
// CUDALABS_GPU_LOCK_HELD=<uuid> and a child never takes the lock itself. The descriptor is *not*
// passed to the child (it is close-on-exec): student code in the harness can neither release the
// lock early nor keep it after labgrade ends. A harness whose environment was tampered with
// (the variable removed) could only block itself, and it could not open the lock file anyway: its
// sandbox forbids writing outside its working directory.
#include <cuda_runtime.h>

#include <string>

namespace cudalabs {

// Set by a holder for the processes it starts: they run under its lock.
inline constexpr const char* kGpuLockHeldVariable = "CUDALABS_GPU_LOCK_HELD";

enum class GpuAccess {
  Exclusive,  // nothing else runs on the GPU: timed cases, GPU test programs
  Shared,     // with other Shared holders: correctness tests
};

class GpuLock {
 public:
  GpuLock() = default;
  GpuLock(GpuLock&& other) noexcept;
  GpuLock& operator=(GpuLock&& other) noexcept;
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  ~GpuLock();

  // Waits for, then takes, the lock of CUDA device `device` (this process's numbering), writing
  // `holder` ("labgrade grade 01_vector_add") into the lock file for whoever waits next. Holds
  // nothing, without waiting, when no CUDA device is usable, when CUDALABS_GPU_LOCK_HELD says a
  // parent holds it, or when no lock file can be opened (a warning on stderr names the file).
  // Shared: waits while an exclusive holder runs or waits (writers first: see lock_file).
  static GpuLock acquire(int device, const std::string& holder, GpuAccess access = GpuAccess::Exclusive);

  // The queries acquire() makes to name device `device` (neither creates a context): false, with
  // CUDA's last error cleared, when no such device is usable. Made early (labgrade: beside the
  // build), they also start the CUDA runtime and driver, so acquire() later costs no start.
  static bool query_device(int device, cudaDeviceProp& properties) noexcept;

  // The locking itself, on the lock file `path` of the GPU named `gpu` ("NVIDIA H100 (GPU-...)"):
  // what acquire() does once it knows the device. Public for tests.
  // Uses a second file beside it, `path`.intent, to let exclusive takers in first.
  static GpuLock lock_file(const std::string& path, const std::string& gpu, const std::string& uuid,
                           const std::string& holder, GpuAccess access = GpuAccess::Exclusive);

  // For a Shared holder that wants the GPU alone (a grade between its correctness tests and its
  // timed cases). Takes it without waiting when nothing else holds it or waits for it: true, and
  // it is Exclusive now. Otherwise false, and nothing else can take it exclusively before this
  // holder's make_exclusive(): either it still holds it shared, or it holds the intent (see
  // lock_file) while other shared holders finish. Only a Shared holder tries (false otherwise).
  bool try_make_exclusive(const std::string& holder);
  // Waits, then holds it exclusively (at once when it already does). A Shared holder lets go of its
  // shared hold first (it would otherwise wait for itself, and a taker that already holds the
  // intent would wait for it); after a failed try_make_exclusive it keeps its place. False, holding
  // nothing, when the locking fails (a warning on stderr).
  bool make_exclusive(const std::string& holder);

  bool held() const { return fd_ >= 0; }
  GpuAccess access() const { return access_; }
  const std::string& uuid() const { return uuid_; }  // "GPU-xxxxxxxx-xxxx-..." when held

 private:
  void release() noexcept;

  int fd_ = -1;
  int intent_fd_ = -1;  // held exclusively between a failed try_make_exclusive and make_exclusive
  std::string path_;    // of the lock file, and `path_`.intent beside it
  std::string gpu_;     // for the waiting message
  std::string uuid_;
  GpuAccess access_ = GpuAccess::Exclusive;
};

// For GpuTest and lab harnesses: takes the lock of the current device once for the life of this
// process (a no-op after the first call, or when a parent holds it).
void hold_gpu_lock_for_process();

}  // namespace cudalabs
