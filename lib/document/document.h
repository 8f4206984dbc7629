// Reading an input file into a YAML node tree (JSON by the one JSON reader of
// json_tree.h, YAML by yaml-cpp), with parse errors turned into InputError.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "document/json_value_tree.h"
#include "document/limits.h"

namespace shardplan {

// A parsed input file: its root node and the file name used in messages.
struct Document {
  std::string file;
  YAML::Node root;
  bool has_positions = true;  // always: both parsers keep every node's position
};

// Kept for callers written when JSON had a reader without positions: both values
// now give positions (the one JSON reader is as fast as that one was).
enum class Positions { kNeeded, kOptional };

// 1-based line and column of the byte at `offset` (0-based) in `text`, which is `file`'s content.
SourcePos position_in_text(const std::string& file, std::string_view text, std::size_t offset);

// Reads and parses `path` (".json" = JSON, anything else YAML; "-" = stdin, named
// "<stdin>", JSON when it starts with '{' or '['). Throws InputError when the file
// cannot be read, is too large (checked before reading), is empty, or is not well-formed.
Document read_document(const std::string& path, Positions positions = Positions::kNeeded);

// Parses `text` as if it were the content of `file` (the extension picks JSON or YAML).
Document parse_document(const std::string& file, std::string_view text, Positions positions = Positions::kNeeded);

// A JSON input read into the compact tree (json_value_tree.h), for readers of
// large inputs (plan files) written against BasicNodeReader<JsonNode>.
struct JsonDocument {
  std::string file;
  JsonValueTree tree;
  JsonNode root() const { return tree.root(); }
};

// parse_document's JSON branch into the compact tree: the same checks in the same
// order (size, nesting, value count, syntax, empty), so the same messages. `text`
// must be JSON by is_json_input (input_text.h).
JsonDocument parse_json_document(const std::string& file, std::string_view text);

}  // namespace shardplan
