#include "serve/grading_worker.hpp"

#include <chrono>

#include <fmt/format.h>

#include "serve/job_grading.hpp"

namespace labgrade::serve {

GradingWorker::GradingWorker(const CoursePaths& paths, ServiceStore& store, Log log)
    : paths_(paths), store_(store), log_(std::move(log)), thread_([this] { run(); }) {}

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
      std::unique_lock lock(mutex_);
      wakeup_.wait_for(lock, std::chrono::seconds(2), [this] { return stopping_ || woken_; });
      continue;
    }
    log_(fmt::format("grading #{} ({} of {}, {})", job->id, job->lab, job->student_id, job->mode));
    const JobOutcome outcome = grade_job(paths_, *job);
    try {
      store_.finish(job->id, outcome);
      log_(fmt::format("#{}: {} in {:.1f} s", job->id, outcome.status, outcome.grade_seconds));
    } catch (const std::exception& error) {
      // Left running: the next start queues it again.
      log_(fmt::format("#{}: cannot store the outcome: {}", job->id, error.what()));
    }
  }
}

}  // namespace labgrade::serve
