#include "planner/partitioners/greedy/torchrec_repr.h"

#include "common/python_format.h"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <span>

namespace shardplan {

std::string storage_repr(const Storage& storage) {
  return fmt::format("Storage(hbm={}, ddr={})", storage.hbm, storage.ddr);
}

std::string perf_repr(const Perf& perf) {
  return fmt::format("Perf(fwd_compute={}, fwd_comms={}, bwd_compute={}, bwd_comms={}, prefetch_compute={})",
                     python_repr(perf.fwd_compute), python_repr(perf.fwd_comms), python_repr(perf.bwd_compute),
                     python_repr(perf.bwd_comms), python_repr(perf.prefetch_compute));
}

namespace {

// Python's repr of a tuple of ints: "(1, 2)", "(1,)", "()".
std::string int_tuple_repr(std::span<const std::int64_t> values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  if (values.size() == 1) out += ",";
  return out + ")";
}

}  // namespace

std::string shard_str(const Shard& shard) {
  return fmt::format("Shard size: {}, offset: {}, storage: {}, perf: {}, rank: {}", int_tuple_repr(shard.size),
                     int_tuple_repr(shard.offset), shard.storage ? storage_repr(*shard.storage) : "None",
                     shard.perf ? perf_repr(*shard.perf) : "None", shard.rank ? std::to_string(*shard.rank) : "None");
}

}  // namespace shardplan
