#pragma once
// student:: and solution:: side by side. The API header has no include guard on purpose: it is
// included once per namespace, so both implementations coexist in one test binary.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "scan.cuh"
#undef LAB_IMPL
#define LAB_IMPL solution
#include "scan.cuh"
#undef LAB_IMPL

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
