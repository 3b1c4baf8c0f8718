// Plays the part of untrusted code for child_process and suite_runner tests.
//   test_child exit <code>            exit with <code>
//   test_child segv                   die of SIGSEGV
//   test_child hang                   sleep forever
//   test_child flood <bytes>          write <bytes> to stdout, then exit 0
//   test_child echo-env <name>        print the variable's value
//   test_child orphan                 start a grandchild that sleeps forever holding stdout, then exit 0
//   test_child results <line>...      write each line to the result descriptor, then exit 0
//   test_child results-then-hang <line>...   the same, then sleep forever
//
// As a fake lab harness (any argument starting with --gtest_): prints the listing in
// FAKE_LISTING for --gtest_list_tests, and for --gtest_filter replays FAKE_SCRIPT, a ';'-separated
// list of "<test>=<pass|fail|skip|segv|hang|lose|lose-after-end>" applied to the tests of the filter in order.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

void write_result(const std::string& line) {
  const char* fd_text = std::getenv("CUDALABS_RESULT_FD");
  if (!fd_text) return;
  const std::string text = line + "\n";
  if (::write(std::atoi(fd_text), text.data(), text.size()) < 0) std::exit(99);
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
  write_result(R"({"event":"environment","cuda_device":true,"device":"Fake GPU"})");
  for (const auto& test : split(argument.substr(prefix.size()), ':')) {
    write_result(R"({"event":"start","test":")" + test + R"("})");
    const std::string action = script.count(test) ? script[test] : "pass";
    if (action == "segv") std::raise(SIGSEGV);
    if (action == "hang") hang();
    if (action == "lose" || action == "lose-after-end") {
      if (action == "lose-after-end") {  // what the real listener does: the end event, then the loss
        write_result(R"({"event":"end","test":")" + test + R"(","status":"failed","ms":1,"message":"cudaDeviceSynchronize failed"})");
      }
      write_result(R"({"event":"context_lost","test":")" + test + R"(","error":"cudaErrorIllegalAddress: an illegal memory access was encountered"})");
      std::printf("stderr of %s\n", test.c_str());
      return 86;
    }
    const std::string status = action == "fail" ? "failed" : action == "skip" ? "skipped" : "passed";
    write_result(R"({"event":"end","test":")" + test + R"(","status":")" + status +
                 R"(","ms":1.5,"message":")" + (action == "fail" ? "expected 1, got 2" : "") + R"("})");
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
  if (mode == "orphan") {
    if (::fork() == 0) hang();
    std::printf("parent leaving\n");
    return 0;
  }
  if (mode == "results" || mode == "results-then-hang") {
    for (int i = 2; i < argc; ++i) write_result(argv[i]);
    if (mode == "results-then-hang") hang();
    return 0;
  }
  return 2;
}
