// A fast path for large a2a inputs written as JSON: nlohmann's SAX events (the
// parser of the one JSON reader, document/json_tree.h) straight into the typed
// RawInput, with no node tree (a 10-million-value input would take gigabytes as
// YAML nodes). Syntax, escapes, surrogate pairs and UTF-8 are the parser's, so
// they are judged exactly as the positioned reader judges them; the layer on top
// only accepts what the positioned reader would read the same way. Anything else
// (a syntax error, an unknown or duplicate key, a wrong type, 1e3 written for an
// integer, an empty name) stops it, and the caller reads the text again with
// positions to report the problem.
#pragma once

#include <optional>
#include <string_view>

#include "kjt/input_checks.h"

namespace shardplan::kjt {

// `text` read into a RawInput, or nullopt when the positioned reader must handle it.
// Value and weight tokens are copied: the RawInput does not point into `text`.
std::optional<RawInput> read_raw_json_fast(std::string_view text);

}  // namespace shardplan::kjt
