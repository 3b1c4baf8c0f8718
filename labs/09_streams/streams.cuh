// Lab 09 API: moving data through the GPU in a pipeline. A large array in host memory is copied
// to the device, transformed by a kernel, and copied back; done in chunks over several streams,
// the copies of one chunk overlap the kernel of another, and the whole takes little longer than
// its slowest stage alone.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
//
// What is computed. For every i < n:
//
//   host_out[i] = transform(host_in[i])
//
// where transform is the signed square root of x by `rounds` steps of Heron's method from 1:
//
//   a = |x|;  y = 1;  repeat rounds times: y = 0.5f * (y + a / y);  result = y with x's sign
//   (0 and -0 map to themselves)
//
// It stands for the real work a pipeline does on each chunk, with a cost you can dial: each step
// is a division and two additions, and the grader picks `rounds` so that the kernel takes a
// little longer than one of the copies. It is given to you complete (transform below); this lab
// is about the copies and the streams around it.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including streams.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Limits of every function below. 2^26 floats is 256 MiB each way; 16 streams is more than any
// GPU has copy engines and kernel queues to keep busy; 4096 rounds keeps a kernel of 2^26 values
// under a second on a laptop GPU.
inline constexpr std::size_t kMaxElements = std::size_t{1} << 26;
inline constexpr int kMaxStreams = 16;
inline constexpr int kMaxRounds = 4096;

// --- Given: the kernel of the middle stage ----------------------------------------------------
//
// out[i] = transform(in[i]) for i < n, both DEVICE pointers, on `stream`; asynchronous. Returns
// cudaErrorInvalidValue when n > kMaxElements or rounds is not in [1, kMaxRounds], cudaSuccess
// without launching anything when n == 0, else the launch's error.
cudaError_t transform(const float* in, float* out, std::size_t n, int rounds, cudaStream_t stream);

// --- Your functions ---------------------------------------------------------------------------
//
// The contract both share:
//  - host_in and host_out are HOST pointers to n floats in page-locked (pinned) memory, allocated
//    by the caller with cudaMallocHost: copies from and to them can run asynchronously (see the
//    handout for why pageable memory cannot). host_in is only read.
//  - dev_in and dev_out are DEVICE pointers to n floats each, scratch space for you: use them
//    as you like (the caller neither reads nor needs them afterwards).
//  - All pointers are 4-byte aligned, not necessarily more, and no two arrays overlap. Nothing
//    outside the n floats of each array may be written.
//  - Asynchronous: queue all of the work on the stream(s) given and return without waiting for
//    it. host_out holds the result once the caller has synchronized with every stream it gave
//    (and not before: the caller does not wait for anything else, so work queued on any other
//    stream, the default stream included, may not have run).
//  - Returns cudaErrorInvalidValue, queuing nothing, when n > kMaxElements, rounds is not in
//    [1, kMaxRounds], or (process_pipelined) streams is null or stream_count is not in
//    [1, kMaxStreams]. Otherwise n == 0 queues nothing and returns cudaSuccess (the pointers may
//    then be null); else the first error a copy or a launch returned, cudaSuccess when all of
//    them were accepted. Errors raised while the work runs show up when the caller synchronizes.

// Step 1: the whole array at once, one stage after the other on one stream: copy host_in to
// dev_in, transform dev_in into dev_out, copy dev_out to host_out.
cudaError_t process_serial(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                           int rounds, cudaStream_t stream);

// Step 2: the same result as a pipeline. Split the array into chunks; each chunk goes through
// the three stages on one of the `stream_count` streams in `streams`, the chunks spread over
// all of them, so that while one chunk is copied in, another is transformed and a third copied
// out. How many chunks, and how large, is yours to choose (the handout discusses it).
cudaError_t process_pipelined(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n,
                              int rounds, const cudaStream_t* streams, int stream_count);

}  // namespace LAB_IMPL
