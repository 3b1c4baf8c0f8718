#pragma once
// SHA-256, for storing the service's tokens hashed (OpenSSL's libcrypto computes it). A token is
// 256 random bits, so one plain hash suffices (no salt or slow KDF: nothing to guess from a
// dictionary).
#include <string>
#include <string_view>

namespace labgrade::serve {

std::string sha256_hex(std::string_view bytes);  // 64 lowercase hex digits

}  // namespace labgrade::serve
