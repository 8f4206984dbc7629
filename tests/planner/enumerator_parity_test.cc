// Parity of the topology, the enumerator, the shard layouts and the storage
// estimator with torchrec on every reference case: the same set of (fqn,
// sharding type, kernel), the same option order (torchrec's, PYTHONHASHSEED=0),
// the same shards and storage, and the same per-option fields.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "config/loader.h"
#include "planner/enumerator.h"
#include "planner/perf_estimator.h"
#include "planner/storage_estimator.h"
#include "planner/topology.h"
#include "support/golden.h"

namespace shardplan {
namespace {

using nlohmann::json;
using OptionKey = std::tuple<std::string, std::string, std::string>;

OptionKey key_of(const ShardingOption& o) {
  return {o.fqn(), std::string(to_string(o.sharding_type)), std::string(to_string(o.compute_kernel))};
}
OptionKey key_of(const json& o) {
  return {o.at("fqn").get<std::string>(), o.at("sharding_type").get<std::string>(),
          o.at("compute_kernel").get<std::string>()};
}
std::string label(const OptionKey& k) { return std::get<0>(k) + " " + std::get<1>(k) + "/" + std::get<2>(k); }

// The first figure of the resolved topology that differs from the golden's, or "".
std::string topology_difference(const Topology& ours, const json& golden) {
  auto num = [&](const char* key, double value) -> std::string {
    const double want = golden.at(key).get<double>();
    return value == want ? "" : fmt::format("topology.{}: ours {} torchrec {}", key, value, want);
  };
  for (auto diff :
       {num("world_size", ours.world_size), num("local_world_size", ours.local_world_size),
        num("hbm_mem_bw", ours.hbm_mem_bw), num("ddr_mem_bw", ours.ddr_mem_bw),
        num("hbm_to_ddr_mem_bw", ours.hbm_to_ddr_mem_bw), num("intra_host_bw", ours.intra_host_bw),
        num("inter_host_bw", ours.inter_host_bw), num("bwd_compute_multiplier", ours.bwd_compute_multiplier),
        num("weighted_feature_bwd_compute_multiplier", ours.weighted_feature_bwd_compute_multiplier),
        num("uneven_sharding_perf_multiplier", ours.uneven_sharding_perf_multiplier)})
    if (!diff.empty()) return diff;
  if (std::string(to_string(ours.compute_device)) != golden.at("compute_device").get<std::string>())
    return "topology.compute_device differs";
  const json& devices = golden.at("devices");
  if (devices.size() != ours.devices.size())
    return fmt::format("topology.devices: ours {} torchrec {}", ours.devices.size(), devices.size());
  for (std::size_t r = 0; r < devices.size(); ++r) {
    const Storage want{devices[r].at("hbm").get<std::int64_t>(), devices[r].at("ddr").get<std::int64_t>()};
    if (ours.devices[r].storage != want)
      return fmt::format("topology.devices[{}]: ours hbm {} ddr {}, torchrec hbm {} ddr {}", r,
                         ours.devices[r].storage.hbm, ours.devices[r].storage.ddr, want.hbm, want.ddr);
  }
  return "";
}

// The first differing figure of one option (shards, storage, fields), or "".
std::string option_difference(const ShardingOption& ours, const json& golden) {
  const ShardingOption want = testing::option_from_golden(golden);
  if (ours.tensor_shape != want.tensor_shape) return "tensor_shape differs";
  if (ours.tensor_element_size != want.tensor_element_size)
    return fmt::format("tensor_element_size: ours {} torchrec {}", ours.tensor_element_size, want.tensor_element_size);
  if (ours.input_lengths != want.input_lengths)
    return fmt::format("input_lengths: ours [{}] torchrec [{}]", fmt::join(ours.input_lengths, ", "),
                       fmt::join(want.input_lengths, ", "));
  if (ours.partition_by != want.partition_by)
    return fmt::format("partition_by: ours {} torchrec {}", to_string(ours.partition_by), to_string(want.partition_by));
  if (ours.is_pooled != want.is_pooled)
    return fmt::format("is_pooled: ours {} torchrec {}", ours.is_pooled, want.is_pooled);
  if (ours.is_weighted != want.is_weighted)
    return fmt::format("is_weighted: ours {} torchrec {}", ours.is_weighted, want.is_weighted);
  if (ours.cache_load_factor() != want.cache_load_factor())
    return fmt::format("cache_load_factor: ours {} torchrec {}",
                       ours.cache_load_factor() ? std::to_string(*ours.cache_load_factor()) : "None",
                       want.cache_load_factor() ? std::to_string(*want.cache_load_factor()) : "None");
  if (ours.shards.size() != want.shards.size())
    return fmt::format("num_shards: ours {} torchrec {}", ours.shards.size(), want.shards.size());
  for (std::size_t i = 0; i < want.shards.size(); ++i) {
    const Shard& a = ours.shards[i];
    const Shard& b = want.shards[i];
    if (a.size != b.size)
      return fmt::format("shard {} sizes: ours [{}] torchrec [{}]", i, fmt::join(a.size, ", "),
                         fmt::join(b.size, ", "));
    if (a.offset != b.offset)
      return fmt::format("shard {} offsets: ours [{}] torchrec [{}]", i, fmt::join(a.offset, ", "),
                         fmt::join(b.offset, ", "));
    const Storage sa = a.storage.value_or(Storage{-1, -1});
    if (sa.hbm != b.storage->hbm)
      return fmt::format("shard {} storage.hbm: ours {} torchrec {}", i, sa.hbm, b.storage->hbm);
    if (sa.ddr != b.storage->ddr)
      return fmt::format("shard {} storage.ddr: ours {} torchrec {}", i, sa.ddr, b.storage->ddr);
  }
  return "";
}

}  // namespace

TEST_CASE("enumerator and storage estimator match torchrec on every case", "[enumerator][parity]") {
  const auto cases = testing::golden_cases();
  int cases_matching = 0;
  std::size_t options_total = 0, options_matching = 0;
  const EmbeddingStorageEstimator storage;
  for (const auto& c : cases) {
    const json golden = testing::load_golden(c);
    std::vector<std::string> problems;
    PlanningInput input;
    try {
      input = load_case(c.case_path);
    } catch (const InputError& e) {
      FAIL_CHECK(c.name << ": load_case failed: " << e.format());
      continue;
    }
    const Topology topology = build_topology(input.topology);
    if (auto diff = topology_difference(topology, golden.at("topology")); !diff.empty()) problems.push_back(diff);

    const json& error = golden.contains("error") ? golden.at("error") : json();
    const bool enumerator_fails = error.is_object() && error.value("type", "") == "RuntimeError";
    std::vector<ShardingOption> ours;
    try {
      ours = enumerate_options(input, topology, {&storage});
      if (enumerator_fails) problems.push_back("torchrec's enumerator fails, ours does not");
    } catch (const EnumerationError& e) {
      if (!enumerator_fails) {
        problems.push_back(std::string("enumerator threw: ") + e.what());
      } else {
        // Our message keeps torchrec's wording up to the device, then explains.
        const std::string want = error.at("message").get<std::string>();
        const std::string prefix = want.substr(0, want.find(" To debug"));
        if (std::string(e.what()).rfind(prefix, 0) != 0)
          problems.push_back(fmt::format("error message: ours '{}' torchrec '{}'", e.what(), want));
      }
    } catch (const std::exception& e) {
      problems.push_back(std::string("enumerator threw: ") + e.what());
    }

    const json options = testing::golden_options(c, golden);
    if (golden.at("num_options").get<std::size_t>() != options.size())
      problems.push_back("golden num_options disagrees with its options");
    std::map<OptionKey, const ShardingOption*> by_key;
    for (const auto& o : ours) by_key[key_of(o)] = &o;
    std::set<OptionKey> golden_keys;
    for (const auto& o : options) {
      const OptionKey k = key_of(o);
      golden_keys.insert(k);
      ++options_total;
      auto it = by_key.find(k);
      if (it == by_key.end()) {
        problems.push_back("missing option " + label(k));
        continue;
      }
      if (auto diff = option_difference(*it->second, o); !diff.empty())
        problems.push_back(label(k) + ": " + diff);
      else
        ++options_matching;
    }
    for (const auto& [k, o] : by_key)
      if (!golden_keys.count(k)) problems.push_back("extra option " + label(k));
    // torchrec's own order under PYTHONHASHSEED=0; later stages break ties by it.
    if (problems.empty()) {
      for (std::size_t i = 0; i < options.size() && i < ours.size(); ++i)
        if (key_of(options[i]) != key_of(ours[i])) {
          problems.push_back(fmt::format("order: option {} is {}, torchrec has {}", i, label(key_of(ours[i])),
                                         label(key_of(options[i]))));
          break;
        }
    }

    if (problems.empty()) {
      ++cases_matching;
    } else {
      std::ostringstream message;
      message << c.name << ": " << problems.size() << " problem(s); first: " << problems.front();
      for (std::size_t i = 1; i < problems.size() && i < 5; ++i) message << "\n  also: " << problems[i];
      FAIL_CHECK(message.str());
    }
  }
  WARN(fmt::format("enumerator parity: {}/{} cases, {}/{} options match", cases_matching, cases.size(),
                   options_matching, options_total));
  CHECK(cases_matching == static_cast<int>(cases.size()));
}

}  // namespace shardplan

namespace shardplan {

// The scale goldens carry no options, only torchrec's plan: every planned table's
// shards and storage must be those of our option with the same type and kernel.
TEST_CASE("enumerator matches the options torchrec planned in the scale cases", "[enumerator][parity][scale]") {
  int cases_checked = 0, cases_matching = 0;
  const EmbeddingStorageEstimator storage;
  for (const auto& c : testing::golden_cases(/*include_scale=*/true)) {
    const json golden = testing::load_golden(c);
    if (golden.contains("options") || golden.contains("options_file") || !golden.contains("plan"))
      continue;  // cases with options are covered above
    ++cases_checked;
    const PlanningInput input = load_case(c.case_path);
    const auto ours = enumerate_options(input, build_topology(input.topology), {&storage});
    std::map<OptionKey, const ShardingOption*> by_key;
    for (const auto& o : ours) by_key[key_of(o)] = &o;
    std::vector<std::string> problems;
    for (const auto& [path, tables] : golden.at("plan").items()) {
      for (const auto& [name, entry] : tables.items()) {
        const OptionKey k{path + "." + name, entry.at("sharding_type").get<std::string>(),
                          entry.at("compute_kernel").get<std::string>()};
        auto it = by_key.find(k);
        if (it == by_key.end()) {
          problems.push_back("planned option not enumerated: " + label(k));
          continue;
        }
        const json shards = testing::expand_shards(entry.at("shards"));
        const auto& mine = it->second->shards;
        if (shards.size() != mine.size()) {
          problems.push_back(fmt::format("{}: num_shards ours {} torchrec {}", label(k), mine.size(), shards.size()));
          continue;
        }
        for (std::size_t i = 0; i < shards.size(); ++i) {
          const ShardDims sizes = testing::shard_dims(shards[i].at("sizes"));
          const ShardDims offsets = testing::shard_dims(shards[i].at("offsets"));
          const Storage want{shards[i].at("storage").at("hbm").get<std::int64_t>(),
                             shards[i].at("storage").at("ddr").get<std::int64_t>()};
          if (sizes != mine[i].size || offsets != mine[i].offset || want != mine[i].storage) {
            problems.push_back(fmt::format(
                "{} shard {}: ours sizes [{}] offsets [{}] hbm {} ddr {}, torchrec sizes [{}] "
                "offsets [{}] hbm {} ddr {}",
                label(k), i, fmt::join(mine[i].size, ", "), fmt::join(mine[i].offset, ", "), mine[i].storage->hbm,
                mine[i].storage->ddr, fmt::join(sizes, ", "), fmt::join(offsets, ", "), want.hbm, want.ddr));
            break;
          }
        }
      }
    }
    if (problems.empty())
      ++cases_matching;
    else
      FAIL_CHECK(c.name << ": " << problems.size() << " problem(s); first: " << problems.front());
  }
  WARN(fmt::format("enumerator scale parity: {}/{} planned cases match", cases_matching, cases_checked));
  CHECK(cases_matching == cases_checked);
}

}  // namespace shardplan

namespace shardplan {

// End to end with both estimators (storage, then perf): every perf figure of every
// shard of every enumerated option against torchrec's (1e-9 relative).
TEST_CASE("enumerated options carry torchrec's perf", "[enumerator][parity][perf]") {
  const EmbeddingStorageEstimator storage;
  const EmbeddingPerfEstimator perf;
  int cases_checked = 0, cases_matching = 0;
  for (const auto& c : testing::golden_cases()) {
    const json golden = testing::load_golden(c);
    if (golden.contains("error") && golden.at("error").value("type", "") == "RuntimeError") continue;
    ++cases_checked;
    const PlanningInput input = load_case(c.case_path);
    std::vector<ShardingOption> ours;
    try {
      ours = enumerate_options(input, build_topology(input.topology), {&storage, &perf});
    } catch (const std::exception& e) {
      FAIL_CHECK(c.name << ": enumerator threw: " << e.what());
      continue;
    }
    std::map<OptionKey, const ShardingOption*> by_key;
    for (const auto& o : ours) by_key[key_of(o)] = &o;
    std::vector<std::string> problems;
    for (const auto& o : testing::golden_options(c, golden)) {
      auto it = by_key.find(key_of(o));
      if (it == by_key.end()) continue;  // reported by the storage parity test
      const ShardingOption want = testing::option_from_golden(o);
      const auto& mine = it->second->shards;
      for (std::size_t i = 0; i < want.shards.size() && i < mine.size(); ++i) {
        const Perf a = mine[i].perf.value_or(Perf{-1, -1, -1, -1, -1});
        const Perf b = *want.shards[i].perf;
        const std::pair<const char*, std::pair<double, double>> parts[] = {
            {"fwd_compute", {a.fwd_compute, b.fwd_compute}},
            {"fwd_comms", {a.fwd_comms, b.fwd_comms}},
            {"bwd_compute", {a.bwd_compute, b.bwd_compute}},
            {"bwd_comms", {a.bwd_comms, b.bwd_comms}},
            {"prefetch_compute", {a.prefetch_compute, b.prefetch_compute}}};
        std::string diff;
        for (const auto& [part, values] : parts)
          if (!testing::close_enough(values.first, values.second)) {
            diff = fmt::format("{} shard {} {}: ours {} torchrec {}", label(key_of(o)), i, part, values.first,
                               values.second);
            break;
          }
        if (!diff.empty()) {
          problems.push_back(diff);
          break;
        }
      }
      if (it->second->is_weighted != want.is_weighted)
        problems.push_back(label(key_of(o)) + ": is_weighted differs after the perf estimator");
    }
    if (problems.empty())
      ++cases_matching;
    else
      FAIL_CHECK(c.name << ": " << problems.size() << " option(s) differ; first: " << problems.front());
  }
  WARN(fmt::format("enumerator + perf estimator: {}/{} cases match torchrec's perf", cases_matching, cases_checked));
  CHECK(cases_matching == cases_checked);
}

// The scale goldens' planned shards carry torchrec's perf too.
TEST_CASE("enumerated scale options carry torchrec's perf", "[enumerator][parity][perf][scale]") {
  const EmbeddingStorageEstimator storage;
  const EmbeddingPerfEstimator perf;
  int cases_checked = 0, cases_matching = 0;
  for (const auto& c : testing::golden_cases(/*include_scale=*/true)) {
    const json golden = testing::load_golden(c);
    if (golden.contains("options") || golden.contains("options_file") || !golden.contains("plan")) continue;
    ++cases_checked;
    const PlanningInput input = load_case(c.case_path);
    const auto ours = enumerate_options(input, build_topology(input.topology), {&storage, &perf});
    std::map<OptionKey, const ShardingOption*> by_key;
    for (const auto& o : ours) by_key[key_of(o)] = &o;
    std::string problem;
    for (const auto& [path, tables] : golden.at("plan").items()) {
      for (const auto& [name, entry] : tables.items()) {
        const OptionKey k{path + "." + name, entry.at("sharding_type").get<std::string>(),
                          entry.at("compute_kernel").get<std::string>()};
        auto it = by_key.find(k);
        if (it == by_key.end()) continue;  // reported by the storage test
        const json shards = testing::expand_shards(entry.at("shards"));
        for (std::size_t i = 0; i < shards.size() && i < it->second->shards.size() && problem.empty(); ++i) {
          const Perf a = it->second->shards[i].perf.value_or(Perf{-1, -1, -1, -1, -1});
          const json& b = shards[i].at("perf");
          const std::pair<const char*, double> parts[] = {{"fwd_compute", a.fwd_compute},
                                                          {"fwd_comms", a.fwd_comms},
                                                          {"bwd_compute", a.bwd_compute},
                                                          {"bwd_comms", a.bwd_comms},
                                                          {"prefetch_compute", a.prefetch_compute}};
          for (const auto& [part, value] : parts)
            if (problem.empty() && !testing::close_enough(value, b.at(part).get<double>()))
              problem = fmt::format("{} shard {} {}: ours {} torchrec {}", label(k), i, part, value,
                                    b.at(part).get<double>());
        }
      }
    }
    if (problem.empty())
      ++cases_matching;
    else
      FAIL_CHECK(c.name << ": " << problem);
  }
  WARN(fmt::format("enumerator + perf estimator, scale plans: {}/{} cases match", cases_matching, cases_checked));
  CHECK(cases_matching == cases_checked);
}

}  // namespace shardplan
