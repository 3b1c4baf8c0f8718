#include "cudalabs/timing/interleaved.hpp"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_probe.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/timing/busy_device.hpp"
#include "cudalabs/timing/cpu_wait.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "cudalabs/timing/l2_flush.hpp"
#include "cudalabs/timing/prewindow_ranges.hpp"
#include "cudalabs/timing/stream_fan.hpp"

namespace cudalabs::timing {
namespace {

using Clock = std::chrono::steady_clock;

// CUDA events resolve about 0.5 us; a time below it is "too short to tell", and clamping the
// ratio's operands to it keeps every ratio finite (a 0/0 NaN would break sorting).
constexpr double kEventResolutionMs = 0.0005;

// Seeds of warm-up launches and of the verify choice live in their own domains of round_seed,
// so they never coincide with a timed round's.
constexpr std::uint64_t kWarmupDomain = 0x5741524D55505345ull;  // "WARMUPSE"
constexpr std::uint64_t kReplicaDomain = 0x5245504C49434153ull;  // "REPLICAS"

// Empty calls whose median round trip a judge subtracts from every sample.
constexpr int kOverheadPings = 21;

// A round with a window that timed the machine's CPU load (cudalabs/timing/cpu_wait.hpp) is
// measured again. A measurement gives up once this many rounds were disturbed and they outnumber the undisturbed
// ones kDisturbedPerKeptRound to one (the machine's load, not an occasional interruption); until
// then it measures disturbed rounds again, within its time budget. On the H100 beside 16 CPU
// spinners, a lab 08 case had half its rounds disturbed and kept rounds at 1.03-1.06x itself.
constexpr int kDisturbedRoundsBeforeGivingUp = 10;
constexpr int kDisturbedPerKeptRound = 3;

double grown_us(std::int64_t before, std::int64_t after) {
  return before < 0 || after < 0 ? -1 : static_cast<double>(after - before) / 1e3;
}

// What the timed path's threads waited since `before` was read (unknown outside a judge).
WindowCpuWait cpu_wait_since(const remote::RunQueueWaits& before) {
  const remote::RunQueueWaits after = remote::timed_threads_run_queue_waits();
  return {grown_us(before.trusted, after.trusted), grown_us(before.student, after.student)};
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Launches (forked to the side streams and joined back) and checks the launch itself; a bad
// configuration is reported only by cudaGetLastError.
void launch_checked(const Launch& launch, StreamFan& fan, cudaStream_t stream) {
  fan.fork(stream);
  launch(stream);
  CUDALABS_CHECK_LAUNCH();
  fan.join(stream);
}

__global__ void idle_probe_kernel() {}

// In a judge: how long an empty kernel of this process takes, launched on `stream` once the
// stream's own work is done. The GPU time-slices between contexts, so it waits while another
// process's work runs. A check during which this thread waited for a CPU (other work on its core)
// is made again, up to twice: it timed the machine's load, which BusyDeviceRule must not charge
// (and proves that load in this round: *round). Only this thread's wait counts: no runner is on the
// check's path, and the student's code cannot run on this thread's core (cpu_partition.hpp).
double idle_probe_ms(cudaStream_t stream, RoundCpuWait* round) {
  double ms = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    const std::int64_t waited_before = remote::judge_thread_run_queue_wait_ns();
    const Clock::time_point before = Clock::now();
    idle_probe_kernel<<<1, 1, 0, stream>>>();
    CUDALABS_CHECK_LAUNCH();
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    ms = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
    const WindowCpuWait waited{grown_us(waited_before, remote::judge_thread_run_queue_wait_ns()), -1};
    round->add(waited);
    if (!proves_outside_load(waited)) break;
  }
  return ms;
}

// The writable memory of the last call (cudalabs/remote/judge.hpp), checksummed right
// behind the stop event and again once the device is idle: a runner that said it was done while
// its work still wrote the outputs is caught by the difference.
class OutputSeal {
 public:
  // Before a sample's calls; then collect() after each call, take() right behind the stop event.
  void clear() { ranges_.clear(); }
  void collect() {
    const std::vector<remote::WritableRange>& last = remote::last_call_outputs();
    ranges_.insert(ranges_.end(), last.begin(), last.end());
  }
  void take(cudaStream_t stream) {
    if (slots_.size() < 2 * ranges_.size()) slots_ = DeviceBuffer<std::uint64_t>(2 * ranges_.size());
    for (std::size_t i = 0; i < ranges_.size(); ++i) queue(i, slots_.data() + i, stream);
  }

  // "" when every range still holds what it held at the stop event.
  std::string check(cudaStream_t stream) {
    if (ranges_.empty()) return "";
    const std::size_t n = ranges_.size();
    for (std::size_t i = 0; i < n; ++i) queue(i, slots_.data() + n + i, stream);
    std::vector<std::uint64_t> sums(2 * n);
    CUDALABS_CHECK(cudaMemcpyAsync(sums.data(), slots_.data(), sums.size() * sizeof(std::uint64_t),
                                   cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < n; ++i) {
      if (sums[i] != sums[n + i]) {
        return "its output was still being written after the call had returned (the runner said it was done "
               "before its work was): the time cannot be trusted";
      }
    }
    return "";
  }

 private:
  void queue(std::size_t i, std::uint64_t* slot, cudaStream_t stream) {
    const remote::WritableRange& range = ranges_[i];
    void* readable = range.data;
    if (range.host) CUDALABS_CHECK(cudaHostGetDevicePointer(&readable, range.data, 0));
    device_checksum_async(readable, range.bytes, range.host, slot, stream);
  }

  std::vector<remote::WritableRange> ranges_;
  DeviceBuffer<std::uint64_t> slots_;
};

// The pre-window check (issue 27; cudalabs/timing/prewindow_ranges.hpp): every replica's writable
// memory, checksummed on the judge's stream right behind that replica's prepare and again just
// before the window, so a runner that wrote a call's outputs before the call was made (a thread
// of its own polling the inputs while the judge prepares and seals) is caught. Nothing is read on
// the host before the sample: the sums are compared once it is over (verdict).
// Cost: the writable ranges (whole allocations, 2 MiB blocks in a judge) are read twice per
// sample, before both sides' samples alike: lab 01 at 2^26 floats, eight replicas, 8 x 256 MiB
// of c (or y) = 2 GiB, twice = 4 GiB per sample, ~1.4 ms of checksums at ~3 TB/s on an H100,
// plus 2 x 8 launches; outside the window, so no timed figure carries it. In process (no
// runner) nothing is known to be writable and nothing is queued.
class PreWindowCheck {
 public:
  explicit PreWindowCheck(int replicas) : ranges_(replicas) {}

  // After a launch of `replica` that made calls through a runner (calls_made() moved on).
  void learn(int replica) { ranges_.learn(replica, remote::last_call_outputs()); }

  // At the start of a sample, before any prepare.
  void begin_sample() {
    ranges_.freeze();
    const std::size_t n = ranges_.ranges().size();
    if (slots_.size() < 2 * n) slots_ = DeviceBuffer<std::uint64_t>(2 * n);
  }
  // Right behind replica `replica`'s prepare, on its stream.
  void after_prepare(int replica, cudaStream_t stream) {
    for (const std::size_t i : ranges_.after_prepare_of(replica)) queue(i, slots_.data() + i, stream);
  }
  // After the seals, the last thing before the L2 flush and the idle probe.
  void before_window(cudaStream_t stream) {
    const std::size_t n = ranges_.ranges().size();
    for (std::size_t i = 0; i < n; ++i) queue(i, slots_.data() + n + i, stream);
  }

  // After the sample: "" when every range held at the window's start what it held after its
  // prepare, else which call's memory changed, for `whose` ("a timed call", "the reference's
  // timed call").
  std::string verdict(cudaStream_t stream, int calls, const std::string& whose) {
    const std::size_t n = ranges_.ranges().size();
    if (n == 0) return "";
    std::vector<std::uint64_t> sums(2 * n);
    CUDALABS_CHECK(cudaMemcpyAsync(sums.data(), slots_.data(), sums.size() * sizeof(std::uint64_t),
                                   cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    const std::ptrdiff_t changed = PreWindowRanges::first_changed(sums);
    if (changed < 0) return "";
    const int owner = ranges_.owner(static_cast<std::size_t>(changed));
    const std::string call =
        calls == 1 ? whose : whose + " (call " + std::to_string(owner + 1) + " of " + std::to_string(calls) + ")";
    return "your code wrote the output of " + call +
           " before the call was made (between the judge's preparation and the start of the timing window)";
  }

 private:
  void queue(std::size_t i, std::uint64_t* slot, cudaStream_t stream) {
    const remote::WritableRange& range = ranges_.ranges()[i];
    void* readable = range.data;
    if (range.host) CUDALABS_CHECK(cudaHostGetDevicePointer(&readable, range.data, 0));
    device_checksum_async(readable, range.bytes, range.host, slot, stream);
  }

  PreWindowRanges ranges_;
  DeviceBuffer<std::uint64_t> slots_;
};

// CUDALABS_TIMING_TRACE=FILE appends every sample (round, side, time as measured, time scored,
// the runner's host time, wall clock, the device-idle checks before and after)
// to FILE, for whoever tunes or doubts the engine; nothing reads it back.
class SampleTrace {
 public:
  SampleTrace() {
    if (const char* path = std::getenv("CUDALABS_TIMING_TRACE"); path != nullptr && *path != '\0') {
      file_ = std::fopen(path, "a");
    }
  }
  ~SampleTrace() {
    if (file_) std::fclose(file_);
  }
  SampleTrace(const SampleTrace&) = delete;
  SampleTrace& operator=(const SampleTrace&) = delete;

  // Each line ends with the wall-clock milliseconds since the trace was opened: where a case's
  // time goes between its samples (preparing, checking, the runners' mapping of new buffers).
  void note(const char* text) {
    if (file_) std::fprintf(file_, "# %s (at %.1f ms)\n", text, wall_ms());
  }
  // Then the device-idle checks before and after the sample (busy_device.hpp) and, last, the
  // microseconds the trusted threads and the student's runner's main thread waited for a CPU
  // during the window (-1: unknown).
  // `host_ms`: the host time of the window's last call (a ping's own for a ping line).
  void sample(int round, const char* side, double raw_ms, double scored_ms, double host_ms, double check_before_ms,
              double check_after_ms, const WindowCpuWait& wait) {
    if (file_) {
      std::fprintf(file_, "%d %s %.5f %.5f %.5f %.1f %.4f %.4f %.1f %.1f\n", round, side, raw_ms, scored_ms, host_ms,
                   wall_ms(), check_before_ms, check_after_ms, wait.trusted_us, wait.student_us);
    }
  }

 private:
  double wall_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - opened_).count();
  }

  std::FILE* file_ = nullptr;
  std::chrono::steady_clock::time_point opened_ = std::chrono::steady_clock::now();
};

// The per-sample procedure shared by paired and single measurements.
class Sampler {
 public:
  Sampler(const Prepare& prepare, cudaStream_t stream, std::vector<cudaStream_t> side_streams = {},
          int calls_per_sample = 1, std::function<void(int)> use_replica = {}, bool pipelined_calls = false)
      : prepare_(prepare), stream_(stream), fan_(std::move(side_streams)), calls_(calls_per_sample),
        use_replica_(std::move(use_replica)), pipelined_(pipelined_calls), prewindow_(calls_per_sample),
        judge_(remote::judge_mode()) {}

  SampleTrace* trace = nullptr;  // where pings and samples are also written, if anywhere

  // Every replica once, so none is first seen by a runner (its buffers mapped) in a timed window.
  // True when its calls went to a runner (in a judge): only those can be timed in gated windows.
  bool warm(const Launch& launch, std::uint64_t seed) {
    bool through_runner = false;
    for (int r = 0; r < calls_; ++r) {
      use(r);
      const std::uint64_t prepared_before = judge_ ? remote::calls_made() : 0;
      if (prepare_) prepare_(replica_seed(seed, r), stream_);
      const std::uint64_t calls_before = judge_ ? remote::calls_made() : 0;
      // A preparation that calls a runner (lab 08 sets the sample's filter in both) must come
      // before the timed calls on that runner: such windows cannot be armed ahead of it.
      if (calls_before != prepared_before) prepare_calls_runners_ = true;
      launch_checked(launch, fan_, stream_);
      if (judge_ && remote::calls_made() != calls_before) {
        prewindow_.learn(r);  // what its calls write
        through_runner = true;
      }
    }
    return through_runner;
  }

  // Which sides' windows are gated (remote::begin_gated_window): a side whose calls go to a
  // runner, when the measurement is gated at all. Set after the warm-up, before finish_warmup.
  void gate(bool student, bool solution) {
    gate_student_ = student;
    gate_solution_ = solution;
  }
  bool gated() const { return gate_student_ || gate_solution_; }
  bool prepare_calls_runners() const { return prepare_calls_runners_; }

  // Everything queued so far, on any stream (a test's fills on the legacy stream, warm-up
  // launches), is done before the first sample, so no sample waits for it. A judge then measures
  // the round trip of an empty call to the reference's runner.
  void finish_warmup() {
    CUDALABS_CHECK(cudaDeviceSynchronize());
    if (!judge_) return;
    overhead_ms_ = median_ping_ms(remote::Side::reference);
    student_overhead_ms_ = median_ping_ms(remote::Side::student);
  }

  double overhead_ms() const { return overhead_ms_; }
  double student_overhead_ms() const { return student_overhead_ms_; }
  // The last sample as the clock saw it, before the round trip was subtracted.
  double last_raw_ms() const { return last_raw_ms_; }
  // In a judge, the host time of the last sample's last call, from request to reply (for the trace).
  double last_window_host_ms() const { return last_window_host_ms_; }

  // `before_launch` runs after prepare, outside the timed region (the input seals). With `seal`,
  // the call's writable memory is checksummed right behind the stop event (in a judge).
  // In a judge, `busy_before` gets the idle probe taken just before the start event.
  // A sample times calls_per_sample calls, one per replica, and returns the time of one.
  // Before every sample, of both sides alike (prewindow_verdict reads it afterwards): each
  // replica's writable memory checksummed right behind its prepare and again after the seals,
  // just before the flush, the idle probe and the start event, all on this stream (the engine
  // waits on the host for none of them before the probe's own wait), so a write landing after
  // them either keeps the GPU busy when the probe runs or lands inside the window. The flush stays
  // after the check (~2 L2 sizes read, tens of microseconds) so that every window still starts
  // from an L2 holding none of the memory the check read: the honest figures stay as they were.
  // `students`: the window times the student's calls (cpu_wait.hpp: only its length earns a share).
  //
  // A gated window (remote::begin_gated_window) makes its calls first, before the prepare: each is
  // queued by its runner behind the gate, which the judge's stream opens right behind the start
  // event; the stop event follows the runner's done word. Nothing of the host path is timed then.
  double sample_ms(const Launch& launch, std::uint64_t seed, const std::function<void()>& before_launch = {},
                   OutputSeal* seal = nullptr, double* busy_before = nullptr, bool students = false) {
    const bool gated = judge_ && (students ? gate_student_ : gate_solution_);
    const std::uint64_t calls_before = judge_ ? remote::calls_made() : 0;
    prewindow_.begin_sample();
    GatedWindowGuard window_guard;
    if (gated) {
      if (seal) seal->clear();
      remote::begin_gated_window();
      window_guard.armed = true;
      launch_window(launch, seal);
      if (!remote::end_gated_window_arming()) {
        throw std::logic_error("a gated window whose launch made no call to a runner");
      }
    }
    for (int r = 0; r < calls_; ++r) {
      use(r);
      if (prepare_) prepare_(replica_seed(seed, r), stream_);
      prewindow_.after_prepare(r, stream_);
    }
    if (before_launch) before_launch();
    prewindow_.before_window(stream_);
    flusher_.flush(stream_);  // also resets persisting-L2 lines and limit
    if (judge_) {
      const double busy = idle_probe_ms(stream_, &round_wait_);
      if (busy_before) *busy_before = busy;
      last_before_check_ms_ = busy;
    }
    if (seal && !gated) seal->clear();
    const remote::RunQueueWaits waited_before = judge_ ? remote::timed_threads_run_queue_waits() : remote::RunQueueWaits{};
    timer_.start(stream_);
    if (gated) {
      remote::open_gated_window(stream_);
    } else {
      launch_window(launch, seal);
    }
    timer_.stop(stream_);
    if (gated) {
      remote::finish_gated_window();  // bounded; a fault of the calls' work throws as a call's would
      window_guard.armed = false;
    }
    // Read now, before whatever the checks after the window call.
    last_window_host_ms_ = judge_ && !gated ? remote::last_call_host_ms() : 0;
    if (seal && judge_) seal->take(stream_);
    const double ms = timer_.elapsed_ms();  // waits for the stop event
    last_raw_ms_ = ms;
    last_cpu_wait_ = judge_ ? cpu_wait_since(waited_before) : WindowCpuWait{};
    if (students) last_cpu_wait_.window_us = ms * 1e3;
    round_wait_.add(last_cpu_wait_);
    // Only a sample made through a runner carries the round trip (once per window).
    const bool remote_call = judge_ && remote::calls_made() != calls_before;
    return std::max((remote_call ? ms - overhead_ms_ : ms) / calls_, kEventResolutionMs);
  }

  // Call right after sample_ms: how long the device took to finish what was still running once
  // the timed stream had finished. Near zero unless the timed call left work behind: in process,
  // on another stream (cudaDeviceSynchronize waits for it); in a judge, in the runner's context
  // (an empty kernel of ours waits for the GPU's time slice).
  // Call after sample_ms: "" when no writable memory of the sample's calls changed between its
  // prepare and the window, else the failure, naming `whose` call it was.
  std::string prewindow_verdict(const std::string& whose) { return prewindow_.verdict(stream_, calls_, whose); }

  // In a judge after a gated window, the check comes before the runner settles (waits for the rest
  // of its work): what it left running outside the window's streams is seen here.
  double outstanding_ms() {
    if (judge_) {
      last_after_check_ms_ = idle_probe_ms(stream_, &round_wait_);
      remote::settle_gated_window();
      return last_after_check_ms_;
    }
    const Clock::time_point before = Clock::now();
    CUDALABS_CHECK(cudaDeviceSynchronize());
    return last_after_check_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
  }
  // What the timed path's threads waited for a CPU during the last sample's window (unknown in
  // process), and in the round so far (since begin_round: its windows and device-idle checks).
  const WindowCpuWait& last_cpu_wait() const { return last_cpu_wait_; }
  void begin_round() { round_wait_ = RoundCpuWait{}; }
  const RoundCpuWait& round_wait() const { return round_wait_; }
  // The device-idle checks of the last sample (for the trace).
  double last_before_check_ms() const { return last_before_check_ms_; }
  double last_after_check_ms() const { return last_after_check_ms_; }

 private:
  void use(int replica) const {
    if (use_replica_) use_replica_(replica);
  }

  // The window's calls, one per replica: timed as they are made, or queued behind a gate.
  void launch_window(const Launch& launch, OutputSeal* seal) {
    for (int r = 0; r < calls_; ++r) {
      use(r);
      const std::uint64_t calls_before_this = judge_ ? remote::calls_made() : 0;
      {
        const remote::ReplyOnReturn early(pipelined_ && r + 1 < calls_);  // Workload::pipelined_calls
        launch_checked(launch, fan_, stream_);
      }
      if (seal && judge_) seal->collect();
      if (judge_ && remote::calls_made() != calls_before_this) prewindow_.learn(r);
    }
  }

  // A window armed but not finished (an exception between) is given up, its runner ended.
  struct GatedWindowGuard {
    bool armed = false;
    ~GatedWindowGuard() {
      if (armed) remote::abandon_gated_window();
    }
  };

  const Prepare& prepare_;
  cudaStream_t stream_;
  StreamFan fan_;
  int calls_ = 1;
  std::function<void(int)> use_replica_;
  bool pipelined_ = false;
  PreWindowCheck prewindow_;
  L2Flusher flusher_;
  EventTimer timer_;
  // Disturbed pings (cpu_wait.hpp) are taken again (up to three times as many in all), so the
  // round trip subtracted from every sample is the quiet machine's.
  double median_ping_ms(remote::Side side) {
    SampleTrace* trace_ = trace;
    std::vector<double> pings;
    std::vector<double> disturbed_pings;
    for (int attempt = 0; attempt < 3 * kOverheadPings && static_cast<int>(pings.size()) < kOverheadPings; ++attempt) {
      const remote::RunQueueWaits waited_before = remote::timed_threads_run_queue_waits();
      const double ms = gated() ? remote::gated_ping_ms(side, stream_) : remote::ping_ms(side, stream_);
      const WindowCpuWait waited = cpu_wait_since(waited_before);
      (proves_outside_load(waited) ? disturbed_pings : pings).push_back(ms);
      if (trace_) {
        trace_->sample(-1, side == remote::Side::student ? "ping-student" : "ping-reference", ms, 0,
                       remote::last_call_host_ms(), 0, 0, waited);
      }
    }
    if (pings.size() < kOverheadPings / 2 + 1) pings.insert(pings.end(), disturbed_pings.begin(), disturbed_pings.end());
    std::nth_element(pings.begin(), pings.begin() + pings.size() / 2, pings.end());
    return pings[pings.size() / 2];
  }

  bool judge_ = false;
  bool gate_student_ = false;
  bool gate_solution_ = false;
  bool prepare_calls_runners_ = false;
  double overhead_ms_ = 0;
  double student_overhead_ms_ = 0;
  double last_raw_ms_ = 0;
  double last_window_host_ms_ = 0;
  WindowCpuWait last_cpu_wait_{};
  RoundCpuWait round_wait_{};  // since begin_round
  double last_before_check_ms_ = 0;
  double last_after_check_ms_ = 0;
};


// The first sealed input whose checksum no longer matches `sums` (from seal), or null.
const SealedInput* changed_input(const Workload& work, const std::vector<std::uint64_t>& sums, cudaStream_t stream) {
  const std::vector<std::uint64_t> now = sealed_input_sums(work, stream);
  for (std::size_t i = 0; i < sums.size() && i < now.size(); ++i) {
    if (now[i] != sums[i]) return &work.sealed_inputs[i];
  }
  return nullptr;
}

// After the student's call: "" when every sealed input is as sealed, then what verify says.
// `calls`: how many replicas the call(s) being checked used (1 for the qualifying call).
std::string check_student_call(const Workload& work, const std::vector<std::uint64_t>& sums, std::uint64_t seed,
                               cudaStream_t stream, int calls) {
  if (const SealedInput* input = changed_input(work, sums, stream)) {
    return "its input " + input->name + " was changed (inputs are read-only)";
  }
  const remote::CheckingScope checking;  // the expected outputs are made by a runner that is not timed
  if (!work.verify) return "";
  for (int r = 0; r < calls; ++r) {
    if (work.use_replica) work.use_replica(r);
    std::string wrong = work.verify(replica_seed(seed, r), stream);
    if (!wrong.empty()) {
      return work.calls_per_sample == 1
                 ? wrong
                 : "call " + std::to_string(r + 1) + " of " + std::to_string(work.calls_per_sample) + ": " + wrong;
    }
  }
  return "";
}

void validate_replicas(const Workload& work) {
  if (work.calls_per_sample < 1) throw std::invalid_argument("Workload::calls_per_sample must be at least 1");
  if (work.calls_per_sample > 1 && !work.use_replica) {
    throw std::invalid_argument("Workload::calls_per_sample > 1 needs use_replica (each call's own buffers)");
  }
}

// The student side of a round: sample, then the untimed checks. Returns the sample's time and
// fills result.integrity_failure when the checks found one.
double student_sample(Sampler& sampler, const Workload& work, int round, std::uint64_t seed, cudaStream_t stream,
                      OutputSeal& output_seal, BusyDeviceRule& busy, PairedResult& result) {
  std::vector<std::uint64_t> sums;
  cudaError_t status = cudaSuccess;
  const Launch call = [&](cudaStream_t s) {
    const cudaError_t returned = work.student(s);
    if (status == cudaSuccess) status = returned;  // the first failure of the sample's calls
  };
  double busy_before = 0;
  const auto seal_inputs = [&] { sums = sealed_input_sums(work, stream); };
  const double ms = sampler.sample_ms(call, seed, seal_inputs, &output_seal, &busy_before, true);
  const std::string written_early = sampler.prewindow_verdict("a timed call");
  busy.check(busy_before, "before your call started");
  if (!written_early.empty()) {
    result.integrity_failure = "sample " + std::to_string(round + 1) + ": " + written_early;
    return ms;
  }
  if (const std::string failed = describe_student_status(status); !failed.empty()) {
    result.integrity_failure = "timed call " + std::to_string(round + 1) + " failed: " + failed;
    return ms;
  }
  busy.check(sampler.outstanding_ms(),
             remote::judge_mode() ? "after your call had returned" : "after the stream you were given finished");
  ++result.verified_samples;
  std::string wrong = output_seal.check(stream);
  if (wrong.empty()) wrong = check_student_call(work, sums, seed, stream, work.calls_per_sample);
  if (!wrong.empty()) {
    char text[128];
    std::snprintf(text, sizeof text, "the timed call's result was wrong on sample %d (inputs from seed %#018" PRIx64 "): ",
                  round + 1, seed);
    result.integrity_failure = text + wrong;
  }
  return ms;
}

// The reference's side of a round. It gets the same work before and after its call as the
// student's (seals, checksums): each sample comes to the GPU from the same state, whatever that
// work leaves behind (clocks, caches, address translations). In a judge, the idle check before
// it charges the student (only the student's runner can have left work running), and so does an
// input that changed while the reference ran: the student's runner holds the inputs' memory too,
// and rewriting them (to a pattern that is slow for the reference) would tilt the ratio.
// The idle check right after its calls charges the student too, and is BusyDeviceRule's baseline.
double solution_sample(Sampler& sampler, const Workload& work, int round, std::uint64_t seed, cudaStream_t stream,
                       OutputSeal& output_seal, BusyDeviceRule& busy, PairedResult& result) {
  double busy_before = 0;
  std::vector<std::uint64_t> sums;
  const auto seal_inputs = [&] { sums = sealed_input_sums(work, stream); };
  const double ms = sampler.sample_ms(work.solution, seed, seal_inputs, &output_seal, &busy_before);
  busy.check(sampler.outstanding_ms(), "right after the reference's call", true);
  const std::string written_early = sampler.prewindow_verdict("the reference's timed call");
  busy.check(busy_before, "while the reference was about to run");
  static_cast<void>(output_seal.check(stream));
  if (!written_early.empty()) {
    // Only the student's runner holds that memory besides the judge (and the trusted runners).
    result.integrity_failure = "sample " + std::to_string(round + 1) + ": " + written_early +
                               "; only your code holds that memory besides the grader";
    return ms;
  }
  if (const SealedInput* input = changed_input(work, sums, stream)) {
    result.integrity_failure = "the input " + input->name + " changed while the reference ran on sample " +
                               std::to_string(round + 1) + " (only your code holds it besides the grader)";
  }
  return ms;
}

}  // namespace

std::uint64_t round_seed(std::uint64_t base, std::uint64_t index) noexcept {
  std::uint64_t z = base + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t replica_seed(std::uint64_t seed, int replica) noexcept {
  return replica == 0 ? seed : round_seed(seed ^ kReplicaDomain, static_cast<std::uint64_t>(replica));
}

// Lab 01 seals 16 inputs, twice per sample.
std::vector<std::uint64_t> sealed_input_sums(const Workload& work, cudaStream_t stream) {
  const std::size_t n = work.sealed_inputs.size();
  if (n == 0) return {};
  // Whatever any stream of this process still has queued (a suite's prepare may use another) is
  // done before the inputs are read.
  CUDALABS_CHECK(cudaDeviceSynchronize());
  static thread_local DeviceBuffer<std::uint64_t> slots;
  if (slots.size() < n) slots = DeviceBuffer<std::uint64_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SealedInput& input = work.sealed_inputs[i];
    if (input.data == nullptr && input.bytes > 0) {
      throw std::invalid_argument("sealed input " + input.name + ": null data for " + std::to_string(input.bytes) +
                                  " bytes");
    }
    device_checksum_async(input.data, input.bytes, false, slots.data() + i, stream);
  }
  std::vector<std::uint64_t> sums(n);
  CUDALABS_CHECK(cudaMemcpyAsync(sums.data(), slots.data(), n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream));
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  return sums;
}

StudentCall always_succeeding(Launch launch) {
  return [launch = std::move(launch)](cudaStream_t stream) {
    launch(stream);
    return cudaSuccess;
  };
}

std::string describe_student_status(cudaError_t status) {
  if (status == cudaSuccess) return "";
  if (status == cudaErrorNotYetImplemented) {
    return "the call is still a TODO(student): it returned cudaErrorNotYetImplemented";
  }
  return describe_cuda_result("the call", status);
}

std::string qualifying_call(const Workload& work, std::uint64_t seed, cudaStream_t stream) {
  if (!work.student) throw std::invalid_argument("qualifying_call: Workload needs a student launch");
  validate_replicas(work);
  if (work.use_replica) work.use_replica(0);
  if (work.prepare) work.prepare(seed, stream);
  const std::vector<std::uint64_t> sums = sealed_input_sums(work, stream);
  StreamFan fan(work.side_streams);
  fan.fork(stream);
  const cudaError_t status = work.student(stream);
  if (const std::string failed = describe_student_status(status); !failed.empty()) return failed;
  CUDALABS_CHECK_LAUNCH();
  fan.join(stream);
  CUDALABS_CHECK(cudaDeviceSynchronize());  // on any stream: the check reads finished work
  return check_student_call(work, sums, seed, stream, 1);
}

namespace {

PairedResult measure_once(const Workload& work, const SamplingPolicy& policy, cudaStream_t stream, bool gated) {
  const Clock::time_point started = Clock::now();
  const remote::TimingPin pinned;  // in a judge: the judge and its runners on cores of their own
  Sampler sampler(work.prepare, stream, work.side_streams, work.calls_per_sample, work.use_replica,
                  work.pipelined_calls);
  SampleTrace trace;
  sampler.trace = &trace;
  trace.note(gated ? "warm-up (gated windows)" : "warm-up");
  bool student_through_runner = false;
  bool solution_through_runner = false;
  for (int i = 0; i < policy.warmup; ++i) {
    const std::uint64_t seed = round_seed(work.seed ^ kWarmupDomain, static_cast<std::uint64_t>(i));
    student_through_runner |= sampler.warm([&](cudaStream_t s) { static_cast<void>(work.student(s)); }, seed);
    solution_through_runner |= sampler.warm(work.solution, seed);
  }
  if (gated && sampler.prepare_calls_runners()) {
    trace.note("not gated: the sample's preparation calls the runners, and must come before the timed calls");
    gated = false;
  }
  sampler.gate(gated && student_through_runner, gated && solution_through_runner);
  sampler.finish_warmup();

  std::vector<double> student;
  std::vector<double> solution;
  std::vector<double> ratio;
  const auto capacity = static_cast<std::size_t>(policy.max_samples);
  student.reserve(capacity);
  solution.reserve(capacity);
  ratio.reserve(capacity);

  PairedResult result;
  result.gated = sampler.gated();
  result.call_overhead_ms = sampler.overhead_ms();
  result.student_call_overhead_ms = sampler.student_overhead_ms();
  char heading[160];
  std::snprintf(heading, sizeof heading, "case: round trip %.5f ms to the reference's runner, %.5f ms to the student's",
                result.call_overhead_ms, result.student_call_overhead_ms);
  trace.note(heading);
  OutputSeal output_seal;
  BusyDeviceRule busy;
  for (int round = 0;; ++round) {
    const std::uint64_t seed = round_seed(work.seed, static_cast<std::uint64_t>(round));
    double student_ms = 0;
    double solution_ms = 0;
    sampler.begin_round();
    busy.begin_round();
    // Alternate which goes first, so an order effect appears in both directions equally.
    const auto student_side = [&] {
      student_ms = student_sample(sampler, work, round, seed, stream, output_seal, busy, result);
      trace.sample(round, "student", sampler.last_raw_ms(), student_ms, sampler.last_window_host_ms(),
                   sampler.last_before_check_ms(), sampler.last_after_check_ms(), sampler.last_cpu_wait());
    };
    const auto solution_side = [&] {
      solution_ms = solution_sample(sampler, work, round, seed, stream, output_seal, busy, result);
      trace.sample(round, "solution", sampler.last_raw_ms(), solution_ms, sampler.last_window_host_ms(),
                   sampler.last_before_check_ms(), sampler.last_after_check_ms(), sampler.last_cpu_wait());
    };
    if (round % 2 == 0) {
      student_side();
      if (!result.integrity_failure.empty()) break;
      solution_side();
    } else {
      solution_side();
      if (!result.integrity_failure.empty()) break;
      student_side();
    }
    if (!result.integrity_failure.empty()) break;
    if (sampler.round_wait().disturbed()) {
      // Checked like any other round, but its times (and its idle checks' times) are the
      // machine's load: measured again.
      busy.discard_round();
      ++result.disturbed_rounds;
      result.max_cpu_wait_ms = std::max(result.max_cpu_wait_ms, sampler.round_wait().longest_trusted_us() / 1e3);
      const bool giving_up = result.disturbed_rounds >= kDisturbedRoundsBeforeGivingUp &&
                             result.disturbed_rounds > kDisturbedPerKeptRound * static_cast<int>(ratio.size());
      if (giving_up || seconds_since(started) > policy.time_budget_seconds) break;
      continue;
    }
    student.push_back(student_ms);
    solution.push_back(solution_ms);
    ratio.push_back(std::max(student_ms, kEventResolutionMs) / std::max(solution_ms, kEventResolutionMs));
    result.ratio = summarize(ratio, policy.confidence);
    result.integrity_failure = busy.verdict(static_cast<int>(ratio.size()), false);
    if (!result.integrity_failure.empty()) break;
    const SampleSummary student_so_far =
        policy.settled ? summarize(student, policy.confidence) : SampleSummary{};  // only asked for then
    const PairedStop decision = paired_stop(student_so_far, result.ratio, seconds_since(started), policy);
    result.target_met = decision.target_met;
    result.settled = decision.settled;
    if (decision.stop && (decision.budget_spent || !busy.pending(static_cast<int>(ratio.size())))) break;
  }
  if (result.integrity_failure.empty()) result.integrity_failure = busy.verdict(static_cast<int>(ratio.size()), true);
  const int kept = static_cast<int>(ratio.size());
  if (result.integrity_failure.empty() && result.disturbed_rounds > 0 &&
      (kept < policy.min_samples || result.disturbed_rounds > kDisturbedPerKeptRound * kept)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "in %d of %d rounds the grader's own timed processes (the judge, the reference's runner) had to wait "
                  "for a CPU (up to %.3f ms): other work on this machine, not the code, would have set the figures",
                  result.disturbed_rounds, result.disturbed_rounds + static_cast<int>(ratio.size()),
                  result.max_cpu_wait_ms);
    result.machine_busy = text;
  }
  if (!result.machine_busy.empty()) result.target_met = result.settled = false;
  result.samples_with_outstanding_work = busy.busy_rounds();
  result.max_outstanding_ms = busy.max_busy_ms();
  if (!result.integrity_failure.empty()) result.target_met = result.settled = false;
  result.rounds = static_cast<int>(ratio.size());
  result.ratio = summarize(ratio, policy.confidence);
  result.student_ms = summarize(student, policy.confidence);
  result.solution_ms = summarize(solution, policy.confidence);
  result.seconds_spent = seconds_since(started);
  if (gated) remote::settle_gated_window();  // a sample that ended before its checks left one owed
  return result;
}

}  // namespace

PairedResult measure_interleaved(const Workload& work, const SamplingPolicy& policy, cudaStream_t stream) {
  validate(policy);
  if (!work.student || !work.solution) {
    throw std::invalid_argument("measure_interleaved: Workload needs both a student and a solution launch");
  }
  validate_replicas(work);
  const auto refused_because = [](const std::string& what) {
    return "a call could not be held at the window's gate: " + what;
  };
  if (!remote::gated_windows()) {
    PairedResult ungated = measure_once(work, policy, stream, false);
    // A refusal earlier in this test left the gate for all of it: this measurement says so too.
    if (const std::string earlier = remote::gate_given_up_in_test(); !earlier.empty()) {
      ungated.ungated_because = refused_because(earlier);
    }
    return ungated;
  }
  const Clock::time_point started = Clock::now();
  std::string why;
  try {
    PairedResult gated = measure_once(work, policy, stream, true);
    if (gated.integrity_failure.empty()) return gated;
    why = gated.integrity_failure;
  } catch (const remote::GateRefused& refused) {
    why = refused_because(refused.what());
  }
  {
    SampleTrace trace;
    trace.note(("gated windows given up: " + why).c_str());
  }
  PairedResult ungated = measure_once(work, policy, stream, false);
  ungated.ungated_because = why;
  ungated.seconds_spent = seconds_since(started);
  return ungated;
}

SampleSummary measure_single(const Launch& launch, const Prepare& prepare, const SamplingPolicy& policy,
                             cudaStream_t stream, std::uint64_t seed) {
  validate(policy);
  if (!launch) throw std::invalid_argument("measure_single: empty launch");
  const Clock::time_point started = Clock::now();
  Sampler sampler(prepare, stream);
  for (int i = 0; i < policy.warmup; ++i) {
    sampler.warm(launch, round_seed(seed ^ kWarmupDomain, static_cast<std::uint64_t>(i)));
  }
  sampler.finish_warmup();

  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(policy.max_samples));
  SampleSummary summary;
  for (std::uint64_t index = 0;; ++index) {
    times.push_back(sampler.sample_ms(launch, round_seed(seed, index)));
    summary = summarize(times, policy.confidence);
    if (should_stop(summary, seconds_since(started), policy, nullptr)) break;
  }
  return summary;
}

}  // namespace cudalabs::timing
