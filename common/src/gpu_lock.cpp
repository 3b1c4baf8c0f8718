#include "cudalabs/gpu_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <utility>

#include <cuda_runtime.h>

#include "lock_files.hpp"

namespace cudalabs {
namespace {

// As nvidia-smi prints it: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[48];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
                b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

std::string read_holder(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder.empty() ? "another process" : holder;
}

void write_holder(int fd, const std::string& holder) {
  char since[64] = "";
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (::localtime_r(&now, &local)) std::strftime(since, sizeof since, "%Y-%m-%d %H:%M:%S", &local);
  const std::string text = "pid " + std::to_string(::getpid()) + " (" + holder + ") since " + since + "\n";
  if (::ftruncate(fd, 0) == 0) static_cast<void>(::pwrite(fd, text.data(), text.size(), 0));
}

}  // namespace

GpuLock::GpuLock(GpuLock&& other) noexcept { *this = std::move(other); }

GpuLock& GpuLock::operator=(GpuLock&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
    intent_fd_ = std::exchange(other.intent_fd_, -1);
    path_ = std::move(other.path_);
    gpu_ = std::move(other.gpu_);
    uuid_ = std::move(other.uuid_);
    access_ = other.access_;
  }
  return *this;
}

GpuLock::~GpuLock() { release(); }

// Closing the last descriptor of a lock file releases its flock.
void GpuLock::release() noexcept {
  if (fd_ >= 0) ::close(fd_);
  if (intent_fd_ >= 0) ::close(intent_fd_);
  fd_ = -1;
  intent_fd_ = -1;
}

bool GpuLock::query_device(int device, cudaDeviceProp& properties) noexcept {
  int count = 0;
  // Neither call creates a context: a waiter takes no GPU memory from the holder.
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count ||
      cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return false;
  }
  return true;
}

GpuLock GpuLock::acquire(int device, const std::string& holder, GpuAccess access) {
  GpuLock lock;
  if (std::getenv(kGpuLockHeldVariable) != nullptr) return lock;  // our parent holds it for us
  cudaDeviceProp properties{};
  if (!query_device(device, properties)) return lock;  // no usable device: nothing to share
  const std::string uuid = format_uuid(properties.uuid);
  return lock_file(lock_files::lock_directory() + "/cudalabs-gpu-" + uuid + ".lock",
                   std::string(properties.name) + " (" + uuid + ")", uuid, holder, access);
}

namespace {

// flock(2), retried when a signal interrupts the wait. Says once, on stderr, whom it waits for.
bool flock_waiting(int fd, int operation, int holder_fd, const std::string& gpu, bool* said) {
  if (::flock(fd, operation | LOCK_NB) == 0) return true;
  if (!*said) {
    std::fprintf(stderr, "cudalabs: waiting for GPU %s, held by %s\n", gpu.c_str(), read_holder(holder_fd).c_str());
    std::fflush(stderr);
    *said = true;
  }
  int locked = -1;
  while ((locked = ::flock(fd, operation)) != 0 && errno == EINTR) {
  }
  return locked == 0;
}

}  // namespace

// Writers first. flock promises no order, so shared holders that keep overlapping could keep an
// exclusive taker (a timed case) waiting for ever. Hence a second lock file, the "intent": an
// exclusive taker holds it exclusively while it waits for the GPU lock, and a shared taker passes
// through it (takes it shared, then lets go) on its way in. Once an exclusive taker waits, a new
// shared taker waits behind it; the shared holders already in finish, the exclusive one runs,
// then the shared ones go on together.
GpuLock GpuLock::lock_file(const std::string& path, const std::string& gpu, const std::string& uuid,
                           const std::string& holder, GpuAccess access) {
  GpuLock lock;
  const int fd = lock_files::open_lock_file(path);
  const int intent = fd < 0 ? -1 : lock_files::open_lock_file(path + ".intent");
  if (fd < 0 || intent < 0) {
    std::fprintf(stderr, "cudalabs: warning: cannot open the GPU lock %s%s (%s); running without it\n", path.c_str(),
                 fd < 0 ? "" : ".intent", std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return lock;
  }
  const bool exclusive = access == GpuAccess::Exclusive;
  bool said = false;
  const bool locked = flock_waiting(intent, exclusive ? LOCK_EX : LOCK_SH, fd, gpu, &said) &&
                      flock_waiting(fd, exclusive ? LOCK_EX : LOCK_SH, fd, gpu, &said);
  ::close(intent);  // lets the next taker in (closing the descriptor releases its flock)
  if (!locked) {
    std::fprintf(stderr, "cudalabs: warning: cannot lock %s (%s); running without it\n", path.c_str(),
                 std::strerror(errno));
    ::close(fd);
    return lock;
  }
  write_holder(fd, exclusive ? holder : holder + ", sharing the GPU");
  lock.fd_ = fd;
  lock.path_ = path;
  lock.gpu_ = gpu;
  lock.uuid_ = uuid;
  lock.access_ = access;
  return lock;
}

// The intent first, without waiting: held by someone else, an exclusive taker is already waiting
// (for this holder's shared hold among others; waiting for the intent here would deadlock) or a
// shared taker is on its way in, and this one must wait its turn. Then the lock
// itself: flock converts a shared hold by removing it and then taking the new one, so a failed
// attempt leaves this holder with the intent alone, which keeps every other exclusive taker out
// until make_exclusive() waits for the shared holders still in.
bool GpuLock::try_make_exclusive(const std::string& holder) {
  if (fd_ < 0 || access_ != GpuAccess::Shared || intent_fd_ >= 0) return false;
  const int intent = lock_files::open_lock_file(path_ + ".intent");
  if (intent < 0) return false;
  if (::flock(intent, LOCK_EX | LOCK_NB) != 0) {
    ::close(intent);
    return false;
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    intent_fd_ = intent;
    return false;
  }
  ::close(intent);
  write_holder(fd_, holder);
  access_ = GpuAccess::Exclusive;
  return true;
}

bool GpuLock::make_exclusive(const std::string& holder) {
  if (fd_ < 0) return false;
  if (access_ == GpuAccess::Exclusive) return true;
  bool said = false;
  bool locked = true;
  if (intent_fd_ < 0) {
    ::flock(fd_, LOCK_UN);
    intent_fd_ = lock_files::open_lock_file(path_ + ".intent");
    locked = intent_fd_ >= 0 && flock_waiting(intent_fd_, LOCK_EX, fd_, gpu_, &said);
  }
  locked = locked && flock_waiting(fd_, LOCK_EX, fd_, gpu_, &said);
  if (intent_fd_ >= 0) ::close(intent_fd_);  // lets the next taker in
  intent_fd_ = -1;
  if (!locked) {
    std::fprintf(stderr, "cudalabs: warning: cannot lock %s (%s); running without it\n", path_.c_str(),
                 std::strerror(errno));
    release();
    return false;
  }
  write_holder(fd_, holder);
  access_ = GpuAccess::Exclusive;
  return true;
}

void hold_gpu_lock_for_process() {
  static std::once_flag once;
  static GpuLock lock;
  std::call_once(once, [] {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      device = 0;
    }
    lock = GpuLock::acquire(device, program_invocation_short_name);
  });
}

}  // namespace cudalabs
