#include "run/trusted_events.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace labgrade {

std::string new_result_token() {
  std::uint8_t bytes[16];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("labgrade: the kernel's random source (getrandom) failed");
    filled += static_cast<std::size_t>(n);
  }
  std::string token;
  for (const std::uint8_t byte : bytes) token += fmt::format("{:02x}", byte);
  return token;
}

std::optional<nlohmann::json> trusted_event(const std::string& line, const std::string& token) {
  if (token.empty()) return std::nullopt;
  auto event = nlohmann::json::parse(line, nullptr, false);
  if (event.is_discarded() || !event.is_object() || !event.contains("event")) return std::nullopt;
  const auto found = event.find("token");
  if (found == event.end() || !found->is_string() || found->get<std::string>() != token) return std::nullopt;
  return event;
}

}  // namespace labgrade
