#include "cudalabs/shared_host_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <system_error>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"

namespace cudalabs {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

// By base address, so a pointer's segment is the last one starting at or below it.
std::map<const unsigned char*, SharedSegment>& registry() {
  static std::map<const unsigned char*, SharedSegment> segments;
  return segments;
}

std::size_t whole_pages(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

}  // namespace

void* allocate_shared_pinned(std::size_t bytes) {
  const std::size_t mapped = whole_pages(bytes == 0 ? 1 : bytes);
  const int fd = ::memfd_create("cudalabs-pinned", MFD_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "memfd_create for pinned host memory");
  if (::ftruncate(fd, static_cast<off_t>(mapped)) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "sizing pinned host memory");
  }
  void* data = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "mapping pinned host memory");
  }
  if (const cudaError_t status = cudaHostRegister(data, mapped, cudaHostRegisterPortable | cudaHostRegisterMapped); status != cudaSuccess) {
    ::munmap(data, mapped);
    ::close(fd);
    CUDALABS_CHECK(status);
  }
  static std::uint32_t next_id = 1;
  std::lock_guard<std::mutex> lock(registry_mutex());
  SharedSegment segment{next_id++, fd, static_cast<unsigned char*>(data), mapped};
  registry()[segment.base] = segment;
  return data;
}

void free_shared_pinned(void* data) noexcept {
  if (data == nullptr) return;
  SharedSegment segment;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    const auto found = registry().find(static_cast<unsigned char*>(data));
    if (found == registry().end()) return;
    segment = found->second;
    registry().erase(found);
  }
  static_cast<void>(cudaHostUnregister(segment.base));
  ::munmap(segment.base, segment.bytes);
  ::close(segment.fd);
}

bool find_shared_segment(const void* pointer, SharedSegment* segment) {
  const auto* p = static_cast<const unsigned char*>(pointer);
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto found = registry().upper_bound(p);
  if (found == registry().begin()) return false;
  --found;
  if (p >= found->second.base + found->second.bytes) return false;
  *segment = found->second;
  return true;
}

}  // namespace cudalabs
