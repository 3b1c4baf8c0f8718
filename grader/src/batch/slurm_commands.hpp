#pragma once
// What `labgrade batch --slurm` and `labgrade serve --slurm` both ask of Slurm: run its commands,
// how many of a job's tasks are still queued or running, how often to ask.
#include <string>
#include <vector>

#include "sandbox/child_process.hpp"

namespace labgrade::slurm {

// How often squeue is asked; LABGRADE_SLURM_POLL_SECONDS overrides it (the tests' fake cluster
// answers at once).
double poll_seconds();

// sbatch, squeue or sacct; throws when Slurm is not installed (the message says so).
ProcessResult run_command(const std::vector<std::string>& argv);

// The job's tasks still queued or running, per squeue; 0 once it has left the queue.
std::size_t tasks_in_queue(const std::string& job_id);

// The job id `sbatch --parsable` printed, or a clear error with its output.
std::string submitted_job_id(const ProcessResult& submitted);

// labgrade's own executable, which a job's script runs.
std::string self_executable();

// `text` quoted for sh.
std::string single_quoted(const std::string& text);

}  // namespace labgrade::slurm
