// Rendering a simulated all-to-all as the spec's output document (§5), moving every
// value and weight token from its source into its destination on the way.
#pragma once

#include <string>

#include "kjt/types.h"

namespace shardplan::kjt {

// Appends the output document for `input` and its simulation `result` to `out`
// (deterministic; one output KJT per line, one collective per line), plus a
// "rank_bytes" list: per rank, bytes sent and received over all collectives.
void append_output_json(const A2aInput& input, const A2aResult& result, std::string& out);

// Appends `text` as a JSON string literal (quoted, escaped).
void append_json_string(std::string_view text, std::string& out);

}  // namespace shardplan::kjt
