// proc_write_probe: exactly which files under /proc CUDA opens for writing (or creates, or
// truncates), and whether CUDA still runs under each candidate /proc policy of the test-process
// sandbox (common/src/filesystem_sandbox.cpp, ProcfsWrites; issue 27, item 3a: a confined process
// must not open /proc/self/mem or /proc/self/task/<tid>/mem for writing). Device-side, by hand:
//
//   ./build/bench/proc_write_probe                    sections [1] [2] [3] below; exits 0
//   ./build/bench/proc_write_probe --simulate-driver  no GPU needed: a stand-in "driver" names a
//                                                     thread it starts as NVIDIA's does (checks the probe;
//                                                     --simulate-tolerant-driver: one that ignores a refusal)
//
// Each run is a forked child (the parent never loads CUDA). The child
//   1. installs a seccomp filter that turns every open/openat/openat2/creat/truncate with a
//      write, create or truncate flag into a user notification: the parent reads the path out of
//      the child's memory and lets the call go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE, which skips
//      no other check: Landlock still decides). This sees every such call of every thread however
//      it is made (inside the C library, raw syscalls);
//   2. notes, in its own open/fopen/... (proc_write_probe_hooks.cpp, exported so that libcuda
//      calls them), who called (the shared object) and what the call returned;
//   3. is confined as the row says (before CUDA loads, as a test process is), runs the CUDA
//      steps one by one, then tries to open every /proc/.../mem of its threads for writing.
// [1] is the unconfined run: every open for writing outside /dev, per step, by which thread.
// [2] runs the steps under each candidate policy; [3] says what the rows decide.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>

#include "../../common/src/filesystem_sandbox.hpp"
#include "../../common/src/process_filter.hpp"
#include "../../common/src/procfs_broker.hpp"
#include "../../common/src/seccomp_notify.hpp"
#include "cudalabs/confine_process.hpp"
#include "proc_write_probe.hpp"

cudaError_t proc_write_probe_launch(int* data, int n);  // proc_write_probe_kernel.cu


namespace proc_write_probe {

static_assert(O_ACCMODE == kOpenAccessMode && O_WRONLY == kOpenWriteOnly && O_RDWR == kOpenReadWrite);
static_assert(O_CREAT == kOpenCreate && O_TRUNC == kOpenTruncate && O_APPEND == kOpenAppend);
static_assert(AT_FDCWD == kAtCurrentDirectory);
#ifdef __O_TMPFILE
static_assert((__O_TMPFILE & kOpenTmpFileBit) == kOpenTmpFileBit);  // with O_DIRECTORY on x86-64
#endif

int thread_id() { return static_cast<int>(::syscall(SYS_gettid)); }

void absolute_path(int dir_fd, const char* path, char* out, unsigned size) {
  if (!path) {
    std::snprintf(out, size, "(null)");
    return;
  }
  if (path[0] == '/') {
    std::snprintf(out, size, "%s", path);
    return;
  }
  char base[200] = ".";
  if (dir_fd == AT_FDCWD) {
    if (!::getcwd(base, sizeof base)) std::strcpy(base, ".");
  } else {
    char link[48];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", dir_fd);
    const ssize_t n = ::readlink(link, base, sizeof base - 1);
    base[n > 0 ? n : 0] = '\0';
  }
  std::snprintf(out, size, "%s/%s", base, path);
}

namespace {

// ---- the steps --------------------------------------------------------------------------------

constexpr int kSteps = 10;
const char* const kStepColumn[kSteps] = {"count", "free0", "malloc", "kernel", "memset",
                                         "mhost", "hreg",  "stream", "hostfn", "ipc"};
const char* const kStepName[kSteps] = {"cudaGetDeviceCount",     "cudaFree(0)",    "cudaMalloc",
                                       "kernel launch",          "cudaMemset",     "cudaMallocHost",
                                       "cudaHostRegister",       "cudaStreamCreate", "cudaLaunchHostFunc",
                                       "cudaIpcOpenMemHandle"};
constexpr int kNotRun = -1;       // a step it needs failed
constexpr int kStepsDone = 100;   // step marker: the probe's own checks after the CUDA steps
constexpr int kMemoryBytes = 1 << 20;

bool g_simulate = false;           // --simulate-driver
bool g_simulate_tolerant = false;  // --simulate-tolerant-driver: the stand-in ignores a refused name

struct IpcExport {
  bool ok = false;
  cudaIpcMemHandle_t handle{};
};

struct CudaState {
  int* device = nullptr;
  void* pinned = nullptr;
  void* registered = nullptr;
  cudaStream_t stream = nullptr;
};

std::atomic<int> g_host_function_calls{0};
void CUDART_CB host_function(void*) { g_host_function_calls.fetch_add(1); }

// The stand-in driver of --simulate-driver: a thread it starts names itself by
// fopen("/proc/self/task/<tid>/comm", "w"), the way NVIDIA's driver (>= 570) is reported to, and
// a refusal is fatal (cudaErrorOperatingSystem); "stream" names a thread from its creator with
// pthread_setname_np and ignores a refusal.
struct SimulatedThread {
  std::atomic<int> named{0};  // 0 pending, 1 named, -errno refused
  std::atomic<int> tid{0};
};

void* simulated_driver_thread(void* argument) {
  auto* thread = static_cast<SimulatedThread*>(argument);
  thread->tid.store(thread_id());
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", thread_id());
  if (FILE* comm = std::fopen(path, "w")) {
    std::fputs("sim-driver", comm);
    std::fclose(comm);
    thread->named.store(1);
  } else {
    thread->named.store(-errno);
  }
  for (;;) ::pause();
}

void* simulated_idle_thread(void* argument) {
  static_cast<SimulatedThread*>(argument)->tid.store(thread_id());
  for (;;) ::pause();
}

int simulated_step(int step) {
  if (step == 0 || step == 8) {  // the driver's own threads, at init and for host functions
    auto* thread = new SimulatedThread;
    pthread_t handle;
    if (pthread_create(&handle, nullptr, simulated_driver_thread, thread) != 0) return cudaErrorOperatingSystem;
    while (thread->named.load() == 0) ::usleep(200);
    return thread->named.load() == 1 || g_simulate_tolerant ? cudaSuccess : cudaErrorOperatingSystem;
  }
  if (step == 7) {
    auto* thread = new SimulatedThread;
    pthread_t handle;
    if (pthread_create(&handle, nullptr, simulated_idle_thread, thread) != 0) return cudaErrorOperatingSystem;
    while (thread->tid.load() == 0) ::usleep(200);
    pthread_setname_np(handle, "sim-stream");  // refusal ignored
  }
  return cudaSuccess;
}

int run_step(int step, CudaState& state, const IpcExport& ipc) {
  if (g_simulate) return simulated_step(step);
  switch (step) {
    case 0: {
      int devices = 0;
      const cudaError_t status = cudaGetDeviceCount(&devices);
      return status == cudaSuccess && devices == 0 ? cudaErrorNoDevice : status;
    }
    case 1: return cudaFree(nullptr);
    case 2: return cudaMalloc(&state.device, kMemoryBytes);
    case 3:
      if (!state.device) return kNotRun;
      return proc_write_probe_launch(state.device, kMemoryBytes / static_cast<int>(sizeof(int)));
    case 4: {
      if (!state.device) return kNotRun;
      const cudaError_t status = cudaMemset(state.device, 0, kMemoryBytes);
      return status != cudaSuccess ? status : cudaDeviceSynchronize();
    }
    case 5: return cudaMallocHost(&state.pinned, kMemoryBytes);
    case 6: {
      state.registered = std::aligned_alloc(4096, kMemoryBytes);
      return cudaHostRegister(state.registered, kMemoryBytes, cudaHostRegisterDefault);
    }
    case 7: {
      const cudaError_t created = cudaStreamCreate(&state.stream);
      if (created != cudaSuccess || !state.device || !state.pinned) return created;
      const cudaError_t copied =
          cudaMemcpyAsync(state.pinned, state.device, kMemoryBytes, cudaMemcpyDeviceToHost, state.stream);
      return copied != cudaSuccess ? copied : cudaStreamSynchronize(state.stream);
    }
    case 8: {
      if (!state.stream) return kNotRun;
      const cudaError_t launched = cudaLaunchHostFunc(state.stream, host_function, nullptr);
      if (launched != cudaSuccess) return launched;
      const cudaError_t finished = cudaStreamSynchronize(state.stream);
      return finished != cudaSuccess ? finished : g_host_function_calls.load() == 1 ? cudaSuccess : cudaErrorUnknown;
    }
    case 9: {
      if (!ipc.ok) return kNotRun;
      void* mapped = nullptr;
      const cudaError_t opened = cudaIpcOpenMemHandle(&mapped, ipc.handle, cudaIpcMemLazyEnablePeerAccess);
      if (opened != cudaSuccess) return opened;
      return cudaIpcCloseMemHandle(mapped);
    }
  }
  return kNotRun;
}

const char* code_name(int code) {
  if (code == kNotRun) return "not run (an earlier step failed)";
  if (g_simulate) return code == 0 ? "ok" : code == cudaErrorOperatingSystem ? "cudaErrorOperatingSystem" : "error";
  return cudaGetErrorName(static_cast<cudaError_t>(code));
}

// ---- the runs ------------------------------------------------------------------------------------

enum class Confine {
  Unconfined,
  Landlock,     // confine_filesystem(".", policy) alone
  TestProcess,  // the seccomp filter, then confine_filesystem(".", policy): confine_test_process with a policy
  AsBuilt,      // confine_test_process() itself
  ProbeRules,   // a Landlock ruleset made here (rules below), like the product's but for /proc
};

enum class ProbeRules { AllFilesButMem, TracedFiles, TaskTree };

struct Spec {
  const char* key;
  std::string label;
  Confine confine = Confine::Unconfined;
  cudalabs::ProcfsWrites policy = cudalabs::ProcfsWrites::kNone;
  ProbeRules rules = ProbeRules::AllFilesButMem;
  bool broker = false;        // the parent opens /proc/<pid>/task/<tid>/comm for the child
  bool cuda_before = false;   // count and free0 run before confinement
  bool non_dumpable = false;  // PR_SET_DUMPABLE 0 after confinement
};

struct Shared {
  IpcExport ipc;
  std::string scratch;
  std::vector<std::string> traced_files;  // [1]'s /proc files, "{MAIN}" for the main thread's id
};

// Messages from a child to the parent (one per SOCK_SEQPACKET datagram, first byte the type).
enum Message : char {
  kListener = 'L',  // + int (0, or the errno of a tracer that could not be installed); SCM_RIGHTS: the listener
  kStep = 'S',      // + int step
  kResult = 'X',    // + int step, int code, name
  kFailure = 'F',   // + text: the run could not be made
  kMemory = 'M',    // + int writable, int total, text
  kThread = 'T',    // + int tid, name
  kRecord = 'R',    // + OpenRecord
  kDevice = 'D',    // + text
  kEnd = 'E',
};

void send_message(int socket, char type, const void* data, std::size_t size, int fd = -1) {
  char buffer[1 + sizeof(OpenRecord) + 256];
  buffer[0] = type;
  size = std::min(size, sizeof buffer - 1);
  if (size) std::memcpy(buffer + 1, data, size);
  static_cast<void>(cudalabs::send_with_descriptor(socket, buffer, size + 1, fd));
}

void send_text(int socket, char type, const std::string& text) { send_message(socket, type, text.data(), text.size()); }

template <class... Ints>
void send_ints(int socket, char type, const std::string& text, Ints... values) {
  const int ints[] = {values...};
  std::string payload(reinterpret_cast<const char*>(ints), sizeof ints);
  payload += text;
  send_message(socket, type, payload.data(), payload.size());
}

// The tracer: open-like calls that write, create or truncate notify the parent.
int install_tracer() {
#if defined(__x86_64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_X86_64;
  constexpr std::uint32_t kOpen = __NR_open, kCreat = __NR_creat;
#elif defined(__aarch64__)
  constexpr std::uint32_t kArch = AUDIT_ARCH_AARCH64;
  constexpr std::uint32_t kOpen = 0xffffffffu, kCreat = 0xffffffffu;  // not on this architecture
#else
  errno = ENOSYS;
  return -1;
#endif
  constexpr std::uint32_t kWriteFlags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
  auto low_word_of_argument = [](int i) {
    return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * i);  // little-endian
  };
  // 0 arch, 2 nr, 9 openat's flags, 11 open's flags, 13 notify, 14 allow.
  sock_filter program[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 0, 12),
      /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 5, 0),
      /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kOpen, 6, 0),
      /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kCreat, 7, 0),
      /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437 /* openat2: flags in a struct */, 6, 0),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_truncate, 5, 0),
      /* 8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low_word_of_argument(2)),
      /* 10 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kWriteFlags, 2, 3),
      /* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low_word_of_argument(1)),
      /* 12 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kWriteFlags, 0, 1),
      /* 13 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog filter{static_cast<unsigned short>(sizeof program / sizeof program[0]), program};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return static_cast<int>(::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter));
}

// Landlock as common/src/filesystem_sandbox.cpp makes it (same handled rights, TCP, scopes; "/"
// read, "/dev" device, "." everything), with other /proc rules: for the rows that the product's
// ProcfsWrites cannot express.
bool confine_with_probe_rules(ProbeRules rules, const std::vector<std::string>& traced_files) {
  const int abi = cudalabs::landlock_abi_version();
  if (abi <= 0) return false;
  std::uint64_t known = (1ull << 13) - 1;
  if (abi >= 2) known |= 1ull << 13;
  if (abi >= 3) known |= 1ull << 14;
  if (abi >= 5) known |= 1ull << 15;
  constexpr std::uint64_t kExecute = 1, kWrite = 2, kRead = 4, kReadDir = 8, kTruncate = 1ull << 14, kIoctl = 1ull << 15;
  struct {
    std::uint64_t fs, net, scoped;
  } attr{known, 3, 3};
  const std::size_t size = abi >= 6 ? 24 : abi >= 4 ? 16 : 8;
  const int ruleset = static_cast<int>(::syscall(444, &attr, size, 0));
  if (ruleset < 0) return false;
  auto add = [&](int fd, std::uint64_t rights) {
    struct __attribute__((packed)) {
      std::uint64_t allowed;
      std::int32_t fd;
    } rule{rights & known, fd};
    return fd >= 0 && ::syscall(445, ruleset, 1, &rule, 0) == 0;  // descriptors stay open: pinned
  };
  const std::uint64_t file = kRead | kWrite | kTruncate;
  bool ok = add(::open("/", O_PATH | O_CLOEXEC), kRead | kReadDir | kExecute) &&
            add(::open("/dev", O_PATH | O_CLOEXEC), kRead | kReadDir | kWrite | kTruncate | kIoctl | kExecute) &&
            add(::open(".", O_PATH | O_CLOEXEC), known);
  switch (rules) {
    case ProbeRules::AllFilesButMem: {  // every file of /proc/<pid>/ and of each live thread's directory
      std::vector<std::string> dirs = {"/proc/self"};
      if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (const dirent* entry = ::readdir(tasks)) {
          if (entry->d_name[0] != '.') dirs.push_back(std::string("/proc/self/task/") + entry->d_name);
        }
        ::closedir(tasks);
      }
      for (const std::string& dir : dirs) {
        DIR* listing = ::opendir(dir.c_str());
        if (!listing) continue;
        while (const dirent* entry = ::readdir(listing)) {
          if (entry->d_type != DT_REG || std::strcmp(entry->d_name, "mem") == 0) continue;
          const int fd = ::open((dir + "/" + entry->d_name).c_str(), O_PATH | O_CLOEXEC);
          if (fd >= 0) ok = add(fd, file) && ok;
        }
        ::closedir(listing);
      }
      break;
    }
    case ProbeRules::TracedFiles:
      for (std::string path : traced_files) {
        const std::size_t main = path.find("{MAIN}");
        if (main != std::string::npos) path.replace(main, 6, std::to_string(::getpid()));
        struct stat info {};
        const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
        if (fd >= 0 && ::fstat(fd, &info) == 0) ok = add(fd, S_ISDIR(info.st_mode) ? file | kReadDir : file) && ok;
      }
      break;
    case ProbeRules::TaskTree:
      ok = add(::open("/proc/self/task", O_PATH | O_DIRECTORY | O_CLOEXEC), file | kReadDir) && ok;
      break;
  }
  return ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::syscall(446, ruleset, 0) == 0;
}

bool confine(const Spec& spec, const Shared& shared) {
  const int scratch = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  bool confined = true;
  switch (spec.confine) {
    case Confine::Unconfined: break;
    case Confine::Landlock: confined = cudalabs::confine_filesystem(scratch, spec.policy) > 0; break;
    case Confine::TestProcess:
      confined = (!cudalabs::system_call_filter_supported() || cudalabs::install_system_call_filter()) &&
                 cudalabs::confine_filesystem(scratch, spec.policy) > 0;
      break;
    case Confine::AsBuilt: confined = cudalabs::confine_test_process() == nullptr; break;
    case Confine::ProbeRules: confined = confine_with_probe_rules(spec.rules, shared.traced_files); break;
  }
  ::close(scratch);
  if (confined && spec.non_dumpable) confined = ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
  return confined;
}

std::vector<int> own_threads() {
  std::vector<int> tids;
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* entry = ::readdir(tasks)) {
      if (entry->d_name[0] != '.') tids.push_back(std::atoi(entry->d_name));
    }
    ::closedir(tasks);
  }
  return tids;
}

// Opens every /proc/.../mem of this process for writing; where one opens, writes one byte
// through it into a read-only page (as a patch of code would).
void check_memory_files(int socket) {
  std::vector<std::string> paths = {"/proc/self/mem", "/proc/thread-self/mem"};
  for (const int tid : own_threads()) paths.push_back("/proc/self/task/" + std::to_string(tid) + "/mem");
  auto* page = static_cast<unsigned char*>(
      ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  page[0] = 0x5a;
  ::mprotect(page, 4096, PROT_READ);
  int writable = 0;
  std::map<std::string, int> refusals;
  std::string patch;
  for (const std::string& path : paths) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
      ++refusals[std::strerror(errno)];
      continue;
    }
    ++writable;
    if (patch.empty()) {
      const unsigned char byte = 0xcc;
      const bool wrote = ::pwrite(fd, &byte, 1, static_cast<off_t>(reinterpret_cast<std::uintptr_t>(page))) == 1;
      patch = wrote && page[0] == 0xcc ? "read-only page patched" : std::string("patch refused: ") + std::strerror(errno);
    }
    ::close(fd);
  }
  std::string text;
  if (writable > 0) text = "WRITABLE, " + patch;
  for (const auto& [reason, count] : refusals) {
    if (!text.empty()) text += ", ";
    text += std::to_string(count) + " " + (reason == std::strerror(EACCES) ? "EACCES" : reason);
  }
  send_ints(socket, kMemory, text, writable, static_cast<int>(paths.size()));
}

[[noreturn]] void child_main(const Spec& spec, const Shared& shared, int socket) {
  ::alarm(150);
  if (::chdir(shared.scratch.c_str()) != 0) {
    send_text(socket, kFailure, "chdir to the scratch directory failed");
    ::_exit(2);
  }
  const int listener = install_tracer();
  const int tracer_error = listener < 0 ? errno : 0;
  send_message(socket, kListener, &tracer_error, sizeof tracer_error, listener);
  if (listener >= 0) ::close(listener);
  if (spec.non_dumpable && ::getuid() == 0) send_text(socket, kDevice, "uid 0");
  CudaState state;
  auto step = [&](int i) {
    g_step.store(i);
    send_ints(socket, kStep, "", i);
    const int code = run_step(i, state, shared.ipc);
    send_ints(socket, kResult, code == kNotRun ? "" : code_name(code), i, code);
    return code;
  };
  g_recording.store(true);
  int first = 0;
  if (spec.cuda_before) {
    step(0);
    step(1);
    first = 2;
  }
  g_step.store(-1);
  if (!confine(spec, shared)) {
    send_text(socket, kFailure, std::string("confinement refused: ") + std::strerror(errno));
    ::_exit(2);
  }
  for (int i = first; i < kSteps; ++i) step(i);
  g_step.store(kStepsDone);
  send_ints(socket, kStep, "", kStepsDone);
  g_recording.store(false);
  if (spec.confine == Confine::Unconfined && !g_simulate) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    cudaDeviceProp properties{};
    std::string device = "driver API " + std::to_string(driver) + ", runtime " + std::to_string(runtime);
    if (state.device && cudaGetDeviceProperties(&properties, 0) == cudaSuccess) device += ", " + std::string(properties.name);
    send_text(socket, kDevice, device);
  }
  check_memory_files(socket);
  for (const int tid : own_threads()) {
    char path[64], name[32] = "?";
    std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
    if (FILE* comm = std::fopen(path, "r")) {
      if (std::fgets(name, sizeof name, comm)) name[std::strcspn(name, "\n")] = '\0';
      std::fclose(comm);
    }
    send_ints(socket, kThread, name, tid);
  }
  const int records = std::min(g_record_count.load(), kMaxRecords);
  for (int i = 0; i < records; ++i) {
    OpenRecord record = g_records[i];
    Dl_info info{};
    if (record.caller && ::dladdr(record.caller, &info) && info.dli_fname) {
      const char* base = std::strrchr(info.dli_fname, '/');
      std::snprintf(record.library, sizeof record.library, "%s", base ? base + 1 : info.dli_fname);
    }
    send_message(socket, kRecord, &record, sizeof record);
  }
  send_message(socket, kEnd, nullptr, 0);
  ::_exit(0);
}

// ---- the parent: tracer, broker, results -----------------------------------------------------------

struct TraceEvent {
  int step = -1;
  int tid = 0;
  std::string call, path;
  int flags = 0;
  std::string brokered;  // "" when let through; else what the broker did
};

struct RunResult {
  std::string failure;  // the run could not be made (or crashed)
  int codes[kSteps];
  std::string code_names[kSteps];
  std::vector<OpenRecord> records;
  std::vector<TraceEvent> events;
  std::map<int, std::string> thread_names;
  int pid = 0;
  int tracer_error = -1;  // -1: never reported
  int memory_writable = -1, memory_total = 0;
  std::string memory;
  std::string device;
  bool ended = false;
  RunResult() {
    for (int& code : codes) code = kNotRun - 1;  // not reached
  }
};

std::string read_child_string(pid_t tid, std::uint64_t address) {
  std::string text;
  char buffer[4096];
  while (text.size() < 4096) {
    const std::size_t chunk = 4096 - address % 4096;
    iovec local{buffer, chunk}, remote{reinterpret_cast<void*>(address), chunk};
    const ssize_t n = ::process_vm_readv(tid, &local, 1, &remote, 1, 0);
    if (n <= 0) return text.empty() ? std::string("(unreadable: ") + std::strerror(errno) + ")" : text;
    const std::size_t length = ::strnlen(buffer, static_cast<std::size_t>(n));
    text.append(buffer, length);
    if (length < static_cast<std::size_t>(n)) break;
    address += static_cast<std::uint64_t>(n);
  }
  return text;
}

std::string link_target(const std::string& link) {
  char target[512];
  const ssize_t n = ::readlink(link.c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "?";
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

// The broker's rule: a thread name of the child, /proc/<child>/comm or /proc/<child>/task/<tid>/comm
// of one of its threads (reached as /proc/self/..., /proc/thread-self/comm or by number). The
// parent opens that and nothing else; every other call goes on under the child's own rules.
bool thread_name_of_child(const std::string& path, pid_t child, pid_t caller, std::string& target) {
  if (path.rfind("/proc/", 0) != 0) return false;
  std::vector<std::string> parts = split_path(path);  // proc, <who>, ...
  if (parts.size() >= 2 && parts[1] == "self") parts[1] = std::to_string(child);
  if (parts.size() >= 2 && parts[1] == "thread-self") {
    parts[1] = std::to_string(child);
    parts.insert(parts.begin() + 2, {"task", std::to_string(caller)});
  }
  if (parts.size() < 3 || parts[1] != std::to_string(child)) return false;
  if (parts.size() == 3 && parts[2] == "comm") {
    target = "/proc/" + parts[1] + "/comm";
    return true;
  }
  if (parts.size() == 5 && parts[2] == "task" && all_digits(parts[3]) && parts[4] == "comm") {
    target = "/proc/" + parts[1] + "/task/" + parts[3] + "/comm";
    return ::access(("/proc/" + parts[1] + "/task/" + parts[3]).c_str(), F_OK) == 0;
  }
  return false;
}

void handle_notification(int listener, RunResult& run, int step, bool broker) {
  seccomp_notif request;
  std::memset(&request, 0, sizeof request);
  if (::ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) return;  // its thread is gone
  TraceEvent event;
  event.step = step;
  event.tid = static_cast<int>(request.pid);
  const int nr = request.data.nr;
  int path_argument = 1;
  if (nr == __NR_openat) {
    event.call = "openat";
    event.flags = static_cast<int>(request.data.args[2]);
  } else if (nr == 437) {
    event.call = "openat2";
    std::uint64_t how = 0;
    iovec local{&how, sizeof how}, remote{reinterpret_cast<void*>(request.data.args[2]), sizeof how};
    if (::process_vm_readv(request.pid, &local, 1, &remote, 1, 0) == sizeof how) event.flags = static_cast<int>(how);
#ifdef __NR_open
  } else if (nr == __NR_open) {
    event.call = "open";
    path_argument = 0;
    event.flags = static_cast<int>(request.data.args[1]);
  } else if (nr == __NR_creat) {
    event.call = "creat";
    path_argument = 0;
    event.flags = O_WRONLY | O_CREAT | O_TRUNC;
#endif
  } else {
    event.call = "truncate";
    path_argument = 0;
    event.flags = O_WRONLY | O_TRUNC;
  }
  event.path = read_child_string(request.pid, request.data.args[path_argument]);
  if (!event.path.empty() && event.path[0] != '/' && event.path[0] != '(') {
    const int dir_fd = path_argument == 1 ? static_cast<int>(request.data.args[0]) : AT_FDCWD;
    const std::string base = "/proc/" + std::to_string(request.pid) +
                             (dir_fd == AT_FDCWD ? std::string("/cwd") : "/fd/" + std::to_string(dir_fd));
    event.path = link_target(base) + "/" + event.path;
  }
  seccomp_notif_resp response;
  std::memset(&response, 0, sizeof response);
  response.id = request.id;
  response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  std::string target;
  if (broker && thread_name_of_child(event.path, run.pid, static_cast<pid_t>(request.pid), target)) {
    const int fd = ::open(target.c_str(), (event.flags & O_ACCMODE) | (event.flags & O_TRUNC) | O_CLOEXEC);
    if (fd < 0) {  // answered with the broker's error
      response.flags = 0;
      response.error = -errno;
      event.brokered = std::string("broker refused: ") + std::strerror(errno);
      ::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
      run.events.push_back(event);
      return;
    }
    seccomp_notif_addfd add;
    std::memset(&add, 0, sizeof add);
    add.id = request.id;
    add.flags = SECCOMP_ADDFD_FLAG_SEND;  // the call returns the new descriptor
    add.srcfd = static_cast<__u32>(fd);
    add.newfd_flags = static_cast<__u32>(event.flags & O_CLOEXEC);
    int sent = ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
    if (sent < 0 && errno == EINVAL) {  // kernel < 5.14: add it, then answer with its number
      add.flags = 0;
      sent = ::ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
      if (sent >= 0) {
        response.flags = 0;
        response.val = sent;
        ::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
      }
    }
    const int error = errno;
    ::close(fd);
    if (sent >= 0) {
      event.brokered = "opened by the broker";
      run.events.push_back(event);
      return;
    }
    event.brokered = std::string("broker failed (let through): ") + std::strerror(error);
  }
  ::ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
  run.events.push_back(event);
}

double now() {
  timespec time{};
  ::clock_gettime(CLOCK_MONOTONIC, &time);
  return static_cast<double>(time.tv_sec) + 1e-9 * static_cast<double>(time.tv_nsec);
}

RunResult run(const Spec& spec, const Shared& shared) {
  RunResult run;
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    run.failure = "socketpair failed";
    return run;
  }
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(sockets[0]);
    child_main(spec, shared, sockets[1]);
  }
  ::close(sockets[1]);
  run.pid = child;
  const int socket = sockets[0];
  int listener = -1, step = -1;
  bool exited = false, socket_closed = false;
  int status = 0;
  const double deadline = now() + 180;
  while (!(exited && socket_closed)) {
    pollfd fds[2] = {{socket, POLLIN, 0}, {listener, POLLIN, 0}};
    ::poll(fds, listener >= 0 ? 2 : 1, 100);
    for (;;) {  // the socket first: a step's marker was sent before its calls
      char buffer[1 + sizeof(OpenRecord) + 256];
      int passed = -1;  // a descriptor the message carried (only kListener's does)
      const long n = cudalabs::receive_with_descriptor(socket, buffer, sizeof buffer, &passed, MSG_DONTWAIT);
      if (n == 0) socket_closed = true;
      if (n <= 0) break;
      if (buffer[0] != kListener && passed >= 0) ::close(passed);
      const char* data = buffer + 1;
      const std::size_t size = static_cast<std::size_t>(n) - 1;
      auto int_at = [&](int i) {
        int value = 0;
        std::memcpy(&value, data + 4 * i, sizeof value);
        return value;
      };
      switch (buffer[0]) {
        case kListener:
          run.tracer_error = int_at(0);
          if (passed >= 0) listener = passed;
          break;
        case kStep: step = int_at(0); break;
        case kResult:
          if (int_at(0) >= 0 && int_at(0) < kSteps) {
            run.codes[int_at(0)] = int_at(1);
            run.code_names[int_at(0)] = std::string(data + 8, size - 8);
          }
          break;
        case kFailure: run.failure = std::string(data, size); break;
        case kMemory:
          run.memory_writable = int_at(0);
          run.memory_total = int_at(1);
          run.memory = std::string(data + 8, size - 8);
          break;
        case kThread: run.thread_names[int_at(0)] = std::string(data + 4, size - 4); break;
        case kRecord:
          if (size == sizeof(OpenRecord)) {
            OpenRecord record;
            std::memcpy(&record, data, sizeof record);
            run.records.push_back(record);
          }
          break;
        case kDevice: run.device = std::string(data, size); break;
        case kEnd: run.ended = true; break;
      }
    }
    if (listener >= 0 && (fds[1].revents & POLLIN)) handle_notification(listener, run, step, spec.broker);
    if (!exited && ::waitpid(child, &status, WNOHANG) == child) exited = true;
    if (!exited && now() > deadline) ::kill(child, SIGKILL);
  }
  if (listener >= 0) ::close(listener);
  ::close(socket);
  if (run.failure.empty() && !run.ended) {
    run.failure = WIFSIGNALED(status) ? std::string("child killed by ") + ::strsignal(WTERMSIG(status))
                                      : "child exited " + std::to_string(WEXITSTATUS(status)) + " before the end";
  }
  return run;
}

// A process that exports device memory for the ipc step (unconfined; lives until the parent ends).
struct Exporter {
  pid_t pid = -1;
  int keep_alive = -1;
};

Exporter start_exporter(Shared& shared) {
  Exporter exporter;
  int result[2], alive[2];
  if (::pipe2(result, O_CLOEXEC) != 0 || ::pipe2(alive, O_CLOEXEC) != 0) return exporter;
  std::fflush(stdout);
  exporter.pid = ::fork();
  if (exporter.pid == 0) {
    ::close(result[0]);
    ::close(alive[1]);
    IpcExport exported;
    void* memory = nullptr;
    if (g_simulate) {
      exported.ok = true;
    } else if (cudaMalloc(&memory, kMemoryBytes) == cudaSuccess) {
      exported.ok = cudaIpcGetMemHandle(&exported.handle, memory) == cudaSuccess;
    }
    if (::write(result[1], &exported, sizeof exported) != sizeof exported) ::_exit(1);
    char byte;
    while (::read(alive[0], &byte, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(result[1]);
  ::close(alive[0]);
  exporter.keep_alive = alive[1];
  pollfd fd{result[0], POLLIN, 0};
  if (::poll(&fd, 1, 60'000) == 1 && ::read(result[0], &shared.ipc, sizeof shared.ipc) != sizeof shared.ipc) {
    shared.ipc.ok = false;
  }
  ::close(result[0]);
  return exporter;
}

// ---- printing ----------------------------------------------------------------------------------

std::string flag_text(int flags) {
  std::string text = (flags & O_ACCMODE) == O_RDWR ? "RDWR" : (flags & O_ACCMODE) == O_WRONLY ? "WRONLY" : "RDONLY";
  if (flags & O_CREAT) text += "|CREAT";
  if (flags & O_TRUNC) text += "|TRUNC";
  if (flags & O_APPEND) text += "|APPEND";
  return text;
}

std::string result_text(int result) {
  if (result == kPending) return "(did not return)";
  if (result >= 0) return "ok";
  return -result == EACCES ? "EACCES" : -result == EPERM ? "EPERM" : -result == ENOENT ? "ENOENT" : std::strerror(-result);
}

// Thread labels of one run: main, then T1, T2... in order of appearance, with their last names.
class Threads {
 public:
  explicit Threads(const RunResult& run) : run_(run) {}
  std::string label(int tid) {
    if (tid == run_.pid) return "main";
    auto [it, added] = labels_.emplace(tid, "");
    if (added) it->second = "T" + std::to_string(labels_.size());
    return it->second;
  }
  std::string described(int tid) {
    const auto name = run_.thread_names.find(tid);
    return label(tid) + (name == run_.thread_names.end() ? " (ended)" : " " + name->second);
  }
  // /proc/<pid>/... and thread numbers in a path, as labels.
  std::string path(const std::string& path) {
    if (path.rfind("/proc/", 0) != 0) return path;
    std::vector<std::string> parts = split_path(path);
    for (std::size_t i = 1; i < parts.size() && i <= 3; ++i) {
      if (!all_digits(parts[i])) continue;
      const int number = std::atoi(parts[i].c_str());
      if (i == 1 && number == run_.pid) {
        parts[i] = "<pid>";
      } else if (i == 1 || (i == 3 && parts[2] == "task")) {
        parts[i] = "<" + label(number) + ">";
      }
    }
    std::string joined;
    for (const std::string& part : parts) joined += "/" + part;
    return joined;
  }

 private:
  const RunResult& run_;
  std::map<int, std::string> labels_;
};

bool in_dev(const std::string& path) { return path.rfind("/dev/", 0) == 0 && path.rfind("/dev/shm/", 0) != 0; }
bool in_proc(const std::string& path) { return path.rfind("/proc/", 0) == 0; }

// The probe's own opens of its mem files, after the steps (CUDA's threads may still open others then).
bool probe_check(const TraceEvent& event) {
  return event.step == kStepsDone && event.path.size() > 4 && event.path.compare(event.path.size() - 4, 4, "/mem") == 0;
}

std::string step_label(int step) {
  if (step == kStepsDone) return "(after the steps)";
  if (step < 0 || step >= kSteps) return "(before the steps)";
  return kStepName[step];
}

// A row of [1]: a traced call, with the interposed call that made it when there was one.
struct OpenRow {
  std::string step, thread, call, path, flags, result;
  bool operator<(const OpenRow& other) const {
    return std::tie(step, thread, call, path, flags, result) <
           std::tie(other.step, other.thread, other.call, other.path, other.flags, other.result);
  }
};

std::string interposed_call(const OpenRecord& record) {
  std::string call = record.function;
  if (record.detail[0]) call += "(\"" + std::string(record.detail) + "\")";  // fopen's mode, a thread's new name
  if (record.library[0]) call += " " + std::string(record.library);
  return call;
}

// Pairs each traced call with the interposed call it came from (same thread and path; for the C
// library's own open of a thread name, pthread_setname_np of that thread).
std::vector<std::pair<TraceEvent, const OpenRecord*>> pair_up(const RunResult& run) {
  std::vector<bool> used(run.records.size(), false);
  std::vector<std::pair<TraceEvent, const OpenRecord*>> pairs;
  for (const TraceEvent& event : run.events) {
    const OpenRecord* match = nullptr;
    for (std::size_t i = 0; i < run.records.size() && !match; ++i) {
      if (!used[i] && run.records[i].tid == event.tid && event.path == run.records[i].path) {
        used[i] = true;
        match = &run.records[i];
      }
    }
    const bool names_a_thread = event.path.size() > 5 && event.path.compare(event.path.size() - 5, 5, "/comm") == 0;
    for (std::size_t i = 0; i < run.records.size() && !match && names_a_thread; ++i) {
      if (!used[i] && run.records[i].tid == event.tid && std::strcmp(run.records[i].function, "pthread_setname_np") == 0) {
        used[i] = true;
        match = &run.records[i];
      }
    }
    pairs.emplace_back(event, match);
  }
  for (std::size_t i = 0; i < run.records.size(); ++i) {  // not traced (no tracer): still shown
    if (used[i]) continue;
    TraceEvent event;
    event.step = run.records[i].step;
    event.tid = run.records[i].tid;
    event.call = "(not traced)";
    event.path = run.records[i].path;
    event.flags = run.records[i].flags;
    pairs.emplace_back(event, &run.records[i]);
  }
  return pairs;
}

void print_section_one(const RunResult& trace) {
  std::printf("\n[1] Opens for writing (write, create or truncate) outside /dev, unconfined, per step\n");
  std::printf("    thread: main, or T<n> in order of appearance, with its name at the end; path: <pid>, <T<n>> for numbers\n");
  if (trace.tracer_error > 0) {
    std::printf("    (seccomp tracer unavailable: %s; only calls through open/fopen/... of the probe are seen)\n",
                std::strerror(trace.tracer_error));
  }
  Threads threads(trace);
  std::map<OpenRow, int> rows;
  std::map<std::string, int> devices;
  int dev_calls = 0;
  for (const auto& [event, record] : pair_up(trace)) {
    if (probe_check(event)) continue;
    if (in_dev(event.path)) {
      ++devices[event.path];
      ++dev_calls;
      continue;
    }
    OpenRow row;
    row.step = step_label(event.step);
    row.thread = threads.described(event.tid);
    row.call = event.call + (record ? " <- " + interposed_call(*record) : std::string(" (inside the C library or raw)"));
    row.path = threads.path(event.path);
    row.flags = flag_text(event.flags);
    row.result = record ? result_text(record->result) : "?";
    ++rows[row];
  }
  std::vector<std::pair<OpenRow, int>> ordered(rows.begin(), rows.end());
  auto step_index = [](const std::string& label) {
    for (int i = 0; i < kSteps; ++i) {
      if (label == kStepName[i]) return i;
    }
    return label == "(before the steps)" ? -1 : kSteps;
  };
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const auto& a, const auto& b) { return step_index(a.first.step) < step_index(b.first.step); });
  std::vector<std::vector<std::string>> table = {{"step", "thread", "syscall <- call, by", "path", "flags", "result"}};
  for (const auto& [row, count] : ordered) {
    table.push_back({row.step, row.thread, row.call, row.path, row.flags,
                     row.result + (count > 1 ? " x" + std::to_string(count) : "")});
  }
  std::vector<std::size_t> widths(table[0].size(), 0);
  for (const auto& cells : table) {
    for (std::size_t i = 0; i < cells.size(); ++i) widths[i] = std::max(widths[i], cells[i].size());
  }
  for (const auto& cells : table) {
    std::string line = "   ";
    for (std::size_t i = 0; i < cells.size(); ++i) {
      line += " " + cells[i] + (i + 1 < cells.size() ? std::string(widths[i] - cells[i].size(), ' ') : "");
    }
    std::printf("%s\n", line.c_str());
  }
  if (rows.empty()) std::printf("    (none)\n");
  std::string listed;
  for (const auto& [path, count] : devices) listed += (listed.empty() ? "" : ", ") + path;
  std::printf("    under /dev (the sandbox lets it open these read-write): %d opens of %zu files%s%s\n", dev_calls,
              devices.size(), listed.empty() ? "" : ": ", listed.c_str());
}

std::string refused_proc_writes(const RunResult& run) {
  Threads threads(run);
  std::map<std::string, int> refused;
  for (const OpenRecord& record : run.records) {
    if (record.step == kStepsDone || record.result >= 0 || record.result == kPending) continue;
    if (std::strcmp(record.function, "pthread_setname_np") == 0) {
      ++refused["pthread_setname_np " + result_text(record.result)];
    } else if (in_proc(record.path)) {
      ++refused[threads.path(record.path) + " " + result_text(record.result)];
    }
  }
  std::string text;
  for (const auto& [what, count] : refused) {
    text += (text.empty() ? "" : "; ") + what + (count > 1 ? " x" + std::to_string(count) : "");
  }
  int brokered = 0;
  for (const TraceEvent& event : run.events) brokered += event.brokered == "opened by the broker";
  if (brokered) text += (text.empty() ? "" : "; ") + std::to_string(brokered) + " names opened by the broker";
  return text.empty() ? "-" : text;
}

// Every step that worked unconfined worked here too.
bool works(const RunResult& run, const RunResult& baseline) {
  if (!run.failure.empty()) return false;
  for (int s = 0; s < kSteps; ++s) {
    if (baseline.codes[s] == 0 && run.codes[s] != 0) return false;
  }
  return true;
}

bool memory_safe(const RunResult& run) { return run.memory_total > 0 && run.memory_writable == 0; }

}  // namespace
}  // namespace proc_write_probe

int main(int argc, char** argv) {
  using namespace proc_write_probe;
  using cudalabs::ProcfsWrites;
  g_simulate_tolerant = argc > 1 && std::strcmp(argv[1], "--simulate-tolerant-driver") == 0;
  g_simulate = g_simulate_tolerant || (argc > 1 && std::strcmp(argv[1], "--simulate-driver") == 0);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  resolve_next_functions();

  Shared shared;
  char scratch_pattern[] = "/tmp/proc_write_probe_XXXXXX";
  if (!::mkdtemp(scratch_pattern)) {
    std::printf("proc_write_probe: cannot make a scratch directory in /tmp\n");
    return 0;
  }
  shared.scratch = scratch_pattern;

  utsname system{};
  ::uname(&system);
  std::string nvidia = "no /proc/driver/nvidia/version";
  if (FILE* version = std::fopen("/proc/driver/nvidia/version", "r")) {
    char line[256] = "";
    if (std::fgets(line, sizeof line, version)) nvidia = line;
    nvidia.erase(nvidia.find_last_not_of(" \n") + 1);
    std::fclose(version);
  }
  std::string yama = "none";
  if (FILE* scope = std::fopen("/proc/sys/kernel/yama/ptrace_scope", "r")) {
    char line[16] = "";
    if (std::fgets(line, sizeof line, scope)) yama = std::string(line, std::strcspn(line, "\n"));
    std::fclose(scope);
  }
  const char* policy_names[] = {"kNone", "kThreadNames", "kWholeProcess"};
  std::printf("proc_write_probe%s: kernel %s, Landlock ABI %d, Yama ptrace_scope %s, uid %d\n",
              g_simulate ? " --simulate-driver (no CUDA: a stand-in driver)" : "", system.release,
              cudalabs::landlock_abi_version(), yama.c_str(), static_cast<int>(::getuid()));
  std::printf("  %s\n", nvidia.c_str());
  std::printf("  this build confines test processes with ProcfsWrites::%s\n",
              policy_names[static_cast<int>(cudalabs::default_procfs_writes())]);

  const Exporter exporter = start_exporter(shared);

  // [1] unconfined
  Spec trace_spec{"-", "unconfined (baseline)"};
  const RunResult trace = run(trace_spec, shared);
  if (!trace.device.empty()) std::printf("  CUDA: %s\n", trace.device.c_str());
  print_section_one(trace);

  // The /proc files of [1], for row E: those a rule can name before CUDA starts its threads.
  std::set<std::string> coverable, not_coverable;
  {
    Threads threads(trace);
    for (const auto& [event, record] : pair_up(trace)) {
      if (probe_check(event) || !in_proc(event.path)) continue;
      std::vector<std::string> parts = split_path(event.path);
      std::string own;  // "self/..." when the file is this process's
      if (parts.size() >= 3 && (parts[1] == "self" || parts[1] == std::to_string(trace.pid))) {
        own = event.path.substr(event.path.find('/', 6) + 1);
      } else if (parts.size() >= 3 && parts[1] == "thread-self") {
        own = "task/" + std::to_string(event.tid) + event.path.substr(event.path.find('/', 6));
      }
      if (own.empty()) {
        coverable.insert(event.path);  // another /proc file (not per process): a rule can name it
        continue;
      }
      std::vector<std::string> own_parts = split_path("/" + own);
      if (own_parts.size() >= 2 && own_parts[0] == "task") {
        if (std::atoi(own_parts[1].c_str()) != trace.pid) {
          not_coverable.insert(threads.path(event.path));
          continue;
        }
        own = "task/{MAIN}" + own.substr(own.find('/', 5));
      }
      coverable.insert("/proc/self/" + own);
    }
  }
  shared.traced_files.assign(coverable.begin(), coverable.end());

  // [2] the candidate policies
  std::vector<Spec> specs;
  specs.reserve(16);
  auto add = [&](const char* key, const std::string& label) -> Spec& {
    specs.push_back(Spec{key, label});
    return specs.back();
  };
  {
    Spec& a = add("A", "kWholeProcess: the /proc/<pid> tree (before)");
    a.confine = Confine::Landlock;
    a.policy = ProcfsWrites::kWholeProcess;
    Spec& b = add("B", "kNone: no write under /proc");
    b.confine = Confine::Landlock;
    b.policy = ProcfsWrites::kNone;
    Spec& c = add("C", "kThreadNames: comm of threads alive then");
    c.confine = Confine::Landlock;
    c.policy = ProcfsWrites::kThreadNames;
    Spec& d = add("D", "every file of /proc/<pid>, live tasks; not mem");
    d.confine = Confine::ProbeRules;
    d.rules = ProbeRules::AllFilesButMem;
    Spec& e = add("E", "the files of [1] that exist when confined");
    e.confine = Confine::ProbeRules;
    e.rules = ProbeRules::TracedFiles;
    Spec& f = add("F", "the /proc/<pid>/task tree (task/*/mem too)");
    f.confine = Confine::ProbeRules;
    f.rules = ProbeRules::TaskTree;
    Spec& g = add("G", "kNone + broker opens thread names");
    g.confine = Confine::Landlock;
    g.policy = ProcfsWrites::kNone;
    g.broker = true;
    Spec& h = add("H", "kNone after CUDA init (its threads unconfined)");
    h.confine = Confine::Landlock;
    h.policy = ProcfsWrites::kNone;
    h.cuda_before = true;
    Spec& i = add("I", "kWholeProcess + PR_SET_DUMPABLE 0");
    i.confine = Confine::Landlock;
    i.policy = ProcfsWrites::kWholeProcess;
    i.non_dumpable = true;
    Spec& j = add("J", "confine_test_process() as built");
    j.confine = Confine::AsBuilt;
    Spec& k = add("K", "seccomp + kNone + broker (the full design)");
    k.confine = Confine::TestProcess;
    k.policy = ProcfsWrites::kNone;
    k.broker = true;
  }
  std::vector<RunResult> results;
  for (const Spec& spec : specs) results.push_back(run(spec, shared));

  std::printf("\n[2] CUDA under each /proc policy (fresh child each, confined before CUDA loads; A-C, G, H, J, K use\n");
  std::printf("    common/src/filesystem_sandbox.cpp itself; D-F a ruleset of the probe's). ok, '-' not run, else the error\n");
  std::printf("    (legend below). mem: of /proc/self/mem, /proc/thread-self/mem and /proc/self/task/*/mem, how many\n");
  std::printf("    opened O_RDWR at the end (with every thread CUDA started), and a write through one into a read-only page\n");
  std::printf("    %-1s %-46s", "", "policy");
  for (const char* column : kStepColumn) std::printf(" %-6s", column);
  std::printf(" | %-5s | %s\n", "mem", "writes under /proc refused (or brokered)");
  std::map<int, std::string> legend;
  auto print_row = [&](const char* key, const std::string& label, const RunResult& result) {
    std::printf("    %-1s %-46s", key, label.c_str());
    if (!result.failure.empty() && result.codes[0] == kNotRun - 1) {
      std::printf(" %s\n", result.failure.c_str());
      return;
    }
    for (int s = 0; s < kSteps; ++s) {
      const int code = result.codes[s];
      std::string cell = code == 0 ? "ok" : code == kNotRun ? "-" : code == kNotRun - 1 ? "?" : std::to_string(code);
      if (code > 0) legend[code] = result.code_names[s];
      std::printf(" %-6s", cell.c_str());
    }
    const std::string memory =
        result.memory_total ? std::to_string(result.memory_writable) + "/" + std::to_string(result.memory_total) : "?";
    std::printf(" | %-5s | %s\n", memory.c_str(), refused_proc_writes(result).c_str());
    if (result.memory_writable > 0 || !result.failure.empty()) {
      std::printf("    %-48s %s%s%s\n", "", result.memory.c_str(), result.failure.empty() ? "" : "; ",
                  result.failure.c_str());
    }
  };
  print_row("-", trace_spec.label, trace);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    std::string label = specs[i].label;
    if (specs[i].non_dumpable && results[i].device == "uid 0") label += " (uid 0)";
    print_row(specs[i].key, label, results[i]);
  }
  for (const auto& [code, name] : legend) std::printf("    %d = %s\n", code, name.c_str());
  if (!shared.ipc.ok) std::printf("    ipc '-': the exporter process could not export device memory\n");

  // [3] what the rows decide
  std::printf("\n[3] Verdict\n");
  auto row = [&](const char* key) -> const RunResult& {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (std::strcmp(specs[i].key, key) == 0) return results[i];
    }
    return trace;
  };
  {
    std::string written;
    for (const std::string& path : coverable) written += (written.empty() ? "" : ", ") + path;
    for (const std::string& path : not_coverable) written += (written.empty() ? "" : ", ") + path + " (a thread CUDA started)";
    std::printf("  - CUDA opened for writing under /proc: %s\n", written.empty() ? "nothing" : written.c_str());
  }
  // A row "works" when every step that worked under the policy before (A; J for K, which has the
  // seccomp filter too) works under it: a step refused for another reason is not a /proc matter.
  const RunResult& before = row("A");
  auto works_landlock = [&](const char* key) { return works(row(key), before) && memory_safe(row(key)); };
  auto first_failure = [&](const RunResult& result, const RunResult& reference) {
    for (int s = 0; s < kSteps; ++s) {
      if (reference.codes[s] == 0 && result.codes[s] != 0) {
        return std::string(kStepName[s]) + " (" + (result.code_names[s].empty() ? "not run" : result.code_names[s]) + ")";
      }
    }
    return std::string("?");
  };
  if (trace.codes[0] != 0 || trace.codes[1] != 0) {
    std::printf("  - CUDA does not initialise unconfined here (%s): [2] says nothing about CUDA on this machine.\n",
                trace.failure.empty() ? trace.code_names[0].c_str() : trace.failure.c_str());
  } else {
    if (!works(before, trace)) {
      std::printf("  - under the policy before (A) already, CUDA fails at %s: not a /proc matter.\n",
                  first_failure(before, trace).c_str());
    }
    const RunResult& none = row("B");
    if (!works(none, before)) {
      std::printf("  - without /proc writes (B) CUDA fails at %s after refusals: %s\n",
                  first_failure(none, before).c_str(), refused_proc_writes(none).c_str());
    } else {
      std::printf("  - CUDA runs without any write under /proc (B)%s.\n",
                  refused_proc_writes(none) == "-" ? "" : ", refused writes ignored");
    }
    if (works_landlock("B")) {
      std::printf("  => build with -DCUDALABS_PROCFS_WRITES=kNone; make it the default in filesystem_sandbox.cpp.\n");
    } else if (works_landlock("C")) {
      std::printf("  => kThreadNames suffices (C): make it the default (-DCUDALABS_PROCFS_WRITES=kThreadNames).\n");
    } else if (works_landlock("E")) {
      std::printf("  => the files of [1] suffice (E): add their names to kWritableOwnProcFiles and use kThreadNames.\n");
    } else if (works_landlock("D")) {
      std::printf("  => some file of /proc/<pid> other than comm is needed (D works, C does not): see [1].\n");
    } else if (works_landlock("G")) {
      const bool full = works(row("K"), row("J")) && memory_safe(row("K"));
      std::printf("  => no Landlock grant keeps mem read-only and CUDA running: CUDA writes the names of threads it\n");
      std::printf("     starts after confinement. A broker works (G%s): labgrade or the judge opens\n",
                  full ? "; K, with the seccomp filter too" : "");
      std::printf("     /proc/<pid>/task/<tid>/comm for the test process (seccomp user notification, NOTIF_ADDFD).\n");
      std::printf("     A grade's runners are confined that way (common/src/procfs_broker.hpp; labgrade --version).\n");
    } else {
      std::printf("  => none of the narrowed policies runs CUDA with mem read-only: keep kWholeProcess; see the rows.\n");
    }
    if (!works(row("J"), trace)) {
      std::printf("  - this build's confinement (J) fails at %s (the seccomp filter included).\n",
                  first_failure(row("J"), trace).c_str());
    }
  }
  if (memory_safe(row("J"))) {
    std::printf("  - this build's in-process test processes (the self-check harness) cannot write their mem files (J).\n");
  } else {
    std::printf("  - this build's in-process test processes (the self-check harness; a grade's runners are\n"
                "    brokered) CAN write their mem files (J: %s).\n", row("J").memory.c_str());
  }

  if (exporter.keep_alive >= 0) ::close(exporter.keep_alive);
  if (exporter.pid > 0) ::waitpid(exporter.pid, nullptr, 0);
  ::rmdir(shared.scratch.c_str());
  return 0;
}
