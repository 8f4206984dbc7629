// Reading an a2a input file (JSON or YAML, docs/formats/a2a.md) into a
// checked A2aInput, with every problem reported as file:line:col: key.path: message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kjt/types.h"

namespace shardplan::kjt {

// Reads and checks `path` (a clean JSON file through the fast path, in one pass). Throws InputError listing structural
// problems (unknown keys, wrong types) in reading order, or else the spec's check failures (§6) in the spec's order.
A2aInput read_a2a_input(const std::string& path);

// The keys the input accepts in `section`: "" (top level), "dtypes" or "input" (one
// entry of inputs); the schema test keeps schemas/a2a-input.schema.json equal to them.
const std::vector<std::string>& a2a_input_keys(std::string_view section);

// Whether a JSON input may be read by the fast path (fast_json_reader.h); both
// paths give the same A2aInput, the positioned one is for tests that compare them.
enum class ReadPath { kFastWhenPossible, kPositionedOnly };

// The same for `text` as if it were the content of `file` (the extension picks JSON or YAML).
A2aInput parse_a2a_input(const std::string& file, std::string_view text, ReadPath path = ReadPath::kFastWhenPossible);

}  // namespace shardplan::kjt
