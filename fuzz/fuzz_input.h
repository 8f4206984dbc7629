// Shared by the libFuzzer targets: how a fuzz input becomes an input file, and
// what counts as a finding. Every input must end in a typed result or an
// InputError; any other exception, a crash, a sanitizer report, a hang or
// unbounded memory is a finding (libFuzzer reports the last three through its
// -timeout and -rss_limit_mb options, set by scripts/fuzz).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardplan::fuzz {

// The first byte picks the syntax (even: YAML, odd: JSON), so one corpus feeds
// both readers; the rest is the file's text.
struct FuzzText {
  std::string file;  // "input.yaml" or "input.json"
  std::string_view text;
};

inline FuzzText split_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {"input.yaml", {}};
  return {(data[0] & 1) ? "input.json" : "input.yaml",
          std::string_view(reinterpret_cast<const char*>(data + 1), size - 1)};
}

}  // namespace shardplan::fuzz
