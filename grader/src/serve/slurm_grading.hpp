#pragma once
// `labgrade serve --slurm`: each queued submission is graded as a Slurm job rather than in the
// service's own process, for a course that outgrows one GPU machine. The job runs
// `labgrade serve --data DATA --grade-spooled ID` on a node: grade_job (job_grading.hpp), the same
// engine, confinement, GPU lock and reports as the local worker, writing the outcome beside the
// job in DATA/slurm/ID/ (so DATA must be on storage the nodes share). The service stores it as
// it stores a local grade. A restart resumes: a job already on the cluster is waited for and one
// already finished is collected, never graded twice.
#include <cstdint>
#include <filesystem>
#include <string>

#include "serve/service_store.hpp"
#include "session/grading_session.hpp"

namespace labgrade::serve {

struct SlurmSettings {
  bool enabled = false;
  std::string partition;   // sbatch --partition, when set
  std::string gres;        // sbatch --gres, e.g. gpu:1
  std::string time_limit;  // sbatch --time
  unsigned jobs_at_once = 4;
};

class SlurmGrading {
 public:
  SlurmGrading(const CoursePaths& paths, std::filesystem::path data, SlurmSettings settings);

  // Submits `job`, or finds it submitted before a restart; returns the Slurm job id, or "" when its
  // outcome is already there (collect it at once).
  std::string start(const Job& job) const;
  static bool finished(const std::string& slurm_job);  // it has left Slurm's queue
  unsigned jobs_at_once() const { return settings_.jobs_at_once; }
  // The outcome the job wrote, or an error outcome quoting the end of the job's log.
  JobOutcome collect(const Job& job) const;

 private:
  std::filesystem::path spool(const Job& job) const;

  CoursePaths paths_;
  std::filesystem::path data_;
  SlurmSettings settings_;
};

// The job's side, on the node: grades DATA/slurm/ID/job.json and writes outcome.json there.
int grade_spooled_job(const CoursePaths& paths, const std::filesystem::path& data, std::int64_t id);

}  // namespace labgrade::serve
