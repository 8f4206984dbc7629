#include "kjt/all_to_all.h"

namespace shardplan::kjt {

namespace {

// Sum of the lengths of each key on one source (torchrec's length_per_key).
std::vector<std::int64_t> length_per_key(const SourceKjt& source) {
  std::vector<std::int64_t> out;
  out.reserve(source.lengths.size());
  for (const auto& row : source.lengths) {
    std::int64_t sum = 0;
    for (std::int64_t l : row) sum += l;
    out.push_back(sum);
  }
  return out;
}

Collective square_collective(int phase, const char* name, Dtype dtype, std::size_t world_size) {
  Collective c;
  c.phase = phase;
  c.name = name;
  c.dtype = dtype;
  c.elements.assign(world_size, std::vector<std::int64_t>(world_size, 0));
  return c;
}

std::vector<Collective> collectives(const A2aInput& input, const std::vector<Destination>& destinations) {
  const std::size_t world = input.world_size();
  std::vector<Collective> out;
  // W = 1: torchrec returns the input KJT itself and issues no collective.
  if (world <= 1) return out;

  bool batch_sizes_differ = false;
  for (const auto& source : input.inputs)
    batch_sizes_differ |= source.batch_size() != input.inputs.front().batch_size();

  Collective lengths = square_collective(1, "lengths", input.dtypes.lengths, world);
  Collective values = square_collective(2, "values", input.dtypes.values, world);
  for (std::size_t s = 0; s < world; ++s) {
    const SourceKjt& source = input.inputs[s];
    std::vector<std::int64_t> per_key = length_per_key(source);
    for (const Destination& d : destinations) {
      lengths.elements[s][d.rank] = static_cast<std::int64_t>(d.num_keys * source.batch_size());
      std::int64_t lenvals = 0;
      for (std::size_t k = d.first_key; k < d.first_key + d.num_keys; ++k) lenvals += per_key[k];
      values.elements[s][d.rank] = lenvals;
    }
  }

  if (input.protocol == Protocol::kLengthsThenValues) {
    // torchrec v0.2's variable-batch path exchanges the batch sizes (int32) first;
    // we emit it only when they actually differ (docs/formats/a2a.md).
    if (batch_sizes_differ) {
      Collective batch_sizes = square_collective(0, "batch_sizes", Dtype::kInt32, world);
      for (auto& row : batch_sizes.elements) row.assign(world, 1);
      out.push_back(std::move(batch_sizes));
    }
  } else {
    // KJTAllToAllSplitsAwaitable: one int64 count per tensor label plus the stride.
    Collective splits = square_collective(1, "splits", Dtype::kInt64, world);
    for (auto& row : splits.elements) row.assign(world, 2 + (input.weighted() ? 1 : 0) + 1);
    out.push_back(std::move(splits));
    lengths.phase = 2;
  }
  out.push_back(std::move(lengths));
  if (input.weighted()) {
    Collective weights = values;
    weights.name = "weights";
    weights.dtype = input.dtypes.weights;
    out.push_back(std::move(values));
    out.push_back(std::move(weights));
  } else {
    out.push_back(std::move(values));
  }
  return out;
}

std::vector<RankBytes> rank_bytes(const std::vector<Collective>& collectives, std::size_t world_size) {
  std::vector<RankBytes> out(world_size);
  for (const Collective& c : collectives)
    for (std::size_t s = 0; s < world_size; ++s)
      for (std::size_t d = 0; d < world_size; ++d) {
        std::int64_t bytes = c.bytes(s, d);
        out[s].sent += bytes;
        out[d].received += bytes;
        if (s != d) {
          out[s].cross_rank_sent += bytes;
          out[d].cross_rank_received += bytes;
        }
      }
  return out;
}

}  // namespace

std::vector<std::size_t> source_order(std::size_t world_size, std::int64_t stagger) {
  const std::size_t s = static_cast<std::size_t>(stagger);
  const std::size_t groups = world_size / s;
  std::vector<std::size_t> order;
  order.reserve(world_size);
  for (std::size_t x = 0; x < groups; ++x)
    for (std::size_t y = 0; y < s; ++y) order.push_back(x + groups * y);
  return order;
}

std::vector<std::int64_t> recat_rows(std::size_t local_split, const std::vector<std::size_t>& order) {
  std::vector<std::int64_t> recat;
  recat.reserve(local_split * order.size());
  for (std::size_t k = 0; k < local_split; ++k)
    for (std::size_t source : order) recat.push_back(static_cast<std::int64_t>(source * local_split + k));
  return recat;
}

A2aResult simulate(const A2aInput& input) {
  A2aResult result;
  result.world_size = input.world_size();
  result.stagger = input.stagger;
  result.protocol = input.protocol;
  result.source_order = source_order(result.world_size, input.stagger);
  std::int64_t stride = 0;
  for (const auto& source : input.inputs) {
    result.stride_per_rank.push_back(static_cast<std::int64_t>(source.batch_size()));
    stride += result.stride_per_rank.back();
  }
  std::size_t first_key = 0;
  for (std::size_t d = 0; d < input.splits.size(); ++d) {
    Destination dest;
    dest.rank = d;
    dest.first_key = first_key;
    dest.num_keys = static_cast<std::size_t>(input.splits[d]);
    dest.stride = stride;
    // torchrec's _get_recat returns None for a destination without keys.
    if (dest.num_keys > 0) dest.recat = recat_rows(dest.num_keys, result.source_order);
    first_key += dest.num_keys;
    result.destinations.push_back(std::move(dest));
  }
  result.collectives = collectives(input, result.destinations);
  result.rank_bytes = rank_bytes(result.collectives, result.world_size);
  return result;
}

}  // namespace shardplan::kjt
