// Reading a plan file from a tree already parsed: yaml-cpp's (a YAML plan, or a
// JSON one through document.h's parse_document) or the compact JSON tree
// (parse_json_document: what read_plan_file reads a JSON plan into). One reader,
// the same checks and messages whichever tree.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "config/plan_file.h"
#include "document/json_value_tree.h"

namespace shardplan {

// read_plan_file's checks on `root`, the parsed content of `file`.
PlanFile read_plan_file_tree(const std::string& file, const YAML::Node& root);
PlanFile read_plan_file_tree(const std::string& file, const JsonNode& root);

}  // namespace shardplan
