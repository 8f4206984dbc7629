// A YAML tree as JSON, for validating YAML inputs against the JSON Schemas in
// schemas/: quoted scalars stay strings; plain ones become null, booleans,
// integers or numbers where they read as such.
#pragma once

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace shardplan::testing {

nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace shardplan::testing
