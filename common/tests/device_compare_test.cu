// The device comparisons give the host comparisons' reports word for word (compare.hpp,
// lab_checks.hpp), the keyed checksum notices any change, and GeneratedInput trusts an input
// only while its checksum holds.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"

namespace {

using cudalabs::DeviceBuffer;
using cudalabs::Tolerance;

template <class T>
T poison() {
  T value;
  std::memset(&value, 0xFF, sizeof value);
  return value;
}

class DeviceCompare : public cudalabs::GpuTest {};

// The whole report (counts, listed mismatches, poison diagnosis) must be the host's.
void expect_same_float_report(const std::vector<float>& expected, const std::vector<float>& actual,
                              Tolerance tolerance, std::size_t max_listed = 10) {
  const DeviceBuffer<float> e(expected), a(actual);
  const cudalabs::CompareReport host = cudalabs::compare_floats(expected, actual, tolerance, max_listed);
  const cudalabs::CompareReport device =
      cudalabs::compare_floats_on_device(e.data(), a.data(), expected.size(), tolerance, max_listed);
  EXPECT_EQ(device.to_string("c"), host.to_string("c"));
  EXPECT_EQ(device.ok(), host.ok());
  EXPECT_EQ(device.first_never_written, host.first_never_written);
}

TEST_F(DeviceCompare, FloatReportsMatchTheHostWordForWord) {
  constexpr std::size_t n = 1000003;
  const std::vector<float> expected = cudalabs::uniform_floats(n, 5, -10.0f, 10.0f);
  expect_same_float_report(expected, expected, Tolerance{});
  expect_same_float_report({}, {}, Tolerance{});

  std::vector<float> scattered = expected;  // a few wrong, far apart, one on the tolerance boundary
  for (std::size_t i : {std::size_t{3}, std::size_t{4}, std::size_t{77777}, n - 1}) scattered[i] += 0.5f;
  expect_same_float_report(expected, scattered, Tolerance{});
  expect_same_float_report(expected, scattered, Tolerance{0.5, 0});
  expect_same_float_report(expected, scattered, Tolerance{1e-6, 1e-3});

  std::vector<float> tail = expected;  // the classic grid-too-small mistake: the tail unwritten
  for (std::size_t i = n - 300; i < n; ++i) tail[i] = poison<float>();
  expect_same_float_report(expected, tail, Tolerance{});

  std::vector<float> holes = expected;  // unwritten elements in the middle, and many mismatches
  for (std::size_t i = 0; i < n; i += 1000) holes[i] = poison<float>();
  for (std::size_t i = 5; i < n; i += 7) holes[i] = -holes[i];
  expect_same_float_report(expected, holes, Tolerance{1e-3, 0});
  expect_same_float_report(expected, holes, Tolerance{1e-3, 0}, 3);

  const std::vector<float> nothing(n, poison<float>());
  expect_same_float_report(expected, nothing, Tolerance{});

  constexpr float inf = std::numeric_limits<float>::infinity();
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  expect_same_float_report({inf, -inf, nan, 1.0f, 0.0f, 1e30f}, {inf, inf, nan, nan, -0.0f, inf}, Tolerance{1, 1});
}

TEST_F(DeviceCompare, DoubleAndIntReportsMatchTheHostWordForWord) {
  const std::vector<double> expected = cudalabs::uniform_doubles(65537, 8);
  std::vector<double> actual = expected;
  actual[100] = poison<double>();
  actual[65536] += 1e-9;
  const DeviceBuffer<double> de(expected), da(actual);
  EXPECT_EQ(cudalabs::compare_doubles_on_device(de.data(), da.data(), expected.size(), Tolerance{0, 1e-12}).to_string("y"),
            cudalabs::compare_doubles(expected, actual, Tolerance{0, 1e-12}).to_string("y"));

  const std::vector<int> want = cudalabs::uniform_ints(300007, 9, -5, 5);
  std::vector<int> got = want;
  for (std::size_t i = 290000; i < got.size(); ++i) got[i] = -1;  // -1 where -1 was due still passes
  got[12] += 1;
  const DeviceBuffer<int> dw(want), dg(got);
  EXPECT_EQ(cudalabs::compare_ints_on_device(dw.data(), dg.data(), want.size()).to_string("out"),
            cudalabs::compare_ints(want, got).to_string("out"));
}

TEST_F(DeviceCompare, BitIdenticalMessagesMatchTheHost) {
  const std::vector<unsigned char> before = cudalabs::random_bytes(100003, 3);
  std::vector<unsigned char> after = before;
  after[17] ^= 1;
  after[99999] ^= 0x80;
  const DeviceBuffer<unsigned char> db(before), da(after);
  const auto host = cudalabs::bit_identical(before, after, "histogram", "data");
  const auto device = cudalabs::bit_identical_on_device(db.data(), da.data(), before.size(), "histogram", "data");
  EXPECT_FALSE(device);
  EXPECT_EQ(std::string(device.message()), std::string(host.message()));
  EXPECT_TRUE(cudalabs::bit_identical_on_device(db.data(), db.data(), before.size(), "histogram", "data"));

  const std::vector<float> zeros{0.0f, 1.0f};  // -0 and +0 are different bits
  const std::vector<float> signed_zero{-0.0f, 1.0f};
  const DeviceBuffer<float> dz(zeros), ds(signed_zero);
  EXPECT_EQ(std::string(cudalabs::bit_identical_on_device(dz.data(), ds.data(), 2, "f", "x").message()),
            std::string(cudalabs::bit_identical(zeros, signed_zero, "f", "x").message()));
}

TEST_F(DeviceCompare, ChecksumNoticesAnyChangeAtAnyAlignment) {
  constexpr std::size_t bytes = (1 << 20) + 5;
  DeviceBuffer<unsigned char> buffer(bytes + 8);
  cudalabs::fill_random_bytes(buffer.data(), bytes + 8, 11);
  for (std::size_t offset : {0, 1, 3}) {
    unsigned char* data = buffer.data() + offset;
    const std::uint64_t before = cudalabs::device_checksum(data, bytes);
    EXPECT_EQ(cudalabs::device_checksum(data, bytes), before) << "not deterministic";
    for (std::size_t at : {std::size_t{0}, std::size_t{4095}, bytes - 1}) {
      unsigned char byte = 0;
      CUDALABS_CHECK(cudaMemcpy(&byte, data + at, 1, cudaMemcpyDeviceToHost));
      const unsigned char flipped = byte ^ 0x10;
      CUDALABS_CHECK(cudaMemcpy(data + at, &flipped, 1, cudaMemcpyHostToDevice));
      EXPECT_NE(cudalabs::device_checksum(data, bytes), before) << "byte " << at << " at offset " << offset;
      CUDALABS_CHECK(cudaMemcpy(data + at, &byte, 1, cudaMemcpyHostToDevice));
    }
    EXPECT_EQ(cudalabs::device_checksum(data, bytes), before);
  }
  // Swapping two words keeps the multiset of words but not the checksum.
  DeviceBuffer<std::uint64_t> words(std::vector<std::uint64_t>{1, 2, 3});
  const std::uint64_t in_order = cudalabs::device_checksum(words.data(), words.bytes());
  words.copy_from_host({2, 1, 3});
  EXPECT_NE(cudalabs::device_checksum(words.data(), words.bytes()), in_order);
}

__global__ void scribble(float* x, std::size_t i, float value) { x[i] = value; }

TEST_F(DeviceCompare, GeneratedInputIsTrustedOnlyWhileItsChecksumHolds) {
  constexpr std::size_t n = 300001;
  const auto recipe = [](float* out) { cudalabs::fill_uniform_floats(out, n, 21); };
  cudalabs::GeneratedInput<float> input(n, 3, recipe);
  EXPECT_TRUE(input.intact());
  EXPECT_TRUE(input.unmodified("f", "x"));
  EXPECT_EQ(input.trusted(), input.data());
  EXPECT_TRUE(input.guards_intact("f", "x"));

  const std::vector<float> host = cudalabs::uniform_floats(n, 21);
  std::vector<float> changed = host;
  changed[1234] = 42.0f;
  scribble<<<1, 1>>>(input.data(), 1234, 42.0f);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  EXPECT_FALSE(input.intact());
  const ::testing::AssertionResult verdict = input.unmodified("f", "x");
  EXPECT_FALSE(verdict);
  EXPECT_EQ(std::string(verdict.message()), std::string(cudalabs::bit_identical(host, changed, "f", "x").message()));
  ASSERT_NE(input.trusted(), input.data());
  std::vector<float> trusted(n);
  CUDALABS_CHECK(cudaMemcpy(trusted.data(), input.trusted(), n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(trusted, host);
}

}  // namespace
