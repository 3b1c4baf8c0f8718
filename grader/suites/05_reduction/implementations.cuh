#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "reduction.cuh"
#include "cudalabs/student_and_solution.hpp"

#include "lab05_test_support.cuh"

static_assert(student::kReductionWorkspaceBytes == lab05::kWorkspaceBytes, "workspace size out of sync");
static_assert(solution::kReductionWorkspaceBytes == lab05::kWorkspaceBytes, "workspace size out of sync");
