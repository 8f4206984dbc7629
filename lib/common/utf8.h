// UTF-8 validation for names that end up in JSON output (which must be UTF-8).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace shardplan {

// The 0-based offset of the first byte of `text` that does not start or continue
// a well-formed UTF-8 sequence (overlong forms and surrogates included), or
// nullopt when the whole text is valid UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace shardplan
