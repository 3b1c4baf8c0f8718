#pragma once
// Helpers shared by lab 10's public self-check and the grader's hidden and timed suites: seeded
// frames (random, flat, shifted copies, patterns where many candidates tie), the CPU reference,
// a call on guarded device arrays, and a comparison whose message lists the wrong blocks and says
// what their kind of error usually means.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab10 {

// The signature of motion_search, the same in every namespace.
using MotionSearchFn = cudaError_t (*)(const unsigned char*, const unsigned char*, int, int, int, int2*,
                                       unsigned int*, cudaStream_t);

inline constexpr int kSide = 8;

inline int blocks_along(int pixels) { return (pixels + kSide - 1) / kSide; }
inline std::size_t block_count(int width, int height) {
  return static_cast<std::size_t>(blocks_along(width)) * static_cast<std::size_t>(blocks_along(height));
}

// --- Frames ------------------------------------------------------------------------------------

using Frame = std::vector<unsigned char>;

// Uniform random pixels (cudalabs::fill_random_bytes makes the same bytes on the device).
inline Frame random_frame(int width, int height, std::uint64_t seed) {
  return cudalabs::random_bytes(static_cast<std::size_t>(width) * height, seed);
}

inline Frame flat_frame(int width, int height, unsigned char value) {
  return Frame(static_cast<std::size_t>(width) * height, value);
}

// Each pixel 0 or 255 at random: the largest differences (255 per pixel, 16320 per block).
inline Frame saturated_frame(int width, int height, std::uint64_t seed) {
  Frame frame = random_frame(width, height, seed);
  for (unsigned char& p : frame) p = (p & 1) ? 255 : 0;
  return frame;
}

// current(x, y) = reference(x + sx, y + sy) wherever that pixel exists, random elsewhere: every
// block whose candidate (sx, sy) is valid has the motion vector (sx, sy) with SAD 0 (random
// pixels make any other SAD-0 candidate vanishingly unlikely).
inline Frame shifted_copy(const Frame& reference, int width, int height, int sx, int sy, std::uint64_t seed) {
  Frame current = random_frame(width, height, seed);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const int rx = x + sx, ry = y + sy;
      if (rx >= 0 && rx < width && ry >= 0 && ry < height) {
        current[static_cast<std::size_t>(y) * width + x] = reference[static_cast<std::size_t>(ry) * width + rx];
      }
    }
  }
  return current;
}

// A frame constant along every line x + y = c (with `sign` = +1) or x - y = c (sign = -1), the
// constants random: pixel (x, y) = g(x + sign * y). Its copy shifted by (a, 0) matches every
// candidate on the line dx + sign * dy = a with SAD 0, so the tie rule alone decides among them.
inline Frame diagonal_frame(int width, int height, int sign, int shift, std::uint64_t seed) {
  const int span = width + height + 2 * std::abs(shift) + 2;
  const Frame g = cudalabs::random_bytes(static_cast<std::size_t>(span) * 2, seed);
  const int base = height + std::abs(shift) + 1;  // keeps the index non-negative
  Frame frame(static_cast<std::size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      frame[static_cast<std::size_t>(y) * width + x] = g[static_cast<std::size_t>(x + sign * y + shift + base)];
    }
  }
  return frame;
}

// A random tile of period_x x period_y pixels repeated over the frame: a copy shifted by (a, b)
// matches every candidate (a + i period_x, b + j period_y) with SAD 0.
inline Frame periodic_frame(int width, int height, int period_x, int period_y, int ox, int oy, std::uint64_t seed) {
  const Frame tile = cudalabs::random_bytes(static_cast<std::size_t>(period_x) * period_y, seed);
  Frame frame(static_cast<std::size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      frame[static_cast<std::size_t>(y) * width + x] =
          tile[static_cast<std::size_t>((y + oy) % period_y) * period_x + (x + ox) % period_x];
    }
  }
  return frame;
}

// --- The CPU reference: the header's definitions, word for word ---------------------------------

struct Motion {
  std::vector<int2> vectors;
  std::vector<unsigned> sads;
};

struct BlockResult {
  int2 vector;
  unsigned sad;
};

// Block (bx, by) alone: every valid candidate, the smallest by the contract's order.
inline BlockResult cpu_search_block(const Frame& current, const Frame& reference, int width, int height, int radius,
                                    int bx, int by) {
  const int x0 = bx * kSide, y0 = by * kSide;
  const int bw = std::min(kSide, width - x0), bh = std::min(kSide, height - y0);
  // The tie rule: smaller SAD, then smaller |dx| + |dy|, then smaller dy, then smaller dx.
  const auto rank = [](unsigned s, int dx, int dy) { return std::make_tuple(s, std::abs(dx) + std::abs(dy), dy, dx); };
  bool found = false;
  BlockResult best{int2{0, 0}, 0};
  for (int dy = -radius; dy <= radius; ++dy) {
    if (y0 + dy < 0 || y0 + bh + dy > height) continue;  // the block would leave the reference frame
    for (int dx = -radius; dx <= radius; ++dx) {
      if (x0 + dx < 0 || x0 + bw + dx > width) continue;
      unsigned sad = 0;
      for (int y = y0; y < y0 + bh; ++y) {
        const unsigned char* c = current.data() + static_cast<std::size_t>(y) * width;
        const unsigned char* r = reference.data() + static_cast<std::size_t>(y + dy) * width + dx;
        for (int x = x0; x < x0 + bw; ++x) sad += static_cast<unsigned>(std::abs(int{c[x]} - int{r[x]}));
      }
      if (!found || rank(sad, dx, dy) < rank(best.sad, best.vector.x, best.vector.y)) {
        found = true;
        best = BlockResult{int2{dx, dy}, sad};
      }
    }
  }
  return best;
}

inline Motion cpu_motion_search(const Frame& current, const Frame& reference, int width, int height, int radius) {
  const int bx_count = blocks_along(width), by_count = blocks_along(height);
  Motion out{std::vector<int2>(block_count(width, height)), std::vector<unsigned>(block_count(width, height))};
  for (int by = 0; by < by_count; ++by) {
    for (int bx = 0; bx < bx_count; ++bx) {
      const BlockResult r = cpu_search_block(current, reference, width, height, radius, bx, by);
      const std::size_t i = static_cast<std::size_t>(by) * bx_count + bx;
      out.vectors[i] = r.vector;
      out.sads[i] = r.sad;
    }
  }
  return out;
}

// --- Calls -------------------------------------------------------------------------------------

inline constexpr const char* kFaultHint =
    "an out-of-bounds access? a partial block at the right or bottom edge has fewer than 8 columns or rows, "
    "candidates near the border must be skipped rather than read outside the frame, and the shared window must "
    "be large enough for 2R + 8 pixels per side";

inline std::string describe_call(const char* function, int width, int height, int radius) {
  return std::string(function) + "(width = " + std::to_string(width) + ", height = " + std::to_string(height) +
         ", search_radius = " + std::to_string(radius) + ")";
}

template <class Launch>
::testing::AssertionResult call_and_wait(const std::string& call, bool empty_input, Launch&& launch) {
  return cudalabs::call_and_wait(call, empty_input, std::forward<Launch>(launch), kFaultHint);
}

using GuardedFrame = cudalabs::GuardedArray<unsigned char>;
using GuardedVectors = cudalabs::GuardedArray<int2>;
using GuardedSads = cudalabs::GuardedArray<unsigned>;

// One call on fresh guarded device arrays: the frames start `offset` bytes into their
// allocations, the outputs are poisoned.
struct SearchRun {
  GuardedFrame current;
  GuardedFrame reference;
  GuardedVectors vectors;
  GuardedSads sads;
  ::testing::AssertionResult status;
};

inline SearchRun run_search(MotionSearchFn search, const char* name, const Frame& current, const Frame& reference,
                            int width, int height, int radius, std::size_t offset = 0) {
  GuardedFrame cur(current, offset), ref(reference, offset == 0 ? 0 : offset + 1);
  const std::size_t blocks = block_count(width, height);
  GuardedVectors vectors(width == 0 || height == 0 ? 0 : blocks, 0);
  GuardedSads sads(width == 0 || height == 0 ? 0 : blocks, 0);
  ::testing::AssertionResult status =
      call_and_wait(describe_call(name, width, height, radius), width == 0 || height == 0, [&] {
        return search(cur.data(), ref.data(), width, height, radius, vectors.data(), sads.data(), nullptr);
      });
  return SearchRun{std::move(cur), std::move(ref), std::move(vectors), std::move(sads), std::move(status)};
}

// --- Checks ------------------------------------------------------------------------------------

inline std::string vector_text(int2 v) { return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ")"; }

// Every block's vector and SAD exactly; a failure lists the first wrong blocks as (bx, by) with
// what was expected and what came back, and a hint from what they have in common.
inline ::testing::AssertionResult motion_matches(const Motion& expected, const std::vector<int2>& vectors,
                                                 const std::vector<unsigned>& sads, int width, int height,
                                                 int radius, const std::string& what) {
  const int bx_count = blocks_along(width);
  const int by_count = blocks_along(height);
  std::size_t wrong = 0, same_sad = 0, smaller_sad = 0, unwritten = 0, at_edge = 0;
  std::string listed;
  int shown = 0;
  for (std::size_t i = 0; i < expected.sads.size(); ++i) {
    const int2 e = expected.vectors[i], a = vectors[i];
    if (e.x == a.x && e.y == a.y && expected.sads[i] == sads[i]) continue;
    ++wrong;
    const int bx = static_cast<int>(i % static_cast<std::size_t>(bx_count));
    const int by = static_cast<int>(i / static_cast<std::size_t>(bx_count));
    if (sads[i] == 0xFFFFFFFFu) ++unwritten;
    if (sads[i] == expected.sads[i]) ++same_sad;
    if (sads[i] < expected.sads[i]) ++smaller_sad;
    const bool edge = (bx + 1) * kSide > width || (by + 1) * kSide > height || bx * kSide < radius ||
                      by * kSide < radius || (bx + 1) * kSide + radius > width || (by + 1) * kSide + radius > height;
    if (edge) ++at_edge;
    if (shown < 8) {
      ++shown;
      listed += "\n  block (" + std::to_string(bx) + ", " + std::to_string(by) + "): expected " + vector_text(e) +
                " SAD " + std::to_string(expected.sads[i]) + ", got " + vector_text(a) + " SAD " +
                std::to_string(sads[i]) + (sads[i] == 0xFFFFFFFFu ? " (never written)" : "");
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << what << ": " << wrong << " of " << expected.sads.size() << " blocks (" << bx_count << " x " << by_count
          << ") are wrong; the first:" << listed;
  if (same_sad == wrong) {
    failure << "\n  every wrong block has the right (smallest) SAD but another vector: the tie rule decides "
               "(smallest |dx| + |dy|, then smallest dy, then smallest dx; see sad.cuh)";
  } else if (smaller_sad > 0) {
    failure << "\n  " << smaller_sad
            << " wrong blocks report a SAD below the true minimum: a candidate that leaves the reference frame must "
               "be skipped, and a partial block compares only its in-frame pixels";
  }
  if (unwritten > 0) failure << "\n  " << unwritten << " blocks were never written (every block has a result)";
  if (at_edge == wrong && unwritten == 0) {
    failure << "\n  every wrong block lies at the frame's edge (partial blocks, or candidates clipped by the border): "
               "check the validity rule and the partial-block rule in sad.cuh";
  }
  return failure;
}

// Every check on one finished run: the call succeeded, both outputs are right, nothing outside
// them was written, and both frames are unchanged.
inline void expect_motion(const SearchRun& run, const char* name, const Frame& current, const Frame& reference,
                          const Motion& expected, int width, int height, int radius, const std::string& what) {
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.vectors.guards_intact(name, "vectors"));
  EXPECT_TRUE(run.sads.guards_intact(name, "sads"));
  EXPECT_TRUE(motion_matches(expected, run.vectors.values(), run.sads.values(), width, height, radius, what));
  EXPECT_TRUE(cudalabs::bit_identical(current, run.current.values(), name, "current"));
  EXPECT_TRUE(cudalabs::bit_identical(reference, run.reference.values(), name, "reference"));
  EXPECT_TRUE(run.current.guards_intact(name, "current"));
  EXPECT_TRUE(run.reference.guards_intact(name, "reference"));
}

// width or height 0: cudaSuccess with null pointers and with valid ones, nothing written.
inline void expect_empty_is_a_no_op(MotionSearchFn search, const char* name) {
  const std::vector<int2> sentinel_vectors{int2{7, -7}, int2{1, 2}};
  const std::vector<unsigned> sentinel_sads{11, 12};
  const Frame pixels{1, 2, 3, 4, 5};
  GuardedFrame cur(pixels, 0), ref(pixels, 0);
  GuardedVectors vectors(sentinel_vectors, 0);
  GuardedSads sads(sentinel_sads, 0);
  for (const auto& [width, height] : {std::pair<int, int>{0, 0}, {0, 5}, {5, 0}, {0, 8192}}) {
    SCOPED_TRACE(std::string(name) + " on an empty " + std::to_string(width) + " x " + std::to_string(height) +
                 " frame");
    ASSERT_TRUE(call_and_wait(describe_call(name, width, height, 4), true, [&, width = width, height = height] {
      return search(nullptr, nullptr, width, height, 4, nullptr, nullptr, nullptr);
    }));
    ASSERT_TRUE(call_and_wait(describe_call(name, width, height, 4), true, [&, width = width, height = height] {
      return search(cur.data(), ref.data(), width, height, 4, vectors.data(), sads.data(), nullptr);
    }));
  }
  const std::vector<int2> after = vectors.values();
  bool untouched = after.size() == sentinel_vectors.size();
  for (std::size_t i = 0; untouched && i < after.size(); ++i) {
    untouched = after[i].x == sentinel_vectors[i].x && after[i].y == sentinel_vectors[i].y;
  }
  EXPECT_TRUE(untouched) << name << " wrote `vectors` for an empty frame (there are no blocks)";
  EXPECT_TRUE(cudalabs::bit_identical(sentinel_sads, sads.values(), std::string(name) + " with an empty frame", "sads"));
  EXPECT_TRUE(vectors.guards_intact(name, "vectors"));
  EXPECT_TRUE(sads.guards_intact(name, "sads"));
}

}  // namespace lab10
