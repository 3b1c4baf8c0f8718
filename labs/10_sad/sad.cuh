// Lab 10 API: block-matching motion search by the sum of absolute differences (SAD).
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
//
// What is computed. Two frames of the same size, `current` and `reference`, are grey-scale images
// of unsigned 8-bit pixels, width x height, stored row by row without padding: pixel (x, y) is
// frame[y * width + x]. The current frame is cut into blocks of 8 x 8 pixels, block (bx, by)
// starting at pixel (8 bx, 8 by). When width or height is not a multiple of 8, the blocks of the
// last column or row are PARTIAL: block (bx, by) covers the pixels
//     x in [8 bx, min(8 bx + 8, width)),   y in [8 by, min(8 by + 8, height))
// that is bw x bh pixels (1 <= bw, bh <= 8), and only those pixels take part in anything below.
// There are blocks_x = ceil(width / 8) by blocks_y = ceil(height / 8) blocks.
//
// For each block, a CANDIDATE is a displacement (dx, dy) with -R <= dx, dy <= R (R is
// search_radius). Its cost is
//     SAD(dx, dy) = sum over the block's pixels (x, y) of | current(x, y) - reference(x + dx, y + dy) |
// A candidate is VALID only when every pixel it reads lies inside the reference frame:
//     0 <= 8 bx + dx   and   8 bx + bw + dx <= width,   0 <= 8 by + dy   and   8 by + bh + dy <= height.
// Other candidates are skipped (nothing is clamped or padded). (0, 0) is always valid.
//
// The answer for a block is the valid candidate of smallest SAD. TIES (several valid candidates
// with that smallest SAD) are broken, in this order, by
//     1. the smallest |dx| + |dy|   (prefer short motion vectors),
//     2. then the smallest dy       (signed: -3 before 2),
//     3. then the smallest dx       (signed).
// This picks exactly one candidate, so every correct implementation gives the same output.
// Example: if (3, 0), (1, 2) and (-1, -2) all have the smallest SAD, the answer is (-1, -2):
// all three have |dx| + |dy| = 3, and dy = -2 is the smallest.
//
// SADs are at most 64 * 255 = 16320; the sums are exact integers, so outputs are compared exactly.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including sad.cuh"
#endif

#include <cuda_runtime.h>

namespace LAB_IMPL {

// The block side, in pixels.
inline constexpr int kBlockSide = 8;
// The widest search: R <= 32, i.e. up to 65 x 65 = 4225 candidates per block. A search window
// then spans (8 + 2 R)^2 = 72 x 72 bytes, about 5 KiB of shared memory.
inline constexpr int kMaxSearchRadius = 32;
// The largest frame side the tests use (blocks_x * blocks_y <= 1024 * 1024).
inline constexpr int kMaxFrameSide = 8192;

// Motion search, one result per block of the current frame.
//
//  - current, reference: device pointers to width * height bytes each, only read, with no
//    alignment beyond 1 byte (rows start wherever width puts them; the tests also start the
//    frames 1 to 3 bytes past a 4-byte boundary). They may be the same array.
//  - vectors: device pointer to blocks_x * blocks_y int2; vectors[by * blocks_x + bx] = {dx, dy},
//    the chosen candidate of block (bx, by) (x holds dx, y holds dy).
//  - sads: device pointer to blocks_x * blocks_y unsigned ints; sads[by * blocks_x + bx] is that
//    candidate's SAD, the smallest one. Both outputs are overwritten, and nothing outside them is
//    written (the tests fill them with garbage and put guard zones around them).
//  - Sizes: 0 <= width, height <= kMaxFrameSide and 0 <= search_radius <= kMaxSearchRadius.
//    Anything else returns cudaErrorInvalidValue and launches nothing. width == 0 or height == 0:
//    there are no blocks, nothing is launched and cudaSuccess is returned (the pointers may then be
//    null); otherwise a null pointer returns cudaErrorInvalidValue.
//  - Asynchronous: the work is queued on `stream` and the function returns without waiting for it
//    (no cudaDeviceSynchronize, no copies to the host). Returns the launch error
//    (cudaGetLastError() after the launch), cudaSuccess when it was accepted; errors raised while a
//    kernel runs show up at the caller's next synchronisation.
cudaError_t motion_search(const unsigned char* current, const unsigned char* reference, int width, int height,
                          int search_radius, int2* vectors, unsigned int* sads, cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
