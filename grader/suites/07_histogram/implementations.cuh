#pragma once
// student:: and solution:: side by side. The API header has no include guard on purpose: it is
// included once per namespace, so both implementations coexist in one test binary.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "histogram.cuh"
#undef LAB_IMPL
#define LAB_IMPL solution
#include "histogram.cuh"
#undef LAB_IMPL
