// A fast path for large a2a inputs written as JSON: one pass over the text straight
// into the typed RawInput, with no node tree (a 10-million-value input would take
// gigabytes as YAML nodes). It only accepts what it can read exactly as the
// positioned reader would; anything else — a syntax error, an unknown or duplicate
// key, a wrong type, an escaped string, 1e3 written for an integer — makes it give
// up, and the caller reads the file again with positions to report the problem.
#pragma once

#include <optional>
#include <string_view>

#include "kjt/input_checks.h"

namespace shardplan::kjt {

// `text` read into a RawInput, or nullopt when the positioned reader must handle it.
// Value and weight tokens point into `text` (TokenList::push_back_in_place): the
// caller keeps it alive, in RawInput::source_text.
std::optional<RawInput> read_raw_json_fast(std::string_view text);

}  // namespace shardplan::kjt
