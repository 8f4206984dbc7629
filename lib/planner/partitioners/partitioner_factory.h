// The partitioner name table: {name, description, factory}. Parsing, --help and
// "did you mean" read it; adding a partitioner means one row here and one file.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/partitioners/memory_balanced_partitioner.h"
#include "planner/types.h"

namespace shardplan {

using PartitionerFactory = std::unique_ptr<Partitioner> (*)(const PartitionerOptions&);

struct PartitionerEntry {
  std::string_view name;
  std::string_view description;
  PartitionerFactory factory;
};

inline constexpr std::array<PartitionerEntry, 2> kPartitioners{{
    {"greedy", "torchrec's GreedyPerfPartitioner (sort_by, balance_modules)",
     &make_greedy_perf_partitioner},
    {"memory_balanced",
     "torchrec's MemoryBalancedPartitioner: greedy by perf, then the lowest per-device HBM "
     "cap within `tolerance` of its perf (max_search_count, tolerance, balance_modules)",
     &make_memory_balanced_partitioner},
}};

// The partitioner named by options.type; throws InputError (with "did you mean")
// for an unknown name or bad options.
std::unique_ptr<Partitioner> make_partitioner(const PartitionerOptions& options);

// The names of kPartitioners, in table order.
std::vector<std::string> partitioner_names();

}  // namespace shardplan
