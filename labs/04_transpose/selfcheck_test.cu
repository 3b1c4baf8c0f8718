// Lab 04 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 04_transpose
// The grader runs these too, plus hidden cases (1 x N and N x 1, primes, 131071-long rows and
// columns, 16384 x 4096, arrays not 16-byte aligned, NaN/-0.0/denormal values); see README.md.
// Preview.transpose_conflict_free times your transpose_conflict_free alone at 8192 x 8192 against
// 75% of your GPU's copy bandwidth: a preview of the graded timed case, worth no points (see
// "What fast means here" in README.md).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_preview.hpp"
#include "lab04_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "transpose.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// Transposes a rows x cols matrix of seeded values with `transpose` and checks everything.
void check_small(lab04::TransposeFn transpose, const char* name, std::size_t rows, std::size_t cols,
                 std::uint64_t seed) {
  SCOPED_TRACE(std::string(name) + " on a " + lab04::shape(rows, cols) + " matrix, seed " + std::to_string(seed));
  const std::vector<float> in = cudalabs::uniform_floats(rows * cols, seed);
  const lab04::TransposeRun run = lab04::run_transpose(transpose, name, in, rows, cols);
  lab04::expect_transposed(run, name, in, lab04::cpu_transpose(in, rows, cols), rows, cols,
                           cudalabs::lab_tolerance("transpose"), /*bit_exact=*/false);
}

// 45 x 70 and 70 x 45: neither side is a multiple of 8, 16 or 32, so the last tiles are partial,
// and the matrix is not square, so mixing up rows and cols shows.
TEST_F(SelfCheck, NaiveSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_naive, "transpose_naive", 45, 70, 401));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_naive, "transpose_naive", 70, 45, 402));
}

TEST_F(SelfCheck, CoalescedSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_coalesced, "transpose_coalesced", 45, 70, 411));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_coalesced, "transpose_coalesced", 70, 45, 412));
}

TEST_F(SelfCheck, ConflictFreeSmall) {
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_conflict_free, "transpose_conflict_free", 45, 70, 421));
  ASSERT_NO_FATAL_FAILURE(check_small(&student::transpose_conflict_free, "transpose_conflict_free", 70, 45, 422));
}

// 0 rows or 0 cols: nothing to do, cudaSuccess, nothing written.
TEST_F(SelfCheck, EmptyMatrix) {
  ASSERT_NO_FATAL_FAILURE(lab04::expect_empty_is_a_no_op(&student::transpose_naive, "transpose_naive", 0, 7));
  ASSERT_NO_FATAL_FAILURE(lab04::expect_empty_is_a_no_op(&student::transpose_coalesced, "transpose_coalesced", 7, 0));
  ASSERT_NO_FATAL_FAILURE(
      lab04::expect_empty_is_a_no_op(&student::transpose_conflict_free, "transpose_conflict_free", 0, 0));
}

// --- Timing preview ---------------------------------------------------------------------------
// transpose_conflict_free alone at the graded size, 8192 x 8192 floats (512 MiB moved per call),
// on a fresh matrix every sample. A full CPU check of 2^26 floats would take longer than the
// timing, so every sample is spot-checked: the four corner tiles and 252 random 32 x 32 tiles of
// the output, bit for bit against the same tiles of the input.

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedRows = 8192;
constexpr std::size_t kTimedCols = 8192;
constexpr std::size_t kTile = 32;
constexpr int kCheckedTiles = 256;

using cudalabs::timing::round_seed;

// The tile of `matrix` (`width` floats a row) with `rows` x `cols` elements from (row0, col0).
std::vector<float> download_tile(const float* matrix, std::size_t width, std::size_t row0, std::size_t col0,
                                 std::size_t rows, std::size_t cols) {
  std::vector<float> tile(rows * cols);
  CUDALABS_CHECK(cudaMemcpy2D(tile.data(), cols * sizeof(float), matrix + row0 * width + col0, width * sizeof(float),
                              cols * sizeof(float), rows, cudaMemcpyDeviceToHost));
  return tile;
}

// "" when out's tile holding in's tile at (r0, c0) (up to kTile x kTile elements) is its transpose.
std::string check_tile(const float* in, const float* out, std::size_t rows, std::size_t cols, std::size_t r0,
                       std::size_t c0) {
  const std::size_t tile_rows = std::min(kTile, rows - r0), tile_cols = std::min(kTile, cols - c0);
  const std::vector<float> source = download_tile(in, cols, r0, c0, tile_rows, tile_cols);
  const std::vector<float> result = download_tile(out, rows, c0, r0, tile_cols, tile_rows);
  for (std::size_t r = 0; r < tile_rows; ++r) {
    for (std::size_t c = 0; c < tile_cols; ++c) {
      const std::uint32_t want = lab04::bits_of(source[r * tile_cols + c]);
      const std::uint32_t got = lab04::bits_of(result[c * tile_rows + r]);
      if (want == got) continue;
      char text[256];
      std::snprintf(text, sizeof text,
                    "transpose_conflict_free at %zu x %zu: out[%zu * %zu + %zu] holds bits 0x%08X, expected in[%zu * "
                    "%zu + %zu] = 0x%08X%s",
                    rows, cols, c0 + c, rows, r0 + r, got, r0 + r, cols, c0 + c, want,
                    got == 0xFFFFFFFFu ? " (never written: still the 0xFF poison)" : "");
      return text;
    }
  }
  return "";
}

TEST_F(Preview, transpose_conflict_free) {
  constexpr std::size_t n = kTimedRows * kTimedCols;
  cudalabs::DeviceBuffer<float> din(n), dout(n);
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(din.data(), n, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::poison_async(dout.data(), dout.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::transpose_conflict_free(din.data(), dout.data(), kTimedRows, kTimedCols, stream);
  };
  // The input is checked unchanged before this runs, so its tiles are the sample's input.
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    const std::size_t last_row = kTimedRows - kTile, last_col = kTimedCols - kTile;
    for (int i = 0; i < kCheckedTiles; ++i) {
      std::size_t r0 = 0, c0 = 0;
      if (i < 4) {  // the corners first
        r0 = (i & 1) ? last_row : 0;
        c0 = (i & 2) ? last_col : 0;
      } else {  // then anywhere, not only on a 32-element grid
        const std::uint64_t draw = round_seed(seed, 100 + static_cast<std::uint64_t>(i));
        r0 = static_cast<std::size_t>(draw % (last_row + 1));
        c0 = static_cast<std::size_t>((draw >> 32) % (last_col + 1));
      }
      const std::string wrong = check_tile(din.data(), dout.data(), kTimedRows, kTimedCols, r0, c0);
      if (!wrong.empty()) return wrong;
    }
    return "";
  };
  work.workload.sealed_inputs = {{din.data(), din.bytes(), "in"}};
  work.bytes = 2.0 * static_cast<double>(n) * sizeof(float);  // read in, write out
  cudalabs::run_performance_preview("transpose_conflict_free", work);
}

}  // namespace
