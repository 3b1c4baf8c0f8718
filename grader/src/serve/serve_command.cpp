#include "serve/serve_command.hpp"

#include <cerrno>
#include <csignal>
#include <iostream>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <fmt/format.h>
#include <unistd.h>

#include "model/exit_codes.hpp"
#include "serve/grading_worker.hpp"
#include "serve/service_gradebook.hpp"
#include "serve/service_store.hpp"

namespace labgrade::serve {
namespace {

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int signal) {
  const unsigned char byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] const ssize_t ignored = ::write(g_signal_pipe[1], &byte, 1);
}

// SIGINT and SIGTERM written into a pipe, read by a thread that may then stop the server (a
// signal handler may not). Restores the default handlers at the end of the scope.
class StopSignals {
 public:
  StopSignals() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe for the signals");
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
  }
  ~StopSignals() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    ::close(g_signal_pipe[0]);
    ::close(g_signal_pipe[1]);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  // Blocks until a signal (true) or until the write end is written a 0 (false: finished otherwise).
  bool wait() {
    unsigned char byte = 0;
    for (;;) {
      const ssize_t n = ::read(g_signal_pipe[0], &byte, 1);
      if (n == 1) return byte != 0;
      if (n < 0 && errno == EINTR) continue;
      return false;
    }
  }
  void release() {
    const unsigned char zero = 0;
    [[maybe_unused]] const ssize_t ignored = ::write(g_signal_pipe[1], &zero, 1);
  }
};

// One service per data folder: a second would queue the first one's running grades again.
class DataFolderLock {
 public:
  explicit DataFolderLock(const std::filesystem::path& data) {
    std::filesystem::create_directories(data);
    const auto file = data / "serve.lock";
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      throw UsageError(fmt::format("another labgrade serve uses {} (it holds {}); stop it first", data.string(),
                                   file.string()));
    }
  }
  ~DataFolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DataFolderLock(const DataFolderLock&) = delete;
  DataFolderLock& operator=(const DataFolderLock&) = delete;

 private:
  int fd_ = -1;
};

void log_line(const std::string& line) {
  std::cout << "labgrade serve: " << line << std::endl;
}

}  // namespace

CLI::App* add_serve_command(CLI::App& app, ServeCommand& command) {
  auto* serve = app.add_subcommand(
      "serve", "Run the submission service: students upload with `labgrade submit --server`, each submission is "
               "queued in DATA/service.sqlite and graded here as `grade` or `check` grades it, one at a time");
  serve->add_option("--data", command.data, "Folder of the service's database and uploads (created)")
      ->required()
      ->type_name("DIR");
  serve->add_option("--listen", command.host, "Address to listen on (default 127.0.0.1; put TLS in front: README)")
      ->type_name("HOST");
  serve->add_option("--port", command.port, "Port (default 8642; 0: any free port, printed)")
      ->check(CLI::Range(0, 65535));
  serve->add_option("--max-upload-kib", command.max_upload_kib, "Largest upload accepted, KiB (default 1024)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--rate", command.limits.submissions_per_window,
                    "Submissions per student per --rate-window (default 20)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--rate-window", command.window_minutes, "The rate limit's window, minutes (default 60)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--request-timeout", command.limits.request_timeout_seconds,
                    "Seconds to read or write one request before the connection is dropped (default 30)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--gradebook", command.gradebook,
                    "Print this lab's gradebook from DATA as CSV (the last graded run of each student, the best, "
                    "the counts) and exit; the service may keep running")
      ->type_name("LAB");
  serve->add_flag("--slurm", command.slurm.enabled,
                  "Grade each submission as a Slurm job (sbatch) instead of on this machine; DATA must be on "
                  "storage the nodes share");
  serve->add_option("--partition", command.slurm.partition, "With --slurm: the partition (sbatch --partition)")
      ->type_name("NAME");
  serve->add_option("--gres", command.slurm.gres, "With --slurm: generic resources per job, e.g. gpu:1")
      ->type_name("SPEC");
  serve->add_option("--time-limit", command.slurm.time_limit, "With --slurm: each job's time limit (sbatch --time)")
      ->type_name("TIME");
  serve->add_option("--slurm-jobs", command.slurm.jobs_at_once,
                    "With --slurm: submissions on the cluster at once (default 4)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--grade-spooled", command.grade_spooled,
                    "Run by the Slurm jobs of --slurm: grade the submission spooled in DATA/slurm/ID and exit")
      ->type_name("ID")
      ->check(CLI::PositiveNumber);
  return serve;
}

int run_serve_command(const CoursePaths& paths, const ServeCommand& command) {
  ServiceLimits limits = command.limits;
  limits.max_upload_bytes = command.max_upload_kib * 1024;
  limits.window_seconds = std::max<std::int64_t>(1, static_cast<std::int64_t>(command.window_minutes * 60));
  const std::filesystem::path data = std::filesystem::absolute(command.data);
  if (command.grade_spooled > 0) return grade_spooled_job(paths, data, command.grade_spooled);
  const bool slurm_option_alone = !command.slurm.enabled && (!command.slurm.partition.empty() ||
                                                              !command.slurm.gres.empty() ||
                                                              !command.slurm.time_limit.empty());
  if (slurm_option_alone) throw UsageError("--partition, --gres and --time-limit go with --slurm");
  if (!command.gradebook.empty()) {
    if (!std::filesystem::exists(data / "service.sqlite")) {
      throw UsageError(fmt::format("{} holds no service database", data.string()));
    }
    write_service_gradebook(std::cout, ServiceStore(data), command.gradebook);
    return 0;
  }
  const DataFolderLock lock(data);
  ServiceStore store(data);
  if (const std::size_t requeued = store.requeue_interrupted()) {
    log_line(fmt::format("{} submissions were being graded when the service stopped: queued again", requeued));
  }
  StopSignals signals;
  GradingWorker worker(paths, store, log_line,
                       command.slurm.enabled ? std::optional<SlurmGrading>(std::in_place, paths, data, command.slurm)
                                             : std::nullopt);
  ServiceHttp http(paths, store, limits, [&worker] { worker.wake(); });
  const int port = http.bind(command.host, command.port);
  log_line(fmt::format("listening on http://{}:{} (data in {}, {} queued{})", command.host, port, data.string(),
                       store.queue_length(),
                       command.slurm.enabled ? fmt::format("; grading through Slurm, up to {} jobs at once",
                                                           command.slurm.jobs_at_once)
                                             : ""));
  std::thread stopper([&] {
    if (!signals.wait()) return;
    log_line("stopping: no new requests; the grade under way finishes first (a second signal ends at once)");
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    http.stop();
  });
  http.listen();
  signals.release();  // the stopper, when listen ended otherwise
  stopper.join();
  worker.stop();
  log_line("stopped");
  return 0;
}

}  // namespace labgrade::serve
