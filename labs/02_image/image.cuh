// Lab 02 API: grayscale conversion and Sobel edge detection on 8-bit images.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
//
// How an image is laid out (the same for every image of this lab):
//   - `width` x `height` pixels, row by row, row 0 first; in a row, pixel x = 0 comes first.
//   - Row y starts `y * pitch` BYTES after the first pixel (pitch is in bytes, not pixels).
//     pitch >= width * bytes_per_pixel: the bytes between the end of one row and the start of
//     the next are padding. They belong to the caller: never use them as pixels, never write
//     them. (cudaMallocPitch returns such a pitch; the tests use both padded and tight ones.)
//   - An RGB pixel is 3 bytes, R then G then B; a gray pixel is 1 byte.
//   - Pointers need not be aligned beyond 1 byte and pitches need not be multiples of anything.
//   - width >= 0, height >= 0, width * height < 2^31. height may exceed 65535.
//   - Input and output images do not overlap.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including image.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Converts an RGB image to gray, pixel by pixel, with the BT.601 luma weights (0.299, 0.587,
// 0.114) in 8.8 fixed point, exactly:
//
//   gray = (77 * R + 150 * G + 29 * B + 128) >> 8        (integer arithmetic; 77+150+29 = 256)
//
// so white stays 255, black stays 0, and every implementation agrees bit for bit.
//
// rgb: device pointer, `height` rows of `width` RGB pixels, `rgb_pitch` bytes apart; only read.
// gray: device pointer, `height` rows of `width` bytes, `gray_pitch` bytes apart; only the
//       `width` pixel bytes of each row are written.
// width == 0 or height == 0: nothing is launched and cudaSuccess is returned (pointers may be
// null).
//
// Asynchronous: the work is queued on `stream`; the function returns without waiting for it.
// Returns the launch error (cudaGetLastError() after the launch), cudaSuccess when the launch
// was accepted; errors raised while the kernel runs show up at the caller's next synchronisation.
cudaError_t rgb_to_gray(const unsigned char* rgb, std::size_t rgb_pitch, unsigned char* gray,
                        std::size_t gray_pitch, int width, int height, cudaStream_t stream = nullptr);

// Sobel gradient magnitude of a gray image. With p(x, y) the input pixel, where coordinates
// outside the image are clamped to the nearest edge pixel (x < 0 reads x = 0, x >= width reads
// x = width - 1, the same for y; "clamp to edge"):
//
//   gx = [p(x+1,y-1) + 2 p(x+1,y) + p(x+1,y+1)] - [p(x-1,y-1) + 2 p(x-1,y) + p(x-1,y+1)]
//   gy = [p(x-1,y+1) + 2 p(x,y+1) + p(x+1,y+1)] - [p(x-1,y-1) + 2 p(x,y-1) + p(x+1,y-1)]
//   edges(x, y) = min(255, round(sqrt(gx*gx + gy*gy)))
//
// gx and gy are exact integers in [-1020, 1020]. sqrt is of an integer, never exactly halfway
// between two integers, so "round" is unambiguous; computing it as sqrtf of the integer in float
// and rounding to nearest gives the exact value. (The grader accepts a difference of 1, for
// approximate square roots; see the handout.) A flat region gives 0; a 1x1 image gives 0.
//
// gray: device pointer, `height` rows of `width` bytes, `gray_pitch` bytes apart; only read.
// edges: device pointer, `height` rows of `width` bytes, `edges_pitch` bytes apart; only the
//        pixel bytes are written.
// Sizes 0, asynchrony and the returned error: as rgb_to_gray.
cudaError_t sobel(const unsigned char* gray, std::size_t gray_pitch, unsigned char* edges,
                  std::size_t edges_pitch, int width, int height, cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
