#include "planner/partitioners/greedy/uniform_fast_step.h"

#include "planner/partitioners/greedy/partition_steps.h"

namespace shardplan {
namespace {

// The shortcut holds when every uniform option's shards share one perf and all
// devices start from the same perf: each device then receives the same additions
// in the same order, so one running sum is every device's sum bit for bit.
// Storage is integral and non-negative, so "each shard fits when placed" equals
// "the total fits", and the first misfit in torchrec's order (option, then shard)
// is found by bisecting on the number of options.

// Up to this many devices a misfit is found by replaying the options (U x W
// steps, stopping at the misfit) rather than by bisection (log U x (U + W)).
constexpr std::size_t kLinearMisfitSearchMaxWorld = 16;

// need[k]: storage the first n uniform options put on device k (size world + 1).
void need_after(const std::vector<const PartitionOptionSummary*>& summary, const std::vector<std::size_t>& uniform,
                std::size_t n, std::size_t world, std::vector<Storage>& need) {
  need.assign(world + 1, Storage{});
  Storage common;
  bool runs = false;
  for (std::size_t u = 0; u < n; ++u) {
    const PartitionOptionSummary& s = *summary[uniform[u]];
    if (s.storage_homogeneous) {
      common += s.shard_storage;
      continue;
    }
    runs = true;
    for (const auto& run : s.storage_runs) {  // difference array over the runs
      need[static_cast<std::size_t>(run.begin)] += run.storage;
      need[static_cast<std::size_t>(run.end)] -= run.storage;
    }
  }
  if (runs)
    for (std::size_t k = 1; k <= world; ++k) need[k] += need[k - 1];
  for (std::size_t k = 0; k < world; ++k) need[k] += common;
}

// The first device on which `need` does not fit, or world.
std::size_t first_misfit(const std::vector<Storage>& need, const std::vector<DeviceLoad>& devices) {
  for (std::size_t k = 0; k < devices.size(); ++k)
    if (!need[k].fits_in(devices[k].free)) return k;
  return devices.size();
}

// The first uniform shard that does not fit, in torchrec's order.
PartitionFailure locate_misfit(const std::vector<const PartitionOptionBrief*>& brief,
                               const std::vector<const PartitionOptionSummary*>& summary,
                               const std::vector<DeviceLoad>& devices, UniformScratch& scratch) {
  const std::vector<std::size_t>& uniform = scratch.uniform;
  const std::size_t world = devices.size();
  if (world <= kLinearMisfitSearchMaxWorld) {
    // Few devices: replay the options in order, one running total per device.
    scratch.placed.assign(world, Storage{});
    for (std::size_t i : uniform) {
      const ShardList& shards = brief[i]->shard_list();
      for (std::size_t k = 0; k < world; ++k) {
        const Storage shard = storage_of(shards[k]);
        if (!(scratch.placed[k] + shard).fits_in(devices[k].free))
          return uniform_misfit(shard, devices[k].free - scratch.placed[k]);
        scratch.placed[k] += shard;
      }
    }
  }
  // Prefix lo fits everywhere, prefix hi does not; the misfit is option hi - 1.
  std::size_t lo = 0, hi = uniform.size();
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    need_after(summary, uniform, mid, world, scratch.need);
    (first_misfit(scratch.need, devices) < world ? hi : lo) = mid;
  }
  need_after(summary, uniform, hi, world, scratch.need);
  const std::size_t k = first_misfit(scratch.need, devices);
  need_after(summary, uniform, hi - 1, world, scratch.before);
  return uniform_misfit(storage_of(brief[uniform[hi - 1]]->shard_list()[k]), devices[k].free - scratch.before[k]);
}

}  // namespace

FastUniform uniform_partition_fast(const std::vector<const PartitionOptionBrief*>& brief,
                                   const std::vector<const PartitionOptionSummary*>& summary,
                                   std::vector<DeviceLoad>& devices, PartitionFailure& failure,
                                   UniformScratch& scratch) {
  const std::size_t world = devices.size();
  if (world == 0) return FastUniform::kNotApplicable;
  const Perf& first = devices[0].perf;
  for (const DeviceLoad& d : devices)
    if (d.perf != first) return FastUniform::kNotApplicable;
  for (std::size_t i : scratch.uniform)
    if (static_cast<std::size_t>(brief[i]->num_shards) != world || !brief[i]->perf_homogeneous)
      return FastUniform::kNotApplicable;
  if (scratch.uniform.empty()) return FastUniform::kPlaced;

  need_after(summary, scratch.uniform, scratch.uniform.size(), world, scratch.need);
  if (first_misfit(scratch.need, devices) < world) {
    failure = locate_misfit(brief, summary, devices, scratch);
    return FastUniform::kFailed;
  }

  Perf perf = devices[0].perf;
  for (std::size_t i : scratch.uniform) perf += summary[i]->shard_perf;
  const double perf_total = perf.total();
  for (std::size_t k = 0; k < world; ++k) {
    DeviceLoad& d = devices[k];
    d.free -= scratch.need[k];
    d.perf = perf;
    d.perf_total = perf_total;
  }
  return FastUniform::kPlaced;
}

}  // namespace shardplan
