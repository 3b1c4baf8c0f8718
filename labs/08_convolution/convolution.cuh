// Lab 08 API: 1D and 2D convolution of float data with a small filter kept in constant memory.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
//
// How the functions are used: first the filter is uploaded once with set_filter_1d or
// set_filter_2d, then any number of convolutions use it, each on new data. A filter is a few
// dozen floats that every thread reads again and again, all threads of a warp the same tap at
// the same time: that is what __constant__ memory is for (see the handout).
//
// What is computed. The filter has an odd width w = 2r + 1 (r is its radius). Samples outside
// the data are clamped to the nearest sample inside it ("clamp to edge", or "replicate"):
// index -3 reads index 0, index n + 2 reads index n - 1, rows alike.
//
//   1D, n samples:          out[i]    = sum_{k=0}^{w-1} taps[k] * in[clamp(i + k - r, 0, n - 1)]
//   2D, width x height:     out(x, y) = sum_{j=0}^{w-1} sum_{k=0}^{w-1} taps[j * w + k] *
//                                         in(clamp(x + k - r, 0, width - 1), clamp(y + j - r, 0, height - 1))
//
// (The filter is not flipped: as in most image-processing code, "convolution" here is what a
// mathematician calls a correlation. For a symmetric filter the two are the same.) A 2D image is
// stored row by row without padding: pixel (x, y) is in[y * width + x]. The sum may be taken in
// any order, with or without fused multiply-adds: the tests allow for the rounding that float
// arithmetic brings (the handout says how much). Inputs and taps are finite numbers.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including convolution.cuh"
#endif

#include <cuda_runtime.h>

namespace LAB_IMPL {

// The widest filters, in taps per side. Size your __constant__ arrays with them.
//  - 1D: 63 taps (radius 31). 63 floats is 252 bytes; radius 31 keeps each side's halo within
//    one warp-wide load (32 floats), and covers the usual 1D uses (Gaussian smoothing up to
//    sigma ~10, short FIR filters).
//  - 2D: 15 x 15 taps (radius 7). 225 floats is 900 bytes, far below the 64 KiB of constant
//    memory; a 15 x 15 filter already costs 225 multiply-adds per pixel, and beyond that the halo
//    of a tile grows larger than the tile itself (larger filters are done with FFTs or
//    separable passes instead).
inline constexpr int kMaxFilterWidth1d = 63;
inline constexpr int kMaxFilterWidth2d = 15;

// --- Filters --------------------------------------------------------------------------------
//
// set_filter_1d: copies `filter_width` taps from `taps` (HOST memory, ordinary pageable memory)
// to the device, where every later convolve_1d call uses them until the next set_filter_1d.
// set_filter_2d: the same for filter_width * filter_width taps, row-major (taps[j * w + k] is row
// j, column k), used by convolve_2d_naive and convolve_2d_tiled. The 1D and the 2D filter are
// kept apart: setting one never changes the other.
//
// Returns cudaErrorInvalidValue, and copies nothing, when taps is null or filter_width is not odd
// or not in [1, kMaxFilterWidth1d] (1D) or [1, kMaxFilterWidth2d] (2D).
//
// The copy is queued on `stream` (convolutions queued after it on the same stream see the new
// taps); the caller may reuse or free `taps` as soon as the function returns. Returns the error
// of the copy, cudaSuccess when it was accepted.
cudaError_t set_filter_1d(const float* taps, int filter_width, cudaStream_t stream = nullptr);
cudaError_t set_filter_2d(const float* taps, int filter_width, cudaStream_t stream = nullptr);

// --- Convolutions ---------------------------------------------------------------------------
//
// The contract the three functions share:
//  - `in` and `out` are device pointers to n (1D) or width * height (2D) floats. They are 4-byte
//    aligned, not necessarily 16-byte aligned, and do not overlap. `in` is only read; nothing
//    outside out's n (width * height) floats may be written.
//  - filter_width is the width given to the last set_filter_1d (convolve_1d) or set_filter_2d
//    (2D) call. When it is not odd or out of that function's range, the function returns
//    cudaErrorInvalidValue and launches nothing.
//  - Sizes: 0 <= n <= 2^26; 0 <= width, height <= 65535 and width * height <= 2^26, so every
//    index fits in an int. n == 0, width == 0 or height == 0: nothing is launched and cudaSuccess
//    is returned (the pointers may then be null).
//  - Asynchronous: the work is queued on `stream` and the function returns without waiting for
//    it. Returns the launch error (cudaGetLastError() after the launch), cudaSuccess when the
//    launch was accepted; errors raised while a kernel runs show up at the caller's next
//    synchronisation.

// 1D convolution of n samples (formula at the top).
cudaError_t convolve_1d(const float* in, float* out, int n, int filter_width, cudaStream_t stream = nullptr);

// 2D convolution, one thread per output pixel reading its w * w neighbours straight from
// global memory (the filter from constant memory). Correct and simple: the baseline.
cudaError_t convolve_2d_naive(const float* in, float* out, int width, int height, int filter_width,
                              cudaStream_t stream = nullptr);

// The same result, with each block first loading its tile of the image plus a halo of r pixels
// on every side into shared memory, then computing all of its outputs from there.
cudaError_t convolve_2d_tiled(const float* in, float* out, int width, int height, int filter_width,
                              cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
