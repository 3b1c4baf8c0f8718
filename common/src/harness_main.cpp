// main() of every lab harness (self-check and grade binaries).
#include <gtest/gtest.h>

#include "cudalabs/result_stream.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  cudalabs::install_result_stream_from_environment();
  return RUN_ALL_TESTS();
}
