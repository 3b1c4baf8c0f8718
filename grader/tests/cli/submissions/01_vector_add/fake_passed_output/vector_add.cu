// Adversarial: prints fake GoogleTest "[  PASSED  ]" lines and writes fake report files
// (report.json, results.json) in its working directory, using raw system calls so that no
// forbidden function shows up. Its functions do nothing useful. Expected: graded (exit code 0),
// score 0 / 100, no test passed: labgrade reads neither the output nor any file the code writes.
#include <cstdio>
#include <cstring>

#include "vector_add.cuh"

namespace student {
namespace {

long raw_syscall(long number, long a, long b, long c) {
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return result;
}

void write_file(const char* path, const char* text) {
  constexpr long kOpen = 2, kWrite = 1, kClose = 3;
  constexpr long kFlags = 01 | 0100 | 01000;  // O_WRONLY | O_CREAT | O_TRUNC
  const long fd = raw_syscall(kOpen, reinterpret_cast<long>(path), kFlags, 0644);
  if (fd < 0) return;
  raw_syscall(kWrite, fd, reinterpret_cast<long>(text), static_cast<long>(std::strlen(text)));
  raw_syscall(kClose, fd, 0, 0);
}

void pretend_everything_passed() {
  std::printf("[==========] 18 tests from 3 test suites ran. (42 ms total)\n[  PASSED  ] 18 tests.\n");
  std::printf("{\"event\":\"done\"}\nScore: 100 / 100\n");
  std::fflush(stdout);
  const char* report = "{\"schema_version\":1,\"status\":\"graded\",\"points_earned\":100,\"points_possible\":100}\n";
  write_file("report.json", report);
  write_file("results.json", "{\"score\":100,\"tests\":[]}\n");
}

struct Pretender {
  Pretender() { pretend_everything_passed(); }
} pretender;

}  // namespace

cudaError_t vector_add(const float*, const float*, float*, std::size_t, cudaStream_t) {
  std::printf("[       OK ] VectorAdd (0 ms)\n");
  pretend_everything_passed();
  return cudaErrorNotYetImplemented;
}

cudaError_t saxpy(float, const float*, float*, std::size_t, cudaStream_t) {
  std::printf("[       OK ] Saxpy (0 ms)\n");
  pretend_everything_passed();
  return cudaErrorNotYetImplemented;
}

}  // namespace student
