#include "common/utf8.h"

namespace shardplan {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
    if (byte < 0x80)
      length = 1;
    else if (byte >= 0xC2 && byte <= 0xDF)
      length = 2;
    else if (byte == 0xE0)
      length = 3, low = 0xA0;
    else if (byte == 0xED)
      length = 3, high = 0x9F;  // no UTF-16 surrogates
    else if (byte >= 0xE1 && byte <= 0xEF)
      length = 3;
    else if (byte == 0xF0)
      length = 4, low = 0x90;
    else if (byte >= 0xF1 && byte <= 0xF3)
      length = 4;
    else if (byte == 0xF4)
      length = 4, high = 0x8F;  // nothing past U+10FFFF
    else
      return i;
    for (std::size_t k = 1; k < length; ++k) {
      if (i + k >= text.size()) return i;
      const auto next = static_cast<unsigned char>(text[i + k]);
      if (k == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xBF)) return i;
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace shardplan
