// Writing JSON text directly, byte for byte as nlohmann's dump(2) writes the same
// values, for the outputs too large to build as a tree first (the plan file of
// thousands of tables on a thousand ranks: tens of megabytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shardplan {

// `count` spaces.
inline void append_spaces(std::string& out, int count) { out.append(static_cast<std::size_t>(count), ' '); }

// An integer as nlohmann writes it.
void append_json_int(std::string& out, std::int64_t value);

// A double as nlohmann writes it: shortest round-trip digits (".0" on whole
// numbers), null for NaN and infinities.
void append_json_double(std::string& out, double value);

// A JSON string, quoted and escaped as nlohmann escapes it.
void append_json_string(std::string& out, std::string_view text);

// `"key": ` at `indent` spaces.
void append_json_key(std::string& out, int indent, std::string_view key);

// A two-field object of integers, `{"first": a, "second": b}`, opening where `out`
// ends and closing at `indent` spaces (a storage's hbm and ddr, in the order the
// output keeps them).
void append_json_int_pair(std::string& out, int indent, std::string_view first_key, std::int64_t first,
                          std::string_view second_key, std::int64_t second);

// Appends nlohmann's dump(2) of the value whose compact dump() is `compact`, as it
// reads `indent` spaces deep inside a larger dump(2) (lines after the first move
// right by `indent`). `compact` must be nlohmann's own compact output: then no
// value changes on the way (numbers and strings are copied as written).
void append_reindented_json(std::string& out, std::string_view compact, int indent);

}  // namespace shardplan
