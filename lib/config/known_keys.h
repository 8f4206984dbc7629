// The keys each section of an input file accepts. The loader rejects any other
// key with these; the JSON-schema test checks schemas/ against them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shardplan {

// Section names: "case", "model", "module", "table", "dense", "constraints"
// (one table's constraints), "cache_params", "topology", "custom", "planner",
// "partitioner", "storage_reservation".
std::vector<std::string> section_names();

// The keys accepted in `section`, in documentation order; empty for an unknown section.
const std::vector<std::string>& known_keys(std::string_view section);

}  // namespace shardplan
