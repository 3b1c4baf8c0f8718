#pragma once
// Which lines of a harness's result stream labgrade believes. Student code shares the harness's
// process and can write to the stream too; a line counts only when it carries the random token
// labgrade gave that one process (see common/include/cudalabs/result_stream.hpp).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace labgrade {

// 32 hex digits from the kernel's random source; a new one for every harness process.
std::string new_result_token();

// The event when `line` is a JSON object with an "event" field and "token" equal to `token`;
// nullopt for anything else (forged, garbled, or cut off).
std::optional<nlohmann::json> trusted_event(const std::string& line, const std::string& token);

}  // namespace labgrade
