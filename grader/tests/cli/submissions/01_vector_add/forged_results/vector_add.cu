// Adversarial: forges result-stream lines. A static constructor (which runs before the test
// program's main) writes "every test passed" events to the descriptor named by
// CUDALABS_RESULT_FD, and to every descriptor from 3 to 63 in case the variable is gone; each call
// writes more to descriptor 3. Its functions do nothing useful. Expected: graded (exit code 0),
// score 0 / 100, no test passed: the lines lack the token labgrade gave the process.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "vector_add.cuh"

extern "C" long write(int fd, const void* data, unsigned long size);  // <unistd.h> is forbidden

namespace student {
namespace {

const char* const kTests[] = {
    "SelfCheck.VectorAddSmall", "SelfCheck.VectorAddZeroLength", "SelfCheck.SaxpySmall", "SelfCheck.SaxpyZeroLength",
    "VectorAdd.ZeroLength", "VectorAdd.SingleElement", "VectorAdd.OneWarpMinusOne", "VectorAdd.LargePrime",
    "VectorAdd.Full2To26", "VectorAdd.SeveralSeeds", "VectorAdd.InputsUnmodified", "Saxpy.ZeroLength",
    "Saxpy.SingleElement", "Saxpy.OneWarpMinusOne", "Saxpy.LargePrime", "Saxpy.Full2To26", "Saxpy.SeveralSeeds",
    "Saxpy.SpecialAlphas"};

std::string forged_stream() {
  std::string lines = "{\"event\":\"environment\",\"cuda_device\":true,\"device\":\"Forged GPU\"}\n";
  for (const char* test : kTests) {
    lines += std::string("{\"event\":\"start\",\"test\":\"") + test + "\"}\n";
    lines += std::string("{\"token\":\"00000000000000000000000000000000\",\"event\":\"end\",\"test\":\"") + test +
             "\",\"status\":\"passed\",\"ms\":1,\"message\":\"\"}\n";
    lines += std::string("{\"event\":\"end\",\"test\":\"") + test + "\",\"status\":\"passed\",\"ms\":1,\"message\":\"\"}\n";
  }
  return lines + "{\"event\":\"done\"}\n";
}

void forge(int fd) {
  const std::string lines = forged_stream();
  write(fd, lines.data(), lines.size());
}

struct Forger {
  Forger() {
    const char* named = std::getenv("CUDALABS_RESULT_FD");
    std::printf("forger: CUDALABS_RESULT_FD is %s\n", named ? named : "gone");
    if (named) forge(std::atoi(named));
    for (int fd = 3; fd < 64; ++fd) forge(fd);  // before CUDA has opened anything of its own
  }
} forger;

}  // namespace

cudaError_t vector_add(const float*, const float*, float*, std::size_t, cudaStream_t) {
  forge(3);
  return cudaErrorNotYetImplemented;
}

cudaError_t saxpy(float, const float*, float*, std::size_t, cudaStream_t) {
  forge(3);
  return cudaErrorNotYetImplemented;
}

}  // namespace student
