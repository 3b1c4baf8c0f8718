#pragma once
// Where a grade works: <temp>/labgrade-<lab>-p<pid>-<host>-XXXXXX (<host>: a hash of this
// machine's name), created empty and removed by the grade. The pid and the host let a later
// labgrade run on this machine tell the directories of a grade or batch that was killed before it
// could remove them (kill -9, the OOM killer, a Slurm task cut off), even where nodes share a
// temp directory, and remove them.
#include <filesystem>
#include <string>

namespace labgrade {

// A new, empty work directory for one grade of `lab`.
std::filesystem::path make_work_dir(const std::string& lab);

// Removes the work directories (as make_work_dir names them; batches of earlier versions named
// theirs with -b<pid>) in the temp directory that this user's labgrade processes on this machine
// left when they were killed: those whose process is gone. Any other folder is never touched.
void remove_stale_work_dirs();

}  // namespace labgrade
