// Which Landlock right a CUDA program needs that the test-process sandbox's grant table
// (common/src/filesystem_sandbox.cpp) does not give: each right handled alone, with that table's
// grants, then CUDA initialised. A device-side diagnosis tool; prints one line per right.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace {

struct Attr {
  std::uint64_t fs, net, scoped;
};
struct __attribute__((packed)) Beneath {
  std::uint64_t allowed;
  std::int32_t fd;
};
constexpr std::uint64_t kRead = (1ull << 2) | (1ull << 3) | (1ull << 0);
constexpr std::uint64_t kDevice = kRead | (1ull << 1) | (1ull << 14) | (1ull << 15);

bool restrict_to(std::uint64_t fs, std::uint64_t net, std::uint64_t scoped, const char* writable = nullptr) {
  const Attr attr{fs, net, scoped};
  const int ruleset = static_cast<int>(::syscall(444, &attr, sizeof attr, 0));
  if (ruleset < 0) return false;
  const struct {
    const char* path;
    std::uint64_t rights;
  } rules[] = {{"/", kRead}, {"/dev", kDevice}, {".", ~0ull}, {writable ? writable : ".", kDevice}};
  for (const auto& rule : rules) {
    const std::uint64_t allowed = rule.rights & fs;
    if (allowed == 0) continue;
    const int dir = ::open(rule.path, O_PATH | O_CLOEXEC);
    const Beneath beneath{allowed, dir};
    if (::syscall(445, ruleset, 1, &beneath, 0) != 0) return false;
  }
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && ::syscall(446, ruleset, 0) == 0;
}

// In a child, so each try starts from an unconfined process without CUDA.
void attempt(const char* what, std::uint64_t fs, std::uint64_t net, std::uint64_t scoped,
             const char* writable = nullptr) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (!restrict_to(fs, net, scoped, writable)) {
      std::printf("%-22s Landlock refused\n", what);
      std::_Exit(2);
    }
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    std::printf("%-22s %s\n", what, cudaGetErrorName(status));
    std::fflush(stdout);
    std::_Exit(status == cudaSuccess ? 0 : 1);
  }
  int ignored = 0;
  ::waitpid(child, &ignored, 0);
}

}  // namespace

int main() {
  const char* names[] = {"execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
                         "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
                         "make_sym",  "refer",      "truncate",  "ioctl_dev"};
  for (int bit = 0; bit < 16; ++bit) attempt(names[bit], 1ull << bit, 0, 0);
  attempt("net tcp", 0, 3, 0);
  attempt("scope abstract unix", 0, 0, 1);
  attempt("scope signal", 0, 0, 2);
  attempt("all fs", (1ull << 16) - 1, 0, 0);
  // Where the write goes: the same rights, one more tree writable.
  for (const char* tree : {"/proc/self", "/proc/thread-self", "/proc", "/sys", "/tmp", "/var", "/run", "/root", "/etc"}) {
    attempt(tree, (1ull << 16) - 1, 0, 0, tree);
  }
  return 0;
}
