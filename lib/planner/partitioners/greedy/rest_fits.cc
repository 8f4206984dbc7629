#include "planner/partitioners/greedy/rest_fits.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace shardplan {
namespace {

// Relative room left for rounding: every sum below adds at most a few million
// non-negative doubles, each addition within 2^-53 of exact, so the computed sums
// are within 1e-9 of the exact ones; asking 1e-6 more keeps the proof exact.
constexpr double kRestFitsMargin = 1e-6;

Storage largest_of(const Storage& a, const Storage& b) { return {std::max(a.hbm, b.hbm), std::max(a.ddr, b.ddr)}; }

// Whether units (devices or hosts) whose slacks are listed by `for_each_unit` outlast
// `bytes` bytes of HBM and DDR: whether some unit surely stays good (see the header).
// With x = HBM slack / HBM bytes and y = the same for DDR, the bytes spoil a set A of
// units through HBM only if the sum of x over A is below 1, and a set B through DDR
// only if the sum of y over B is below 1. The most x the DDR bytes can take off is
// at most the fractional knapsack's (units by x / y, most first, y up to 1), so the
// units outlast the bytes when the sum of x less that is still 1 or more. A unit
// whose x is 1 or more is never in A, nor one whose y is 1 or more in B: those are
// placed first, exactly.
template <typename ForEachUnit>
bool units_outlast(const RestDemand::Bytes& bytes, std::vector<std::pair<double, double>>& units,
                   ForEachUnit&& for_each_unit) {
  units.clear();
  for_each_unit([&](const Storage& slack) {
    units.emplace_back(static_cast<double>(slack.hbm), static_cast<double>(slack.ddr));
  });
  if (units.empty()) return false;
  const bool hbm_spoils = bytes.hbm > 0, ddr_spoils = bytes.ddr > 0;
  if (!hbm_spoils && !ddr_spoils) return true;
  // One kind spoiling: the slacks of that kind must add up to its bytes.
  if (!ddr_spoils || !hbm_spoils) {
    double sum = 0;
    for (const auto& [hbm, ddr] : units) sum += hbm_spoils ? hbm : ddr;
    return sum >= (hbm_spoils ? bytes.hbm : bytes.ddr) * (1 + kRestFitsMargin);
  }
  // A unit with x (or y) of 1 or more cannot be spoiled through HBM (DDR): it is in
  // B (A) in every way of spoiling them all.
  constexpr double kWhole = 1 + kRestFitsMargin;
  double least_sum = 0, forced_x = 0, forced_y = 0;
  for (auto& [x, y] : units) {
    x /= bytes.hbm;
    y /= bytes.ddr;
    if (x >= kWhole && y >= kWhole) return true;  // no byte spoils it
    least_sum += std::min(x, y);
    if (y >= kWhole) forced_x += x;
    if (x >= kWhole) forced_y += y;
  }
  // Enough without the knapsack: the x of the units not spoiled through DDR add up to
  // at least 2 less the y of those that are, which are below 1 together.
  if (least_sum >= 2 * kWhole || forced_x >= kWhole || forced_y >= kWhole) return true;
  // Not even every unit's x together reaches 1: no need to weigh them.
  double x_sum = 0;
  for (const auto& unit : units) x_sum += unit.first;
  if (x_sum < kWhole) return false;
  // The others: a unit without slack adds nothing either way (and would tie with
  // every other in the sort).
  units.erase(std::remove_if(units.begin(), units.end(),
                             [](const auto& u) {
                               return u.first >= kWhole || u.second >= kWhole || (u.first == 0 && u.second == 0);
                             }),
              units.end());
  std::sort(units.begin(), units.end(), [](const auto& a, const auto& b) {
    // x_a / y_a > x_b / y_b without dividing (y may be 0: such a unit costs DDR nothing)
    return a.first * b.second > b.first * a.second;
  });
  double budget = 1 - forced_y, x_left = forced_x;
  for (const auto& [x, y] : units) {
    if (y <= budget) {
      budget -= y;
    } else {
      x_left += x * (1 - budget / y);
      budget = 0;
    }
  }
  return x_left >= 1 + kRestFitsMargin * (1 + least_sum + forced_x + forced_y);
}

}  // namespace

namespace {
// Adds option `b` to `demand`.
void add_to_demand(const PartitionOptionBrief& b, int devices_per_host, RestDemand& demand) {
  Storage largest{0, 0};
  for (const PlacementRun& run : b.shard_runs()) {
    if (run.storage.hbm < 0 || run.storage.ddr < 0) demand.covered = false;
    largest = largest_of(largest, run.storage);
  }
  if (b.total_storage.hbm < 0 || b.total_storage.ddr < 0) demand.covered = false;
  const RestDemand::Bytes bytes{static_cast<double>(b.total_storage.hbm), static_cast<double>(b.total_storage.ddr)};
  switch (b.partition_by) {
    case PartitionBy::kDevice:
      demand.any_device = true;
      demand.device_bytes.hbm += bytes.hbm;
      demand.device_bytes.ddr += bytes.ddr;
      demand.device_largest = largest_of(demand.device_largest, largest);
      break;
    case PartitionBy::kHost: {
      demand.any_host = true;
      demand.host_bytes.hbm += bytes.hbm;
      demand.host_bytes.ddr += bytes.ddr;
      Storage per_device = largest;  // table_row_wise: shard k on device k of the host
      if (b.sharding_type == ShardingType::kTableColumnWise)
        per_device = b.total_storage;  // its shards may pile up on one device
      else if (b.sharding_type != ShardingType::kTableRowWise || b.num_shards != devices_per_host)
        demand.covered = false;
      demand.host_per_device.hbm += static_cast<double>(per_device.hbm);
      demand.host_per_device.ddr += static_cast<double>(per_device.ddr);
      demand.host_largest = largest_of(demand.host_largest, per_device);
      break;
    }
    case PartitionBy::kMultiHost:
    case PartitionBy::kUniform:
      demand.covered = false;
      break;
  }
}
}  // namespace

RestDemand rest_demand(std::span<const int> rest, std::span<const PartitionOptionBrief* const> briefs,
                       int devices_per_host) {
  RestDemand demand;
  for (int index : rest) add_to_demand(*briefs[static_cast<std::size_t>(index)], devices_per_host, demand);
  return demand;
}

void rest_demands_from(std::span<const int> order, std::span<const std::size_t> starts,
                       std::span<const PartitionOptionBrief* const> briefs, int devices_per_host,
                       std::vector<RestDemand>& out) {
  out.assign(starts.size(), RestDemand{});
  RestDemand demand;
  std::size_t m = starts.size();
  for (std::size_t k = order.size(); m > 0 && k-- > starts.front();) {
    add_to_demand(*briefs[static_cast<std::size_t>(order[k])], devices_per_host, demand);
    while (m > 0 && starts[m - 1] == k) out[--m] = demand;
  }
  while (m > 0 && starts[m - 1] >= order.size()) out[--m] = RestDemand{};  // an empty rest
}

bool rest_surely_fits(const RestDemand& demand, std::span<const DeviceLoad> devices, const Hosts& hosts,
                      std::vector<std::pair<double, double>>& scratch) {
  if (!demand.covered) return false;
  if (demand.any_device) {
    // Every remaining byte may land on one device.
    const RestDemand::Bytes all{demand.device_bytes.hbm + demand.host_bytes.hbm,
                                demand.device_bytes.ddr + demand.host_bytes.ddr};
    const bool ok = units_outlast(all, scratch, [&](auto&& unit) {
      for (const DeviceLoad& d : devices)
        if (demand.device_largest.fits_in(d.free)) unit(d.free - demand.device_largest);
    });
    if (!ok) return false;
  }
  if (demand.any_host) {
    // A device of a host is spoiled by device-level bytes, or by host-level options
    // placed on its host, each putting at most host_per_device's share on it.
    const RestDemand::Bytes reach{demand.device_bytes.hbm + demand.host_per_device.hbm,
                                  demand.device_bytes.ddr + demand.host_per_device.ddr};
    const bool ok = units_outlast(reach, scratch, [&](auto&& unit) {
      for (int h = 0; h < hosts.count; ++h) {
        bool good = true;
        Storage least;
        bool first = true;
        for (const DeviceLoad& d : hosts.devices_of(devices, h)) {
          if (!demand.host_largest.fits_in(d.free)) {
            good = false;
            break;
          }
          const Storage slack = d.free - demand.host_largest;
          least = first ? slack : Storage{std::min(least.hbm, slack.hbm), std::min(least.ddr, slack.ddr)};
          first = false;
        }
        if (good && !first) unit(least);
      }
    });
    if (!ok) return false;
  }
  return true;
}

}  // namespace shardplan
