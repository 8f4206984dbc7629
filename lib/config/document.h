// Reading an input file into a YAML node tree (JSON is read by the same parser
// after a strict JSON syntax check, or without it when positions are not needed),
// with parse errors turned into InputError.
#pragma once

#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "common/error.h"

namespace shardplan {

// Deeper flow nesting than this is refused before parsing: no real input needs
// it and it keeps recursive parsers well away from the stack limit.
inline constexpr int kMaxNestingDepth = 64;

// A parsed input file: its root node and the file name used in messages.
struct Document {
  std::string file;
  YAML::Node root;
  bool has_positions = true;  // false: the nodes carry no Mark (JSON fast path)
};

// kOptional lets a JSON file skip yaml-cpp (see json_tree.h): about three times
// faster, but the nodes have no positions, so a reader that finds a problem
// must read the file again with kNeeded to report where it is.
enum class Positions { kNeeded, kOptional };

// 1-based line and column of the byte at `offset` (0-based) in `text`, which is `file`'s content.
SourcePos position_in_text(const std::string& file, std::string_view text, std::size_t offset);

// Reads and parses `path` (".json" = JSON, anything else YAML). Throws InputError
// when the file cannot be read, is empty, or is not well-formed.
Document read_document(const std::string& path, Positions positions = Positions::kNeeded);

// Parses `text` as if it were the content of `file` (the extension picks JSON or YAML).
Document parse_document(const std::string& file, std::string_view text,
                        Positions positions = Positions::kNeeded);

}  // namespace shardplan
