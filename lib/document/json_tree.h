// The one JSON reader: every JSON input and plan file is parsed by nlohmann's SAX
// parser (the whole of JSON: surrogate pairs, strings of any length, UTF-8 checked,
// non-finite numbers refused) into the node tree yaml-cpp would build of the same
// text (types, tags, key order), or into the compact JsonValueTree (plan files:
// the same events, a tenth of the memory), every node marked with its position. A key
// given twice in one object is an error with both positions. The bounds on depth and on the number of
// values are checked here too (limits.h), so no reader can skip them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "document/json_value_tree.h"

namespace shardplan {

struct JsonSyntaxError {
  std::size_t offset = 0;  // 0-based byte offset of the offending byte
  std::string message;     // "invalid JSON: " and nlohmann's explanation, the limit passed, or a duplicate key
  std::string key_path;    // where a duplicate key is ("" for the others)
};

// The first syntax error of `text`, or nullopt when it is well-formed JSON.
std::optional<JsonSyntaxError> check_json(std::string_view text);

// Parses `text` into `root` as YAML::Load would (quoted scalars tagged "!", plain
// ones "?", null untagged), every node's Mark at its first byte (0-based line,
// column in bytes). On a syntax error or a passed limit returns it and leaves
// `root` unspecified.
std::optional<JsonSyntaxError> build_json_tree(std::string_view text, YAML::Node& root);

// 1-based line and column (in bytes) of `offset` in `text`, the content of `file`.
SourcePos json_position(const std::string& file, std::string_view text, std::size_t offset);

// build_json_tree for the content of `file`, with the size limit checked first;
// throws InputError at the problem's position.
YAML::Node read_json_tree(const std::string& file, std::string_view text);

// The same parse into the compact JsonValueTree (json_value_tree.h): the same
// events, limits, duplicate-key errors and positions as build_json_tree, which
// builds yaml-cpp's tree instead. On an error `tree` is left empty.
std::optional<JsonSyntaxError> build_json_value_tree(std::string_view text, JsonValueTree& tree);
// build_json_value_tree for the content of `file`, as read_json_tree.
JsonValueTree read_json_value_tree(const std::string& file, std::string_view text);

}  // namespace shardplan
