// JSON input without yaml-cpp's scanner: nlohmann's SAX parser either only checks
// the syntax, or also builds the same YAML node tree yaml-cpp would (types, tags,
// key order, duplicate keys), minus source positions. Reading a 100-table case
// that way takes a third of the time YAML::Load does.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace shardplan {

struct JsonSyntaxError {
  std::size_t offset = 0;  // 0-based byte offset of the offending byte
  std::string message;     // nlohmann's explanation, without its prefix
};

// The first syntax error of `text`, or nullopt when it is well-formed JSON.
std::optional<JsonSyntaxError> check_json(std::string_view text);

// Parses `text` into `root` as YAML::Load would (quoted scalars tagged "!", plain
// ones "?", null untagged), but every node's Mark is null. On a syntax error
// returns it and leaves `root` unspecified.
std::optional<JsonSyntaxError> build_json_tree(std::string_view text, YAML::Node& root);

}  // namespace shardplan
