#pragma once
// Internal to common: opening the result stream the harness writes to.
namespace cudalabs {

// Reads the descriptor from CUDALABS_RESULT_FD; false when the variable is unset or invalid.
bool open_result_stream_from_environment();

}  // namespace cudalabs
