#pragma once
// What the profile pass (`--profile`, or a lab whose YAML asks; run/profile_pass.hpp) found: each
// timed case's student kernels under Nsight Compute, beside the reference's in a grade, with the
// lab's hint where the student's figure is far off. Reported, never scored.
#include <optional>
#include <string>
#include <vector>

namespace labgrade {

// One figure of one case, as the lab's `profile:` names it.
struct ProfiledMetric {
  std::string name;   // "shared_load_bank_conflicts_per_request" or an ncu metric
  std::string label;  // what the report calls it
  std::string unit;   // "conflicts/request", "%"; "" when ncu gave none
  std::optional<double> student;    // nullopt: ncu did not report it (see `missing`)
  std::optional<double> reference;  // nullopt in a self-check, or when ncu did not report it
  std::string missing;  // why a figure is absent, e.g. "ncu reported no l1tex__... (n/a on this GPU)"
  std::string hint;     // the YAML's hint when its condition holds, else ""
  std::string hint_because;  // the condition that held: "31x the reference's", "above 4"
};

// The kernels ncu measured for one side of a case: names as ncu printed them, launch counts.
struct ProfiledKernel {
  std::string name;  // "student::transpose_coalesced_kernel", without its parameter list
  int launches = 0;
};

struct ProfiledCase {
  std::string test;  // "Performance.<case>" or "Preview.<name>"
  bool hidden = false;  // the case's visibility: a student's view shows no reference kernel names
  std::vector<ProfiledKernel> student_kernels;
  std::vector<ProfiledKernel> reference_kernels;  // empty in a self-check
  std::vector<ProfiledMetric> metrics;
  // Why the case has no figures, or only some: the test did not finish under the profiler, ncu
  // wrote no rows for it ("the call launched no kernel"). "" when all is well.
  std::string problem;
};

struct ProfileReport {
  // True when the pass ran; false with `unavailable` saying why in one line (no ncu, ncu not
  // permitted to read the performance counters, no GPU, no timed case).
  bool ran = false;
  std::string unavailable;
  std::string ncu;       // the Nsight Compute executable used
  bool with_reference = false;  // a grade: the reference's kernels were profiled too
  double seconds = 0;    // wall time of the whole pass
  std::vector<ProfiledCase> cases;
};

}  // namespace labgrade
