// Simulating torchrec's KJTAllToAll (docs/formats/a2a.md): who owns which
// keys, the order sources are concatenated in, recat, and the collectives' element
// matrices. No value is moved here; the writer (output_json.h) walks the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kjt/types.h"

namespace shardplan::kjt {

// torchrec's feature_order in _get_recat: [x + (W/S)*y for x in 0..W/S-1 for y in 0..S-1].
std::vector<std::size_t> source_order(std::size_t world_size, std::int64_t stagger);

// torchrec's _get_recat row permutation for a destination owning `local_split` keys:
// recat[k*W + t] = source_order[t]*local_split + k; empty when local_split is 0.
std::vector<std::int64_t> recat_rows(std::size_t local_split, const std::vector<std::size_t>& order);

// The whole simulation of a checked input.
A2aResult simulate(const A2aInput& input);

}  // namespace shardplan::kjt
