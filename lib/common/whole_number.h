// A whole decimal number written in full ("12", not "+12", "1e3" or "12 "), as
// sweep files and `--shard K/N` write them.
#pragma once

#include <charconv>
#include <cstddef>
#include <optional>
#include <string_view>

namespace shardplan {

inline std::optional<std::size_t> parse_whole_number(std::string_view text) {
  std::size_t value = 0;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace shardplan
