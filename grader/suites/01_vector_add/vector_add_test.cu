// Lab 01 hidden suite: edge sizes, a large prime, the full 2^26, several seeds, misaligned
// pointers, inputs left intact, special alphas. Small and medium cases also run the reference
// solution and check it against the CPU first, so a broken reference shows up as a grader bug
// rather than as lost points. Large cases (kMadeOnTheGpu elements and up) are made and checked on
// the GPU: inputs from the device generators, sealed by host-held checksums while the student's
// code runs, and the expected output made by the reference solution only after it has finished.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"
#include "lab01_test_support.cuh"


namespace {

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

constexpr std::size_t kLargePrime = 1000003;
constexpr std::size_t k2To26 = std::size_t{1} << 26;
// From this size on, a case is made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;

// Where each array starts inside its allocation, in floats. cudaMalloc pointers are 256-byte
// aligned, so an offset that is not a multiple of 4 makes that pointer not 16-byte aligned;
// equal offsets keep the arrays aligned alike, different ones do not.
struct Offsets {
  std::size_t first = 0;   // a (vector_add) or x (saxpy)
  std::size_t second = 0;  // b (vector_add) or y (saxpy)
  std::size_t third = 0;   // c (vector_add); unused by saxpy
};

struct AddCase {
  std::size_t n;
  std::uint64_t seed;
  Offsets offsets = {};
  bool check_inputs = false;
};

struct SaxpyCase {
  std::size_t n;
  std::uint64_t seed;
  float alpha;
  Offsets offsets = {};
  bool check_inputs = false;
};

std::string describe(const AddCase& c) {
  return "vector_add case: n = " + std::to_string(c.n) + ", seed = " + std::to_string(c.seed) +
         ", a/b/c start " + std::to_string(c.offsets.first) + "/" + std::to_string(c.offsets.second) + "/" +
         std::to_string(c.offsets.third) + " floats into their allocations";
}

std::string describe(const SaxpyCase& c) {
  return "saxpy case: n = " + std::to_string(c.n) + ", seed = " + std::to_string(c.seed) +
         ", alpha = " + std::to_string(c.alpha) + ", x/y start " + std::to_string(c.offsets.first) + "/" +
         std::to_string(c.offsets.second) + " floats into their allocations";
}

// Runs `impl` on fresh copies of a and b; the caller checks the returned arrays.
struct AddRun {
  lab01::GuardedArray a, b, c;
  ::testing::AssertionResult status;
};

AddRun run_add(lab01::VectorAddFn impl, const char* name, const std::vector<float>& a,
               const std::vector<float>& b, Offsets offsets) {
  lab01::GuardedArray da(a, offsets.first), db(b, offsets.second), dc(a.size(), offsets.third);
  ::testing::AssertionResult status = lab01::call_and_wait(name, a.size(), [&] {
    return impl(da.data(), db.data(), dc.data(), a.size(), nullptr);
  });
  return AddRun{std::move(da), std::move(db), std::move(dc), std::move(status)};
}

// A large case: made and checked on the GPU (see the top of the file).
void check_vector_add_on_gpu(const AddCase& c) {
  SCOPED_TRACE(describe(c));
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("vector_add");
  const std::size_t n = c.n;
  const cudalabs::GeneratedInput<float> a(n, c.offsets.first, [&](float* out) { cudalabs::fill_uniform_floats(out, n, c.seed); });
  const cudalabs::GeneratedInput<float> b(n, c.offsets.second,
                                          [&](float* out) { cudalabs::fill_uniform_floats(out, n, c.seed + 1000); });
  lab01::GuardedArray dc(n, c.offsets.third);
  ASSERT_TRUE(lab01::call_and_wait("vector_add", n, [&] {
    return student::vector_add(a.data(), b.data(), dc.data(), n, nullptr);
  }));
  EXPECT_TRUE(dc.guards_intact("vector_add", "c"));
  if (c.check_inputs) {
    EXPECT_TRUE(a.unmodified("vector_add", "a"));
    EXPECT_TRUE(b.unmodified("vector_add", "b"));
    EXPECT_TRUE(a.guards_intact("vector_add", "a"));
    EXPECT_TRUE(b.guards_intact("vector_add", "b"));
  }
  // The expected output exists only from here on, made from inputs whose checksums still hold.
  cudalabs::DeviceBuffer<float> expected(n);
  ASSERT_TRUE(lab01::call_and_wait("solution::vector_add", n, [&] {
    return solution::vector_add(a.trusted(), b.trusted(), expected.data(), n, nullptr);
  })) << kGraderBug;
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats_on_device(expected.data(), dc.data(), n, tolerance),
                                "c = a + b"));
}

void check_vector_add(const AddCase& c) {
  if (c.n >= kMadeOnTheGpu) return check_vector_add_on_gpu(c);
  SCOPED_TRACE(describe(c));
  const std::vector<float> a = cudalabs::uniform_floats(c.n, c.seed);
  const std::vector<float> b = cudalabs::uniform_floats(c.n, c.seed + 1000);
  const std::vector<float> expected = lab01::cpu_vector_add(a, b);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("vector_add");

  {  // The reference first; its buffers are freed before the student's are allocated.
    AddRun ref = run_add(&solution::vector_add, "solution::vector_add", a, b, c.offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, ref.c.values(), tolerance), "reference c"))
        << kGraderBug;
  }

  AddRun run = run_add(&student::vector_add, "vector_add", a, b, c.offsets);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.c.guards_intact("vector_add", "c"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, run.c.values(), tolerance), "c = a + b"));
  if (c.check_inputs) {
    EXPECT_TRUE(lab01::bit_identical(a, run.a.values(), "vector_add", "a"));
    EXPECT_TRUE(lab01::bit_identical(b, run.b.values(), "vector_add", "b"));
    EXPECT_TRUE(run.a.guards_intact("vector_add", "a"));
    EXPECT_TRUE(run.b.guards_intact("vector_add", "b"));
  }
}

struct SaxpyRun {
  lab01::GuardedArray x, y;
  ::testing::AssertionResult status;
};

SaxpyRun run_saxpy(lab01::SaxpyFn impl, const char* name, float alpha, const std::vector<float>& x,
                   const std::vector<float>& y, Offsets offsets) {
  lab01::GuardedArray dx(x, offsets.first), dy(y, offsets.second);
  ::testing::AssertionResult status =
      lab01::call_and_wait(name, x.size(), [&] { return impl(alpha, dx.data(), dy.data(), x.size(), nullptr); });
  return SaxpyRun{std::move(dx), std::move(dy), std::move(status)};
}

// A large case with the default data: made and checked on the GPU (see the top of the file).
// y is updated in place, so the reference gets a y made again after the student's call.
void check_saxpy_on_gpu(const SaxpyCase& c) {
  SCOPED_TRACE(describe(c));
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("saxpy");
  const std::size_t n = c.n;
  const auto make_y = [&](float* out) { cudalabs::fill_uniform_floats(out, n, c.seed + 1000); };
  const cudalabs::GeneratedInput<float> x(n, c.offsets.first, [&](float* out) { cudalabs::fill_uniform_floats(out, n, c.seed); });
  lab01::GuardedArray dy(n, c.offsets.second);
  make_y(dy.data());
  CUDALABS_CHECK(cudaDeviceSynchronize());  // made before the student's code runs, on any stream
  ASSERT_TRUE(lab01::call_and_wait("saxpy", n, [&] { return student::saxpy(c.alpha, x.data(), dy.data(), n, nullptr); }));
  EXPECT_TRUE(dy.guards_intact("saxpy", "y"));
  if (c.check_inputs) {
    EXPECT_TRUE(x.unmodified("saxpy", "x"));
    EXPECT_TRUE(x.guards_intact("saxpy", "x"));
  }
  cudalabs::DeviceBuffer<float> expected(n);
  make_y(expected.data());
  ASSERT_TRUE(lab01::call_and_wait("solution::saxpy", n, [&] {
    return solution::saxpy(c.alpha, x.trusted(), expected.data(), n, nullptr);
  })) << kGraderBug;
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats_on_device(expected.data(), dy.data(), n, tolerance),
                                "y = alpha * x + y"));
}

// x and y default to uniform [-1, 1) data from the case's seed.
void check_saxpy(const SaxpyCase& c, std::vector<float> x = {}, std::vector<float> y = {}) {
  if (c.n >= kMadeOnTheGpu && x.empty() && y.empty()) return check_saxpy_on_gpu(c);
  SCOPED_TRACE(describe(c));
  if (x.empty()) x = cudalabs::uniform_floats(c.n, c.seed);
  if (y.empty()) y = cudalabs::uniform_floats(c.n, c.seed + 1000);
  const std::vector<float> expected = lab01::cpu_saxpy(c.alpha, x, y);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("saxpy");

  {
    SaxpyRun ref = run_saxpy(&solution::saxpy, "solution::saxpy", c.alpha, x, y, c.offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, ref.y.values(), tolerance), "reference y"))
        << kGraderBug;
  }

  SaxpyRun run = run_saxpy(&student::saxpy, "saxpy", c.alpha, x, y, c.offsets);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.y.guards_intact("saxpy", "y"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, run.y.values(), tolerance), "y = alpha * x + y"));
  if (c.check_inputs) {
    EXPECT_TRUE(lab01::bit_identical(x, run.x.values(), "saxpy", "x"));
    EXPECT_TRUE(run.x.guards_intact("saxpy", "x"));
  }
}

class VectorAdd : public cudalabs::GpuTest {};
class Saxpy : public cudalabs::GpuTest {};

// --- vector_add ------------------------------------------------------------------------------

TEST_F(VectorAdd, ZeroLength) {
  ASSERT_TRUE(lab01::call_and_wait("solution::vector_add", 0, [] {
    return solution::vector_add(nullptr, nullptr, nullptr, 0);
  })) << kGraderBug;
  ASSERT_TRUE(lab01::call_and_wait("vector_add", 0, [] {
    return student::vector_add(nullptr, nullptr, nullptr, 0);
  }));

  // Valid pointers, n = 0: c is a sentinel array of 5 floats that must keep its values.
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  lab01::GuardedArray da(sentinel, 0), db(sentinel, 0), dc(sentinel, 0);
  ASSERT_TRUE(lab01::call_and_wait("vector_add", 0, [&] {
    return student::vector_add(da.data(), db.data(), dc.data(), 0);
  }));
  EXPECT_TRUE(lab01::bit_identical(sentinel, dc.values(), "vector_add with n = 0", "c"));
  EXPECT_TRUE(dc.guards_intact("vector_add", "c"));
}

TEST_F(VectorAdd, SingleElement) { check_vector_add({1, 11}); }

TEST_F(VectorAdd, OneWarpMinusOne) { check_vector_add({31, 12}); }

TEST_F(VectorAdd, LargePrime) { check_vector_add({kLargePrime, 13}); }

TEST_F(VectorAdd, Full2To26) { check_vector_add({k2To26, 14}); }

TEST_F(VectorAdd, SeveralSeeds) {
  // Sizes that are not multiples of 4, 32 or 256; arrays aligned, equally misaligned, and
  // misaligned by different amounts.
  const AddCase cases[] = {
      {4097, 21, {0, 0, 0}}, {4097, 22, {1, 1, 1}},   {65537, 23, {0, 0, 0}},
      {65537, 24, {3, 0, 2}}, {123457, 25, {2, 2, 2}}, {123457, 26, {0, 1, 0}},
  };
  for (const AddCase& c : cases) ASSERT_NO_FATAL_FAILURE(check_vector_add(c));
}

TEST_F(VectorAdd, InputsUnmodified) {
  check_vector_add({kLargePrime, 31, {}, true});
  check_vector_add({1027, 32, {1, 1, 1}, true});
  check_vector_add({1027, 33, {1, 2, 3}, true});
}

// --- saxpy -----------------------------------------------------------------------------------

TEST_F(Saxpy, ZeroLength) {
  ASSERT_TRUE(lab01::call_and_wait("solution::saxpy", 0, [] {
    return solution::saxpy(2.0f, nullptr, nullptr, 0);
  })) << kGraderBug;
  ASSERT_TRUE(lab01::call_and_wait("saxpy", 0, [] { return student::saxpy(2.0f, nullptr, nullptr, 0); }));

  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  lab01::GuardedArray dx(sentinel, 0), dy(sentinel, 0);
  ASSERT_TRUE(lab01::call_and_wait("saxpy", 0, [&] { return student::saxpy(2.0f, dx.data(), dy.data(), 0); }));
  EXPECT_TRUE(lab01::bit_identical(sentinel, dy.values(), "saxpy with n = 0", "y"));
  EXPECT_TRUE(dy.guards_intact("saxpy", "y"));
}

TEST_F(Saxpy, SingleElement) { check_saxpy({1, 41, 3.0f}); }

TEST_F(Saxpy, OneWarpMinusOne) { check_saxpy({31, 42, -1.75f}); }

TEST_F(Saxpy, LargePrime) { check_saxpy({kLargePrime, 43, 0.3f}); }

TEST_F(Saxpy, Full2To26) { check_saxpy({k2To26, 44, 2.5f}); }

TEST_F(Saxpy, SeveralSeeds) {
  const std::uint64_t seeds[] = {51, 52, 53, 54};
  const std::size_t sizes[] = {4099, 65539};
  // x/y offsets: aligned, equally misaligned, misaligned differently.
  const Offsets offsets[] = {{0, 0}, {1, 1}, {2, 0}, {3, 1}};
  std::size_t i = 0;
  for (std::uint64_t seed : seeds) {
    for (std::size_t n : sizes) {
      // alpha drawn from the seed too, in [-4, 4).
      const float alpha = cudalabs::uniform_floats(1, seed ^ 0xA1FA, -4.0f, 4.0f)[0];
      ASSERT_NO_FATAL_FAILURE(check_saxpy({n, seed, alpha, offsets[i++ % 4], true}));
    }
  }
}

TEST_F(Saxpy, SpecialAlphas) {
  constexpr std::size_t n = 100003;
  ASSERT_NO_FATAL_FAILURE(check_saxpy({n, 61, 0.0f}));   // y unchanged
  ASSERT_NO_FATAL_FAILURE(check_saxpy({n, 62, 1.0f}));   // plain x + y
  ASSERT_NO_FATAL_FAILURE(check_saxpy({n, 63, -1.0f}));  // y - x
  // Large alpha: |alpha * x| up to 1000, the bound the YAML tolerance is sized for.
  ASSERT_NO_FATAL_FAILURE(check_saxpy({n, 64, 1000.0f}));
  // Exact cancellation: y = x and alpha = -1 gives exactly 0 everywhere.
  const std::vector<float> x = cudalabs::uniform_floats(n, 65);
  ASSERT_NO_FATAL_FAILURE(check_saxpy({n, 65, -1.0f}, x, x));
}

}  // namespace
