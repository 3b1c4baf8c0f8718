// main() of every lab harness (self-check and grade binaries).
#include <gtest/gtest.h>

#include "cudalabs/gpu_lock.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"

int main(int argc, char** argv) {
  cudalabs::remote::narrow_own_cuda_queues();  // before anything starts CUDA
  ::testing::InitGoogleTest(&argc, argv);
  // Run by hand, the harness takes its GPU alone; under labgrade, which holds it, it does not.
  if (!GTEST_FLAG_GET(list_tests)) cudalabs::hold_gpu_lock_for_process();
  cudalabs::install_result_stream_from_environment();
  return RUN_ALL_TESTS();
}
