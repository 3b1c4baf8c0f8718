#pragma once
// The service's grader: one thread that takes the oldest queued submission, grades it
// (job_grading.hpp) and stores the outcome. One grade at a time, so a timed grade has the GPU to
// itself (and the per-GPU lock of cudalabs/confinement.hpp keeps any other labgrade off it).
// With Slurm (slurm_grading.hpp) the thread keeps up to jobs_at_once submissions on the cluster
// and stores each outcome as its job ends.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "serve/service_store.hpp"
#include "serve/slurm_grading.hpp"
#include "session/grading_session.hpp"

namespace labgrade::serve {

class GradingWorker {
 public:
  using Log = std::function<void(const std::string&)>;
  GradingWorker(const CoursePaths& paths, ServiceStore& store, Log log, std::optional<SlurmGrading> slurm = {});
  ~GradingWorker();  // stops: the grade under way finishes and is stored first
  GradingWorker(const GradingWorker&) = delete;
  GradingWorker& operator=(const GradingWorker&) = delete;

  void wake();  // a submission was queued
  void stop();

 private:
  void run();
  void run_through_slurm();
  bool wait_for_wakeup(double seconds);  // false once stopping
  void store_outcome(const Job& job, const JobOutcome& outcome);

  CoursePaths paths_;
  ServiceStore& store_;
  Log log_;
  std::optional<SlurmGrading> slurm_;
  std::mutex mutex_;
  std::condition_variable wakeup_;
  bool stopping_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace labgrade::serve
