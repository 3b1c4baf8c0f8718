// The /proc "comm broker" (issue 27, item 3): how a confined runner names the threads the CUDA
// driver starts without being able to write its own memory files. Internal to the runner's
// confinement (confine_process.cpp, runner_preinit.cpp) and to the judge (remote/judge.cpp).
//
// The runner (from .preinit_array, single-threaded, before any library constructor):
//   - Landlock with ProcfsWrites::kNone: nothing under /proc is writable, so neither
//     /proc/self/mem nor any /proc/<pid>/task/<tid>/mem, whatever path reaches them;
//   - a second seccomp filter (install_procfs_broker_filter) that turns open, openat and creat
//     with a write, create or truncate flag (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC) into a user
//     notification; openat2 (whose flags live in a struct BPF cannot read) answers ENOSYS, so the C
//     library falls back to openat. Read-only opens never leave the kernel;
//   - hands the filter's listener to the judge over its descriptor 3 (SCM_RIGHTS) and closes it.
// The judge (ProcfsBroker, one thread per runner) answers each notification:
//   - a thread name of the runner, exactly /proc/self/task/<tid>/comm, /proc/<tgid>/task/<tid>/comm,
//     /proc/thread-self/comm, /proc/self/comm or /proc/<tgid>/comm (absolute paths only), with
//     <tid> a thread of that runner: the judge opens /proc/<tgid>/task/<tid>/comm itself, with the
//     access asked for (never O_CREAT), and injects the descriptor as the call's result
//     (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND);
//   - anything else: SECCOMP_USER_NOTIF_FLAG_CONTINUE, the kernel performs the call as if no
//     notifier existed, and Landlock decides (writes beneath the scratch directory and /dev pass,
//     everything under /proc is refused with EACCES);
//   - memory it cannot read, or a notification that went away: EACCES (or nothing), never a crash.
// Why CONTINUE is no time-of-check/time-of-use hole here: the broker never lends the runner any
// right for a path it checked. The one thing it grants, a thread's comm file, it opens itself from
// a path it builds from numbers it verified, and hands over that descriptor; for every other call
// it adds nothing, and the kernel re-reads the (possibly swapped) path and applies the runner's own
// Landlock domain to it. A path flipped after the check therefore either still gets the broker's
// comm descriptor (the mem path it was flipped to is never opened) or is decided by Landlock
// (/proc not writable): no interleaving yields a writable mem descriptor.
//
// Needs Linux >= 5.14 (ADDFD_FLAG_SEND), seccomp user notification, Landlock and x86-64; where any
// is missing, confined runners keep the pre-broker policy (CUDALABS_PROCFS_WRITES, by default the
// whole /proc/<pid> tree writable) and `labgrade --version` lists the protection as missing.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <thread>

// Build with -DCUDALABS_PROCFS_BROKER=0 to confine runners as before the broker (by
// CUDALABS_PROCFS_WRITES alone, see filesystem_sandbox.cpp).
#ifndef CUDALABS_PROCFS_BROKER
#define CUDALABS_PROCFS_BROKER 1
#endif

namespace cudalabs {

// nullptr when confined runners use the broker on this machine (this build enables it and the
// kernel offers every piece); otherwise why not, as a sentence. Changes nothing; allocates nothing.
const char* procfs_broker_unavailable() noexcept;

// Installs the broker's filter on the calling thread (and the threads it starts later); returns
// the listener descriptor (close-on-exec), or -1 with errno set. Async-signal-safe. Requires
// no_new_privs (install_system_call_filter sets it; this sets it too).
int install_procfs_broker_filter() noexcept;

// One datagram of `bytes` on `socket` carrying `fd` (when >= 0) as SCM_RIGHTS. True when sent
// whole. Async-signal-safe.
bool send_with_descriptor(int socket, const void* data, std::size_t bytes, int fd) noexcept;
// One datagram into `data`; a descriptor that came with it (close-on-exec) in *fd, else -1.
// Returns what recvmsg returned (the datagram's full size with MSG_TRUNC semantics).
long receive_with_descriptor(int socket, void* data, std::size_t bytes, int* fd, int flags = 0) noexcept;

// The thread whose name `path` designates, in one of the forms the broker opens (see above), for
// a call made by thread `caller` of process `tgid`; 0 for any other path. Only the form is
// checked: whether the thread belongs to `tgid` is decided when its comm file is opened.
pid_t thread_named_by(const char* path, pid_t tgid, pid_t caller) noexcept;

// Answers one pending notification of `listener` for runner `tgid` as described above; *granted
// tells whether it injected a thread's comm descriptor. Returns false when nothing could be
// received (the notification went away).
bool serve_procfs_notification(int listener, pid_t tgid, bool* granted) noexcept;

// The judge's side: serves one runner's listener in a thread of its own until stop(), or until
// the runner is gone. Usable while the judge's main thread is blocked on a reply.
class ProcfsBroker {
 public:
  ProcfsBroker() = default;
  ProcfsBroker(const ProcfsBroker&) = delete;
  ProcfsBroker& operator=(const ProcfsBroker&) = delete;
  ~ProcfsBroker() { stop(); }

  // Takes `listener` (closed in any case). False when the thread could not be started.
  bool start(int listener, pid_t tgid) noexcept;
  // Ends the thread and closes the listener; a call still waiting on it fails with ENOSYS.
  void stop() noexcept;
  bool running() const noexcept { return thread_.joinable(); }
  // Thread names opened for the runner so far (diagnostics and tests).
  unsigned long granted() const noexcept { return granted_.load(); }

 private:
  void serve() noexcept;

  std::thread thread_;
  int listener_ = -1;
  int wake_ = -1;  // eventfd: stop() signals it
  pid_t tgid_ = -1;
  std::atomic<unsigned long> granted_{0};
};

}  // namespace cudalabs
