// Lab 04 reference: the three steps of the lab (the kernels and why each step is there are in
// transpose_kernels.cuh, shared with the benchmark).
//  - transpose_naive: one thread per element, strided stores.
//  - transpose_coalesced: the handout's 32x32 tile without padding, 32x8 threads. This is what
//    a student's transpose_coalesced is timed against, so it is deliberately the plain version,
//    bank conflicts included.
//  - transpose_conflict_free: a padded tile. It uses 64x64 tiles (16 elements per thread) rather
//    than the handout's 32x32 (4 per thread): on an H100 a transpose needs that many bytes in
//    flight per SM to approach copy bandwidth (CURRICULUM.md: >= 85%). The benchmark measures
//    both tile sizes side by side; a student's padded 32x32 tile is judged against this one with
//    a ratio calibrated from those figures (config/labs/04_transpose.yaml).
#include <cstddef>

#include "transpose.cuh"
#include "transpose_kernels.cuh"

namespace LAB_IMPL {
namespace {

// (tile, block rows) of the conflict-free reference: 64x64 tiles, 32x8 threads.
constexpr unsigned kConflictFreeTile = 64;
constexpr unsigned kConflictFreeBlockRows = 8;

}  // namespace

cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  return lab04_reference::launch_naive(in, out, rows, cols, stream);
}

cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream) {
  return lab04_reference::launch_tiled<32, 8, /*kPad=*/0>(in, out, rows, cols, stream);
}

cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  return lab04_reference::launch_tiled<kConflictFreeTile, kConflictFreeBlockRows, /*kPad=*/1>(in, out, rows, cols,
                                                                                              stream);
}

}  // namespace LAB_IMPL
