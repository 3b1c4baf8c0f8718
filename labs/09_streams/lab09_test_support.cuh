#pragma once
// Helpers shared by lab 09's public self-check and the grader's hidden and timed suites: seeded
// data, the CPU reference of the transform, a set of streams, guarded arrays in pinned host
// memory, one call of process_serial or process_pipelined on guarded arrays (waiting only for the
// streams it was given, as its contract says the caller does), and checks whose messages say
// what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the functions to call.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/pipeline_stage.hpp"
#include "cudalabs/timing/stream_fan.hpp"

namespace lab09 {

// The signatures of the lab API, the same in every namespace.
using TransformFn = cudaError_t (*)(const float*, float*, std::size_t, int, cudaStream_t);
using SerialFn = cudaError_t (*)(const float*, float*, float*, float*, std::size_t, int, cudaStream_t);
using PipelinedFn = cudaError_t (*)(const float*, float*, float*, float*, std::size_t, int, const cudaStream_t*, int);

// --- Test data and the CPU reference --------------------------------------------------------------

// Inputs are uniform in [-1000, 1000): both signs, square roots up to ~31.6, which Heron's method
// from 1 reaches within 8 steps for all but the smallest magnitudes.
inline constexpr float kLow = -1000.0f;
inline constexpr float kHigh = 1000.0f;

inline std::vector<float> make_values(std::size_t n, std::uint64_t seed) {
  return cudalabs::uniform_floats(n, seed, kLow, kHigh);
}

// The transform exactly as streams.cuh defines it, in float: each step rounds like the GPU's
// (IEEE division and addition, correctly rounded; no multiply-add to contract), so a kernel that
// computes the formula matches it bit for bit.
inline float cpu_signed_square_root(float x, int rounds) {
  if (x == 0.0f) return x;
  const float a = std::fabs(x);
  float y = 1.0f;
  for (int step = 0; step < rounds; ++step) y = 0.5f * (y + a / y);
  return std::copysign(y, x);
}

inline std::vector<float> cpu_transform(const std::vector<float>& in, int rounds) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = cpu_signed_square_root(in[i], rounds);
  return out;
}

// --- Streams ---------------------------------------------------------------------------------------

// `count` streams that do not synchronize with the legacy default stream (so work a call queues
// there is not waited for by anyone who waits for these).
class StreamSet {
 public:
  explicit StreamSet(int count) {
    streams_.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      cudaStream_t stream = nullptr;
      const cudaError_t status = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      if (status != cudaSuccess) {
        release();
        CUDALABS_CHECK(status);
      }
      streams_.push_back(stream);
    }
  }
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;
  ~StreamSet() { release(); }

  const cudaStream_t* data() const { return streams_.data(); }
  int size() const { return static_cast<int>(streams_.size()); }
  const std::vector<cudaStream_t>& all() const { return streams_; }
  cudaStream_t operator[](int i) const { return streams_[static_cast<std::size_t>(i)]; }

 private:
  void release() noexcept {
    for (cudaStream_t stream : streams_) static_cast<void>(cudaStreamDestroy(stream));
    streams_.clear();
  }
  std::vector<cudaStream_t> streams_;
};

// --- Both copies at once -----------------------------------------------------------------------

// Queues the copy in on `stream` and, at the same moment, the copy out on `side` (forked from and
// joined back into `stream`), so that work waiting for `stream` afterwards waits for both. A
// pipeline copies both ways at once for most of its run, so this, not either copy alone, is the
// copies' share of its lower bound: some hosts' links keep each direction's speed (about 1.2x one
// copy alone on our H100), others do not (up to the two back to back).
class CopiesBothWays {
 public:
  CopiesBothWays(float* dev_in, const float* host_in, float* host_out, const float* dev_out, std::size_t bytes,
                 cudaStream_t side)
      : dev_in_(dev_in), host_in_(host_in), host_out_(host_out), dev_out_(dev_out), bytes_(bytes), side_(side),
        fan_({side}) {}

  void queue(cudaStream_t stream) {
    fan_.fork(stream);
    CUDALABS_CHECK(cudaMemcpyAsync(dev_in_, host_in_, bytes_, cudaMemcpyHostToDevice, stream));
    CUDALABS_CHECK(cudaMemcpyAsync(host_out_, dev_out_, bytes_, cudaMemcpyDeviceToHost, side_));
    fan_.join(stream);
  }

 private:
  float* dev_in_;
  const float* host_in_;
  float* host_out_;
  const float* dev_out_;
  std::size_t bytes_;
  cudaStream_t side_;
  cudalabs::timing::StreamFan fan_;
};

// A transform's signature (student:: or solution::, streams.cuh).
using TransformFn = cudaError_t (*)(const float* in, float* out, std::size_t n, int rounds, cudaStream_t stream);

// The stages of a pipeline over these arrays, each alone over the whole array: one copy in,
// `transform` (the reference's in a grade, the student's own in the preview), one copy out, and
// both copies at once (`both`, made on one of the pipeline's streams; the stages run before the
// timed calls, so that stream is free). The arrays, `transform` and `both` must outlive the stages.
inline std::vector<cudalabs::PipelineStage> pipeline_stages(float* dev_in, const float* host_in, float* host_out,
                                                            float* dev_out, std::size_t n, int rounds,
                                                            TransformFn transform, CopiesBothWays& both) {
  const std::size_t bytes = n * sizeof(float);
  return {
      {"copy in",
       [=](cudaStream_t stream) {
         CUDALABS_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, stream));
       }},
      {"transform", [=](cudaStream_t stream) { CUDALABS_CHECK(transform(dev_in, dev_out, n, rounds, stream)); }},
      {"copy out",
       [=](cudaStream_t stream) {
         CUDALABS_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, stream));
       }},
      {"both copies at once", [&both](cudaStream_t stream) { both.queue(stream); }},
  };
}

// --- Guarded pinned host arrays ------------------------------------------------------------------

// n floats of pinned host memory at element `offset` of an allocation filled with poison, with
// cudalabs::kGuardElements of slack after them (and `offset` before), like cudalabs::GuardedArray
// on the device: writes past either end show up, and elements nobody wrote stay poison.
class GuardedHostArray {
 public:
  GuardedHostArray(std::size_t n, std::size_t offset)
      : buffer_(offset + n + cudalabs::kGuardElements), offset_(offset), n_(n) {
    buffer_.fill_bytes(cudalabs::kPoisonByte);
  }
  GuardedHostArray(const std::vector<float>& values, std::size_t offset) : GuardedHostArray(values.size(), offset) {
    if (!values.empty()) std::memcpy(data(), values.data(), values.size() * sizeof(float));
  }

  float* data() { return buffer_.data() + offset_; }
  const float* data() const { return buffer_.data() + offset_; }
  std::size_t size() const { return n_; }
  std::vector<float> values() const { return std::vector<float>(data(), data() + n_); }

  // How many elements still hold the poison pattern (nobody wrote them).
  std::size_t poisoned() const {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n_; ++i) count += is_poison(data()[i]) ? 1 : 0;
    return count;
  }

  ::testing::AssertionResult guards_intact(const std::string& function, const char* array) const {
    for (std::size_t i = 0; i < offset_; ++i) {
      if (!is_poison(buffer_[i])) return outside(function, array, -static_cast<long long>(offset_ - i));
    }
    for (std::size_t i = 0; i < cudalabs::kGuardElements; ++i) {
      if (!is_poison(buffer_[offset_ + n_ + i])) return outside(function, array, static_cast<long long>(n_ + i));
    }
    return ::testing::AssertionSuccess();
  }

 private:
  static bool is_poison(float value) {
    unsigned char bytes[sizeof(float)];
    std::memcpy(bytes, &value, sizeof bytes);
    for (unsigned char b : bytes) {
      if (b != cudalabs::kPoisonByte) return false;
    }
    return true;
  }
  ::testing::AssertionResult outside(const std::string& function, const char* array, long long index) const {
    return ::testing::AssertionFailure() << function << " wrote outside its array: " << array << "[" << index
                                         << "] changed, but the array has " << n_ << " elements (valid indices are 0 to "
                                         << n_ << "-1; check the bounds of every chunk, the last one especially)";
  }

  cudalabs::PinnedHostBuffer<float> buffer_;
  std::size_t offset_;
  std::size_t n_;
};

// --- Calls -------------------------------------------------------------------------------------------

inline constexpr const char* kFaultHint =
    "an out-of-bounds access? every chunk's offset and count must stay within the n elements of each array";

// "process_pipelined(n = 1000, rounds = 8, stream_count = 3)"
inline std::string describe_call(const char* function, std::size_t n, int rounds, int stream_count) {
  std::string call = std::string(function) + "(n = " + std::to_string(n) + ", rounds = " + std::to_string(rounds);
  if (stream_count > 0) call += ", stream_count = " + std::to_string(stream_count);
  return call + ")";
}

// Waits as the contract says the caller does: for the given streams only. Then, separately, for
// the whole device, so a fault of the call's kernels is reported against the call.
inline ::testing::AssertionResult wait_for_streams(const std::string& call, const StreamSet& streams) {
  for (cudaStream_t stream : streams.all()) {
    const cudaError_t status = cudaStreamSynchronize(stream);
    if (status != cudaSuccess) {
      return ::testing::AssertionFailure() << "while " << call << " ran, the device reported "
                                           << cudaGetErrorName(status) << ": " << cudaGetErrorString(status) << " ("
                                           << kFaultHint << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// One call on guarded arrays: host in/out pinned, device scratch guarded, each array starting
// `offset` floats into its allocation (1 to 3: not 16-byte aligned). `out` is what host_out held
// once the given streams were done, before anything else was waited for.
struct PipelineRun {
  GuardedHostArray host_in;
  GuardedHostArray host_out;
  cudalabs::GuardedArray<float> dev_in;
  cudalabs::GuardedArray<float> dev_out;
  std::vector<float> out;
  ::testing::AssertionResult status;
};

template <class Call>
PipelineRun run_call(const std::string& call, const std::vector<float>& values, const StreamSet& streams,
                     std::size_t offset, Call&& invoke) {
  GuardedHostArray host_in(values, offset), host_out(values.size(), offset);
  cudalabs::GuardedArray<float> dev_in(values.size(), offset), dev_out(values.size(), offset);
  ::testing::AssertionResult status = cudalabs::returned_success(
      call, invoke(host_in.data(), host_out.data(), dev_in.data(), dev_out.data()), values.empty());
  if (status) status = wait_for_streams(call, streams);
  std::vector<float> out = host_out.values();
  if (status) status = cudalabs::finished_cleanly(call, kFaultHint);
  return PipelineRun{std::move(host_in), std::move(host_out), std::move(dev_in), std::move(dev_out), std::move(out),
                     std::move(status)};
}

inline PipelineRun run_serial(SerialFn serial, const char* name, const std::vector<float>& values, int rounds,
                              std::size_t offset = 0) {
  const StreamSet streams(1);
  return run_call(describe_call(name, values.size(), rounds, 0), values, streams, offset,
                  [&](const float* in, float* out, float* d_in, float* d_out) {
                    return serial(in, out, d_in, d_out, values.size(), rounds, streams[0]);
                  });
}

inline PipelineRun run_pipelined(PipelinedFn pipelined, const char* name, const std::vector<float>& values, int rounds,
                                 int stream_count, std::size_t offset = 0) {
  const StreamSet streams(stream_count);
  return run_call(describe_call(name, values.size(), rounds, stream_count), values, streams, offset,
                  [&](const float* in, float* out, float* d_in, float* d_out) {
                    return pipelined(in, out, d_in, d_out, values.size(), rounds, streams.data(), stream_count);
                  });
}

// --- Checks ----------------------------------------------------------------------------------------

// Every check on one finished run: the call succeeded, host_out holds the transform of host_in
// within `tolerance`, nothing outside the four arrays was written, host_in is unchanged.
inline void expect_transformed(const PipelineRun& run, const char* name, const std::vector<float>& values, int rounds,
                               cudalabs::Tolerance tolerance) {
  ASSERT_TRUE(run.status);
  ::testing::AssertionResult result = cudalabs::matches(
      cudalabs::compare_floats(cpu_transform(values, rounds), run.out, tolerance),
      "host_out[i] = transform(host_in[i])");
  if (!result && !values.empty()) {
    std::size_t unwritten = 0;
    for (float v : run.out) {
      unsigned bits = 0;
      std::memcpy(&bits, &v, sizeof bits);
      unwritten += bits == 0xFFFFFFFFu ? 1 : 0;
    }
    if (unwritten != 0) {
      result << "\n  " << unwritten << " of " << values.size()
             << " elements of host_out were never written (still poison) once the given streams had finished: a chunk "
                "missing (the last, shorter one?), or work queued on a stream other than those given (the default "
                "stream, or one of your own), which the caller does not wait for";
    }
  }
  EXPECT_TRUE(result);
  EXPECT_TRUE(run.host_out.guards_intact(name, "host_out"));
  EXPECT_TRUE(run.dev_in.guards_intact(name, "dev_in"));
  EXPECT_TRUE(run.dev_out.guards_intact(name, "dev_out"));
  EXPECT_TRUE(cudalabs::bit_identical(values, run.host_in.values(), name, "host_in"));
  EXPECT_TRUE(run.host_in.guards_intact(name, "host_in"));
}

// The status of a call whose arguments are invalid: cudaErrorInvalidValue, and nothing written.
inline ::testing::AssertionResult rejected(const std::string& call, cudaError_t status) {
  if (status == cudaErrorInvalidValue) return ::testing::AssertionSuccess();
  if (status == cudaErrorNotYetImplemented) {
    return ::testing::AssertionFailure() << call << " is still a TODO(student): it returned cudaErrorNotYetImplemented";
  }
  return ::testing::AssertionFailure() << call << " returned " << cudaGetErrorName(status)
                                       << ", but its arguments are invalid: it must return cudaErrorInvalidValue and "
                                          "queue nothing (see streams.cuh)";
}

}  // namespace lab09
