// Points in time as written in configuration and submission metadata: ISO 8601 with a time zone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudalabs::config {

// Seconds since 1970-01-01T00:00:00Z (fractions of a second dropped).
using UnixSeconds = std::int64_t;

// "2026-10-01T23:59:00Z", "2026-10-01 23:59-07:00", "2024-01-20 13:10:05.123456 -0800": a date,
// 'T' or a space, hours and minutes, optional seconds and fraction, then a zone that must be
// there (Z or an offset, optionally after a space), because a deadline without one means
// different instants on different machines. nullopt when the text is not such a time.
std::optional<UnixSeconds> parse_timestamp(std::string_view text);

// "2026-10-01T23:59:00Z".
std::string format_timestamp_utc(UnixSeconds seconds);

}  // namespace cudalabs::config
