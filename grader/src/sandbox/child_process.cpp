#include "sandbox/child_process.hpp"
#include "sandbox/stray_processes.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <exception>

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace labgrade {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxResultLineBytes = 1 << 20;

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end = fds[0];
    write_end = fds[1];
    return true;
  }
  void close_read() { close_fd(read_end); }
  void close_write() { close_fd(write_end); }
  ~Pipe() {
    close_read();
    close_write();
  }
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// Above every descriptor number a spec may ask for, so that placing one pipe end cannot
// overwrite another that is still to be placed.
constexpr int kScratchFdFloor = 64;

[[noreturn]] void exec_child(const ProcessSpec& spec, Pipe& output, Pipe& results, Pipe& secret, Pipe& replies) {
  ::setpgid(0, 0);  // own process group: a timeout kills everything the code started
  ::dup2(output.write_end, STDOUT_FILENO);
  ::dup2(output.write_end, STDERR_FILENO);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  const int results_end = spec.result_fd >= 0 ? ::fcntl(results.write_end, F_DUPFD_CLOEXEC, kScratchFdFloor) : -1;
  const int secret_end = spec.secret_fd >= 0 ? ::fcntl(secret.read_end, F_DUPFD_CLOEXEC, kScratchFdFloor) : -1;
  const int replies_end = spec.reply_fd >= 0 ? ::fcntl(replies.read_end, F_DUPFD_CLOEXEC, kScratchFdFloor) : -1;
  if (spec.result_fd >= 0) {
    ::dup2(results_end, spec.result_fd);  // dup2 clears O_CLOEXEC on the new descriptor
    ::setenv(spec.result_fd_env.c_str(), std::to_string(spec.result_fd).c_str(), 1);
  }
  if (spec.secret_fd >= 0) {
    ::dup2(secret_end, spec.secret_fd);
    ::setenv(spec.secret_fd_env.c_str(), std::to_string(spec.secret_fd).c_str(), 1);
  }
  if (spec.reply_fd >= 0) {
    ::dup2(replies_end, spec.reply_fd);
    ::setenv(spec.reply_fd_env.c_str(), std::to_string(spec.reply_fd).c_str(), 1);
  }
  for (const auto& [name, value] : spec.extra_env) ::setenv(name.c_str(), value.c_str(), 1);
  if (!spec.working_dir.empty() && ::chdir(spec.working_dir.c_str()) != 0) {
    std::fprintf(stderr, "labgrade: cannot enter %s: %s\n", spec.working_dir.c_str(), std::strerror(errno));
    std::_Exit(127);
  }
  if (spec.nice > 0 && ::setpriority(PRIO_PROCESS, 0, ::getpriority(PRIO_PROCESS, 0) + spec.nice) != 0) {
    std::fprintf(stderr, "labgrade: cannot lower the priority of %s: %s\n", spec.argv.front().c_str(), std::strerror(errno));
    std::_Exit(127);
  }
  if (const char* failed = apply_resource_limits(spec.limits)) {
    std::fprintf(stderr, "labgrade: cannot limit %s: %s\n", failed, std::strerror(errno));
    std::_Exit(127);
  }
  // Descriptors another of labgrade's threads had open when this one forked (a harness being
  // copied into place for a neighbour's grade, say) must not reach the program: they would give
  // it another submission's files, and an open writer keeps that harness from running.
  ::close_range(STDERR_FILENO + 1, ~0U, CLOSE_RANGE_CLOEXEC);
  if (spec.result_fd >= 0) ::fcntl(spec.result_fd, F_SETFD, 0);
  if (spec.secret_fd >= 0) ::fcntl(spec.secret_fd, F_SETFD, 0);
  if (spec.reply_fd >= 0) ::fcntl(spec.reply_fd, F_SETFD, 0);
  std::vector<char*> argv;
  for (const auto& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // ETXTBSY: a child another thread forked while our program's file was still open for writing
  // holds that descriptor until it execs (microseconds); try again for up to a second.
  for (int attempt = 0; attempt < 100; ++attempt) {
    ::execvp(argv[0], argv.data());
    if (errno != ETXTBSY) break;
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
  std::fprintf(stderr, "labgrade: cannot run %s: %s\n", argv[0], std::strerror(errno));
  std::_Exit(127);
}

// Appends to `kept` up to the cap and counts the rest.
void keep_output(ProcessResult& result, const char* data, std::size_t size, std::uint64_t cap) {
  const std::size_t room = result.output.size() < cap ? cap - result.output.size() : 0;
  const std::size_t taken = std::min(room, size);
  result.output.append(data, taken);
  result.output_bytes_dropped += size - taken;
}

// Writes the whole secret into the pipe now: it is small, so the pipe's buffer holds it.
bool fill_secret(Pipe& secret, const std::string& text) {
  if (text.size() > 4096) return false;
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(secret.write_end, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

bool valid_fds(const ProcessSpec& spec) {
  const auto ok = [](int fd) { return fd < 0 || (fd > 2 && fd < kScratchFdFloor); };
  const auto distinct = [](int a, int b) { return a < 0 || a != b; };
  return ok(spec.result_fd) && ok(spec.secret_fd) && ok(spec.reply_fd) && distinct(spec.result_fd, spec.secret_fd) &&
         distinct(spec.reply_fd, spec.result_fd) && distinct(spec.reply_fd, spec.secret_fd) &&
         (spec.reply_fd < 0 || spec.result_fd >= 0);
}

// The whole answer, or as much as the child still reads. A child that has exited is no error
// here, and must not end labgrade: SIGPIPE is blocked in this thread for the write, and one it
// raised is taken back before the mask is restored.
void send_answer(int fd, const std::string& text) {
  if (fd < 0) return;
  sigset_t pipe_signal, previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  bool broken = false;
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken = n < 0 && errno == EPIPE;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  if (broken) {
    const timespec now{0, 0};
    while (::sigtimedwait(&pipe_signal, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec, const LineHandler& on_result_line) {
  if (!on_result_line) return run_process(spec, LineAnswerer{});
  return run_process(spec, LineAnswerer([&](const std::string& line) {
                       on_result_line(line);
                       return std::string();
                     }));
}

ProcessResult run_process(const ProcessSpec& spec, const LineAnswerer& answer) {
  ProcessResult result;
  Pipe output, results, secret, replies;
  if (spec.argv.empty() || !valid_fds(spec) || !output.open() || (spec.result_fd >= 0 && !results.open()) ||
      (spec.secret_fd >= 0 && (!secret.open() || !fill_secret(secret, spec.secret))) ||
      (spec.reply_fd >= 0 && !replies.open())) {
    result.output = "labgrade: could not set up the child process (empty command, bad descriptor or no pipes)";
    return result;
  }
  const auto start = Clock::now();
  if (spec.end_strays) become_subreaper();  // what the run leaves outside its group becomes ours
  LiveRuns::begin_fork();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(spec, output, results, secret, replies);
  if (pid > 0) ::setpgid(pid, pid);  // also here, so the group exists before we might need to kill it
  LiveRuns::end_fork(pid);
  if (pid < 0) {
    result.output = fmt::format("labgrade: fork failed: {}", std::strerror(errno));
    return result;
  }
  result.started = true;
  output.close_write();
  results.close_write();
  secret.close_write();  // the child reads the secret, then end of file
  secret.close_read();
  replies.close_read();  // the child's end; ours stays open for the answers
  rusage usage{};

  auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(spec.timeout_seconds));
  const bool watch_quiet = (spec.on_quiet || spec.end_when_quiet) && spec.quiet_seconds > 0 && spec.result_fd >= 0;
  const auto quiet_for = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.quiet_seconds));
  auto last_line = start;
  bool said_quiet = false;
  std::string pending_line;
  int status = 0;
  bool reaped = false;
  std::exception_ptr failed_answer;  // what the answerer threw
  char buffer[65536];
  while (!reaped) {
    pollfd fds[2];
    nfds_t count = 0;
    if (output.read_end >= 0) fds[count++] = {output.read_end, POLLIN, 0};
    if (results.read_end >= 0) fds[count++] = {results.read_end, POLLIN, 0};
    ::poll(fds, count, 20);
    for (nfds_t i = 0; i < count; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      const bool is_output = fds[i].fd == output.read_end;
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        is_output ? output.close_read() : results.close_read();
        continue;
      }
      if (is_output) {
        keep_output(result, buffer, static_cast<std::size_t>(n), spec.max_output_bytes);
        continue;
      }
      pending_line.append(buffer, static_cast<std::size_t>(n));
      for (std::size_t newline; (newline = pending_line.find('\n')) != std::string::npos;) {
        const std::string line = pending_line.substr(0, newline);
        pending_line.erase(0, newline + 1);
        if (answer) {
          std::string reply;
          try {
            reply = answer(line);
          } catch (...) {
            failed_answer = std::current_exception();
            break;
          }
          if (!reply.empty()) send_answer(replies.write_end, reply);
        }
        deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(spec.timeout_seconds));
        last_line = Clock::now();
      }
      if (failed_answer) break;
      // A line this long is not one the harness wrote; do not let it eat our memory.
      if (pending_line.size() > kMaxResultLineBytes) pending_line.clear();
    }
    if (watch_quiet && !said_quiet && !failed_answer && Clock::now() - last_line > quiet_for) {
      said_quiet = true;
      if (spec.on_quiet) spec.on_quiet();
      if (spec.end_when_quiet) {
        if (::wait4(pid, &status, WNOHANG, &usage) != pid) {  // still running: end it here
          result.ended_quiet = true;
          ::kill(-pid, SIGKILL);
          ::wait4(pid, &status, 0, &usage);
        }
        reaped = true;
        continue;
      }
    }
    // An answer that could not be given ends the child as a time-out does, and everything it
    // started with it (below), before the caller hears why: nothing is left running unsupervised.
    if (!failed_answer && ::wait4(pid, &status, WNOHANG, &usage) == pid) {
      reaped = true;
    } else if (failed_answer || Clock::now() > deadline) {
      result.timed_out = !failed_answer;
      ::kill(-pid, SIGKILL);
      ::wait4(pid, &status, 0, &usage);
      reaped = true;
    }
  }
  // Whatever the child left behind (a forked helper, a sleeping grandchild) goes with it; for a
  // run of student code, what left the group (a daemon in a session of its own) too.
  ::kill(-pid, SIGKILL);
  LiveRuns::finished(pid);
  if (spec.end_strays) kill_stray_processes();
  if (failed_answer) std::rethrow_exception(failed_answer);
  // Drain what is already buffered, without waiting on descendants that may hold the pipes.
  for (Pipe* pipe : {&output, &results}) {
    if (pipe->read_end < 0) continue;
    ::fcntl(pipe->read_end, F_SETFL, O_NONBLOCK);
    for (ssize_t n; (n = ::read(pipe->read_end, buffer, sizeof buffer)) > 0;) {
      if (pipe == &output) {
        keep_output(result, buffer, static_cast<std::size_t>(n), spec.max_output_bytes);
      } else {
        pending_line.append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
  // Complete lines only: a cut-off last line is not a result.
  std::size_t begin = 0;
  for (std::size_t newline; (newline = pending_line.find('\n', begin)) != std::string::npos; begin = newline + 1) {
    if (answer) static_cast<void>(answer(pending_line.substr(begin, newline - begin)));  // the child is gone
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  result.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  result.peak_resident_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // reported in KiB
  // SIGKILL from the kernel at the hard CPU limit (soft + 1 s) when SIGXCPU was caught or ignored.
  result.cpu_limit_exceeded = spec.limits.cpu_seconds > 0 && !result.timed_out &&
                              (result.signal == SIGXCPU ||
                               (result.signal == SIGKILL && result.cpu_seconds >= spec.limits.cpu_seconds));
  return result;
}

std::string describe_signal(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  const char* description = sigdescr_np(signal);
  return fmt::format("SIG{} ({})", abbreviation ? abbreviation : std::to_string(signal).c_str(),
                     description ? description : "unknown signal");
}

std::string ProcessResult::describe_end(double timeout_seconds) const {
  if (!started) return output;
  if (timed_out) return fmt::format("timed out after {:g} s and was killed", timeout_seconds);
  if (exited) return fmt::format("exited with code {}", exit_code);
  if (cpu_limit_exceeded) {
    return fmt::format("killed by {} after {:.0f} s of CPU time: it used more CPU time than the course allows",
                       describe_signal(signal), cpu_seconds);
  }
  const std::string hint = limit_hint(signal);
  return "killed by " + describe_signal(signal) + (hint.empty() ? "" : ": " + hint);
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      line += arg;
    } else {
      line += '\'';
      for (char c : arg) line += (c == '\'') ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
  }
  return line;
}

}  // namespace labgrade
