#pragma once
// The channel through which a lab harness reports results to labgrade.
//
// labgrade opens a pipe and passes its write end as the file descriptor named by the environment
// variable CUDALABS_RESULT_FD. The harness writes one JSON object per line:
//   {"event":"environment","cuda_device":true,"device":"NVIDIA H100 80GB HBM3"}
//   {"event":"start","test":"VectorAdd.SingleElement"}
//   {"event":"gpu_alone","test":"Performance.x","at_once":true}   (only with CUDALABS_GPU_ALONE_FD: then it waits for labgrade's answer)
//   {"event":"end","test":"VectorAdd.SingleElement","status":"passed|failed|skipped","ms":1.5,"message":"..."}
//   {"event":"context_lost","test":"...","error":"cudaErrorIllegalAddress: ..."}   (then the process exits)
//   {"event":"leaked","test":"...","bytes":N,"free_before":N,"free_after":N,"total":N}  (then the process exits)
//   {"event":"host_memory","test":"...","peak_bytes":N,"limit_bytes":N}  (then the process exits)
//   {"event":"measurement","test":"Performance.x",...}   (a performance case's figures, see performance_case.hpp)
//   {"event":"done"}
// A test that starts but never ends crashed or hung; labgrade reruns the tests after it in a new process.
//
// Student code runs in the same process, so labgrade trusts a line only when it carries the
// random token it handed this process through a second pipe (descriptor in
// CUDALABS_RESULT_TOKEN_FD): {"token":"<32 hex digits>","event":...}. The harness reads the
// token, and removes both variables, before any student constructor runs (see
// common/src/result_channel_preinit.cpp).
#include <cstddef>
#include <string>
#include <string_view>

namespace cudalabs {

inline constexpr const char* kResultFdVariable = "CUDALABS_RESULT_FD";
inline constexpr const char* kResultTokenFdVariable = "CUDALABS_RESULT_TOKEN_FD";
// Set by labgrade when one harness is to run the correctness tests with the GPU shared and then
// the timed cases alone: a pipe's read end on which labgrade answers the harness's gpu_alone
// event (harness_events.hpp) with a line once it holds the GPU alone. The harness sends the event
// and waits before the first Performance.* test starts, at most once.
inline constexpr const char* kGpuAloneFdVariable = "CUDALABS_GPU_ALONE_FD";
// Set to "1" by labgrade for the normal test runs: before any student code runs, the harness
// confines itself to its working directory, the GPU and its own memory (no new processes, no
// network, no other process's memory; common/src/process_filter.hpp, filesystem_sandbox.hpp).
// A sanitizer run, whose tooling works inside the process it watches, goes without.
inline constexpr const char* kConfineVariable = "CUDALABS_CONFINE";
// Set by labgrade --sanitize: the tool (compute-sanitizer and its options, words separated by
// 0x1F) through which a judge starts the student's runner, and only that runner: the judge's own
// kernels and the reference's are not the student's and are not instrumented.
inline constexpr const char* kStudentRunnerLauncherVariable = "CUDALABS_STUDENT_RUNNER_LAUNCHER";
// Set by labgrade --profile: the same for the reference's runner, so that
// Nsight Compute measures the reference's kernels in a pass of their own.
inline constexpr const char* kReferenceRunnerLauncherVariable = "CUDALABS_REFERENCE_RUNNER_LAUNCHER";
// Set by labgrade --profile to the side a profile pass measures, "student" or "reference": a
// timed case or preview then makes one untimed call of that side on inputs of the timed size,
// emits nothing and passes (common/src/profiled_call.hpp); nothing is checked or timed.
inline constexpr const char* kProfilePassVariable = "CUDALABS_PROFILE_PASS";
// In those words, replaced when the runner starts by the current test's log name (below), so that
// the tool's report (compute-sanitizer --log-file DIR/{test}.log) belongs to one test: under a
// tool, the judge starts a fresh student runner for every test.
inline constexpr const char* kCurrentTestPlaceholder = "{test}";
// Set (to "1") by labgrade --sanitize for its first, shard-wide runs: a student runner started
// through a tool then serves every test of the harness instead of ending with its test (its log is
// named after the test that started it), until a test during which its log grew: the judge then
// ends it and renames its log after that test, so each finding stays with its test. One tool start
// per shard, plus one per test with findings; a shard that did not run to its end (a crash of the
// judge, a time-out) labgrade runs again with a runner per test.
inline constexpr const char* kToolRunnerSpansTestsVariable = "CUDALABS_TOOL_RUNNER_SPANS_TESTS";
// Set (to "1") by labgrade for a judge run that times nothing (a batch's first parts, a sanitized
// grade's first run, the sanitizer's tool runs): the judge runs solution:: calls itself, with the
// solution linked in (namespace judge_reference), and starts no reference runner. A reference
// runner exists so that both sides of a ratio are timed alike; untimed, it was one CUDA start in
// three, and the driver makes contexts one at a time. A judge so started refuses to time.
inline constexpr const char* kReferenceInJudgeVariable = "CUDALABS_REFERENCE_IN_JUDGE";
// Set by labgrade beside kReferenceInJudgeVariable: the number of hardware work queues the judge's
// own CUDA context gets (CUDA_DEVICE_MAX_CONNECTIONS, set by the judge for itself before CUDA
// starts; cudalabs/remote/judge.hpp, narrow_own_cuda_queues). Such a judge's work is serial, and
// every queue is part of creating a context, which the driver does one process at a time: 16
// contexts at once took 1.2 s with one queue each against 3.2 s with the default eight (H100,
// bench/probes/cuda_start_probe.cu). The runners it starts keep the default: a student's streams
// must run side by side as they would anywhere. Set in labgrade's own environment, it is passed on
// as it is: CUDALABS_JUDGE_CUDA_QUEUES=default keeps CUDA's default for every process (the
// comparison a bench needs: setting CUDA_DEVICE_MAX_CONNECTIONS=8 for every process is not the
// default, 16 contexts at once took 5.1 s with it against 3.4 s without, H100 2026-12-07).
inline constexpr const char* kJudgeCudaQueuesVariable = "CUDALABS_JUDGE_CUDA_QUEUES";
// CUDA's own variable for the queues of a context; an operator who sets it sets it for every process.
inline constexpr const char* kCudaQueuesVariable = "CUDA_DEVICE_MAX_CONNECTIONS";
// "Suite.Name" as a file name: every byte outside [A-Za-z0-9._-] becomes '_'; the judge appends
// "~2", "~3" ... for a second, third log of the same test (a runner started after a crash).
inline std::string tool_log_name(std::string_view test) {
  std::string name(test);
  for (char& c : name) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
    if (!plain) c = '_';
  }
  return name;
}
// Exit status of a harness asked to confine itself whose kernel offers the means but refused.
inline constexpr int kConfinementFailedExitCode = 88;

// Exit status of a harness that stopped because the CUDA context is unusable (sticky error).
inline constexpr int kContextLostExitCode = 86;

// Exit status of a harness that stopped because a test kept device memory allocated after it
// ended, so the tests after it start in a fresh process with the whole GPU.
inline constexpr int kLeakedExitCode = 87;
// Exit status of a harness that stopped because a test's resident host memory went past the
// limit labgrade set (RLIMIT_DATA), so the tests after it start in a fresh process.
inline constexpr int kHostMemoryExitCode = 89;
// More device memory than this still allocated after a test (free memory at its end below free
// memory at its start) counts as a leak. Generous on purpose: a lab may keep a small scratch
// buffer between calls, and the runtime may load kernels (lazy loading) or keep a pool.
inline constexpr std::size_t kLeakLimitBytes = std::size_t{1} << 30;

// Installs the result-stream listener when CUDALABS_RESULT_FD is set; a no-op otherwise, so a
// harness run by hand behaves like any GoogleTest binary.
void install_result_stream_from_environment();

// Writes one event (a JSON object, serialised on one line) to the result stream; a no-op when the
// harness runs without one. Every event goes through here, from the listener and from suites.
void emit_result_event(const std::string& json_object);
bool result_stream_active();

// Before the first timed case of a run whose labgrade offered to take the GPU alone
// (kGpuAloneFdVariable), first take_gpu_alone_at_once: labgrade takes it if it can without waiting
// (true; also when there is nothing to ask for), else answers at once (false). Then, if that
// failed, wait_for_gpu_alone: sends the gpu_alone event for `test` and waits for labgrade's answer
// (or for the pipe to close). Both return at once once the GPU was granted, and when nothing was
// offered.
bool take_gpu_alone_at_once(const std::string& test);
void wait_for_gpu_alone(const std::string& test);

}  // namespace cudalabs
