// Plays the part of untrusted code for child_process and suite_runner tests.
//   test_child exit <code>            exit with <code>
//   test_child segv                   die of SIGSEGV
//   test_child hang                   sleep forever
//   test_child flood <bytes>          write <bytes> to stdout, then exit 0
//   test_child echo-env <name>        print the variable's value
//   test_child orphan                 start a grandchild that sleeps forever holding stdout, then exit 0
//   test_child results <line>...      write each line to the result descriptor, then exit 0
//   test_child results-then-hang <line>...   the same, then sleep forever
//   test_child pid-then-hang          write its process id to the result descriptor, then sleep forever
//   test_child write-file <bytes>     write a file of <bytes> in the working directory, then exit 0
//   test_child spin                   burn CPU forever
//   test_child limits                 print the soft resource limits "cpu=.. nofile=.. fsize=.. core=.. as=.. data=.."
//   test_child read-secret            print what arrives on the descriptor in CUDALABS_RESULT_TOKEN_FD
//   test_child open-fds               print the numbers of its open descriptors, space-separated
//
// As a fake lab harness (any argument starting with --gtest_): prints the listing in
// FAKE_LISTING for --gtest_list_tests, and for --gtest_filter replays FAKE_SCRIPT, a ';'-separated
// list of "<test>=<pass|fail|skip|segv|hang|lose|lose-after-end|forge|forge-then-exit|claim-others-then-exit|
// host-memory|bad-alloc|hog-then-segv|fail-oom|fail-reference|fail-student|sigkill>"
// applied to the tests of the filter in order. Like the real harness it reads the token labgrade
// sends on CUDALABS_RESULT_TOKEN_FD and puts it in every line; the forge actions write lines
// without it, with a wrong one, or about tests the runner did not ask for.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string read_all(int fd) {
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  return text;
}

std::string result_token() {
  static const std::string token = [] {
    const char* fd_text = std::getenv("CUDALABS_RESULT_TOKEN_FD");
    return fd_text ? read_all(std::atoi(fd_text)) : std::string();
  }();
  return token;
}

void write_raw_result(const std::string& line) {
  const char* fd_text = std::getenv("CUDALABS_RESULT_FD");
  if (!fd_text) return;
  const std::string text = line + "\n";
  if (::write(std::atoi(fd_text), text.data(), text.size()) < 0) std::exit(99);
}

// `line` is a JSON object; the token goes in first, as the real harness does it.
void write_result(const std::string& line) {
  const std::string token = result_token();
  write_raw_result(token.empty() ? line : R"({"token":")" + token + "\"," + line.substr(1));
}

std::string end_event(const std::string& test, const std::string& status) {
  return R"({"event":"end","test":")" + test + R"(","status":")" + status + R"(","ms":1,"message":""})";
}

[[noreturn]] void hang() {
  for (;;) ::pause();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// With CUDALABS_STUDENT_RUNNER_LAUNCHER set (labgrade --sanitize), the tool logs a judge leaves,
// kept the way judge.cpp keeps them, from a script instead of a GPU. FAKE_TOOL_REPORTS: the tests
// (comma-separated) in which the tool reports an error, and "@start" for a report while each
// runner starts. FAKE_TOOL_ORPHAN=1: the first runner's log stays under "outside-any-test" with a
// report made at load time (what a judge that never ended that runner would leave; the runners of
// a per-test round each make it); =unfinished: that log also lacks the tool's summary. FAKE_TOOL_RUNS=FILE: one line appended per harness process.
class FakeToolLogs {
 public:
  FakeToolLogs() {
    const char* launcher = std::getenv("CUDALABS_STUDENT_RUNNER_LAUNCHER");
    if (launcher == nullptr) return;
    for (const std::string& word : split(launcher, '\x1f')) {
      const std::size_t at = word.find("{test}");
      if (at == std::string::npos) continue;
      prefix_ = word.substr(0, at);
      suffix_ = word.substr(at + 6);
      active_ = true;
    }
    const char* spans = std::getenv("CUDALABS_TOOL_RUNNER_SPANS_TESTS");
    spans_ = spans != nullptr && std::string(spans) == "1";
    const char* reports = std::getenv("FAKE_TOOL_REPORTS");
    for (const std::string& test : split(reports ? reports : "", ',')) reports_.push_back(test);
    const char* orphan = std::getenv("FAKE_TOOL_ORPHAN");
    orphan_at_load_ = orphan != nullptr;
    orphan_unfinished_ = orphan_at_load_ && std::string(orphan) == "unfinished";
    orphan_ = orphan_at_load_ && spans_;
    if (const char* runs = std::getenv("FAKE_TOOL_RUNS")) {
      if (FILE* file = std::fopen(runs, "a")) {
        std::fputs(spans_ ? "spanning\n" : "per test\n", file);
        std::fclose(file);
      }
    }
  }
  ~FakeToolLogs() {
    if (!current_.empty()) stop();
  }

  void test(const std::string& name) {
    if (!active_) return;
    bool grew = false;
    if (current_.empty()) grew = start(orphan_ ? "outside-any-test" : name);
    if (orphan_) {  // a runner with a report no test's end ever saw: left as it is
      if (orphan_unfinished_) {
        current_.clear();  // a runner that died: no summary, so its report counts nowhere
      } else {
        stop();
      }
      orphan_ = false;
      grew = start(name);
    }
    if (std::find(reports_.begin(), reports_.end(), name) != reports_.end()) {
      append(current_, "========= Invalid __global__ write of size 4 bytes\n=========     at fake_kernel()+0x10 in " +
                           name + "\n=========\n");
      ++errors_;
      grew = true;
    }
    if (spans_ && !grew) return;
    const std::string kept = current_;
    stop();
    if (spans_ && kept != name && kept.rfind(name + "~", 0) != 0) {
      std::string target = name;
      for (int n = 2; ::access(path(target).c_str(), F_OK) == 0; ++n) target = name + "~" + std::to_string(n);
      std::rename(path(kept).c_str(), path(target).c_str());
    }
  }

 private:
  std::string path(const std::string& name) const { return prefix_ + name + suffix_; }
  void append(const std::string& name, const std::string& text) const {
    if (FILE* file = std::fopen(path(name).c_str(), "a")) {
      std::fputs(text.c_str(), file);
      std::fclose(file);
    }
  }
  // A runner under the tool: its banner, and the report made while it started.
  bool start(std::string name) {
    for (int n = 2; ::access(path(name).c_str(), F_OK) == 0; ++n) name = name.substr(0, name.find('~')) + "~" + std::to_string(n);
    current_ = name;
    errors_ = 0;
    append(current_, "========= COMPUTE-SANITIZER\n");
    // The orphan's report is one made at load time: every runner of a per-test round makes it too.
    const bool at_start = orphan_ || (orphan_at_load_ && !spans_) ||
                          std::find(reports_.begin(), reports_.end(), "@start") != reports_.end();
    if (at_start) {
      append(current_, "========= Error: CUDA initialized before the Sanitizer. The Sanitizer will be disabled\n");
      ++errors_;
    }
    return at_start;
  }
  void stop() {
    append(current_, "========= ERROR SUMMARY: " + std::to_string(errors_) + (errors_ == 1 ? " error\n" : " errors\n"));
    current_.clear();
  }

  bool active_ = false, spans_ = false, orphan_ = false, orphan_at_load_ = false, orphan_unfinished_ = false;
  std::string prefix_, suffix_, current_;
  std::vector<std::string> reports_;
  int errors_ = 0;
};

int fake_harness(const std::string& argument) {
  if (argument == "--gtest_list_tests") {
    const char* listing = std::getenv("FAKE_LISTING");
    std::fputs(listing ? listing : "", stdout);
    return 0;
  }
  const std::string prefix = "--gtest_filter=";
  if (argument.rfind(prefix, 0) != 0) return 2;
  std::map<std::string, std::string> script;
  const char* script_text = std::getenv("FAKE_SCRIPT");
  for (const auto& entry : split(script_text ? script_text : "", ';')) {
    const auto equals = entry.find('=');
    script[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  // FAKE_DEVICE_GONE_AFTER=FILE: the first process creates FILE and finds the device; every later
  // one finds FILE and no device, and skips its tests (code that hides the GPU from some
  // processes only).
  const char* gone_after = std::getenv("FAKE_DEVICE_GONE_AFTER");
  const bool device = !gone_after || ::access(gone_after, F_OK) != 0;
  if (gone_after && device) std::fclose(std::fopen(gone_after, "w"));
  write_result(device ? R"({"event":"environment","cuda_device":true,"device":"Fake GPU"})"
                      : R"({"event":"environment","cuda_device":false,"reason":"no CUDA device: hidden"})");
  const std::vector<std::string> tests = split(argument.substr(prefix.size()), ':');
  FakeToolLogs tool_logs;
  // CUDALABS_GPU_ALONE_FD: before its first Performance.* test, the harness asks for the GPU alone
  // as the real listener does: at once first, then, if labgrade answers "busy", waiting. That
  // test's end message then says what came: "alone at once", "alone after busy, then go", or "alone
  // after the pipe closed".
// FAKE_EXIT_AFTER_GPU_ALONE: it exits right after sending gpu_alone.
  const char* gpu_alone_text = std::getenv("CUDALABS_GPU_ALONE_FD");
  int gpu_alone_fd = gpu_alone_text ? std::atoi(gpu_alone_text) : -1;
  std::string gpu_alone_note;
  const auto ask_gpu_alone = [&](const std::string& test, bool at_once) {
    write_result(R"({"event":"gpu_alone","test":")" + test + R"(","at_once":)" + (at_once ? "true" : "false") + "}");
    if (std::getenv("FAKE_EXIT_AFTER_GPU_ALONE")) std::_Exit(3);  // before labgrade answers
    std::string answer;
    for (char c = 0; ::read(gpu_alone_fd, &c, 1) == 1 && c != '\n';) answer += c;
    return answer;
  };
  for (const auto& test : tests) {
    if (gpu_alone_fd >= 0 && test.rfind("Performance.", 0) == 0) {
      const std::string first = ask_gpu_alone(test, true);
      const std::string second = first == "busy" ? ask_gpu_alone(test, false) : "";
      gpu_alone_note = first == "go"                     ? "alone at once"
                       : first == "busy" && second == "go" ? "alone after busy, then go"
                                                           : "alone after the pipe closed";
      ::close(gpu_alone_fd);
      gpu_alone_fd = -1;
    }
    write_result(R"({"event":"start","test":")" + test + R"("})");
    tool_logs.test(test);
    const std::string action = !device ? "skip" : script.count(test) ? script[test] : "pass";
    if (action == "forge" || action == "forge-then-exit") {
      write_raw_result(end_event(test, "passed"));  // no token
      write_raw_result(R"({"token":"0123456789abcdef0123456789abcdef",)" + end_event(test, "passed").substr(1));
      write_result(end_event("Not.Asked", "passed"));  // a test the runner did not ask for
      write_raw_result(R"({"event":"done"})");
      if (action == "forge-then-exit") std::_Exit(0);
      write_result(end_event(test, "failed"));
      continue;
    }
    if (action == "claim-others-then-exit") {  // right token, but ends for tests that never started
      for (const auto& other : tests) {
        if (other != test) write_result(end_event(other, "passed"));
      }
      write_result(end_event(test, "passed"));
      std::_Exit(0);
    }
    if (action == "host-memory") {  // what the real listener does past the host-memory limit
      write_result(R"({"event":"end","test":")" + test + R"(","status":"passed","ms":1,"message":""})");
      write_result(R"({"event":"host_memory","test":")" + test +
                   R"(","peak_bytes":20401094656,"limit_bytes":17179869184})");
      return 89;
    }
    if (action == "bad-alloc") {  // what GoogleTest reports when new fails at the limit
      write_result(R"({"event":"end","test":")" + test +
                   R"(","status":"failed","ms":1,"message":"C++ exception with description \"std::bad_alloc\" thrown in the test body."})");
      continue;
    }
    if (action == "hog-then-segv") {  // 70 MiB resident, then the crash a null malloc result causes
      constexpr std::size_t kBytes = std::size_t{70} << 20;
      char* block = static_cast<char*>(std::malloc(kBytes));
      if (block) std::memset(block, 1, kBytes);
      std::raise(SIGSEGV);
    }
    if (action == "fail-oom") {  // what CUDALABS_CHECK's exception looks like when the device is full
      write_result(R"({"event":"end","test":")" + test +
                   R"(","status":"failed","ms":1,"message":"cudaMalloc(...) returned cudaErrorMemoryAllocation: out of memory"})");
      continue;
    }
    if (action == "fail-reference") {  // a reference-side runner's failure, as the judge reports it
      write_result(R"({"event":"end","test":")" + test + R"(","status":"failed","ms":1,"message":"C++ exception: )" +
                   R"(the reference solution (in its runner process) failed a call the reference runner was given",)" +
                   R"("trusted_runner_failed":true})");
      continue;
    }
    if (action == "fail-student") {  // the student's runner failing with words of its own that mimic the above
      write_result(R"({"event":"end","test":")" + test + R"(","status":"failed","ms":1,"message":"C++ exception: )" +
                   R"(your code (in its runner process) failed on the GPU during vector_add: the reference solution )" +
                   R"((in its runner process) failed a call the reference runner was given"})");
      continue;
    }
    if (action == "segv") std::raise(SIGSEGV);
    if (action == "sigkill") std::raise(SIGKILL);  // as the kernel's OOM killer does
    if (action == "hang") hang();
    if (action == "lose" || action == "lose-after-end") {
      if (action == "lose-after-end") {  // what the real listener does: the end event, then the loss
        write_result(R"({"event":"end","test":")" + test + R"(","status":"failed","ms":1,"message":"cudaDeviceSynchronize failed"})");
      }
      write_result(R"({"event":"context_lost","test":")" + test + R"(","error":"cudaErrorIllegalAddress: an illegal memory access was encountered"})");
      std::printf("stderr of %s\n", test.c_str());
      return 86;
    }
    if (action == "leak") {  // what the real listener does: the end event, then the leak, then exit
      write_result(R"({"event":"end","test":")" + test + R"(","status":"passed","ms":1,"message":""})");
      write_result(R"({"event":"leaked","test":")" + test +
                   R"(","bytes":85899345920,"free_before":85899345920,"free_after":0,"total":85899345920})");
      return 87;
    }
    const std::string status = action == "fail" ? "failed" : action == "skip" ? "skipped" : "passed";
    write_result(R"({"event":"end","test":")" + test + R"(","status":")" + status + R"(","ms":1.5,"message":")" +
                 (action == "fail" ? "expected 1, got 2" : std::exchange(gpu_alone_note, "")) + R"("})");
  }
  write_result(R"({"event":"done"})");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  if (mode.rfind("--gtest_", 0) == 0) return fake_harness(mode);
  if (mode == "exit" && argc == 3) return std::atoi(argv[2]);
  if (mode == "segv") std::raise(SIGSEGV);
  if (mode == "hang") hang();
  if (mode == "flood" && argc == 3) {
    const std::string block(4096, 'x');
    for (long left = std::atol(argv[2]); left > 0; left -= static_cast<long>(block.size())) {
      std::fwrite(block.data(), 1, std::min<long>(left, static_cast<long>(block.size())), stdout);
    }
    return 0;
  }
  if (mode == "echo-env" && argc == 3) {
    const char* value = std::getenv(argv[2]);
    std::printf("%s", value ? value : "<unset>");
    return 0;
  }
  if (mode == "open-fds") {
    // Probed one by one (no directory stream of its own to count).
    for (int fd = 0; fd < 1024; ++fd) {
      if (::fcntl(fd, F_GETFD) != -1) std::printf("%d ", fd);
    }
    return 0;
  }
  if (mode == "orphan") {
    if (::fork() == 0) hang();
    std::printf("parent leaving\n");
    return 0;
  }
  if (mode == "write-file" && argc == 3) {
    std::FILE* file = std::fopen("big.out", "wb");
    if (!file) return 3;
    const std::string block(4096, 'x');
    for (long left = std::atol(argv[2]); left > 0; left -= static_cast<long>(block.size())) {
      std::fwrite(block.data(), 1, std::min<long>(left, static_cast<long>(block.size())), file);
      std::fflush(file);
    }
    return std::fclose(file) == 0 ? 0 : 4;
  }
  if (mode == "spin") {
    for (volatile unsigned long i = 0;; i = i + 1) {
    }
  }
  if (mode == "limits") {
    const auto soft = [](int resource) {
      rlimit limit{};
      ::getrlimit(resource, &limit);
      return limit.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(limit.rlim_cur);
    };
    std::printf("cpu=%s nofile=%s fsize=%s core=%s as=%s data=%s", soft(RLIMIT_CPU).c_str(),
                soft(RLIMIT_NOFILE).c_str(), soft(RLIMIT_FSIZE).c_str(), soft(RLIMIT_CORE).c_str(),
                soft(RLIMIT_AS).c_str(), soft(RLIMIT_DATA).c_str());
    return 0;
  }
  if (mode == "daemon" && argc == 4) {
    // DEPTH daemons in a chain, each a child of the one before and in a session of its own,
    // sleeping; their pids to FILE, a line each.
    const int depth = std::atoi(argv[2]);
    int ready[2];
    if (depth < 1 || ::pipe(ready) != 0) return 3;
    if (::fork() == 0) {
      for (int level = 0; level < depth; ++level) {
        if (::fork() != 0) break;  // the one before sleeps below
        ::setsid();
        const pid_t self = ::getpid();
        if (::write(ready[1], &self, sizeof self) != sizeof self) std::_Exit(1);
      }
      for (;;) ::pause();
    }
    FILE* file = std::fopen(argv[3], "w");
    if (file == nullptr) return 5;
    for (int level = 0; level < depth; ++level) {
      pid_t daemon = 0;
      if (::read(ready[0], &daemon, sizeof daemon) != sizeof daemon) return 4;
      std::fprintf(file, "%d\n", static_cast<int>(daemon));
    }
    std::fclose(file);
    return 0;
  }
  if (mode == "read-secret") {
    std::printf("[%s]", result_token().c_str());
    return 0;
  }
  if (mode == "pid-then-hang") {
    write_raw_result(std::to_string(::getpid()));
    hang();
  }
  if (mode == "results" || mode == "results-then-hang") {
    for (int i = 2; i < argc; ++i) write_result(argv[i]);
    if (mode == "results-then-hang") hang();
    return 0;
  }
  return 2;
}
