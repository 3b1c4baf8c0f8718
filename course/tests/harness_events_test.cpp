// The harness-to-labgrade protocol: what the harness writes, labgrade reads back unchanged, and
// reading stays as forgiving (or as strict, for a measurement) as the protocol says.
#include <gtest/gtest.h>

#include "cudalabs/course/harness_events.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace cudalabs::events {
namespace {

nlohmann::json line_of(const std::string& line) { return nlohmann::json::parse(line); }

TEST(HarnessEvents, EachEventRoundTripsThroughItsLine) {
  const nlohmann::json end = line_of(to_line(TestEnd{"Suite.Test", "failed", 12.5, "a.cu:3: expected 1"}));
  EXPECT_EQ(name_of(end), "end");
  const auto read = end.get<TestEnd>();
  EXPECT_EQ(read.test, "Suite.Test");
  EXPECT_EQ(read.status, "failed");
  EXPECT_DOUBLE_EQ(read.ms, 12.5);
  EXPECT_EQ(read.message, "a.cu:3: expected 1");
  EXPECT_FALSE(read.trusted_runner_failed);
  EXPECT_FALSE(end.contains("trusted_runner_failed")) << "written only when true";
  TestEnd trusted_failed{"Suite.Test", "failed", 1, "m"};
  trusted_failed.trusted_runner_failed = true;
  EXPECT_TRUE(line_of(to_line(trusted_failed)).get<TestEnd>().trusted_runner_failed);

  const auto leaked = line_of(to_line(Leaked{"S.T", 3u << 30, 70u << 20, 10, 80u << 20})).get<Leaked>();
  EXPECT_EQ(leaked.bytes, std::uint64_t{3} << 30);
  EXPECT_EQ(leaked.free_after, 10u);

  EXPECT_EQ(line_of(to_line(Done{})), (nlohmann::json{{"event", "done"}}));

  const auto at_once = line_of(to_line(GpuAloneWanted{"Performance.x", true})).get<GpuAloneWanted>();
  EXPECT_EQ(at_once.test, "Performance.x");
  EXPECT_TRUE(at_once.at_once);
  EXPECT_FALSE(line_of(to_line(GpuAloneWanted{"Performance.x", false})).get<GpuAloneWanted>().at_once);
  EXPECT_FALSE((nlohmann::json{{"event", "gpu_alone"}, {"test", "P.x"}}.get<GpuAloneWanted>().at_once))
      << "without the field, labgrade waits for the GPU (the safe reading)";
}

// Seen on the H100: a case with no undisturbed round divided by a zero time, the event carried
// null for infinity, and the reader refused the whole event: the case's NOT SCORED vanished.
TEST(HarnessEvents, ANumberThatIsNotFiniteIsRefusedByNameWhenWritten) {
  Measurement measurement;
  measurement.test = "Performance.case";
  measurement.achieved_gbs = std::numeric_limits<double>::infinity();
  try {
    static_cast<void>(to_line(measurement));
    FAIL() << "an infinite figure was written";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'achieved_gbs'"), std::string::npos) << error.what();
  }
  measurement.achieved_gbs = 0;
  measurement.ratio.high = std::nan("");
  EXPECT_THROW(static_cast<void>(to_line(measurement)), std::invalid_argument);
  measurement.ratio.high = 0;
  EXPECT_EQ(line_of(to_line(measurement)).get<Measurement>().test, "Performance.case") << "all zeros is finite";
}

TEST(HarnessEvents, EnvironmentNamesTheDeviceOrTheReasonThereIsNone) {
  const nlohmann::json with = line_of(to_line(Environment{true, "NVIDIA H100", "", ""}));
  EXPECT_EQ(with, (nlohmann::json{{"event", "environment"}, {"cuda_device", true}, {"device", "NVIDIA H100"}}));
  const nlohmann::json without = line_of(to_line(Environment{false, "", "no CUDA device", ""}));
  EXPECT_EQ(without.get<Environment>().reason, "no CUDA device");
  EXPECT_FALSE(without.contains("device"));
}

// Why the harness's leak check could not count its own memory travels to labgrade (the report's
// timing.gpu_sharing); absent when it could.
TEST(HarnessEvents, EnvironmentSaysWhyTheLeakCheckUsesTheDevicesFreeMemory) {
  const nlohmann::json fallback =
      line_of(to_line(Environment{true, "NVIDIA H100", "", "NVML does not list this process (pid 7)"}));
  EXPECT_EQ(fallback["device_wide_memory"], "NVML does not list this process (pid 7)");
  EXPECT_EQ(fallback.get<Environment>().device_wide_memory_reason, "NVML does not list this process (pid 7)");
  const nlohmann::json own = line_of(to_line(Environment{true, "NVIDIA H100", "", ""}));
  EXPECT_FALSE(own.contains("device_wide_memory"));
  EXPECT_EQ(own.get<Environment>().device_wide_memory_reason, "");
}

TEST(HarnessEvents, MissingFieldsReadAsEmptyExceptInAMeasurement) {
  const auto end = nlohmann::json{{"event", "end"}, {"test", "S.T"}}.get<TestEnd>();
  EXPECT_EQ(end.status, "");
  EXPECT_DOUBLE_EQ(end.ms, 0);

  Measurement measurement;
  measurement.test = "Performance.x";
  measurement.ratio = {1.02, 1.0, 1.04, 20};
  measurement.clocks.note = "clock not offered";
  nlohmann::json json = line_of(to_line(measurement));
  const auto read = json.get<Measurement>();
  EXPECT_EQ(read.test, "Performance.x");
  EXPECT_DOUBLE_EQ(read.ratio.high, 1.04);
  EXPECT_EQ(read.ratio.samples, 20u);
  EXPECT_EQ(read.clocks.note, "clock not offered");
  json.erase("ratio");
  EXPECT_THROW(json.get<Measurement>(), nlohmann::json::exception);
}

TEST(HarnessEvents, TextThatIsNotUtf8IsReplacedNotRefused) {
  const std::string line = to_line(TestEnd{"S.T", "failed", 1, "bad \xff byte"});
  EXPECT_NE(line.find("\xEF\xBF\xBD"), std::string::npos);
}

}  // namespace
}  // namespace cudalabs::events
