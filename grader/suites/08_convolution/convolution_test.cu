// Lab 08 hidden suite: empty data, data smaller than the filter, every filter width, sizes that
// are primes or not multiples of any block size, 1 x N and N x 1 images, arrays not 16-byte
// aligned, large and negative values with blur-like and zero-sum filters, the largest sizes the
// contract allows, invalid filter widths, and filters kept and replaced across calls. Every case
// checks that `in` comes back unchanged and that nothing outside `out` was written (outputs start
// poisoned, inside guard zones). Every CPU-checked case first runs the reference solution and
// checks it against the CPU, so a broken reference shows up as a grader bug rather than as lost
// points. Cases of kMadeOnTheGpu outputs and more are made and checked on the GPU instead: `in`
// from the device generators, sealed by a host-held checksum while the student's code runs, and
// the expected output made by the reference solution only after it has finished.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"

namespace {

using lab08::Filter;
using lab08::FilterKind;
using lab08::Implementation2d;
using lab08::ValueRange;

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

// From this many outputs on, a case is made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;
// The contract's largest sizes.
constexpr int kLargest1d = 1 << 26;
constexpr int kLongestSide = 65535;

constexpr const char* kFormula1d = "out[i] = sum_k taps[k] * in[clamp(i + k - r)]";
constexpr const char* kFormula2d = "out(x, y) = sum_j sum_k taps[j][k] * in(clamp(x + k - r), clamp(y + j - r))";

cudalabs::Tolerance yaml_tolerance() { return cudalabs::lab_tolerance("convolution"); }

// What a case on the GPU is compared with: the reference's output, which may itself lie the
// tolerance away from the exact result (hence twice it).
cudalabs::Tolerance doubled(cudalabs::Tolerance t) { return cudalabs::Tolerance{2 * t.abs, 2 * t.rel}; }

std::string offsets(std::size_t in_offset, std::size_t out_offset) {
  return "in/out start " + std::to_string(in_offset) + "/" + std::to_string(out_offset) +
         " floats into their allocations";
}

// --- 1D ------------------------------------------------------------------------------------------

struct Case1d {
  int n;
  int filter_width;
  std::uint64_t seed;
  FilterKind kind = FilterKind::Random;
  ValueRange range = lab08::kUnitValues;
  std::size_t in_offset = 0;  // floats into its allocation: 1 to 3 make the pointer not 16-byte aligned
  std::size_t out_offset = 0;
};

std::string describe(const Case1d& c) {
  return "convolve_1d case: n = " + std::to_string(c.n) + ", " + std::to_string(c.filter_width) + "-tap filter (" +
         lab08::to_string(c.kind) + "), " + c.range.name + ", seed " + std::to_string(c.seed) + ", " +
         offsets(c.in_offset, c.out_offset);
}

void check_1d_on_gpu(const Case1d& c) {
  SCOPED_TRACE(describe(c));
  const std::size_t n = static_cast<std::size_t>(c.n);
  const Filter filter = lab08::make_filter_1d(c.filter_width, c.seed, c.kind);
  const cudalabs::GeneratedInput<float> in(n, c.in_offset, [&](float* out) {
    cudalabs::fill_uniform_floats(out, n, c.seed + 1, c.range.lo, c.range.hi);
  });
  lab08::GuardedArray out(n, c.out_offset);
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_1d, "set_filter_1d", filter));
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_1d("convolve_1d", c.n, c.filter_width), false, [&] {
    return student::convolve_1d(in.data(), out.data(), c.n, c.filter_width, nullptr);
  }));
  // The expected output exists only from here on, made from an input whose checksum holds.
  cudalabs::DeviceBuffer<float> expected(n);
  ASSERT_TRUE(lab08::set_filter(&solution::set_filter_1d, "solution::set_filter_1d", filter)) << kGraderBug;
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_1d("solution::convolve_1d", c.n, c.filter_width), false, [&] {
    return solution::convolve_1d(in.trusted(), expected.data(), c.n, c.filter_width, nullptr);
  })) << kGraderBug;
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), c.range.max_magnitude() * filter.sum_of_magnitudes());
  EXPECT_TRUE(out.guards_intact("convolve_1d", "out"));
  EXPECT_TRUE(lab08::explain_report(cudalabs::compare_floats_on_device(expected.data(), out.data(), n, doubled(tolerance)),
                                    0, c.n, filter.radius(), std::string(kFormula1d) + " (compared with the reference solution)"));
  EXPECT_TRUE(in.unmodified("convolve_1d", "in"));
  EXPECT_TRUE(in.guards_intact("convolve_1d", "in"));
}

void check_1d(const Case1d& c) {
  if (static_cast<std::size_t>(c.n) >= kMadeOnTheGpu) return check_1d_on_gpu(c);
  SCOPED_TRACE(describe(c));
  const Filter filter = lab08::make_filter_1d(c.filter_width, c.seed, c.kind);
  const std::vector<float> in = lab08::make_values(static_cast<std::size_t>(c.n), c.seed + 1, c.range);
  const std::vector<float> expected = lab08::cpu_convolve_1d(in, filter);
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), lab08::max_magnitude(in) * filter.sum_of_magnitudes());

  {  // The reference first; its buffers are freed before the student's exist.
    const lab08::ConvolutionRun ref = lab08::run_1d(&solution::set_filter_1d, &solution::convolve_1d,
                                                    "solution::convolve_1d", in, filter, c.in_offset, c.out_offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, ref.out.values(), tolerance), "reference out"))
        << kGraderBug;
  }

  const lab08::ConvolutionRun run = lab08::run_1d(&student::set_filter_1d, &student::convolve_1d, "convolve_1d", in,
                                                  filter, c.in_offset, c.out_offset);
  lab08::expect_convolved(run, "convolve_1d", in, expected, 0, c.n, filter.radius(), tolerance, kFormula1d);
}

void check_all_1d(const std::vector<Case1d>& cases) {
  for (const Case1d& c : cases) {
    ASSERT_NO_FATAL_FAILURE(check_1d(c));
    if (::testing::Test::HasFailure()) return;  // the first failing case says enough
  }
}

// --- 2D ------------------------------------------------------------------------------------------

struct Case2d {
  int width;
  int height;
  int filter_width;
  std::uint64_t seed;
  FilterKind kind = FilterKind::Random;
  ValueRange range = lab08::kUnitValues;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
};

std::string describe(const Implementation2d& impl, const Case2d& c) {
  return std::string(impl.name) + " case: " + std::to_string(c.width) + " x " + std::to_string(c.height) + ", " +
         std::to_string(c.filter_width) + " x " + std::to_string(c.filter_width) + " filter (" +
         lab08::to_string(c.kind) + "), " + c.range.name + ", seed " + std::to_string(c.seed) + ", " +
         offsets(c.in_offset, c.out_offset);
}

void check_2d_on_gpu(const Implementation2d& impl, const Case2d& c) {
  SCOPED_TRACE(describe(impl, c));
  const std::size_t n = static_cast<std::size_t>(c.width) * c.height;
  const Filter filter = lab08::make_filter_2d(c.filter_width, c.seed, c.kind);
  const cudalabs::GeneratedInput<float> in(n, c.in_offset, [&](float* out) {
    cudalabs::fill_uniform_floats(out, n, c.seed + 1, c.range.lo, c.range.hi);
  });
  lab08::GuardedArray out(n, c.out_offset);
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_2d, "set_filter_2d", filter));
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_2d(impl.name, c.width, c.height, c.filter_width), false, [&] {
    return impl.student(in.data(), out.data(), c.width, c.height, c.filter_width, nullptr);
  }));
  // The expected output exists only from here on, made from an input whose checksum holds.
  cudalabs::DeviceBuffer<float> expected(n);
  ASSERT_TRUE(lab08::set_filter(&solution::set_filter_2d, "solution::set_filter_2d", filter)) << kGraderBug;
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_2d("solution", c.width, c.height, c.filter_width), false, [&] {
    return impl.solution(in.trusted(), expected.data(), c.width, c.height, c.filter_width, nullptr);
  })) << kGraderBug;
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), c.range.max_magnitude() * filter.sum_of_magnitudes());
  EXPECT_TRUE(out.guards_intact(impl.name, "out"));
  EXPECT_TRUE(lab08::explain_report(cudalabs::compare_floats_on_device(expected.data(), out.data(), n, doubled(tolerance)),
                                    c.width, c.height, filter.radius(),
                                    std::string(kFormula2d) + " (compared with the reference solution)"));
  EXPECT_TRUE(in.unmodified(impl.name, "in"));
  EXPECT_TRUE(in.guards_intact(impl.name, "in"));
}

void check_2d(const Implementation2d& impl, const Case2d& c) {
  if (static_cast<std::size_t>(c.width) * c.height >= kMadeOnTheGpu) return check_2d_on_gpu(impl, c);
  SCOPED_TRACE(describe(impl, c));
  const Filter filter = lab08::make_filter_2d(c.filter_width, c.seed, c.kind);
  const std::vector<float> in =
      lab08::make_values(static_cast<std::size_t>(c.width) * c.height, c.seed + 1, c.range);
  const std::vector<float> expected = lab08::cpu_convolve_2d(in, c.width, c.height, filter);
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), lab08::max_magnitude(in) * filter.sum_of_magnitudes());

  {  // The reference first; its buffers are freed before the student's exist.
    const std::string reference = std::string("solution::") + impl.name;
    const lab08::ConvolutionRun ref = lab08::run_2d(&solution::set_filter_2d, impl.solution, reference.c_str(), in,
                                                    c.width, c.height, filter, c.in_offset, c.out_offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, ref.out.values(), tolerance), "reference out"))
        << kGraderBug;
  }

  const lab08::ConvolutionRun run = lab08::run_2d(&student::set_filter_2d, impl.student, impl.name, in, c.width,
                                                  c.height, filter, c.in_offset, c.out_offset);
  lab08::expect_convolved(run, impl.name, in, expected, c.width, c.height, filter.radius(), tolerance, kFormula2d);
}

void check_all_2d(const Implementation2d& impl, const std::vector<Case2d>& cases) {
  for (const Case2d& c : cases) {
    ASSERT_NO_FATAL_FAILURE(check_2d(impl, c));
    if (::testing::Test::HasFailure()) return;  // the first failing case says enough
  }
}

// The filter kinds in turn, so every width meets each of them.
FilterKind kind_number(int i) {
  const FilterKind kinds[] = {FilterKind::Random, FilterKind::Positive, FilterKind::ZeroSum};
  return kinds[i % 3];
}

// --- Convolve1d ----------------------------------------------------------------------------------

class Convolve1d : public cudalabs::GpuTest {};

TEST_F(Convolve1d, ZeroSize) {
  ASSERT_TRUE(lab08::call_and_wait("solution::convolve_1d(n = 0)", true, [] {
    return solution::convolve_1d(nullptr, nullptr, 0, 3, nullptr);
  })) << kGraderBug;
  lab08::expect_empty_1d_is_a_no_op(&student::set_filter_1d, &student::convolve_1d, "convolve_1d");
}

// Fewer samples than taps: most outputs clamp on both sides at once.
TEST_F(Convolve1d, SizeOneAndTiny) {
  check_all_1d({{1, 63, 1101}, {1, 1, 1102}, {2, 63, 1103}, {3, 5, 1104}, {5, 63, 1105}, {31, 63, 1106},
                {32, 63, 1107}, {33, 31, 1108}});
}

// Every width from 1 to 63 on 1031 samples (a prime), each filter kind in turn.
TEST_F(Convolve1d, EveryFilterWidth) {
  std::vector<Case1d> cases;
  for (int w = 1; w <= student::kMaxFilterWidth1d; w += 2) {
    cases.push_back({1031, w, static_cast<std::uint64_t>(1200 + w), kind_number(w / 2)});
  }
  check_all_1d(cases);
}

// Sizes just short of and just past multiples of 4, 32, 256 and 1024, and primes.
TEST_F(Convolve1d, OddSizes) {
  check_all_1d({{255, 7, 1301},
                {257, 7, 1302},
                {1023, 31, 1303},
                {1025, 31, 1304},
                {4097, 63, 1305},
                {65537, 15, 1306},
                {100003, 9, 1307},
                {1000003, 31, 1308}});
}

// `in` and `out` starting 0 to 3 floats into their allocations, alike or not (a 16-byte vector
// load or store would then be misaligned).
TEST_F(Convolve1d, Misaligned) {
  const ValueRange unit = lab08::kUnitValues;
  check_all_1d({{4099, 9, 1401, FilterKind::Random, unit, 1, 3},
                {10000, 63, 1402, FilterKind::Positive, unit, 2, 0},
                {777, 5, 1403, FilterKind::ZeroSum, unit, 3, 3},
                {1024, 1, 1404, FilterKind::Random, unit, 0, 1},
                {4096, 31, 1405, FilterKind::Random, unit, 1, 1}});
}

// Large magnitudes, and negative values nearly equal to each other under a zero-sum filter
// (heavy cancellation) and under a positive one.
TEST_F(Convolve1d, AdversarialValues) {
  check_all_1d({{5003, 5, 1501, FilterKind::Random, lab08::kHugeValues},
                {5003, 63, 1502, FilterKind::ZeroSum, lab08::kHugeValues},
                {5003, 17, 1503, FilterKind::ZeroSum, lab08::kNegativeValues},
                {5003, 63, 1504, FilterKind::Positive, lab08::kNegativeValues}});
}

// The largest n the contract allows, with the widest filter, and one less with misaligned arrays.
TEST_F(Convolve1d, Largest) {
  check_all_1d({{kLargest1d, student::kMaxFilterWidth1d, 1601},
                {kLargest1d - 1, 7, 1602, FilterKind::ZeroSum, lab08::kHugeValues, 1, 2}});
}

// --- Convolve2dNaive, Convolve2dTiled --------------------------------------------------------------

void empty_images(const Implementation2d& impl) {
  ASSERT_TRUE(lab08::call_and_wait("solution (0 x 0)", true, [&] {
    return impl.solution(nullptr, nullptr, 0, 0, 3, nullptr);
  })) << kGraderBug;
  lab08::expect_empty_2d_is_a_no_op(&student::set_filter_2d, impl.student, impl.name);
}

// Images no larger than the filter, single rows and columns: almost every output clamps.
void tiny_images(const Implementation2d& impl) {
  check_all_2d(impl, {{1, 1, 15, 2101},
                      {1, 1, 1, 2102},
                      {1, 2, 15, 2103},
                      {2, 1, 5, 2104},
                      {2, 2, 3, 2105},
                      {3, 5, 15, 2106},
                      {7, 7, 15, 2107},
                      {1, 1000, 7, 2108},
                      {1000, 1, 7, 2109},
                      {1, 4099, 15, 2110},
                      {4099, 1, 15, 2111}});
}

// Every width from 1 to 15 on a 67 x 41 image (both prime), each filter kind in turn.
void every_filter_width(const Implementation2d& impl) {
  std::vector<Case2d> cases;
  for (int w = 1; w <= student::kMaxFilterWidth2d; w += 2) {
    cases.push_back({67, 41, w, static_cast<std::uint64_t>(2200 + w), kind_number(w / 2)});
  }
  check_all_2d(impl, cases);
}

// Sides that are not multiples of 4, 8, 16, 32 or 128, many of them prime, some just past or
// short of a multiple of a tile.
void odd_sizes(const Implementation2d& impl) {
  check_all_2d(impl, {{31, 33, 5, 2301},
                      {127, 129, 5, 2302},
                      {257, 17, 3, 2303},
                      {1023, 3, 7, 2304},
                      {3, 1021, 9, 2305},
                      {641, 479, 5, 2306},
                      {129, 65, 15, 2307},
                      {1025, 257, 11, 2308}});
}

// Arrays starting 0 to 3 floats into their allocations; widths that are and are not multiples of
// 4 (rows 16-byte aligned or not).
void misaligned(const Implementation2d& impl) {
  const ValueRange unit = lab08::kUnitValues;
  check_all_2d(impl, {{640, 480, 5, 2401, FilterKind::Random, unit, 1, 3},
                      {641, 479, 7, 2402, FilterKind::Positive, unit, 2, 0},
                      {1021, 77, 3, 2403, FilterKind::ZeroSum, unit, 3, 3},
                      {96, 40, 15, 2404, FilterKind::Random, unit, 1, 1},
                      {100, 52, 5, 2405, FilterKind::Random, unit, 0, 2}});
}

void adversarial_values(const Implementation2d& impl) {
  check_all_2d(impl, {{300, 200, 5, 2501, FilterKind::Random, lab08::kHugeValues},
                      {300, 200, 15, 2502, FilterKind::ZeroSum, lab08::kHugeValues},
                      {211, 97, 5, 2503, FilterKind::ZeroSum, lab08::kNegativeValues},
                      {211, 97, 3, 2504, FilterKind::Positive, lab08::kNegativeValues}});
}

// The largest images the contract allows: 2^26 pixels, the longest rows, the most rows.
void largest(const Implementation2d& impl) {
  check_all_2d(impl, {{8192, 8192, 5, 2601},
                      {kLongestSide, 1024, 3, 2602, FilterKind::Positive, lab08::kUnitValues, 1, 2},
                      {1024, kLongestSide, 7, 2603, FilterKind::ZeroSum, lab08::kHugeValues}});
}

class Convolve2dNaive : public cudalabs::GpuTest {};
class Convolve2dTiled : public cudalabs::GpuTest {};

// The same seven tests for each 2D function; the YAML lists them as <Suite>.<Test>.
#define LAB08_HIDDEN_2D_TESTS(Suite, impl)                          \
  TEST_F(Suite, ZeroSize) { empty_images(impl); }                   \
  TEST_F(Suite, TinyImages) { tiny_images(impl); }                  \
  TEST_F(Suite, EveryFilterWidth) { every_filter_width(impl); }     \
  TEST_F(Suite, OddSizes) { odd_sizes(impl); }                      \
  TEST_F(Suite, Misaligned) { misaligned(impl); }                   \
  TEST_F(Suite, AdversarialValues) { adversarial_values(impl); }    \
  TEST_F(Suite, Largest) { largest(impl); }

LAB08_HIDDEN_2D_TESTS(Convolve2dNaive, lab08::kNaive)
LAB08_HIDDEN_2D_TESTS(Convolve2dTiled, lab08::kTiled)

#undef LAB08_HIDDEN_2D_TESTS

// --- Filters ---------------------------------------------------------------------------------------

class Filters : public cudalabs::GpuTest {};

// Convolves `values` with convolve_1d and whatever 1D filter is set, and checks it was `filter`.
void expect_1d_uses(const std::vector<float>& values, const Filter& filter, const std::string& when) {
  SCOPED_TRACE(when);
  lab08::GuardedArray in(values, 0), out(values.size(), 0);
  const int n = static_cast<int>(values.size());
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_1d("convolve_1d", n, filter.width), false, [&] {
    return student::convolve_1d(in.data(), out.data(), n, filter.width, nullptr);
  }));
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), lab08::max_magnitude(values) * filter.sum_of_magnitudes());
  EXPECT_TRUE(lab08::explain_report(
      cudalabs::compare_floats(lab08::cpu_convolve_1d(values, filter), out.values(), tolerance), 0, n,
      filter.radius(), std::string(kFormula1d) + " " + when));
}

// The same for a width x height image, convolve_2d_naive and the 2D filter.
void expect_2d_uses(const std::vector<float>& image, int width, int height, const Filter& filter,
                    const std::string& when) {
  SCOPED_TRACE(when);
  lab08::GuardedArray in(image, 0), out(image.size(), 0);
  ASSERT_TRUE(lab08::call_and_wait(lab08::call_2d("convolve_2d_naive", width, height, filter.width), false, [&] {
    return student::convolve_2d_naive(in.data(), out.data(), width, height, filter.width, nullptr);
  }));
  const cudalabs::Tolerance tolerance =
      lab08::scaled_tolerance(yaml_tolerance(), lab08::max_magnitude(image) * filter.sum_of_magnitudes());
  EXPECT_TRUE(lab08::explain_report(
      cudalabs::compare_floats(lab08::cpu_convolve_2d(image, width, height, filter), out.values(), tolerance), width,
      height, filter.radius(), std::string(kFormula2d) + " " + when));
}

// A call the contract says must return cudaErrorInvalidValue (and do nothing else).
::testing::AssertionResult rejected(const std::string& call, cudaError_t status) {
  // A launch refused by the runtime leaves its error behind: clear it, so it is not charged later.
  static_cast<void>(cudaGetLastError());
  if (status == cudaErrorInvalidValue) return ::testing::AssertionSuccess();
  if (status == cudaErrorNotYetImplemented) return cudalabs::returned_success(call, status, false);
  return ::testing::AssertionFailure() << call << " returned " << cudaGetErrorName(status)
                                       << "; expected cudaErrorInvalidValue (filter widths must be odd, at least 1 "
                                          "and at most the header's maximum, and taps must not be null)";
}

// Out of range, even, negative and null: rejected by every function, nothing copied, nothing
// launched, nothing written; the filters set before still in force.
TEST_F(Filters, InvalidWidthRejected) {
  const Filter filter_1d = lab08::make_filter_1d(9, 3101);
  const Filter filter_2d = lab08::make_filter_2d(5, 3102);
  const std::vector<float> values = lab08::make_values(300, 3103);
  const cudalabs::PinnedHostBuffer<float> other(lab08::make_values(static_cast<std::size_t>(17) * 17, 3104));
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_1d, "set_filter_1d", filter_1d));
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_2d, "set_filter_2d", filter_2d));

  for (int width : {0, -1, 2, 4, student::kMaxFilterWidth1d + 1, student::kMaxFilterWidth1d + 2}) {
    EXPECT_TRUE(rejected("set_filter_1d(filter_width = " + std::to_string(width) + ")",
                         student::set_filter_1d(other.data(), width, nullptr)));
  }
  for (int width : {0, -3, 2, 4, student::kMaxFilterWidth2d + 1, student::kMaxFilterWidth2d + 2}) {
    EXPECT_TRUE(rejected("set_filter_2d(filter_width = " + std::to_string(width) + ")",
                         student::set_filter_2d(other.data(), width, nullptr)));
  }
  EXPECT_TRUE(rejected("set_filter_1d(taps = nullptr, filter_width = 5)", student::set_filter_1d(nullptr, 5, nullptr)));
  EXPECT_TRUE(rejected("set_filter_2d(taps = nullptr, filter_width = 3)", student::set_filter_2d(nullptr, 3, nullptr)));

  lab08::GuardedArray in(values, 0), out(values.size(), 0);
  for (int width : {0, 2, student::kMaxFilterWidth1d + 2}) {
    EXPECT_TRUE(rejected(lab08::call_1d("convolve_1d", 300, width),
                         student::convolve_1d(in.data(), out.data(), 300, width, nullptr)));
  }
  for (int width : {0, 4, student::kMaxFilterWidth2d + 2}) {
    EXPECT_TRUE(rejected(lab08::call_2d("convolve_2d_naive", 20, 15, width),
                         student::convolve_2d_naive(in.data(), out.data(), 20, 15, width, nullptr)));
    EXPECT_TRUE(rejected(lab08::call_2d("convolve_2d_tiled", 20, 15, width),
                         student::convolve_2d_tiled(in.data(), out.data(), 20, 15, width, nullptr)));
  }
  ASSERT_TRUE(cudalabs::finished_cleanly("the calls with invalid filter widths", lab08::kFaultHint));
  const std::vector<float> written = out.values();
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (!out.is_poison(written[i])) {
      ADD_FAILURE() << "a call with an invalid filter_width wrote out[" << i << "]: it must launch nothing";
      break;
    }
  }
  EXPECT_TRUE(out.guards_intact("a call with an invalid filter_width", "out"));
  if (::testing::Test::HasFailure()) return;

  // Neither filter was touched by the rejected calls: check filter_width before copying.
  ASSERT_NO_FATAL_FAILURE(expect_1d_uses(values, filter_1d, "(the 1D filter set before the rejected calls)"));
  ASSERT_NO_FATAL_FAILURE(expect_2d_uses(values, 20, 15, filter_2d, "(the 2D filter set before the rejected calls)"));
}

// One set_filter serves many convolutions; a new one replaces it; the 1D and the 2D filter are
// separate (setting one leaves the other as it was).
TEST_F(Filters, ReusedAndReplaced) {
  const Filter a = lab08::make_filter_1d(9, 3201);
  const Filter b = lab08::make_filter_2d(5, 3202);
  const Filter c = lab08::make_filter_1d(3, 3203, FilterKind::Positive);
  const std::vector<float> first = lab08::make_values(500, 3204);
  const std::vector<float> second = lab08::make_values(500, 3205);
  const std::vector<float> image = lab08::make_values(static_cast<std::size_t>(25) * 20, 3206);
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_1d, "set_filter_1d", a));
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_2d, "set_filter_2d", b));

  ASSERT_NO_FATAL_FAILURE(expect_1d_uses(first, a, "(the 1D filter, set before the 2D one)"));
  ASSERT_NO_FATAL_FAILURE(expect_2d_uses(image, 25, 20, b, "(the 2D filter, set after the 1D one)"));
  ASSERT_NO_FATAL_FAILURE(expect_1d_uses(second, a, "(the same 1D filter again, on new data, not set again)"));
  ASSERT_TRUE(lab08::set_filter(&student::set_filter_1d, "set_filter_1d", c));
  ASSERT_NO_FATAL_FAILURE(expect_1d_uses(first, c, "(a new, narrower 1D filter that replaced the first)"));
  ASSERT_NO_FATAL_FAILURE(expect_2d_uses(image, 25, 20, b, "(the 2D filter, after the 1D filter was replaced)"));
}

}  // namespace
