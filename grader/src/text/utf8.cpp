#include "text/utf8.hpp"

namespace labgrade {
namespace {

std::size_t code_point_width(char32_t code) {
  const auto in = [code](char32_t first, char32_t last) { return code >= first && code <= last; };
  if (in(0x0300, 0x036F) || in(0x1AB0, 0x1AFF) || in(0x1DC0, 0x1DFF) || in(0x20D0, 0x20FF) || in(0xFE20, 0xFE2F) ||
      code == 0x200B || code == 0x200D) {
    return 0;  // combining marks, zero-width space and joiner
  }
  if (in(0x1100, 0x115F) || in(0x2E80, 0x303E) || in(0x3041, 0x33FF) || in(0x3400, 0x4DBF) || in(0x4E00, 0x9FFF) ||
      in(0xA000, 0xA4CF) || in(0xAC00, 0xD7A3) || in(0xF900, 0xFAFF) || in(0xFE30, 0xFE4F) || in(0xFF00, 0xFF60) ||
      in(0xFFE0, 0xFFE6) || in(0x1F300, 0x1F64F) || in(0x1F900, 0x1F9FF) || in(0x20000, 0x3FFFD)) {
    return 2;  // East Asian wide and full-width forms, emoji
  }
  return 1;
}

}  // namespace

std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  char32_t min = 0;
  if (lead < 0x80) {
    code = lead;
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, code = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code = lead & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    width += length ? code_point_width(code) : 1;
    i += length ? length : 1;
  }
  return width;
}

std::string fit_to_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width) return std::string(text) + std::string(width - display_width(text), ' ');
  if (width == 0) return "";
  // Whole characters up to width - 1 columns, then the ellipsis (one column).
  std::string out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    const std::size_t columns = length ? code_point_width(code) : 1;
    if (used + columns > width - 1) break;
    out.append(length ? std::string(text.substr(i, length)) : "\xEF\xBF\xBD");  // U+FFFD for a bad byte
    used += columns;
    i += length ? length : 1;
  }
  return out + "\xE2\x80\xA6" + std::string(width - 1 - used, ' ');  // U+2026 HORIZONTAL ELLIPSIS
}

}  // namespace labgrade
