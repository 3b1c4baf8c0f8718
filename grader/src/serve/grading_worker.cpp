#include "serve/grading_worker.hpp"

#include <chrono>

#include <fmt/format.h>

#include "batch/slurm_commands.hpp"
#include "model/exit_codes.hpp"
#include "serve/job_grading.hpp"

namespace labgrade::serve {

GradingWorker::GradingWorker(const CoursePaths& paths, ServiceStore& store, Log log, std::optional<SlurmGrading> slurm)
    : paths_(paths), store_(store), log_(std::move(log)), slurm_(std::move(slurm)), thread_([this] {
        if (slurm_) {
          run_through_slurm();
        } else {
          run();
        }
      }) {}

GradingWorker::~GradingWorker() { stop(); }

void GradingWorker::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wakeup_.notify_one();
}

void GradingWorker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeup_.notify_one();
  if (thread_.joinable()) thread_.join();
}

bool GradingWorker::wait_for_wakeup(double seconds) {
  std::unique_lock lock(mutex_);
  wakeup_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stopping_ || woken_; });
  woken_ = false;
  return !stopping_;
}

void GradingWorker::store_outcome(const Job& job, const JobOutcome& outcome) {
  try {
    store_.finish(job.id, outcome);
    log_(fmt::format("#{}: {} in {:.1f} s", job.id, outcome.status, outcome.grade_seconds));
  } catch (const std::exception& error) {
    // Left running: the next start queues it again.
    log_(fmt::format("#{}: cannot store the outcome: {}", job.id, error.what()));
  }
}

void GradingWorker::run() {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      woken_ = false;
    }
    std::optional<Job> job;
    try {
      job = store_.claim_next();
    } catch (const std::exception& error) {
      log_(fmt::format("cannot read the queue: {}", error.what()));
    }
    if (!job) {
      if (!wait_for_wakeup(2)) return;
      continue;
    }
    log_(fmt::format("grading #{} ({} of {}, {})", job->id, job->lab, job->student_id, job->mode));
    store_outcome(*job, grade_job(paths_, *job));
  }
}

// Jobs still on the cluster when the service stops stay there: the next start queues their
// submissions again, and SlurmGrading::start finds each job (or its outcome) instead of
// submitting it twice.
void GradingWorker::run_through_slurm() {
  std::vector<std::pair<Job, std::string>> on_cluster;  // and their Slurm job ids
  do {
    while (on_cluster.size() < slurm_->jobs_at_once()) {
      std::optional<Job> job;
      try {
        job = store_.claim_next();
      } catch (const std::exception& error) {
        log_(fmt::format("cannot read the queue: {}", error.what()));
      }
      if (!job) break;
      try {
        const std::string slurm_job = slurm_->start(*job);
        if (slurm_job.empty()) {
          store_outcome(*job, slurm_->collect(*job));
          continue;
        }
        log_(fmt::format("#{} ({} of {}, {}): Slurm job {}", job->id, job->lab, job->student_id, job->mode, slurm_job));
        on_cluster.emplace_back(*job, slurm_job);
      } catch (const std::exception& error) {
        store_outcome(*job, error_outcome(fmt::format("labgrade could not submit it to Slurm: {}", error.what()),
                                          kInternalExitCode));
      }
    }
    for (auto each = on_cluster.begin(); each != on_cluster.end();) {
      bool done = false;
      try {
        done = SlurmGrading::finished(each->second);
      } catch (const std::exception& error) {
        log_(fmt::format("cannot ask Slurm about job {}: {}", each->second, error.what()));
      }
      if (!done) {
        ++each;
        continue;
      }
      store_outcome(each->first, slurm_->collect(each->first));
      each = on_cluster.erase(each);
    }
  } while (wait_for_wakeup(on_cluster.empty() ? 2.0 : slurm::poll_seconds()));
}

}  // namespace labgrade::serve
