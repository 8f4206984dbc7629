#include "planner/bounds/bound_test_util.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "planner/enumerator.h"

namespace shardplan::testing {
namespace {

// Every device list the partition rule allows for `option` (one device per shard).
std::vector<std::vector<int>> placements(const ShardingOption& option, int devices, int local) {
  const int n = option.num_shards();
  const int hosts = devices / local;
  std::vector<std::vector<int>> out;
  std::vector<int> current(static_cast<std::size_t>(n), -1);
  // Every way to give shard j (from j on) one of choices(j).
  std::function<void(int, const std::function<std::vector<int>(int)>&)> each;
  each = [&](int j, const std::function<std::vector<int>(int)>& choices) {
    if (j == n) {
      out.push_back(current);
      return;
    }
    for (int d : choices(j)) {
      current[static_cast<std::size_t>(j)] = d;
      each(j + 1, choices);
    }
  };
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      if (n == devices) {
        std::vector<int> p;
        for (int j = 0; j < n; ++j) p.push_back(j);
        out.push_back(p);
      }
      break;
    case PartitionBy::kHost:
      for (int h = 0; h < hosts; ++h) {
        if (option.sharding_type == ShardingType::kTableRowWise) {
          if (n != local) continue;
          std::vector<int> p;
          for (int j = 0; j < n; ++j) p.push_back(h * local + j);
          out.push_back(p);
        } else {
          each(0, [&](int) {
            std::vector<int> c;
            for (int d = 0; d < local; ++d) c.push_back(h * local + d);
            return c;
          });
        }
      }
      break;
    case PartitionBy::kMultiHost: {
      if (n % local != 0) break;
      // Block b = shards [b*local, (b+1)*local) on one host, shard j on local j % local.
      const int blocks = n / local;
      std::vector<int> host_of(static_cast<std::size_t>(blocks), 0);
      std::function<void(int)> pick = [&](int b) {
        if (b == blocks) {
          std::vector<int> p;
          for (int j = 0; j < n; ++j) p.push_back(host_of[static_cast<std::size_t>(j / local)] * local + j % local);
          out.push_back(p);
          return;
        }
        for (int h = 0; h < hosts; ++h) {
          host_of[static_cast<std::size_t>(b)] = h;
          pick(b + 1);
        }
      };
      pick(0);
      break;
    }
    case PartitionBy::kDevice:
      each(0, [&](int) {
        std::vector<int> c;
        for (int d = 0; d < devices; ++d) c.push_back(d);
        return c;
      });
      break;
  }
  return out;
}

}  // namespace

ShardingOption bound_option(const std::string& table, ShardingType type, const std::vector<ShardSpec>& shards) {
  ShardingOption o;
  o.path = "m";
  o.name = table;
  o.sharding_type = type;
  o.partition_by = partition_by_of(type);
  for (const ShardSpec& s : shards) {
    Shard shard;
    shard.perf = Perf{s.perf, 0, 0, 0, 0};
    shard.storage = s.storage;
    o.shards.push_back(shard);
  }
  return o;
}

Topology bound_topology(const std::vector<Storage>& free, int local_world_size) {
  Topology t;
  t.world_size = static_cast<int>(free.size());
  t.local_world_size = local_world_size;
  for (std::size_t i = 0; i < free.size(); ++i) t.devices.push_back(DeviceHardware{static_cast<int>(i), free[i], {}});
  return t;
}

BoundInstance random_bound_instance(std::mt19937_64& rng, int max_tables, int fixed_devices, int fixed_local) {
  auto uniform_int = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto perf = [&] { return uniform_int(0, 4) == 0 ? 0.0 : std::uniform_real_distribution<double>(0.1, 10)(rng); };
  auto storage = [&] { return Storage{uniform_int(0, 10), uniform_int(0, 6)}; };
  BoundInstance inst;
  const int devices = fixed_devices > 0 ? fixed_devices : uniform_int(1, 3);
  const int local = fixed_local > 0 ? fixed_local : devices == 1 ? 1 : (uniform_int(0, 1) == 0 ? 1 : devices);
  std::vector<Storage> free;
  for (int d = 0; d < devices; ++d) free.push_back(Storage{uniform_int(6, 22), uniform_int(4, 14)});
  inst.topology = bound_topology(free, local);
  const int tables = uniform_int(1, max_tables);
  const std::vector<ShardingType> types = {
      ShardingType::kDataParallel, ShardingType::kRowWise,         ShardingType::kTableWise, ShardingType::kColumnWise,
      ShardingType::kTableRowWise, ShardingType::kTableColumnWise, ShardingType::kGridShard};
  for (int t = 0; t < tables; ++t) {
    const int options = uniform_int(1, 3);
    for (int k = 0; k < options; ++k) {
      const ShardingType type = types[static_cast<std::size_t>(uniform_int(0, static_cast<int>(types.size()) - 1))];
      int n = 1;
      switch (type) {
        case ShardingType::kDataParallel:
        case ShardingType::kRowWise:
          n = devices;
          break;
        case ShardingType::kTableWise:
          n = 1;
          break;
        case ShardingType::kColumnWise:
        case ShardingType::kTableColumnWise:
          n = uniform_int(1, 2);
          break;
        case ShardingType::kTableRowWise:
          n = local;
          break;
        case ShardingType::kGridShard:
          n = local * uniform_int(1, local == 1 ? 2 : 1);
          break;
      }
      std::vector<ShardSpec> shards;
      const ShardSpec same{perf(), storage()};
      for (int j = 0; j < n; ++j)
        shards.push_back(type == ShardingType::kDataParallel ? same : ShardSpec{perf(), storage()});
      inst.options.push_back(bound_option("t" + std::to_string(t), type, shards));
    }
  }
  return inst;
}

double brute_force_optimum(const BoundInput& input) {
  const Topology& topo = *input.reserved;
  const int devices = static_cast<int>(topo.devices.size());
  const int local = std::max(topo.local_world_size, 1);
  // Every (option, placement) of every table.
  struct Choice {
    const ShardingOption* option;
    std::vector<int> devices;
  };
  std::vector<std::vector<Choice>> choices;
  for (const auto& table : input.tables) {
    std::vector<Choice> c;
    for (const ShardingOption* o : table)
      for (auto& p : placements(*o, devices, local)) c.push_back(Choice{o, std::move(p)});
    choices.push_back(std::move(c));
  }
  std::vector<double> load(static_cast<std::size_t>(devices), 0.0);
  std::vector<Storage> used(static_cast<std::size_t>(devices));
  double best = std::numeric_limits<double>::infinity();
  std::function<void(std::size_t)> search = [&](std::size_t t) {
    if (t == choices.size()) {
      best = std::min(best, devices == 0 ? 0.0 : *std::max_element(load.begin(), load.end()));
      return;
    }
    for (const Choice& c : choices[t]) {
      const std::vector<double> saved_load = load;
      const std::vector<Storage> saved_used = used;
      bool ok = true;
      for (std::size_t j = 0; j < c.devices.size(); ++j) {
        const auto d = static_cast<std::size_t>(c.devices[j]);
        load[d] += c.option->shards[j].perf->total();
        used[d] += *c.option->shards[j].storage;
        ok = ok && used[d].fits_in(topo.devices[d].storage);
      }
      if (ok && *std::max_element(load.begin(), load.end()) < best) search(t + 1);
      load = saved_load;
      used = saved_used;
    }
  };
  search(0);
  return best;
}

}  // namespace shardplan::testing
