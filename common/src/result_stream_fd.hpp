#pragma once
// Internal to common: opening the result stream the harness writes to.
namespace cudalabs {

// True when the stream is open: set up before main by set_trusted_result_channel, or else read
// from CUDALABS_RESULT_FD; false when there is none.
bool open_result_stream_from_environment();

// Called by the harness's preinit function, before any constructor runs: the stream's descriptor
// and the token every line must carry ("" for none). Uses no dynamic initialisation.
void set_trusted_result_channel(int fd, const char* token) noexcept;

// Called by the same preinit function: the descriptor on which labgrade answers gpu_alone
// (kGpuAloneFdVariable), already close-on-exec, so no runner the judge starts inherits it.
void set_gpu_alone_channel(int fd) noexcept;

}  // namespace cudalabs
