// Checks on an input's text before it is turned into a node tree: how many nodes
// it holds once YAML aliases are expanded, and that it holds one document.
#pragma once

#include <string>
#include <string_view>

namespace shardplan {

// Throws InputError at the alias (*name) that takes a YAML file past
// kMaxDocumentNodes nodes, at an alias inside the node it names (a cycle), or at
// the start of a second document ("---" after the first). Parse errors are left
// to the parser that follows.
void check_yaml_bounds(const std::string& file, std::string_view text);

// Throws InputError at the value that takes a JSON text past kMaxDocumentNodes
// values (counted from its separators, without parsing).
void check_json_bounds(const std::string& file, std::string_view text);

}  // namespace shardplan
