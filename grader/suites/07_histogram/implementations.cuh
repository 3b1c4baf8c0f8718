#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "histogram.cuh"
#include "cudalabs/student_and_solution.hpp"
