#include "planner/bounds/capacity_proof.h"

#include <algorithm>
#include <map>
#include <string>

namespace shardplan {

std::optional<CapacityProof> capacity_proof(const std::vector<ShardingOption>& options, const Topology& reserved) {
  Storage capacity;
  for (const auto& device : reserved.devices) capacity += device.storage;
  std::map<std::string, std::vector<Storage>> by_table;
  for (const auto& option : options) by_table[option.fqn()].push_back(option.total_storage());
  // (hbm weight, ddr weight) pairs: HBM alone, DDR alone, both at one, then a
  // byte of HBM worth (DDR capacity / HBM capacity) x 4^k bytes of DDR.
  std::vector<std::pair<double, double>> weights{{1, 0}, {0, 1}, {1, 1}};
  if (capacity.hbm > 0 && capacity.ddr > 0) {
    const double ratio = static_cast<double>(capacity.ddr) / static_cast<double>(capacity.hbm);
    for (int k = -4; k <= 4; ++k) {
      double scale = ratio;
      for (int i = 0; i < (k < 0 ? -k : k); ++i) scale = k < 0 ? scale / 4 : scale * 4;
      weights.emplace_back(scale, 1);
    }
  }
  for (const auto& [a, b] : weights) {
    CapacityProof p{a, b, 0, a * static_cast<double>(capacity.hbm) + b * static_cast<double>(capacity.ddr)};
    for (const auto& [fqn, storages] : by_table) {
      double least = -1;
      for (const Storage& s : storages) {
        const double w = a * static_cast<double>(s.hbm) + b * static_cast<double>(s.ddr);
        if (least < 0 || w < least) least = w;
      }
      p.needed += std::max(least, 0.0);
    }
    if (p.needed > p.available) return p;  // the first, simplest weighting that proves it
  }
  return std::nullopt;
}

}  // namespace shardplan
