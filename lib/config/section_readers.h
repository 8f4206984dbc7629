// Readers for each section of the input format; each reports every problem it
// finds into the NodeReader and returns what it could read. The public API is
// loader.h; these exist so a case file can reuse the per-file readers.
#pragma once

#include <string>

#include "config/config.h"
#include "document/node_reader.h"

namespace shardplan {

// A model description at `node` (key paths start with `path`).
ModelConfig read_model(NodeReader& reader, const YAML::Node& node, const std::string& path);
// A topology at `node`.
TopologyConfig read_topology(NodeReader& reader, const YAML::Node& node, const std::string& path);
// Planner options at `node`.
PlannerOptions read_planner(NodeReader& reader, const YAML::Node& node, const std::string& path);

// Reads `key` from `map` when present and hands the value node and its key path
// to `read`; absent keys are left alone (their defaults stay).
template <typename Read>
void with_field(NodeReader& reader, const YAML::Node& map, const std::string& path, std::string_view key, Read&& read) {
  YAML::Node value = reader.field(map, path, key);
  if (value.IsDefined()) read(value, join_key(path, key));
}

// dst = *value when value holds one.
template <typename T, typename U>
void assign(T& dst, const std::optional<U>& value) {
  if (value) dst = *value;
}

}  // namespace shardplan
