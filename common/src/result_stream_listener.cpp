#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/course/harness_events.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"
#include "process_device_memory.hpp"
#include "result_stream_fd.hpp"

namespace cudalabs {
namespace {

// Long failure output is cut here; labgrade shows students the start of it.
constexpr std::size_t kMaxMessageBytes = 16 * 1024;

class ResultStreamListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest& /*unit*/) override {
    remote::start_runners_ahead();  // their start overlaps this process's own CUDA start below
    events::Environment event;
    event.cuda_device = cuda_device_available(&event.reason);
    if (event.cuda_device) {
      int device = 0;
      cudaDeviceProp properties{};
      if (cudaGetDevice(&device) == cudaSuccess &&
          cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
        event.device = properties.name;
      }
      event.device_wide_memory_reason = open_own_memory(device);
    }
    emit(event);
  }

  void OnTestStart(const ::testing::TestInfo& info) override {
    // Timed cases and previews run with the GPU alone: labgrade takes it now, between the
    // correctness tests and the first of them, when it asked this harness to run both (a second
    // harness otherwise). The student's runner goes on into them only when labgrade can take the
    // GPU at once; no student code stays alive through a wait (remote::end_student_runner says why).
    if (std::strcmp(info.test_suite_name(), "Performance") == 0 || std::strcmp(info.test_suite_name(), "Preview") == 0) {
      if (!take_gpu_alone_at_once(full_name(info))) {
        remote::end_student_runner();
        wait_for_gpu_alone(full_name(info));
      }
    }
    free_at_start_ = free_device_bytes();
    held_at_start_ = own_memory_ ? own_memory_->bytes() : std::nullopt;
    // In a grade the student's allocations live in its runner, counted from the test's start.
    runner_at_start_ = own_memory_ ? remote::student_runner_for_memory_check() : -1;
    runner_held_at_start_ =
        runner_at_start_ > 0 ? own_memory_->bytes_of(static_cast<unsigned int>(runner_at_start_)) : std::nullopt;
    static_cast<void>(remote::take_trusted_runner_failed());  // what failed between tests is no test's
    emit(events::TestStart{full_name(info)});
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    std::string message;
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      if (part.type() == ::testing::TestPartResult::kSuccess) continue;
      if (!message.empty()) message += "\n";
      if (part.file_name() && part.type() != ::testing::TestPartResult::kSkip) {
        message += std::string(part.file_name()) + ":" + std::to_string(part.line_number()) + ": ";
      }
      message += part.message();
    }
    if (message.size() > kMaxMessageBytes) {
      message.resize(kMaxMessageBytes);
      message += "\n[... message cut]";
    }
    const char* status = result.Skipped() ? "skipped" : result.Passed() ? "passed" : "failed";
    events::TestEnd end{full_name(info), status, static_cast<double>(result.elapsed_time()), message};
    end.trusted_runner_failed = remote::take_trusted_runner_failed() && !result.Passed();
    emit(end);
    stop_if_context_lost(info);
    stop_if_memory_leaked(info);
    stop_if_host_memory_exceeded(info);
  }

  void OnTestProgramEnd(const ::testing::UnitTest&) override { emit(events::Done{}); }

 private:
  static std::string full_name(const ::testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
  }

  // A sticky CUDA error (illegal address, kernel trap) poisons every later test in this process:
  // report it and leave, so labgrade runs the remaining tests in a fresh process.
  void stop_if_context_lost(const ::testing::TestInfo& info) {
    if (!cuda_device_available(nullptr)) return;
    cudaGetLastError();  // clear a non-sticky error left by the test
    cudaError_t status = cudaDeviceSynchronize();
    if (status == cudaSuccess) return;
    cudaGetLastError();
    if (cudaDeviceSynchronize() == cudaSuccess) return;  // it was not sticky
    const std::string error = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
    emit(events::ContextLost{full_name(info), error});
    std::_Exit(kContextLostExitCode);
  }

  // Sets up own_memory_ when NVML lists this process; else says why the leak check falls back to
  // the device-wide figure. The process has a CUDA context first: NVML lists only those.
  std::string open_own_memory(int device) {
    char bus_id[32] = {};
    if (cudaFree(nullptr) != cudaSuccess || cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
      cudaGetLastError();
      return "the GPU's PCI bus id is unknown";
    }
    auto memory = std::make_unique<ProcessDeviceMemory>(bus_id);
    const std::optional<std::size_t> before = memory->bytes();
    if (!before) return memory->reason();
    // The figure must follow this process's own allocation: a PID that only matches by chance
    // (another PID namespace) or a driver that counts late would make the check wrong.
    constexpr std::size_t kProbeBytes = std::size_t{64} << 20;
    void* probe = nullptr;
    if (cudaMalloc(&probe, kProbeBytes) != cudaSuccess) {
      cudaGetLastError();
      return "no device memory for the NVML probe";
    }
    const std::optional<std::size_t> holding = memory->bytes();
    if (cudaFree(probe) != cudaSuccess) cudaGetLastError();
    if (!holding || *holding < *before + kProbeBytes) {
      return "NVML's figure for this process did not follow a 64 MiB allocation";
    }
    own_memory_ = std::move(memory);
    return "";
  }

  // Free device memory now, or 0 without a usable device (then nothing is compared).
  static std::size_t free_device_bytes(std::size_t* total = nullptr) {
    if (!cuda_device_available(nullptr)) return 0;
    std::size_t free = 0, all = 0;
    if (cudaMemGetInfo(&free, &all) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    if (total) *total = all;
    return free;
  }

  // Device memory a test allocated and never freed would starve every later test in this
  // process: report it and leave, so labgrade charges this test and runs the rest afresh.
  //
  // Correctness tests of several grades may share the GPU (cudalabs/gpu_lock.hpp), so the
  // device-wide free memory (cudaMemGetInfo) is not this test's alone: a neighbour allocating
  // looks like a leak here, a neighbour freeing hides one. The figure used is therefore this
  // process's own, from NVML's per-process list (process_device_memory.hpp), which no neighbour
  // moves. Where NVML gives none (not installed, a container whose PID namespace hides our PID
  // from the driver, MIG), the device-wide difference is used as before: valid when the lock is
  // held exclusively (timed cases, tests run again alone, a harness run by hand); while sharing,
  // a neighbour's allocation can charge this test, and labgrade runs every test that failed
  // while sharing again alone and keeps that outcome (grader/src/session/stages.cpp); a leak a
  // neighbour's freeing hid starves the tests after it, which then fail and run again alone.
  // The environment event says which figure this process uses (the report's timing.gpu_sharing).
  // A foreign (non-cudalabs) program allocating on the GPU during a test affects only the
  // device-wide figure; graders should run on GPUs they do not share with other programs.
  void stop_if_memory_leaked(const ::testing::TestInfo& info) const {
    if (free_at_start_ == 0) return;
    std::size_t total = 0;
    const std::size_t free_now = free_device_bytes(&total);
    std::size_t leaked = 0;
    const std::optional<std::size_t> held_now =
        held_at_start_ && own_memory_ ? own_memory_->bytes() : std::nullopt;
    if (held_now) {
      leaked = *held_now > *held_at_start_ ? *held_now - *held_at_start_ : 0;
      // The same runner as at the start (one restarted after a crash was charged for the crash).
      if (runner_held_at_start_ && remote::student_runner_pid() == runner_at_start_) {
        const std::optional<std::size_t> runner_now = own_memory_->bytes_of(static_cast<unsigned int>(runner_at_start_));
        if (runner_now && *runner_now > *runner_held_at_start_) leaked += *runner_now - *runner_held_at_start_;
      }
    } else if (free_now != 0 && free_now < free_at_start_) {
      leaked = free_at_start_ - free_now;
    }
    if (leaked <= kLeakLimitBytes) return;
    emit(events::Leaked{full_name(info), leaked, free_at_start_, free_now, total});
    std::_Exit(kLeakedExitCode);
  }

  // Host memory the kernel's limit (RLIMIT_DATA, set by labgrade) does not count, such as pinned
  // or driver-mapped pages, still shows in the peak resident size: past the limit, report it and
  // leave, so labgrade charges this test and runs the rest in a fresh process.
  void stop_if_host_memory_exceeded(const ::testing::TestInfo& info) const {
    rlimit data{};
    if (::getrlimit(RLIMIT_DATA, &data) != 0 || data.rlim_cur == RLIM_INFINITY) return;
    // A runner of this judge that crashed with three quarters of the limit resident ran out of it
    // (an allocation past it failed, and the code used the null it got).
    const std::size_t runner_peak = cudalabs::remote::take_crashed_runner_peak_bytes();
    const std::size_t peak = std::max(peak_resident_bytes(), runner_peak);
    if (peak <= data.rlim_cur && runner_peak < data.rlim_cur / 4 * 3) return;
    emit(events::HostMemory{full_name(info), peak, data.rlim_cur});
    std::_Exit(kHostMemoryExitCode);
  }

  // VmHWM of /proc/self/status: the most resident memory this process has had.
  static std::size_t peak_resident_bytes() {
    std::FILE* status = std::fopen("/proc/self/status", "r");
    if (!status) return 0;
    char line[256];
    std::size_t kib = 0;
    while (std::fgets(line, sizeof line, status)) {
      if (std::strncmp(line, "VmHWM:", 6) == 0) {
        kib = std::strtoull(line + 6, nullptr, 10);
        break;
      }
    }
    std::fclose(status);
    return kib * 1024;
  }

  template <typename Event>
  static void emit(const Event& event) {
    emit_result_event(events::to_line(event));
  }

  int runner_at_start_ = -1;
  std::optional<std::size_t> runner_held_at_start_;
  std::size_t free_at_start_ = 0;
  // This process's own device memory (NVML), when NVML lists it; see stop_if_memory_leaked.
  std::unique_ptr<ProcessDeviceMemory> own_memory_;
  std::optional<std::size_t> held_at_start_;

};

}  // namespace

void install_result_stream_from_environment() {
  if (!open_result_stream_from_environment()) return;
  ::testing::UnitTest::GetInstance()->listeners().Append(new ResultStreamListener());
}

}  // namespace cudalabs
