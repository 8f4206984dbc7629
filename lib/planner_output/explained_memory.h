// The memory part of `shardplan explain` (with a plan): how full the ranks holding
// the explained table are, and the fullest rank of each kind, on the one basis of
// every output (planner/memory_basis.h) and in the words the plan summary, `show`
// and `diff` use ("X GiB on rank R of Y GiB usable (Z%)").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/advice/table_explanation.h"
#include "planner/memory_basis.h"

namespace shardplan {

// The ranks holding a shard of the chosen option of any of `tables`, ascending.
std::vector<int> explained_table_ranks(const std::vector<TableExplanation>& tables);

// "memory of the ranks holding T (GiB used/usable):", a line per rank (at most 8,
// then how many more), the "HBM max ..." and "DDR max ..." lines of the plan
// summary, and the basis. `memory` is per rank of the plan (rank_memory).
std::string explained_memory_text(const std::vector<TableExplanation>& tables, const std::vector<RankMemory>& memory);

// {"basis", "hbm_peak", "ddr_peak" (diff's peak objects: rank, used, usable,
// fraction; null without that capacity), "ranks": [{rank, hbm_used, hbm_usable,
// ddr_used, ddr_usable} per rank holding the table]}.
nlohmann::json explained_memory_json(const std::vector<TableExplanation>& tables,
                                     const std::vector<RankMemory>& memory);

}  // namespace shardplan
