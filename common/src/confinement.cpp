#include "cudalabs/confinement.hpp"

#include <string>

#include "cpu_partition.hpp"
#include "filesystem_sandbox.hpp"
#include "procfs_broker.hpp"
#include "process_filter.hpp"

namespace cudalabs {

std::vector<Protection> test_process_protections() {
  const bool seccomp = system_call_filter_supported();
  const int abi = landlock_abi_version();
  const std::string no_seccomp = "this kernel (or architecture) offers no seccomp filter";
  const auto landlock = [abi](int needed) {
    if (abi >= needed) return std::string("Landlock ABI ") + std::to_string(abi);
    if (abi == 0) return std::string("this kernel offers no Landlock (Linux >= 5.13 with lsm=landlock)");
    return "needs Landlock ABI " + std::to_string(needed) + ", this kernel has " + std::to_string(abi);
  };
  const char* no_broker = procfs_broker_unavailable();
  const bool memory_files_writable = procfs_memory_writable(default_procfs_writes());
  const std::vector<remote::Core> cores = remote::allowed_cores();
  const bool separate_cores = remote::partition_cores(cores).pins();
  return {
      {"verdict out of student code's reach: the hidden suite, reference, expected outputs, clock and result "
       "channel live in a judge process that never maps student code; each call runs in a confined runner",
       "judge/runner split (CUDA IPC)", true, ""},
      {"every timed call checked (inputs sealed, outputs compared), the same work before each",
       "timing engine", true, ""},
      {"timed windows gated: each call queued behind a word of the judge's before its inputs exist, the judge's "
       "clock held on the GPU alone (no runner's host path in it); a case whose calls refuse the gate is timed from "
       "request to reply and keeps the last of its runner pairs, never the best",
       "stream memory operations (cuStreamWaitValue32)", true, ""},
      {"no new processes or programs (fork, exec, clone)", "seccomp filter", seccomp, seccomp ? "" : no_seccomp},
      {"no access to other processes (ptrace, process_vm_readv/writev, pidfd_getfd)", "seccomp filter", seccomp,
       seccomp ? "" : no_seccomp},
      {"no network sockets (only AF_UNIX); no io_uring", "seccomp filter", seccomp, seccomp ? "" : no_seccomp},
      {"writes only beneath the test's scratch directory; course files read-only", "Landlock", abi >= 1, landlock(1)},
      {"no TCP bind or connect", "Landlock", abi >= 4, landlock(4)},
      {"ioctl only on device files", "Landlock", abi >= 5, landlock(5)},
      {"no signals or abstract UNIX sockets outside the test process", "Landlock", abi >= 6, landlock(6)},
      // Without the broker a runner falls back to CUDALABS_PROCFS_WRITES (by default its whole
      // /proc/<pid> tree writable, since the CUDA driver names the threads it starts there).
      {"a runner cannot write its own memory files (/proc/self/mem, /proc/self/task/*/mem); the judge opens the "
       "names of the threads CUDA starts for it",
       "/proc comm broker: Landlock + seccomp user notification",
       no_broker == nullptr || (abi >= 1 && !memory_files_writable),
       no_broker == nullptr ? ""
       : abi >= 1 && !memory_files_writable
           ? std::string(no_broker) + "; runners get no /proc write at all instead (CUDALABS_PROCFS_WRITES)"
           : std::string(no_broker) + "; runners can write their own /proc/<pid> tree"},
      {"the student's runner keeps to cores of its own, which the judge and the reference are never timed on; "
       "it cannot move its threads or raise them (sched_setaffinity, sched_setattr, setpriority)",
       "CPU affinity from the judge + seccomp filter", seccomp && separate_cores,
       !seccomp ? no_seccomp
       : separate_cores ? ""
                        : "this process may use " + std::to_string(cores.size()) +
                              " physical core(s), fewer than the 3 that keep the student's runner apart from the "
                              "judge and the reference while timed"},
      {"host memory per test process (course.yaml host_memory_gib)", "RLIMIT_DATA", true, ""},
      {"student library exports only the lab's API (student::*)", "linker version script", true, ""},
      {"test program's relocations read-only before student code runs", "full RELRO, bind now", true, ""},
      {"one grade per GPU", "flock on /run/lock/cudalabs-gpu-<UUID>.lock", true, ""},
  };
}

}  // namespace cudalabs
