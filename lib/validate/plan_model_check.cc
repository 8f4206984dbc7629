#include "validate/plan_model_check.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace shardplan {

namespace {

std::string plan_check_list_text(const std::vector<std::int64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

}  // namespace

std::vector<std::string> plan_model_differences(const PlanFile& plan, const ModelConfig& model,
                                                std::optional<std::int64_t> world_size) {
  std::vector<std::string> differences;
  std::map<std::string, const TableConfig*> tables;  // by fqn
  std::vector<std::string> model_order;
  for (const auto& module : model.modules)
    for (const auto& table : module.tables) {
      const std::string fqn = module.path + "." + table.name;
      tables.emplace(fqn, &table);
      model_order.push_back(fqn);
    }
  std::map<std::string, const PlanFileTable*> planned;
  for (const auto& table : plan.tables) planned.emplace(table.fqn(), &table);
  for (const auto& fqn : model_order)
    if (!planned.count(fqn)) differences.push_back(fqn + ": in the model, not in the plan");
  for (const auto& table : plan.tables)
    if (!tables.count(table.fqn())) differences.push_back(table.fqn() + ": in the plan, not in the model");
  if (world_size && plan.world_size != *world_size)
    differences.push_back(
        fmt::format("world size: the plan is for {} ranks, the topology has {}", plan.world_size, *world_size));
  const std::int64_t world = world_size ? *world_size : plan.world_size;
  for (const auto& fqn : model_order) {
    auto it = planned.find(fqn);
    if (it == planned.end()) continue;
    const PlanFileTable& p = *it->second;
    const TableConfig& t = *tables.at(fqn);
    std::set<std::int64_t> bad;
    for (const int rank : p.ranks)
      if (rank < 0 || rank >= world) bad.insert(rank);
    if (!bad.empty())
      differences.push_back(fmt::format("{}: ranks {} outside the world size {}", fqn,
                                        plan_check_list_text({bad.begin(), bad.end()}), world));
    if (p.sharding_type == ShardingType::kDataParallel || p.shards.empty()) continue;
    std::int64_t covered = 0;
    for (const auto& shard : p.shards) {
      if (shard.offsets.size() != 2 || shard.sizes.size() != 2) {
        differences.push_back(fmt::format("{}: a shard of offsets {} and sizes {} is not 2-D", fqn,
                                          plan_check_list_text(shard.offsets), plan_check_list_text(shard.sizes)));
        continue;
      }
      if (shard.offsets[0] < 0 || shard.offsets[1] < 0 || shard.offsets[0] + shard.sizes[0] > t.num_embeddings ||
          shard.offsets[1] + shard.sizes[1] > t.embedding_dim)
        differences.push_back(fmt::format("{}: shard at {} of size {} lies outside the table's shape [{}, {}]", fqn,
                                          plan_check_list_text(shard.offsets), plan_check_list_text(shard.sizes),
                                          t.num_embeddings, t.embedding_dim));
      covered += shard.sizes[0] * shard.sizes[1];
    }
    if (covered != t.num_embeddings * t.embedding_dim)
      differences.push_back(fmt::format("{}: shards cover {} elements, the table [{}, {}] has {}", fqn, covered,
                                        t.num_embeddings, t.embedding_dim, t.num_embeddings * t.embedding_dim));
  }
  return differences;
}

}  // namespace shardplan
