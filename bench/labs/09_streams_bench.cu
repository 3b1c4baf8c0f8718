// Lab 09 benchmark: the reference pipeline against the slowest of its stages, in one run on this
// GPU.
//
// On 2^25 floats (128 MiB each way, the timed size of config/labs/09_streams.yaml) in pinned host
// memory, with `rounds` chosen so that the transform alone takes 1.25x the copy in alone
// (labs/09_streams/pipeline_rounds.cuh): each stage is measured alone over the whole array (one
// cudaMemcpyAsync in, the transform, one cudaMemcpyAsync out), then each pipeline variant below,
// end to end over 4 streams, interleaved with the slowest stage, printing the paired ratio the
// YAML's max_ratio_to_slowest_stage threshold compares. The variants are how students write it:
// the reference (32 chunks round-robin), everything on one stream (the one_stream fixture), one
// chunk per stream (the few_chunks fixture), the serial version, and the serial version staged
// through pageable memory (what the handout warns about). Also the H2D and D2H copies at once on
// two streams, to show whether this machine's PCIe link keeps both directions' speed; where it
// does not, that is the slowest stage, as in the grader.
//
// Target (reference_targets): the reference pipeline at most 1.15x the slowest stage; exit 1 if
// not, 2 when a variant computes a wrong result or CUDA fails.
//
//   bench_09_streams [--json FILE]
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "bench_command_line.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "lab09_test_support.cuh"
#include "pipeline_rounds.cuh"
#include "streams.cuh"

namespace {

using nlohmann::json;
using namespace cudalabs::timing;

constexpr std::size_t kElements = std::size_t{1} << 25;
constexpr int kStreams = 4;
constexpr double kTargetRatio = 1.15;

struct Arrays {
  cudalabs::PinnedHostBuffer<float> host_in{kElements}, host_out{kElements};
  cudalabs::DeviceBuffer<float> dev_in{kElements}, dev_out{kElements};
  std::vector<float> pageable_in = std::vector<float>(kElements), pageable_out = std::vector<float>(kElements);
  std::size_t bytes = kElements * sizeof(float);
};

// --- Variants, as students write them --------------------------------------------------------------

// One chunk per stream: too few chunks to hide the pipeline's fill and drain.
cudaError_t few_chunks(Arrays& a, int rounds, const lab09::StreamSet& streams) {
  const std::size_t chunk = (kElements + streams.size() - 1) / streams.size();
  for (int c = 0; c < streams.size(); ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * chunk;
    const std::size_t count = std::min(chunk, kElements - begin);
    const std::size_t bytes = count * sizeof(float);
    CUDALABS_CHECK(cudaMemcpyAsync(a.dev_in.data() + begin, a.host_in.data() + begin, bytes, cudaMemcpyHostToDevice,
                                   streams[c]));
    CUDALABS_CHECK(solution::transform(a.dev_in.data() + begin, a.dev_out.data() + begin, count, rounds, streams[c]));
    CUDALABS_CHECK(cudaMemcpyAsync(a.host_out.data() + begin, a.dev_out.data() + begin, bytes, cudaMemcpyDeviceToHost,
                                   streams[c]));
  }
  return cudaSuccess;
}

// Serial, but through pageable buffers (a std::vector): the driver stages each copy through a
// pinned buffer of its own, synchronously for the host, so nothing can overlap.
cudaError_t pageable_serial(Arrays& a, int rounds, cudaStream_t stream) {
  std::memcpy(a.pageable_in.data(), a.host_in.data(), a.bytes);
  CUDALABS_CHECK(cudaMemcpyAsync(a.dev_in.data(), a.pageable_in.data(), a.bytes, cudaMemcpyHostToDevice, stream));
  CUDALABS_CHECK(solution::transform(a.dev_in.data(), a.dev_out.data(), kElements, rounds, stream));
  CUDALABS_CHECK(cudaMemcpyAsync(a.pageable_out.data(), a.dev_out.data(), a.bytes, cudaMemcpyDeviceToHost, stream));
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  std::memcpy(a.host_out.data(), a.pageable_out.data(), a.bytes);
  return cudaSuccess;
}

// --- Measurement ---------------------------------------------------------------------------------------

SamplingPolicy bench_policy() {
  SamplingPolicy policy;
  policy.warmup = 3;
  policy.min_samples = 15;
  policy.max_samples = 60;
  policy.target_relative_ci = 0.01;
  policy.time_budget_seconds = 4.0;
  return policy;
}

// Every output of the last run against the CPU's transform at 1 in 1021 places.
bool output_right(const Arrays& a, int rounds, const char* what) {
  for (std::size_t i = 0; i < kElements; i += 1021) {
    const float expected = lab09::cpu_signed_square_root(a.host_in[i], rounds);
    if (a.host_out[i] != expected) {
      std::fprintf(stderr, "%s: host_out[%zu] = %.9g, expected %.9g\n", what, i, a.host_out[i], expected);
      return false;
    }
  }
  return true;
}

int run(const std::string& json_path) {
  Arrays a;
  const lab09::StreamSet streams(kStreams);
  cudalabs::DeviceBuffer<float> input(kElements);
  cudalabs::fill_uniform_floats(input.data(), kElements, 909, lab09::kLow, lab09::kHigh);
  CUDALABS_CHECK(cudaMemcpy(a.host_in.data(), input.data(), a.bytes, cudaMemcpyDeviceToHost));
  const int rounds =
      lab09::rounds_for_kernel_share(&solution::transform, solution::kMaxRounds, a.host_in.data(), a.dev_in.data(),
                                     a.dev_out.data(), kElements);
  const SamplingPolicy policy = bench_policy();
  json report;
  report["elements"] = kElements;
  report["streams"] = kStreams;
  report["rounds"] = rounds;
  std::printf("2^25 floats (128 MiB each way), %d streams, rounds = %d (transform ~%.2fx the copy in)\n", kStreams,
              rounds, lab09::kKernelShare);

  // Each stage alone.
  const Launch copy_in = [&](cudaStream_t s) {
    CUDALABS_CHECK(cudaMemcpyAsync(a.dev_in.data(), a.host_in.data(), a.bytes, cudaMemcpyHostToDevice, s));
  };
  const Launch kernel = [&](cudaStream_t s) {
    CUDALABS_CHECK(solution::transform(a.dev_in.data(), a.dev_out.data(), kElements, rounds, s));
  };
  const Launch copy_out = [&](cudaStream_t s) {
    CUDALABS_CHECK(cudaMemcpyAsync(a.host_out.data(), a.dev_out.data(), a.bytes, cudaMemcpyDeviceToHost, s));
  };
  std::printf("\nStages alone over the whole array\n");
  json stages = json::object();
  Launch slowest;
  double slowest_ms = 0;
  for (const auto& [name, launch] : {std::pair<const char*, const Launch*>{"copy in", &copy_in},
                                     {"transform", &kernel},
                                     {"copy out", &copy_out}}) {
    const SampleSummary alone = measure_single(*launch, {}, policy);
    const bool copy = std::strcmp(name, "transform") != 0;
    std::printf("  %-10s %8.3f ms%s\n", name, alone.median,
                copy ? (" (" + std::to_string(static_cast<int>(a.bytes / alone.median / 1e6)) + " GB/s)").c_str() : "");
    stages[name] = {{"median_ms", alone.median}, {"samples", alone.samples}};
    if (alone.median > slowest_ms) {
      slowest_ms = alone.median;
      slowest = *launch;
    }
  }
  report["stages"] = stages;

  // Both copies at once, on two streams: does the link keep each direction's speed? A pipeline
  // runs them together, so where it does not, this is the slowest stage (as in the grader).
  lab09::CopiesBothWays both_copies(a.dev_in.data(), a.host_in.data(), a.host_out.data(), a.dev_out.data(),
                                          a.bytes, streams[1]);
  const Launch both = [&](cudaStream_t s) { both_copies.queue(s); };
  {
    const SampleSummary alone = measure_single(both, {}, policy);
    const double copy_in_ms = stages["copy in"]["median_ms"].get<double>();
    std::printf("  both copies at once: %.3f ms, %.3fx the copy in alone\n", alone.median, alone.median / copy_in_ms);
    report["both_copies_at_once"] = {{"median_ms", alone.median}, {"ratio_to_copy_in", alone.median / copy_in_ms}};
    if (alone.median > slowest_ms) {
      slowest_ms = alone.median;
      slowest = both;
      std::printf("  (slower than the transform: the copies, not the kernel, bound the pipeline on this host)\n");
    }
  }

  // The variants, end to end, against the slowest stage.
  std::printf("\nEnd to end, against the slowest stage alone (time / its time, paired)\n");
  json variants = json::object();
  bool all_right = true;
  double reference_ratio = 0;
  auto against_slowest = [&](const char* name, const Launch& launch, const char* note) {
    Workload work;
    work.student = always_succeeding(launch);
    work.solution = slowest;
    work.side_streams = streams.all();
    const PairedResult r = measure_interleaved(work, policy);
    CUDALABS_CHECK(cudaDeviceSynchronize());
    const bool right = output_right(a, rounds, name);
    all_right = all_right && right;
    std::printf("  %-16s %8.3f ms  %.3fx [%.3f, %.3f]  %s%s\n", name, r.student_ms.median, r.ratio.median,
                r.ratio.ci.low, r.ratio.ci.high, note, right ? "" : "  WRONG RESULT");
    variants[name] = {{"median_ms", r.student_ms.median},
                      {"ratio", r.ratio.median},
                      {"ratio_low", r.ratio.ci.low},
                      {"ratio_high", r.ratio.ci.high},
                      {"note", note}};
    return r.ratio.median;
  };
  reference_ratio = against_slowest(
      "reference", [&](cudaStream_t) {
        CUDALABS_CHECK(solution::process_pipelined(a.host_in.data(), a.host_out.data(), a.dev_in.data(),
                                                   a.dev_out.data(), kElements, rounds, streams.data(), kStreams));
      },
      "32 chunks round-robin over 4 streams");
  against_slowest(
      "one_stream", [&](cudaStream_t) {
        CUDALABS_CHECK(solution::process_pipelined(a.host_in.data(), a.host_out.data(), a.dev_in.data(),
                                                   a.dev_out.data(), kElements, rounds, streams.data(), 1));
      },
      "every chunk on streams[0] (one_stream fixture)");
  against_slowest(
      "few_chunks", [&](cudaStream_t) { CUDALABS_CHECK(few_chunks(a, rounds, streams)); },
      "one chunk per stream (few_chunks fixture)");
  against_slowest(
      "serial", [&](cudaStream_t) {
        CUDALABS_CHECK(solution::process_serial(a.host_in.data(), a.host_out.data(), a.dev_in.data(),
                                                a.dev_out.data(), kElements, rounds, streams[0]));
      },
      "process_serial: the sum of the stages");
  against_slowest(
      "pageable_serial", [&](cudaStream_t) { CUDALABS_CHECK(pageable_serial(a, rounds, streams[0])); },
      "serial through std::vector buffers");
  report["variants"] = variants;

  const bool met = reference_ratio <= kTargetRatio;
  report["target_met"] = met;
  std::printf("\nreference target (pipeline <= %.2fx the slowest stage): %s (%.3fx)\n", kTargetRatio,
              met ? "MET" : "MISSED", reference_ratio);
  if (!all_right) return 2;
  return cudalabs::bench::finish(report, json_path, met);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalabs::bench::run_with_command_line(argc, argv, "bench_09_streams", run);
}
