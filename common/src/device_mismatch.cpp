// The host side of cudalabs/device_compare.hpp: summaries as text, reference checks, poison.
#include <fmt/format.h>

#include "cudalabs/device_compare.hpp"

#include "cudalabs/cuda_check.hpp"

namespace cudalabs {

std::string describe(const DeviceMismatch& mismatch, std::size_t n, const std::string& what) {
  if (mismatch.count == 0) return "";
  return fmt::format("{} of {} elements of {} differ from the reference; the first at [{}]: expected {:.9g}, got {:.9g}",
                     mismatch.count, n, what, mismatch.first, mismatch.expected, mismatch.actual);
}

std::string check_against_reference(const float* reference, const float* actual, std::size_t n, Tolerance tolerance,
                                    const std::string& what, cudaStream_t stream) {
  return describe(compare_on_device(reference, actual, n, 2 * tolerance.abs, 2 * tolerance.rel, stream), n, what);
}

void poison_async(void* data, std::size_t bytes, unsigned char value, cudaStream_t stream) {
  if (bytes != 0) CUDALABS_CHECK(cudaMemsetAsync(data, value, bytes, stream));
}

}  // namespace cudalabs
