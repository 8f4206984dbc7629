// The two renderings of `shardplan explain`: text (at most 100 columns) and JSON
// (schemas/explain.schema.json), from planner/advice/table_explanation.h's data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/names.h"
#include "planner/advice/table_explanation.h"

namespace shardplan {

// How `explain --format` shows the explanation.
enum class ExplainFormat { kText, kJson };

inline constexpr NameTable<ExplainFormat, 2> kExplainFormatNames{{
    {ExplainFormat::kText, "text", "readable, at most 100 columns"},
    {ExplainFormat::kJson, "json", "one JSON object (schemas/explain.schema.json)"},
}};

// {"schema": "shardplan.explain/v1", "plan_rating": x|null, "tables": [...]}.
nlohmann::json explanations_to_json(const std::vector<TableExplanation>& tables);

// One block per table: a header, then two or three lines per option.
std::string explanations_to_text(const std::vector<TableExplanation>& tables);

}  // namespace shardplan
