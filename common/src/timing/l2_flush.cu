#include "cudalabs/timing/l2_flush.hpp"

#include <cstddef>

#include "cudalabs/cuda_check.hpp"

namespace cudalabs::timing {
namespace {

// Only when the device reports no L2 size (attribute 0); larger than the L2 of current data
// centre GPUs, so the flush still works, at the cost of a larger buffer.
constexpr std::size_t kFallbackL2Bytes = 64u << 20;

constexpr int kBlock = 256;

// Reads every element. The checksum is compared with a value the zeroed buffer cannot produce,
// so the compiler must keep the loads but the store never happens.
__global__ void read_everything(const uint4* __restrict__ data, std::size_t count, unsigned impossible,
                                unsigned* sink) {
  unsigned checksum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const uint4 v = data[i];
    checksum ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (checksum == impossible) *sink = checksum;
}

std::size_t device_l2_bytes(int device) {
  int l2 = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return l2 > 0 ? static_cast<std::size_t>(l2) : kFallbackL2Bytes;
}

}  // namespace

L2Flusher::L2Flusher() {
  int device = 0;
  CUDALABS_CHECK(cudaGetDevice(&device));
  l2_bytes_ = device_l2_bytes(device);
  int persisting_max = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, device));
  persisting_l2_max_bytes_ = persisting_max > 0 ? static_cast<std::size_t>(persisting_max) : 0;
  buffer_ = DeviceBuffer<uint4>((2 * l2_bytes_ + sizeof(uint4) - 1) / sizeof(uint4));
  buffer_.fill_bytes(0);  // the checksum above relies on zeros
  sink_ = DeviceBuffer<unsigned>(1);

  // Enough resident blocks to keep every SM's memory pipeline busy, no more.
  int sms = 0;
  int blocks_per_sm = 0;
  CUDALABS_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDALABS_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_everything, kBlock, 0));
  block_ = kBlock;
  grid_ = sms * (blocks_per_sm > 0 ? blocks_per_sm : 1);
  CUDALABS_CHECK(cudaDeviceSynchronize());  // the zero fill is done before any flush reads
}

void L2Flusher::reset_persisting() {
  if (!has_persisting_l2()) return;
  // The limit first: with no carve-out, no access can make a line persist again after the reset.
  std::size_t limit = 0;
  CUDALABS_CHECK(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  if (limit != 0) CUDALABS_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  CUDALABS_CHECK(cudaCtxResetPersistingL2Cache());
}

void L2Flusher::flush(cudaStream_t stream) {
  reset_persisting();
  read_everything<<<grid_, block_, 0, stream>>>(buffer_.data(), buffer_.size(), 1u, sink_.data());
  CUDALABS_CHECK_LAUNCH();
}

}  // namespace cudalabs::timing
