#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "scan.cuh"
#include "cudalabs/student_and_solution.hpp"

#include "lab06_test_support.cuh"

namespace lab06 {

inline const ScanApi kStudentInclusive{"inclusive_scan", &student::scan_workspace_bytes, &student::inclusive_scan,
                                       true};
inline const ScanApi kStudentExclusive{"exclusive_scan", &student::scan_workspace_bytes, &student::exclusive_scan,
                                       false};
inline const CompactApi kStudentCompact{"compact", &student::compact_workspace_bytes, &student::compact};

inline const ScanApi kSolutionInclusive{"solution::inclusive_scan", &solution::scan_workspace_bytes,
                                        &solution::inclusive_scan, true};
inline const ScanApi kSolutionExclusive{"solution::exclusive_scan", &solution::scan_workspace_bytes,
                                        &solution::exclusive_scan, false};
inline const CompactApi kSolutionCompact{"solution::compact", &solution::compact_workspace_bytes,
                                         &solution::compact};

}  // namespace lab06
