// Readers for each section of the input format; each reports every problem it
// finds into the NodeReader and returns what it could read. The public API is
// loader.h; these exist so a case file can reuse the per-file readers.
#pragma once

#include <string>
#include <type_traits>

#include "config/config.h"
#include "document/node_reader.h"

namespace shardplan {

// A model description at `node` (key paths start with `path`). Every reader reads
// either tree: `Node` is YAML::Node (YAML input) or JsonNode (JSON input, the
// compact tree of document/json_value_tree.h); both give the same messages.
template <class Node>
ModelConfig read_model(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node, const std::string& path);
// A topology at `node`.
template <class Node>
TopologyConfig read_topology(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                             const std::string& path);
// Planner options at `node`.
template <class Node>
PlannerOptions read_planner(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& node,
                            const std::string& path);

// A one-file case at `root` (`file` becomes its source).
template <class Node>
PlanningInput read_case(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& root, const std::string& file);

// Reads `key` from `map` when present and hands the value node and its key path
// to `read`; absent keys are left alone (their defaults stay).
template <class Node, typename Read>
void with_field(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& map, const std::string& path,
                std::string_view key, Read&& read) {
  Node value = reader.field(map, path, key);
  if (value.IsDefined()) read(value, join_key(path, key));
}

// dst = *value when value holds one.
template <typename T, typename U>
void assign(T& dst, const std::optional<U>& value) {
  if (value) dst = *value;
}

}  // namespace shardplan
