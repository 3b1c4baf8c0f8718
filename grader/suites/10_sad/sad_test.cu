// Lab 10 hidden suite: empty frames, invalid arguments, 1 x 1 and other frames smaller than a
// block, sizes that are primes or not multiples of 8 (partial blocks), every search radius from 0
// to 32, frames that are exact shifts of each other (known motion vectors), patterns where many
// candidates tie (flat frames, stripes, repeated tiles: the tie rule alone decides), saturated
// 0/255 pixels, frames not 4-byte aligned, several seeds, and the largest frames. Every case
// checks that both frames come back unchanged and that nothing outside the outputs was written
// (they start poisoned, inside guard zones). Every CPU-checked case first runs the reference
// solution and checks it against the CPU, so a broken reference shows up as a grader bug rather
// than as lost points. Cases of kMadeOnTheGpu pixel comparisons and more are made and checked on
// the GPU instead: frames from the device generators, sealed by a host-held checksum while the
// student's code runs, the expected output made by the reference solution only after it has
// finished, and the reference itself spot-checked against the CPU on sampled blocks.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generated_input.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "implementations.cuh"

namespace {

using lab10::Frame;

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";
constexpr const char* kRule = "motion_search: the valid candidate of smallest SAD, ties by |dx| + |dy|, dy, dx";

// From this many pixel comparisons on (blocks x candidates x 64), a case is made and checked on
// the GPU: the CPU reference takes about a second per 10^9.
constexpr double kMadeOnTheGpu = 4e8;

double comparisons(int width, int height, int radius) {
  const double span = 2.0 * radius + 1;
  return static_cast<double>(lab10::block_count(width, height)) * span * span * 64;
}

struct Case {
  int width;
  int height;
  int radius;
  std::string what;  // how the frames were made
  std::size_t offset = 0;  // bytes into the allocation: 1 to 3 make the frames not 4-byte aligned
};

std::string describe(const Case& c) {
  return "motion_search case: " + std::to_string(c.width) + " x " + std::to_string(c.height) + ", R = " +
         std::to_string(c.radius) + ", " + c.what + ", frames start " + std::to_string(c.offset) + " and " +
         std::to_string(c.offset == 0 ? 0 : c.offset + 1) + " bytes into their allocations";
}

// The CPU case: reference against the CPU, then the student against the CPU.
void check(const Case& c, const Frame& current, const Frame& reference) {
  SCOPED_TRACE(describe(c));
  const lab10::Motion expected = lab10::cpu_motion_search(current, reference, c.width, c.height, c.radius);
  {  // The reference first; its buffers are freed before the student's exist.
    const lab10::SearchRun ref = lab10::run_search(&solution::motion_search, "solution::motion_search", current,
                                                   reference, c.width, c.height, c.radius, c.offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab10::motion_matches(expected, ref.vectors.values(), ref.sads.values(), c.width, c.height, c.radius,
                                      "reference output"))
        << kGraderBug;
  }
  const lab10::SearchRun run = lab10::run_search(&student::motion_search, "motion_search", current, reference,
                                                 c.width, c.height, c.radius, c.offset);
  lab10::expect_motion(run, "motion_search", current, reference, expected, c.width, c.height, c.radius, kRule);
}

void check_random(const Case& c, std::uint64_t seed) {
  check(c, lab10::random_frame(c.width, c.height, seed), lab10::random_frame(c.width, c.height, seed + 1));
}

// The GPU case: `make_current` and `make_reference` fill a frame on the device.
void check_on_gpu(const Case& c, const cudalabs::GeneratedInput<unsigned char>::Recipe& make_current,
                  const cudalabs::GeneratedInput<unsigned char>::Recipe& make_reference, std::uint64_t seed) {
  SCOPED_TRACE(describe(c));
  const std::size_t pixels = static_cast<std::size_t>(c.width) * c.height;
  const std::size_t blocks = lab10::block_count(c.width, c.height);
  const cudalabs::GeneratedInput<unsigned char> reference(pixels, c.offset == 0 ? 0 : c.offset + 1, make_reference);
  const cudalabs::GeneratedInput<unsigned char> current(pixels, c.offset, make_current);
  lab10::GuardedVectors vectors(blocks, 0);
  lab10::GuardedSads sads(blocks, 0);
  ASSERT_TRUE(lab10::call_and_wait(lab10::describe_call("motion_search", c.width, c.height, c.radius), false, [&] {
    return student::motion_search(current.data(), reference.data(), c.width, c.height, c.radius, vectors.data(),
                                  sads.data(), nullptr);
  }));
  // The expected output exists only from here on, made from frames whose checksums hold.
  cudalabs::DeviceBuffer<int2> expected_vectors(blocks);
  cudalabs::DeviceBuffer<unsigned> expected_sads(blocks);
  const unsigned char* trusted_current = current.trusted();
  const unsigned char* trusted_reference = reference.trusted();
  ASSERT_TRUE(lab10::call_and_wait(lab10::describe_call("solution::motion_search", c.width, c.height, c.radius), false,
                                   [&] {
                                     return solution::motion_search(trusted_current, trusted_reference, c.width,
                                                                    c.height, c.radius, expected_vectors.data(),
                                                                    expected_sads.data(), nullptr);
                                   }))
      << kGraderBug;
  const lab10::Motion expected{expected_vectors.copy_to_host(), expected_sads.copy_to_host()};

  // The reference against the CPU: the four corner blocks, the whole last column and row of blocks
  // (partial when a side is not a multiple of 8), and seeded blocks.
  {
    const Frame cur = [&] {
      Frame f(pixels);
      CUDALABS_CHECK(cudaMemcpy(f.data(), trusted_current, pixels, cudaMemcpyDeviceToHost));
      return f;
    }();
    const Frame ref = [&] {
      Frame f(pixels);
      CUDALABS_CHECK(cudaMemcpy(f.data(), trusted_reference, pixels, cudaMemcpyDeviceToHost));
      return f;
    }();
    const int bx_count = lab10::blocks_along(c.width), by_count = lab10::blocks_along(c.height);
    std::vector<std::pair<int, int>> sampled;
    for (int bx = 0; bx < bx_count; bx += std::max(1, bx_count / 64)) sampled.push_back({bx, by_count - 1});
    for (int by = 0; by < by_count; by += std::max(1, by_count / 64)) sampled.push_back({bx_count - 1, by});
    sampled.push_back({0, 0});
    sampled.push_back({bx_count - 1, by_count - 1});
    const std::vector<int> xs = cudalabs::uniform_ints(256, seed + 7, 0, bx_count - 1);
    const std::vector<int> ys = cudalabs::uniform_ints(256, seed + 8, 0, by_count - 1);
    for (std::size_t i = 0; i < xs.size(); ++i) sampled.push_back({xs[i], ys[i]});
    for (const auto& [bx, by] : sampled) {
      const lab10::BlockResult want = lab10::cpu_search_block(cur, ref, c.width, c.height, c.radius, bx, by);
      const std::size_t i = static_cast<std::size_t>(by) * bx_count + bx;
      ASSERT_TRUE(want.vector.x == expected.vectors[i].x && want.vector.y == expected.vectors[i].y &&
                  want.sad == expected.sads[i])
          << "block (" << bx << ", " << by << "): the CPU says " << lab10::vector_text(want.vector) << " SAD "
          << want.sad << ", the reference " << lab10::vector_text(expected.vectors[i]) << " SAD " << expected.sads[i]
          << ": " << kGraderBug;
    }
  }

  EXPECT_TRUE(vectors.guards_intact("motion_search", "vectors"));
  EXPECT_TRUE(sads.guards_intact("motion_search", "sads"));
  EXPECT_TRUE(lab10::motion_matches(expected, vectors.values(), sads.values(), c.width, c.height, c.radius,
                                    std::string(kRule) + " (compared with the reference solution)"));
  EXPECT_TRUE(current.unmodified("motion_search", "current"));
  EXPECT_TRUE(reference.unmodified("motion_search", "reference"));
  EXPECT_TRUE(current.guards_intact("motion_search", "current"));
  EXPECT_TRUE(reference.guards_intact("motion_search", "reference"));
}

// Random frames from `seed`, on the GPU when large.
void check_random_anywhere(const Case& c, std::uint64_t seed) {
  if (comparisons(c.width, c.height, c.radius) < kMadeOnTheGpu) return check_random(c, seed);
  const std::size_t pixels = static_cast<std::size_t>(c.width) * c.height;
  check_on_gpu(
      c, [pixels, seed](unsigned char* out) { cudalabs::fill_random_bytes(out, pixels, seed); },
      [pixels, seed](unsigned char* out) { cudalabs::fill_random_bytes(out, pixels, seed + 1); }, seed);
}

template <class Check>
void each_case(const std::vector<Case>& cases, std::uint64_t first_seed, Check&& one) {
  std::uint64_t seed = first_seed;
  for (const Case& c : cases) {
    seed += 2;
    ASSERT_NO_FATAL_FAILURE(one(c, seed));
    if (::testing::Test::HasFailure()) return;  // the first failing case says enough
  }
}

void check_all_random(const std::vector<Case>& cases, std::uint64_t first_seed) {
  each_case(cases, first_seed, [](const Case& c, std::uint64_t seed) { check_random_anywhere(c, seed); });
}

class MotionSearch : public cudalabs::GpuTest {};

// --- Sizes ---------------------------------------------------------------------------------------

TEST_F(MotionSearch, ZeroSize) {
  ASSERT_TRUE(lab10::call_and_wait("solution::motion_search(0 x 0)", true, [] {
    return solution::motion_search(nullptr, nullptr, 0, 0, 4, nullptr, nullptr, nullptr);
  })) << kGraderBug;
  lab10::expect_empty_is_a_no_op(&student::motion_search, "motion_search");
}

// Out-of-range sizes and radii, and null pointers for a non-empty frame: cudaErrorInvalidValue,
// nothing written.
TEST_F(MotionSearch, InvalidArguments) {
  const Frame pixels = lab10::random_frame(16, 16, 10101);
  lab10::GuardedFrame cur(pixels, 0), ref(pixels, 0);
  lab10::GuardedVectors vectors(4, 0);
  lab10::GuardedSads sads(4, 0);
  struct Bad {
    int width, height, radius;
    bool null_pointer;
  };
  for (const Bad& bad : {Bad{16, 16, -1, false}, Bad{16, 16, 33, false}, Bad{-8, 16, 4, false},
                         Bad{16, -1, 4, false}, Bad{8200, 8, 4, false}, Bad{8, 8193, 4, false},
                         Bad{16, 16, 4, true}}) {
    const std::string call = lab10::describe_call("motion_search", bad.width, bad.height, bad.radius) +
                             (bad.null_pointer ? " with null frames" : "");
    const cudaError_t reference = solution::motion_search(bad.null_pointer ? nullptr : cur.data(),
                                                          bad.null_pointer ? nullptr : ref.data(), bad.width,
                                                          bad.height, bad.radius, vectors.data(), sads.data(), nullptr);
    ASSERT_EQ(reference, cudaErrorInvalidValue) << kGraderBug;
    const cudaError_t status = student::motion_search(bad.null_pointer ? nullptr : cur.data(),
                                                      bad.null_pointer ? nullptr : ref.data(), bad.width, bad.height,
                                                      bad.radius, vectors.data(), sads.data(), nullptr);
    ASSERT_NE(status, cudaErrorNotYetImplemented) << call << " is still a TODO(student)";
    EXPECT_EQ(status, cudaErrorInvalidValue)
        << call << " returned " << cudaGetErrorName(status)
        << "; sad.cuh asks for cudaErrorInvalidValue (checked before anything is launched)";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << call << " launched something that failed";
    static_cast<void>(cudaGetLastError());
  }
  const std::vector<unsigned> untouched(4, 0xFFFFFFFFu);
  EXPECT_TRUE(cudalabs::bit_identical(untouched, sads.values(), "motion_search with invalid arguments", "sads"));
  EXPECT_TRUE(vectors.guards_intact("motion_search", "vectors"));
}

// Frames no larger than a block or a few: every block partial or every candidate clipped.
TEST_F(MotionSearch, TinyFrames) {
  check_all_random({{1, 1, 0, "random pixels"},
                    {1, 1, 32, "random pixels"},
                    {2, 1, 3, "random pixels"},
                    {1, 9, 5, "random pixels"},
                    {7, 7, 8, "random pixels"},
                    {8, 8, 32, "random pixels"},
                    {9, 9, 1, "random pixels"},
                    {3, 17, 16, "random pixels"},
                    {17, 3, 16, "random pixels"},
                    {1, 1000, 4, "random pixels"},
                    {1000, 1, 4, "random pixels"}},
                   10200);
}

// Primes and sides that are no multiple of 8 (nor of 16, 32): the last column and row of blocks
// are partial, of every width from 1 to 7.
TEST_F(MotionSearch, OddSizes) {
  check_all_random({{67, 41, 8, "random pixels"},
                    {101, 13, 5, "random pixels"},
                    {13, 101, 5, "random pixels"},
                    {127, 131, 16, "random pixels"},
                    {251, 7, 3, "random pixels"},
                    {58, 62, 6, "random pixels"},
                    {100, 99, 10, "random pixels"},
                    {36, 52, 2, "random pixels"}},
                   10300);
}

// Every radius from 0 to kMaxSearchRadius on a 61 x 45 frame (both sides partial).
TEST_F(MotionSearch, EveryRadius) {
  std::vector<Case> cases;
  for (int r = 0; r <= student::kMaxSearchRadius; ++r) cases.push_back({61, 45, r, "random pixels"});
  check_all_random(cases, 10400);
}

// Frames 1 to 3 bytes past a 4-byte boundary (word loads from global memory would be misaligned).
TEST_F(MotionSearch, Misaligned) {
  check_all_random({{45, 37, 7, "random pixels", 1}, {64, 64, 16, "random pixels", 2}, {33, 30, 5, "random pixels", 3}},
                   10500);
}

// Several seeds at a medium size (320 x 240, R = 16) and one at 640 x 360 (R = 16).
TEST_F(MotionSearch, Seeds) {
  check_all_random({{320, 240, 16, "random pixels"},
                    {320, 240, 16, "random pixels"},
                    {320, 240, 16, "random pixels"},
                    {640, 360, 16, "random pixels"}},
                   10600);
}

// --- Known motion --------------------------------------------------------------------------------

// current(x, y) = reference(x + sx, y + sy): every block whose candidate (sx, sy) is valid has
// motion vector (sx, sy) with SAD 0, checked here beyond the CPU's word. Shifts up to the radius
// and past it (then no block finds it).
TEST_F(MotionSearch, ShiftedFrames) {
  struct Shift {
    int sx, sy, radius;
  };
  std::uint64_t seed = 10700;
  for (const Shift& s : {Shift{3, -2, 8}, Shift{-16, 16, 16}, Shift{16, -16, 16}, Shift{0, 0, 4}, Shift{-1, 0, 1},
                         Shift{7, 5, 32}, Shift{20, 0, 16}}) {
    seed += 2;
    const int width = 203, height = 117;
    const Frame reference = lab10::random_frame(width, height, seed);
    const Frame current = lab10::shifted_copy(reference, width, height, s.sx, s.sy, seed + 1);
    const std::string what = "current(x, y) = reference(x + " + std::to_string(s.sx) + ", y + " +
                             std::to_string(s.sy) + ")";
    // The known answer, for the blocks where the shift is a valid candidate within R.
    if (std::abs(s.sx) <= s.radius && std::abs(s.sy) <= s.radius) {
      const lab10::Motion cpu = lab10::cpu_motion_search(current, reference, width, height, s.radius);
      for (int by = 0; by < lab10::blocks_along(height); ++by) {
        for (int bx = 0; bx < lab10::blocks_along(width); ++bx) {
          const int x0 = bx * 8, y0 = by * 8, bw = std::min(8, width - x0), bh = std::min(8, height - y0);
          if (x0 + s.sx < 0 || x0 + bw + s.sx > width || y0 + s.sy < 0 || y0 + bh + s.sy > height) continue;
          const std::size_t i = static_cast<std::size_t>(by) * lab10::blocks_along(width) + bx;
          ASSERT_TRUE(cpu.vectors[i].x == s.sx && cpu.vectors[i].y == s.sy && cpu.sads[i] == 0)
              << "the CPU reference misses the known shift at block (" << bx << ", " << by << "): a grader bug";
        }
      }
    }
    ASSERT_NO_FATAL_FAILURE(check({width, height, s.radius, what}, current, reference));
    if (HasFailure()) return;
  }
}

// A 4099 x 2053 frame (both prime) moved by (-9, 12), R = 16, made and checked on the GPU.
TEST_F(MotionSearch, ShiftedLarge) {
  const int width = 4099, height = 2053;
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  const std::uint64_t seed = 10801;
  check_on_gpu(
      {width, height, 16, "current(x, y) = reference(x - 9, y + 12)"},
      [=](unsigned char* out) {
        cudalabs::DeviceBuffer<unsigned char> source(pixels);
        cudalabs::fill_random_bytes(source.data(), pixels, seed);
        lab10::fill_shifted_frame(out, source.data(), width, height, -9, 12, seed + 1);
        CUDALABS_CHECK(cudaDeviceSynchronize());
      },
      [=](unsigned char* out) { cudalabs::fill_random_bytes(out, pixels, seed); }, seed);
}

// --- Ties ----------------------------------------------------------------------------------------

// Many candidates with the smallest SAD; the tie rule alone decides (the CPU applies it).
TEST_F(MotionSearch, TieRule) {
  const int w = 77, h = 53;
  struct TieCase {
    Frame current, reference;
    int radius;
    std::string what;
  };
  std::vector<TieCase> cases;
  for (const int v : {0, 128, 255}) {
    const auto value = static_cast<unsigned char>(v);
    cases.push_back({lab10::flat_frame(w, h, value), lab10::flat_frame(w, h, value), 9,
                     "both frames flat " + std::to_string(v) + ": every candidate SAD 0, expect (0, 0)"});
  }
  // Lines x + y = c: candidates with dx + dy = a tie at SAD 0.
  for (const int a : {3, -5, 0, 12}) {
    cases.push_back({lab10::diagonal_frame(w, h, 1, a, 10901 + a), lab10::diagonal_frame(w, h, 1, 0, 10901 + a), 8,
                     "stripes along x + y = c moved by " + std::to_string(a)});
  }
  // Lines x - y = c: candidates with dx - dy = a tie.
  for (const int a : {4, -3}) {
    cases.push_back({lab10::diagonal_frame(w, h, -1, a, 10911 + a), lab10::diagonal_frame(w, h, -1, 0, 10911 + a), 8,
                     "stripes along x - y = c moved by " + std::to_string(a)});
  }
  // A repeated 4 x 6 tile moved by (2, 3): (+-2, +-3) tie at |dx| + |dy| = 5, expect (-2, -3);
  // a 4 x 5 tile moved by (2, 0): (2, 0) and (-2, 0) tie, expect (-2, 0).
  cases.push_back({lab10::periodic_frame(w, h, 4, 6, 2, 3, 10921), lab10::periodic_frame(w, h, 4, 6, 0, 0, 10921), 7,
                   "a 4 x 6 tile repeated, moved by (2, 3)"});
  cases.push_back({lab10::periodic_frame(w, h, 4, 5, 2, 0, 10922), lab10::periodic_frame(w, h, 4, 5, 0, 0, 10922), 7,
                   "a 4 x 5 tile repeated, moved by (2, 0)"});
  for (const TieCase& t : cases) {
    ASSERT_NO_FATAL_FAILURE(check({w, h, t.radius, t.what}, t.current, t.reference));
    if (HasFailure()) return;
  }
}

// --- Values --------------------------------------------------------------------------------------

// Pixels 0 or 255 only: differences of 255, block SADs up to 16320 (8-bit or signed-byte
// arithmetic overflows); white against black, where every candidate ties at 255 per pixel.
TEST_F(MotionSearch, SaturatedValues) {
  ASSERT_NO_FATAL_FAILURE(check({99, 71, 12, "pixels 0 or 255 at random"}, lab10::saturated_frame(99, 71, 11001),
                                lab10::saturated_frame(99, 71, 11002)));
  ASSERT_NO_FATAL_FAILURE(check({64, 40, 16, "current all 255, reference 0 or 255 at random"},
                                lab10::flat_frame(64, 40, 255), lab10::saturated_frame(64, 40, 11003)));
  ASSERT_NO_FATAL_FAILURE(check({45, 29, 6, "current all 255, reference all 0: every candidate ties, expect (0, 0)"},
                                lab10::flat_frame(45, 29, 255), lab10::flat_frame(45, 29, 0)));
  ASSERT_NO_FATAL_FAILURE(check({45, 29, 6, "current all 0, reference all 255"}, lab10::flat_frame(45, 29, 0),
                                lab10::flat_frame(45, 29, 255)));
}

// --- The largest frames --------------------------------------------------------------------------

// kMaxFrameSide square with a small radius, and 8191 x 8183 (both sides partial) with the
// largest radius, both made and checked on the GPU.
TEST_F(MotionSearch, Largest) {
  check_all_random({{student::kMaxFrameSide, student::kMaxFrameSide, 4, "random pixels"},
                    {student::kMaxFrameSide - 1, student::kMaxFrameSide - 9, student::kMaxSearchRadius,
                     "random pixels"}},
                   11100);
}

}  // namespace
