#pragma once
// Owning CUDA allocations. Every allocation has exactly one owner that frees it, so a failing
// ASSERT in the middle of a test cannot leak device memory into the next test.
//
//   DeviceBuffer<float> a(n);            // cudaMalloc, uninitialised
//   a.copy_from_host(host_a);            // sizes must match
//   a.fill_bytes(0xFF);                  // poison: every float reads as NaN
//   std::vector<float> back = a.copy_to_host();
//
// Copies and fills go through the legacy default stream (cudaMemcpy / cudaMemset), so they are
// ordered after work the code under test queued on the default stream, and they have finished
// when they return: a cudaMemset of device memory and a pageable cudaMemcpy's DMA may otherwise
// still be running, and work on a cudaStreamNonBlocking stream is not ordered after them.
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/shared_host_memory.hpp"

namespace cudalabs {
namespace detail {

template <class T>
std::size_t checked_bytes(std::size_t count) {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
    throw std::length_error("cudalabs buffer: " + std::to_string(count) + " elements overflow size_t bytes");
  }
  return count * sizeof(T);
}

inline void require_same_size(std::size_t buffer, std::size_t host, const char* what) {
  if (buffer != host) {
    throw std::invalid_argument(std::string(what) + ": buffer holds " + std::to_string(buffer) +
                                " elements but the host vector has " + std::to_string(host));
  }
}

// In a grade's judge, whole blocks of 2 MiB. cudaMalloc may sub-allocate small allocations from
// one block, and CUDA IPC shares the whole block (CUDA C++ Programming Guide, "Interprocess
// Communication": share only 2 MiB-aligned sizes): two buffers in one block have one handle,
// which a runner can open only once (cudaErrorAlreadyMapped, seen on the H100 machine), and a
// buffer given to the student's runner would expose the judge's other buffers in its block (an
// expected output). Elsewhere, exactly what was asked for, so compute-sanitizer still sees a
// write one past the end.
std::size_t allocation_bytes(std::size_t bytes);

// Until what the legacy default stream holds (this buffer's copy or fill) has finished.
inline void wait_for_default_stream() { CUDALABS_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); }

}  // namespace detail

// Device memory for `size()` elements of T.
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds raw bytes: T must be trivially copyable");

 public:
  DeviceBuffer() = default;

  // Size 0 allocates nothing; data() is then nullptr.
  explicit DeviceBuffer(std::size_t count) : size_(count) {
    const std::size_t bytes = detail::checked_bytes<T>(count);
    if (bytes != 0) CUDALABS_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), detail::allocation_bytes(bytes)));
  }

  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { copy_from_host(host); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  // A destructor must not throw; a failing cudaFree (e.g. a context already broken by a bad
  // kernel) is reported by the test that broke it, not here.
  ~DeviceBuffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  void copy_from_host(const std::vector<T>& host) {
    detail::require_same_size(size_, host.size(), "DeviceBuffer::copy_from_host");
    if (bytes() == 0) return;
    CUDALABS_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    detail::wait_for_default_stream();
  }

  std::vector<T> copy_to_host() const {
    std::vector<T> host(size_);
    if (bytes() != 0) CUDALABS_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

  // Sets every byte (cudaMemset semantics), e.g. 0xFF to poison outputs before a kernel runs.
  void fill_bytes(unsigned char value) {
    if (bytes() == 0) return;
    CUDALABS_CHECK(cudaMemset(data_, value, bytes()));
    detail::wait_for_default_stream();
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) static_cast<void>(cudaFree(data_));
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Page-locked host memory for `size()` elements of T: needed for truly asynchronous copies. Shared
// memory underneath (cudalabs/shared_host_memory.hpp), so a grade's runner can map it too.
template <class T>
class PinnedHostBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "PinnedHostBuffer holds raw bytes: T must be trivially copyable");

 public:
  PinnedHostBuffer() = default;

  // Size 0 allocates nothing; data() is then nullptr. The contents start uninitialised.
  explicit PinnedHostBuffer(std::size_t count) : size_(count) {
    const std::size_t bytes = detail::checked_bytes<T>(count);
    if (bytes != 0) data_ = static_cast<T*>(allocate_shared_pinned(bytes));
  }

  explicit PinnedHostBuffer(const std::vector<T>& host) : PinnedHostBuffer(host.size()) {
    copy_from_host(host);
  }

  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  ~PinnedHostBuffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  void copy_from_host(const std::vector<T>& host) {
    detail::require_same_size(size_, host.size(), "PinnedHostBuffer::copy_from_host");
    if (bytes() != 0) std::memcpy(data_, host.data(), bytes());
  }

  std::vector<T> copy_to_host() const { return std::vector<T>(begin(), end()); }

  void fill_bytes(unsigned char value) noexcept {
    if (bytes() != 0) std::memset(data_, value, bytes());
  }

 private:
  void release() noexcept {
    free_shared_pinned(data_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace cudalabs
