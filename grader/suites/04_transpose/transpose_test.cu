// Lab 04 hidden suite, the same seven tests for each of the three functions (suites Naive,
// Coalesced, ConflictFree): empty matrices, single rows and columns, odd and prime sizes, the
// longest rows and columns the contract allows, the largest matrix, several seeds with arrays not
// 16-byte aligned, and values a copy must carry bit for bit. Every case checks that `in` comes
// back unchanged and that nothing outside `out` was written. Every case first runs the reference
// solution and checks it against the CPU, so a broken reference shows up as a grader bug rather
// than as lost points. Cases of kMadeOnTheGpu elements and more are made and checked on the GPU
// instead: `in` from the device generators, sealed by a host-held checksum while the student's
// code runs, and the expected output made by the reference solution only after it has finished.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"

namespace {

using lab04::Implementation;

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

// 2^17 - 1, a prime: the longest row or column the contract allows, less one.
constexpr std::size_t kLongest = 131071;
// From this many elements on, a case is made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;

struct Case {
  std::size_t rows;
  std::size_t cols;
  std::uint64_t seed;
  std::size_t in_offset = 0;   // floats into its allocation: 1 to 3 make the pointer not 16-byte aligned
  std::size_t out_offset = 0;
  bool special_values = false;  // NaNs, -0.0, infinities, denormals: compared bit for bit
};

std::string describe(const Implementation& impl, const Case& c) {
  return std::string(impl.name) + " case: " + lab04::shape(c.rows, c.cols) + ", seed " + std::to_string(c.seed) +
         ", in/out start " + std::to_string(c.in_offset) + "/" + std::to_string(c.out_offset) +
         " floats into their allocations" + (c.special_values ? ", NaN/-0.0/inf/denormal values" : "");
}

// lab04::layout_hint, with the copy test done on the device.
std::string layout_hint_on_device(const float* in, const float* out, std::size_t n) {
  if (n > 1 && cudalabs::bit_difference_on_device(in, out, n, sizeof(float)).changed == 0) return lab04::kCopyHint;
  return "";
}

// A large case of uniform values (see the top of the file): lab04::expect_transposed's checks, in
// its order, with its messages.
void check_on_gpu(const Implementation& impl, const Case& c) {
  SCOPED_TRACE(describe(impl, c));
  const std::size_t n = c.rows * c.cols;
  const cudalabs::GeneratedInput<float> in(n, c.in_offset, [&](float* out) { cudalabs::fill_uniform_floats(out, n, c.seed); });
  lab04::GuardedArray out(n, c.out_offset);
  ASSERT_TRUE(lab04::call_and_wait(impl.name, c.rows, c.cols,
                                   [&] { return impl.student(in.data(), out.data(), c.rows, c.cols, nullptr); }));
  // The expected output exists only from here on, made from an input whose checksum holds.
  cudalabs::DeviceBuffer<float> expected(n);
  ASSERT_TRUE(lab04::call_and_wait("solution", c.rows, c.cols,
                                   [&] { return impl.solution(in.trusted(), expected.data(), c.rows, c.cols, nullptr); }))
      << kGraderBug;
  EXPECT_TRUE(out.guards_intact(impl.name, "out"));
  EXPECT_TRUE(cudalabs::matches(
      cudalabs::compare_floats_on_device(expected.data(), out.data(), n, cudalabs::lab_tolerance("transpose")),
      lab04::describe_output(c.rows, c.cols)))
      << layout_hint_on_device(in.trusted(), out.data(), n);
  EXPECT_TRUE(in.unmodified(impl.name, "in"));
  EXPECT_TRUE(in.guards_intact(impl.name, "in"));
}

void check(const Implementation& impl, const Case& c) {
  if (c.rows * c.cols >= kMadeOnTheGpu && !c.special_values) return check_on_gpu(impl, c);
  SCOPED_TRACE(describe(impl, c));
  const std::size_t n = c.rows * c.cols;
  const std::vector<float> in = c.special_values ? lab04::special_floats(n, c.seed) : cudalabs::uniform_floats(n, c.seed);
  const std::vector<float> expected = lab04::cpu_transpose(in, c.rows, c.cols);

  {  // The reference first, always bit for bit; its buffers are freed before the student's exist.
    const lab04::TransposeRun ref =
        lab04::run_transpose(impl.solution, "solution", in, c.rows, c.cols, c.in_offset, c.out_offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab04::bits_match(expected, ref.out.values(), "reference out")) << kGraderBug;
  }

  const lab04::TransposeRun run =
      lab04::run_transpose(impl.student, impl.name, in, c.rows, c.cols, c.in_offset, c.out_offset);
  lab04::expect_transposed(run, impl.name, in, expected, c.rows, c.cols, cudalabs::lab_tolerance("transpose"),
                           c.special_values);
}

void check_all(const Implementation& impl, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    ASSERT_NO_FATAL_FAILURE(check(impl, c));
    if (::testing::Test::HasFailure()) return;  // the first failing case says enough
  }
}

void empty_matrices(const Implementation& impl) {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{0, 0}, {0, 5}, {7, 0}, {0, kLongest}}) {
    ASSERT_TRUE(lab04::call_and_wait("solution", rows, cols, [&, rows = rows, cols = cols] {
      return impl.solution(nullptr, nullptr, rows, cols, nullptr);
    })) << kGraderBug;
    ASSERT_NO_FATAL_FAILURE(lab04::expect_empty_is_a_no_op(impl.student, impl.name, rows, cols));
  }
}

// A single element, one row, one column: almost every thread of a tile has nothing to do.
void single_row_or_column(const Implementation& impl) {
  check_all(impl, {{1, 1, 501}, {1, 1000, 502}, {1000, 1, 503}, {1, kLongest, 504}, {kLongest, 1, 505}});
}

// Sides that are not multiples of 8, 16 or 32 (primes among them), square and not, some just
// past a multiple of the tile (33, 1025) and some just short of one (31, 127).
void odd_sizes(const Implementation& impl) {
  check_all(impl, {{31, 33, 511},
                   {33, 31, 512},
                   {127, 129, 513},
                   {257, 1023, 514},
                   {1009, 997, 515},
                   {33, 1025, 516},
                   {4099, 4097, 517}});
}

// The longest rows and columns the contract allows with more than one of the other: the grid must
// cover 4096 tiles (or 16384 blocks of 8 rows) along one axis.
void tall_and_wide(const Implementation& impl) {
  check_all(impl, {{kLongest, 3, 521}, {5, kLongest, 522}, {131072, 2, 523}, {2, 65537, 524}});
}

// The largest matrix of the lab, the rectangular timed shape (2^26 floats, 256 MiB each way).
void largest(const Implementation& impl) { check_all(impl, {{16384, 4096, 531}}); }

// Several seeds and sizes, with `in` and `out` starting 0 to 3 floats into their allocations,
// alike or not (a 16-byte vector load or store would then be misaligned).
void several_seeds(const Implementation& impl) {
  check_all(impl, {{100, 300, 541, 0, 0},
                   {333, 77, 542, 1, 3},
                   {64, 64, 543, 2, 0},
                   {96, 40, 544, 3, 3},
                   {1, 77, 545, 1, 2},
                   {515, 1, 546, 2, 1},
                   {2048, 2047, 547, 1, 1},
                   {600, 1400, 548, 0, 2}});
}

// Values only a pure copy preserves, checked bit for bit.
void special_values(const Implementation& impl) {
  check_all(impl, {{37, 29, 551, 0, 0, true}, {1024, 96, 552, 1, 2, true}, {1, 513, 553, 0, 0, true}});
}

class Naive : public cudalabs::GpuTest {};
class Coalesced : public cudalabs::GpuTest {};
class ConflictFree : public cudalabs::GpuTest {};

// The same seven tests for each function; the YAML lists them as <Suite>.<Test>.
#define LAB04_HIDDEN_TESTS(Suite, impl)                                        \
  TEST_F(Suite, EmptyMatrix) { empty_matrices(impl); }                         \
  TEST_F(Suite, SingleRowOrColumn) { single_row_or_column(impl); }             \
  TEST_F(Suite, OddSizes) { odd_sizes(impl); }                                 \
  TEST_F(Suite, TallAndWide) { tall_and_wide(impl); }                          \
  TEST_F(Suite, Largest16384x4096) { largest(impl); }                          \
  TEST_F(Suite, SeveralSeedsMisaligned) { several_seeds(impl); }               \
  TEST_F(Suite, SpecialValuesBitExact) { special_values(impl); }

LAB04_HIDDEN_TESTS(Naive, lab04::kNaive)
LAB04_HIDDEN_TESTS(Coalesced, lab04::kCoalesced)
LAB04_HIDDEN_TESTS(ConflictFree, lab04::kConflictFree)

#undef LAB04_HIDDEN_TESTS

}  // namespace
