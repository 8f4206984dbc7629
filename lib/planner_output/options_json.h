// Renders sharding options (the enumerator's output) with the field names of the
// goldens' `options` entries, so our output and torchrec's compare with a few
// lines of script. Schema: schemas/enumerate.schema.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/names.h"
#include "planner/types.h"

namespace shardplan {

nlohmann::json perf_to_json(const Perf& perf, bool with_total);
nlohmann::json storage_to_json(const Storage& storage);
nlohmann::json option_to_json(const ShardingOption& option);

// How `enumerate --format` shows the options.
enum class OptionsFormat { kJson, kText };

inline constexpr NameTable<OptionsFormat, 2> kOptionsFormatNames{{
    {OptionsFormat::kJson, "json", "one JSON object (schemas/enumerate.schema.json)"},
    {OptionsFormat::kText, "text", "a readable table, one line per shard"},
}};

// {"schema": "shardplan.enumerate/v1", "num_options": N, "options": [...]}.
nlohmann::json options_to_json(const std::vector<ShardingOption>& options);

// A readable table: one line per shard, grouped by option.
std::string options_to_text(const std::vector<ShardingOption>& options);

}  // namespace shardplan
