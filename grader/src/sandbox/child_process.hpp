#pragma once
// Runs one untrusted or long-running command in its own process group, with a wall-clock limit,
// a cap on the output kept, and an optional line channel (a pipe on a chosen file descriptor)
// whose every line restarts the clock. labgrade never runs student code in its own process.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/resource_limits.hpp"

namespace labgrade {

struct ProcessSpec {
  std::vector<std::string> argv;
  std::filesystem::path working_dir;
  std::vector<std::pair<std::string, std::string>> extra_env;
  // Wall-clock limit; with a result channel it is the limit *between* two lines on the channel.
  double timeout_seconds = 60;
  std::uint64_t max_output_bytes = 1 << 20;
  // When >= 0, the child gets the write end of a pipe on this descriptor (numbers 0-2 are refused).
  int result_fd = -1;
  std::string result_fd_env;  // environment variable that tells the child the descriptor number
  // When secret_fd >= 3, the child reads `secret` from a pipe on that descriptor (then end of
  // file). A pipe, not the environment, so that nothing started later can read it from there.
  std::string secret;
  int secret_fd = -1;
  std::string secret_fd_env;  // environment variable that tells the child the descriptor number
  // When reply_fd >= 3 (with result_fd), the child reads on that descriptor what the handler
  // answers to a line of the result channel (run_process's LineAnswerer).
  int reply_fd = -1;
  std::string reply_fd_env;
  ResourceLimits limits;      // core dumps are off unless limits.core_dumps
  // A run of student code (a test harness): labgrade becomes the subreaper of what it starts, and
  // whatever the run leaves outside its process group (a daemon) is ended with it
  // (sandbox/stray_processes.hpp). Not for trusted tools, some of which start daemons on purpose.
  bool end_strays = false;
  // Added to the child's nice value (0: as labgrade's). Work that may run while another grade is
  // timed (a batch's compilations) yields the CPUs to the timed processes.
  int nice = 0;
  // With a result channel and quiet_seconds > 0: called once, on run_process's thread, the first
  // time the channel has had no line for that long (a test that is likely hanging), long before
  // the time-out ends it.
  double quiet_seconds = 0;
  std::function<void()> on_quiet;
  // With a result channel and quiet_seconds > 0: end the child (its process group) once the
  // channel has been quiet that long (after on_quiet, if set), rather than at the time-out;
  // ProcessResult::ended_quiet then says so. A batch ends a likely hanging test there and runs it
  // again, with its whole time-out, once every grade's first part is done (session/stages.cpp).
  bool end_when_quiet = false;
};

struct ProcessResult {
  bool started = false;      // false when fork/exec failed; `output` says why
  bool exited = false;       // exited normally with `exit_code`
  int exit_code = -1;
  int signal = 0;            // the signal that ended it, when not `exited`
  bool timed_out = false;    // killed by us after the time limit
  bool ended_quiet = false;  // killed by us when the result channel went quiet (end_when_quiet)
  bool cpu_limit_exceeded = false;  // killed by the kernel at limits.cpu_seconds
  double cpu_seconds = 0;    // user + system time of the child (not of its descendants)
  std::uint64_t peak_resident_bytes = 0;  // the child's largest resident set (getrusage ru_maxrss)
  double wall_seconds = 0;
  std::string output;        // stdout and stderr interleaved, cut at max_output_bytes
  std::uint64_t output_bytes_dropped = 0;

  bool succeeded() const { return started && exited && exit_code == 0 && !timed_out; }
  std::string describe_end(double timeout_seconds) const;  // "exited with code 3", "killed by SIGSEGV (segmentation fault)", ...
};

using LineHandler = std::function<void(const std::string& line)>;
// Returns what to write back on the reply descriptor ("" for nothing). The clock between two lines
// starts again once it returns, so an answer that takes time (a lock) is not the child's delay.
// One that throws ends the child (its whole process group) before run_process rethrows.
using LineAnswerer = std::function<std::string(const std::string& line)>;

ProcessResult run_process(const ProcessSpec& spec, const LineHandler& on_result_line = {});
ProcessResult run_process(const ProcessSpec& spec, const LineAnswerer& answer);

std::string describe_signal(int signal);

// Quotes a command line for display (a report shows students how their code was compiled).
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace labgrade
