#pragma once
// A batch on a Slurm cluster: the submissions still to grade are cut into chunks, one task of a
// job array per chunk; each task runs this same batch engine (`labgrade batch ... --only CHUNK
// --database SHARD`) on its node's GPU and writes its own database shard. labgrade waits for
// the job (squeue), merges the shards into the output folder's database, submits a new job for
// the submissions still missing (a failed node, a task killed at its time limit), and writes the
// gradebook and summary. Slurm is an external service: only its commands sbatch, squeue and
// sacct are run, found on PATH. Everything about the run is kept in OUT/slurm/state.json, so
// `labgrade batch --collect OUT` can finish it later.
#include <filesystem>
#include <ostream>
#include <string>

#include "batch_engine.hpp"

namespace labgrade::batch {

struct SlurmOptions {
  std::string partition;  // sbatch --partition; empty: the cluster's default
  std::string gres;       // sbatch --gres, e.g. gpu:1; empty: none
  std::string time_limit;  // sbatch --time; empty: the partition's default
  std::size_t chunk = 20;  // submissions per task
  bool wait = true;        // false (--no-wait): return once submitted; finish with --collect
  int max_attempts = 3;    // jobs in all, the first included, before missing submissions are given up
  bool leaderboard = false;
};

// Submits (and, with `wait`, finishes) a Slurm batch. Returns labgrade's exit code.
int slurm_batch(const CoursePaths& paths, const BatchRequest& request, const SlurmOptions& options, std::ostream& log);

// Finishes the Slurm batch whose output folder is `out`: waits for its job unless `wait` is
// false, merges, resubmits what is missing, writes the outputs. Returns labgrade's exit code.
int slurm_collect(const std::filesystem::path& out, bool wait, std::ostream& log);

}  // namespace labgrade::batch
