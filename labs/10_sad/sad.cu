// Lab 10: your implementation. Fill in the kernel(s) and motion_search below; the handout
// (README.md) explains the steps, what is tested and what "fast" means. Build and check with
//   ./cudalabs check 10_sad
#include "sad.cuh"

namespace LAB_IMPL {

// Step 1 (a correct baseline): one thread per (block, candidate). Each thread checks that its
// candidate is valid (sad.cuh), adds up |current - reference| over the block's in-frame pixels
// straight from global memory, and the block's threads then agree on the best candidate.
__global__ void motion_search_naive_kernel(const unsigned char* current, const unsigned char* reference, int width,
                                           int height, int search_radius, int2* vectors, unsigned int* sads) {
  // TODO(student):
  //  1. One thread block per 8 x 8 block: x0 = 8 * blockIdx.x, y0 = 8 * blockIdx.y; the block's
  //     size is bw = min(8, width - x0) by bh = min(8, height - y0) (partial blocks at the edges).
  //  2. Thread t takes candidates t, t + blockDim.x, ... of the (2R + 1)^2:
  //     dx = c % (2R + 1) - R, dy = c / (2R + 1) - R. Skip invalid ones (the block must stay inside
  //     the reference frame). Sum |current(x, y) - reference(x + dx, y + dy)| over the block.
  //  3. Pick the block's best candidate by the contract's order (SAD, then |dx| + |dy|, then dy,
  //     then dx). One way: pack the four into one unsigned long long so that a smaller number is a
  //     better candidate, and atomicMin() it into a __shared__ variable (set to ~0ull first).
  //  4. __syncthreads(), then thread 0 unpacks the winner into vectors[] and sads[].
  static_cast<void>(current);
  static_cast<void>(reference);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(search_radius);
  static_cast<void>(vectors);
  static_cast<void>(sads);
}

cudaError_t motion_search(const unsigned char* current, const unsigned char* reference, int width, int height,
                          int search_radius, int2* vectors, unsigned int* sads, cudaStream_t stream) {
  // TODO(student):
  //  1. Check the arguments as sad.cuh says (sizes and radius in range, else cudaErrorInvalidValue;
  //     width or height 0: return cudaSuccess before launching anything; then null pointers).
  //  2. Launch one thread block per 8 x 8 block: dim3 grid(ceil(width / 8), ceil(height / 8)),
  //     on `stream`, and return cudaGetLastError().
  //  3. Once the naive kernel passes the self-check, write the fast one (handout, step 2): the
  //     search window in shared memory, 4 pixels per instruction with __vsadu4, several candidates
  //     per thread. Keep the naive kernel to compare against.
  // Delete the lines below once you have done that.
  static_cast<void>(current);
  static_cast<void>(reference);
  static_cast<void>(width);
  static_cast<void>(height);
  static_cast<void>(search_radius);
  static_cast<void>(vectors);
  static_cast<void>(sads);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
