#pragma once
// From what Nsight Compute measured for one timed case (its student side, and its reference side
// in a grade) to the figures the lab's `profile:` names: each metric over all of the case's
// kernel launches, and the lab's hint where the student's figure is far off.
#include <vector>

#include "cudalabs/course/profile_spec.hpp"
#include "model/profile_result.hpp"
#include "run/ncu_csv.hpp"

namespace labgrade {

// The launches of the side's own code: a runner's own kernels (the empty kernel that answers a
// ping) and the harness's (input generators, checksums) are in namespace cudalabs and left out.
std::vector<const NcuLaunch*> code_launches(const NcuLog& log);

// Each kernel of `launches` by name (kernel_base_name), in first-launch order, with its count.
std::vector<ProfiledKernel> kernels_of(const std::vector<const NcuLaunch*>& launches);

// Each metric of `spec` (or the defaults) over `student`'s launches and, when given,
// `reference`'s. Counters (".sum") add up over launches; anything else (percentages, ratios) is
// the launches' mean weighted by their duration; a derived metric divides its sums. A figure ncu
// did not give is absent with the reason in `missing`.
std::vector<ProfiledMetric> profile_figures(const cudalabs::config::ProfileSpec& spec,
                                            const std::vector<const NcuLaunch*>& student, const NcuLog& student_log,
                                            const std::vector<const NcuLaunch*>* reference,
                                            const NcuLog* reference_log);

// Sets `metric.hint` and `hint_because` when one of the spec's conditions holds: with a reference
// figure (a grade), the student's over the reference's (a reference of 0 makes any student figure
// above 0 infinitely far: "the reference's is 0"); without one (a self-check), the student's
// figure alone.
void apply_hint(ProfiledMetric& metric, const cudalabs::config::ProfileMetricSpec& spec);

}  // namespace labgrade
