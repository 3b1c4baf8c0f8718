// Lab 03 hidden suite, the same cases for matmul and matmul_tiled: empty and degenerate shapes,
// primes, sizes that are not multiples of any tile (ragged in one dimension at a time), several
// seeds, misaligned pointers, awkward values (identity, cancellation, mixed magnitudes, exact
// integers), inputs left intact, and 4096^3 checked on sampled elements. Every case runs the
// reference solution first and checks it against the CPU, so a broken reference shows up as a
// grader bug rather than as lost points. The 4096^3 case is made and checked on the GPU: inputs
// from the device generators, sealed by host-held checksums while the student's code runs, the
// sampled elements computed in double on the device from the verified inputs afterwards.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"
#include "lab03_test_support.cuh"

namespace {

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

// One of the two lab functions, in both namespaces.
struct Api {
  lab03::MatmulFn student;
  lab03::MatmulFn solution;
  const char* name;
};

const Api kMatmul{&student::matmul, &solution::matmul, "matmul"};
const Api kMatmulTiled{&student::matmul_tiled, &solution::matmul_tiled, "matmul_tiled"};

struct Case {
  lab03::Shape shape;
  std::uint64_t seed = 0;
  lab03::Offsets offsets = {};
  bool check_inputs = false;
};

std::string describe(const Api& api, const Case& c, const char* values) {
  return std::string(api.name) + " case: " + c.shape.to_string() + ", seed " + std::to_string(c.seed) + ", " + values +
         ", a/b/c start " + std::to_string(c.offsets.a) + "/" + std::to_string(c.offsets.b) + "/" +
         std::to_string(c.offsets.c) + " floats into their allocations";
}

// Reference first (its buffers are freed before the student's are allocated), then the student.
void check(const Api& api, const Case& c, const lab03::Matrices& in, const char* values) {
  SCOPED_TRACE(describe(api, c, values));
  const lab03::Reference expected = lab03::cpu_matmul(c.shape, in.a, in.b);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("matmul");
  {
    lab03::Run ref = lab03::run(api.solution, "solution", c.shape, in, c.offsets);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab03::matches(c.shape, expected, ref.c.values(), tolerance, "reference C")) << kGraderBug;
  }
  lab03::Run run = lab03::run(api.student, api.name, c.shape, in, c.offsets);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.c.guards_intact(api.name, "c"));
  EXPECT_TRUE(lab03::matches(c.shape, expected, run.c.values(), tolerance, "C = A * B"));
  if (c.check_inputs) {
    EXPECT_TRUE(lab03::bit_identical(in.a, run.a.values(), api.name, "a"));
    EXPECT_TRUE(lab03::bit_identical(in.b, run.b.values(), api.name, "b"));
    EXPECT_TRUE(run.a.guards_intact(api.name, "a"));
    EXPECT_TRUE(run.b.guards_intact(api.name, "b"));
  }
}

void check_random(const Api& api, const Case& c) {
  check(api, c, lab03::random_matrices(c.shape, c.seed), "values uniform in [-1, 1)");
}

// --- the test bodies, shared by both functions -----------------------------------------------

void zero_sizes(const Api& api) {
  const lab03::Shape empty[] = {{0, 0, 0}, {0, 7, 5}, {6, 0, 5}, {0, 0, 4}, {0, 3, 0}};
  for (const lab03::Shape& s : empty) {
    ASSERT_TRUE(lab03::call_and_wait("solution", s, [&] { return api.solution(nullptr, nullptr, nullptr, s.m, s.n, s.k, nullptr); }))
        << kGraderBug;
    ASSERT_TRUE(lab03::call_and_wait(api.name, s, [&] { return api.student(nullptr, nullptr, nullptr, s.m, s.n, s.k, nullptr); }));
  }
  // Valid pointers and m == 0: a 0-element C gets nothing written around it, a and b stay intact.
  {
    const lab03::Shape s{0, 9, 4};
    const lab03::Matrices in{{}, cudalabs::uniform_floats(s.b_size(), 401)};
    lab03::Run run = lab03::run(api.student, api.name, s, in, {1, 2, 3});
    ASSERT_TRUE(run.status);
    EXPECT_TRUE(run.c.guards_intact(api.name, "c"));
    EXPECT_TRUE(lab03::bit_identical(in.b, run.b.values(), api.name, "b"));
  }
  // k == 0: C is all zeros; a and b are null. Sizes that fill no tile, and ones that fill several.
  for (const lab03::Shape s : {lab03::Shape{5, 9, 0}, lab03::Shape{130, 259, 0}}) {
    SCOPED_TRACE(std::string(api.name) + " with " + s.to_string());
    lab03::GuardedArray dc(s.c_size(), 1);
    ASSERT_TRUE(lab03::call_and_wait(api.name, s, [&] { return api.student(nullptr, nullptr, dc.data(), s.m, s.n, s.k, nullptr); }));
    EXPECT_TRUE(dc.guards_intact(api.name, "c"));
    EXPECT_TRUE(lab03::matches(s, lab03::cpu_matmul(s, {}, {}), dc.values(), cudalabs::lab_tolerance("matmul"),
                               "C = A * B with k = 0 (all zeros)"));
  }
}

void vector_shapes(const Api& api) {
  const Case cases[] = {
      {{1, 1, 1}, 411},     {{1, 1, 1000}, 412},  // one element; a dot product
      {{1, 300, 77}, 413},  {{300, 1, 77}, 414},  // row vector * matrix; matrix * column vector
      {{129, 131, 1}, 415},                       // k = 1: an outer product
      {{1, 1, 4097}, 416},  {{2, 3, 2}, 417},
  };
  for (const Case& c : cases) ASSERT_NO_FATAL_FAILURE(check_random(api, c));
}

void prime_sizes(const Api& api) {
  const Case cases[] = {{{127, 131, 137}, 421}, {{251, 241, 257}, 422}, {{509, 3, 521}, 423}, {{7, 1021, 13}, 424}};
  for (const Case& c : cases) ASSERT_NO_FATAL_FAILURE(check_random(api, c));
}

// Multiples of 128 except in one dimension at a time, then in all: a partial tile in m, in n or
// in k alone. k and n one past a multiple of 4 or 2 defeat float4 rows.
void not_multiples_of_tile(const Api& api) {
  const Case cases[] = {
      {{129, 128, 128}, 431}, {{128, 129, 128}, 432}, {{128, 128, 129}, 433}, {{128, 130, 130}, 434},
      {{132, 132, 132}, 435}, {{17, 33, 65}, 436},    {{255, 257, 9}, 437},   {{100, 100, 1027}, 438},
      {{31, 200, 48}, 439},
  };
  for (const Case& c : cases) ASSERT_NO_FATAL_FAILURE(check_random(api, c));
}

void several_seeds(const Api& api) {
  for (std::uint64_t seed = 441; seed <= 444; ++seed) ASSERT_NO_FATAL_FAILURE(check_random(api, {{200, 152, 300}, seed}));
  // Tall, wide and deep.
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{2000, 20, 30}, 445}));
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{20, 2000, 30}, 446}));
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{20, 30, 5000}, 447}));
}

// Sizes whose rows would all be 16-byte aligned, with arrays that start off alignment.
void misaligned_pointers(const Api& api) {
  const lab03::Offsets offsets[] = {{1, 1, 1}, {0, 2, 0}, {0, 0, 3}, {3, 1, 2}, {4, 4, 4}};
  std::uint64_t seed = 451;
  for (const lab03::Offsets& o : offsets) {
    ASSERT_NO_FATAL_FAILURE(check_random(api, {{96, 160, 64}, seed++, o}));
  }
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{130, 132, 36}, seed++, {2, 0, 1}}));
}

void awkward_values(const Api& api) {
  {  // B = identity: C must be A (any order of summation gives it exactly).
    const Case c{{150, 133, 133}, 461};
    lab03::Matrices in{cudalabs::uniform_floats(c.shape.a_size(), c.seed), std::vector<float>(c.shape.b_size(), 0.0f)};
    for (int i = 0; i < c.shape.k; ++i) in.b[static_cast<std::size_t>(i) * c.shape.n + i] = 1.0f;
    ASSERT_NO_FATAL_FAILURE(check(api, c, in, "B = identity"));
  }
  {  // Signs and powers of two from 2^-20 to 2^20: large terms swamp small ones in any order.
    const Case c{{97, 101, 203}, 462};
    auto spread = [](std::size_t count, std::uint64_t seed) {
      std::vector<float> v = cudalabs::uniform_floats(count, seed);
      const std::vector<float> exponents = cudalabs::uniform_floats(count, seed + 100, -20.0f, 20.0f);
      for (std::size_t i = 0; i < count; ++i) v[i] = std::ldexp(v[i], static_cast<int>(exponents[i]));
      return v;
    };
    ASSERT_NO_FATAL_FAILURE(check(api, c, {spread(c.shape.a_size(), c.seed), spread(c.shape.b_size(), c.seed + 1)},
                                  "magnitudes from 2^-20 to 2^20"));
  }
  {  // A = [X X], B = [Y; -Y]: the exact product is 0 everywhere while every term is not.
    const Case c{{65, 67, 140}, 463};
    const int half = c.shape.k / 2;
    const lab03::Matrices xy = lab03::random_matrices({c.shape.m, c.shape.n, half}, c.seed);
    lab03::Matrices in{std::vector<float>(c.shape.a_size()), std::vector<float>(c.shape.b_size())};
    for (int i = 0; i < c.shape.m; ++i) {
      for (int p = 0; p < c.shape.k; ++p) {
        in.a[static_cast<std::size_t>(i) * c.shape.k + p] = xy.a[static_cast<std::size_t>(i) * half + p % half];
      }
    }
    for (int p = 0; p < c.shape.k; ++p) {
      for (int j = 0; j < c.shape.n; ++j) {
        const float y = xy.b[static_cast<std::size_t>(p % half) * c.shape.n + j];
        in.b[static_cast<std::size_t>(p) * c.shape.n + j] = p < half ? y : -y;
      }
    }
    ASSERT_NO_FATAL_FAILURE(check(api, c, in, "exact cancellation to 0"));
  }
  {  // Small integers: every partial sum is exact in float, so is the result.
    const Case c{{130, 131, 257}, 464};
    lab03::Matrices in;
    for (auto [out, seed] : {std::pair{&in.a, c.seed}, std::pair{&in.b, c.seed + 1}}) {
      const std::size_t count = out == &in.a ? c.shape.a_size() : c.shape.b_size();
      for (int v : cudalabs::uniform_ints(count, seed, -8, 8)) out->push_back(static_cast<float>(v));
    }
    ASSERT_NO_FATAL_FAILURE(check(api, c, in, "integers in [-8, 8]"));
  }
  {  // Large and tiny magnitudes (far from overflow and from subnormals).
    const lab03::Shape s{70, 45, 100};
    ASSERT_NO_FATAL_FAILURE(check(api, {s, 465}, lab03::random_matrices(s, 465, -1e15f, 1e15f), "values up to 1e15"));
    ASSERT_NO_FATAL_FAILURE(check(api, {s, 466}, lab03::random_matrices(s, 466, -1e-15f, 1e-15f), "values up to 1e-15"));
  }
}

void inputs_unmodified(const Api& api) {
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{131, 67, 129}, 471, {}, true}));
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{64, 64, 64}, 472, {1, 2, 3}, true}));
  ASSERT_NO_FATAL_FAILURE(check_random(api, {{256, 256, 256}, 473, {}, true}));
}

// lab03::cpu_matmul_samples on the device, one thread per sample, the same sums in the same order
// (each product of two floats is exact in double, so fusing it into the add changes nothing).
__global__ void sample_kernel(const float* a, const float* b, int n, int k, lab03::Sample* samples, std::size_t count,
                              double scale) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  lab03::Sample& e = samples[i];
  double value = 0, magnitude = 0;
  for (std::size_t p = 0; p < static_cast<std::size_t>(k); ++p) {
    const double product = static_cast<double>(a[e.row * k + p]) * b[p * n + e.col];
    value += product;
    magnitude += fabs(product);
  }
  e.value = value;
  e.error_scale = magnitude * scale;
}

__global__ void gather_kernel(const float* c, int n, const lab03::Sample* samples, std::size_t count, float* out) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = c[samples[i].row * n + samples[i].col];
}

unsigned int blocks_for(std::size_t count) { return static_cast<unsigned int>((count + 255) / 256); }

std::vector<lab03::Sample> gpu_matmul_samples(const lab03::Shape& s, const float* a, const float* b,
                                              std::vector<lab03::Sample> positions) {
  cudalabs::DeviceBuffer<lab03::Sample> samples(positions);
  sample_kernel<<<blocks_for(positions.size()), 256>>>(a, b, s.n, s.k, samples.data(), positions.size(),
                                                       static_cast<double>(s.k) * lab03::kUnitRoundoff);
  CUDALABS_CHECK_LAUNCH();
  return samples.copy_to_host();
}

// lab03::matches_samples for a device C: the sampled elements gathered and the poison counted on
// the device; the same verdict and message.
::testing::AssertionResult matches_samples_on_device(const lab03::Shape& s, const std::vector<lab03::Sample>& samples,
                                                     const float* c, cudalabs::Tolerance tolerance, const std::string& what) {
  const cudalabs::DeviceBuffer<lab03::Sample> where(samples);
  cudalabs::DeviceBuffer<float> sampled(samples.size());
  gather_kernel<<<blocks_for(samples.size()), 256>>>(c, s.n, where.data(), samples.size(), sampled.data());
  CUDALABS_CHECK_LAUNCH();
  // Against all-zero ints, compare_ints counts as "never written" exactly the elements whose bytes
  // are all 0xFF (the poison), and finds the first.
  cudalabs::DeviceBuffer<int> zeros(s.c_size());
  zeros.fill_bytes(0);
  const cudalabs::CompareReport poison =
      cudalabs::compare_ints_on_device(zeros.data(), reinterpret_cast<const int*>(c), s.c_size(), 0);
  const lab03::Unwritten unwritten{poison.never_written, poison.first_never_written};
  return lab03::sampled_elements_match(s, samples, sampled.copy_to_host(), unwritten, tolerance, what);
}

// The timed size, 4096^3: too slow for a full reference, so ~4000 elements (corners, last row and
// column, random) are checked in double, and every element for having been written.
void largest(const Api& api) {
  const lab03::Shape s{4096, 4096, 4096};
  const std::uint64_t seed = 481;
  SCOPED_TRACE(std::string(api.name) + ": " + s.to_string() + ", seed " + std::to_string(seed));
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("matmul");
  const cudalabs::GeneratedInput<float> a(s.a_size(), 0, [&](float* out) { cudalabs::fill_uniform_floats(out, s.a_size(), seed); });
  const cudalabs::GeneratedInput<float> b(s.b_size(), 0,
                                          [&](float* out) { cudalabs::fill_uniform_floats(out, s.b_size(), seed + 1); });
  lab03::GuardedArray c(s.c_size(), 0);
  ASSERT_TRUE(lab03::call_and_wait(api.name, s, [&] { return api.student(a.data(), b.data(), c.data(), s.m, s.n, s.k, nullptr); }));
  // The samples exist only from here on, computed from inputs whose checksums hold.
  const std::vector<lab03::Sample> samples =
      gpu_matmul_samples(s, a.trusted(), b.trusted(), lab03::sample_positions(s, 4000, seed));
  lab03::GuardedArray reference(s.c_size(), 0);
  ASSERT_TRUE(lab03::call_and_wait("solution", s, [&] {
    return api.solution(a.trusted(), b.trusted(), reference.data(), s.m, s.n, s.k, nullptr);
  })) << kGraderBug;
  ASSERT_TRUE(matches_samples_on_device(s, samples, reference.data(), tolerance, "reference C")) << kGraderBug;
  EXPECT_TRUE(c.guards_intact(api.name, "c"));
  EXPECT_TRUE(matches_samples_on_device(s, samples, c.data(), tolerance, "C = A * B"));
}

class Matmul : public cudalabs::GpuTest {};
class MatmulTiled : public cudalabs::GpuTest {};

TEST_F(Matmul, ZeroSizes) { zero_sizes(kMatmul); }
TEST_F(Matmul, VectorShapes) { vector_shapes(kMatmul); }
TEST_F(Matmul, PrimeSizes) { prime_sizes(kMatmul); }
TEST_F(Matmul, NotMultiplesOfTile) { not_multiples_of_tile(kMatmul); }
TEST_F(Matmul, SeveralSeeds) { several_seeds(kMatmul); }
TEST_F(Matmul, MisalignedPointers) { misaligned_pointers(kMatmul); }
TEST_F(Matmul, AwkwardValues) { awkward_values(kMatmul); }
TEST_F(Matmul, InputsUnmodified) { inputs_unmodified(kMatmul); }
TEST_F(Matmul, Largest4096) { largest(kMatmul); }

TEST_F(MatmulTiled, ZeroSizes) { zero_sizes(kMatmulTiled); }
TEST_F(MatmulTiled, VectorShapes) { vector_shapes(kMatmulTiled); }
TEST_F(MatmulTiled, PrimeSizes) { prime_sizes(kMatmulTiled); }
TEST_F(MatmulTiled, NotMultiplesOfTile) { not_multiples_of_tile(kMatmulTiled); }
TEST_F(MatmulTiled, SeveralSeeds) { several_seeds(kMatmulTiled); }
TEST_F(MatmulTiled, MisalignedPointers) { misaligned_pointers(kMatmulTiled); }
TEST_F(MatmulTiled, AwkwardValues) { awkward_values(kMatmulTiled); }
TEST_F(MatmulTiled, InputsUnmodified) { inputs_unmodified(kMatmulTiled); }
TEST_F(MatmulTiled, Largest4096) { largest(kMatmulTiled); }

}  // namespace
