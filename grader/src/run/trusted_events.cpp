#include "run/trusted_events.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace labgrade {
namespace {

// `count` bytes from the kernel's random source, as hex digits.
std::string random_hex(std::size_t count) {
  std::uint8_t bytes[32];
  if (count > sizeof bytes) throw std::logic_error("random_hex: at most 32 bytes");
  std::size_t filled = 0;
  while (filled < count) {
    const ssize_t n = ::getrandom(bytes + filled, count - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("labgrade: the kernel's random source (getrandom) failed");
    filled += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (std::size_t i = 0; i < count; ++i) hex += fmt::format("{:02x}", bytes[i]);
  return hex;
}

}  // namespace

std::string new_result_token() { return random_hex(16); }

std::string new_timing_seed() { return "0x" + random_hex(8); }

std::optional<nlohmann::json> trusted_event(const std::string& line, const std::string& token) {
  if (token.empty()) return std::nullopt;
  auto event = nlohmann::json::parse(line, nullptr, false);
  if (event.is_discarded() || !event.is_object() || !event.contains("event")) return std::nullopt;
  const auto found = event.find("token");
  if (found == event.end() || !found->is_string() || found->get<std::string>() != token) return std::nullopt;
  return event;
}

}  // namespace labgrade
