#include "planner_output/options_json.h"

#include <fmt/format.h>

#include "planner_output/perf_storage_json.h"

namespace shardplan {

// Enumerate's JSON is an nlohmann::json: converting sorts the keys, the order
// this output has always had.
nlohmann::json perf_to_json(const Perf& perf, bool with_total) {
  return nlohmann::json(perf_json(perf, with_total ? PerfTotal::kLast : PerfTotal::kNone));
}

nlohmann::json storage_to_json(const Storage& storage) { return nlohmann::json(storage_json(storage)); }

nlohmann::json option_to_json(const ShardingOption& o) {
  nlohmann::json j = nlohmann::json::object();
  j["fqn"] = o.fqn();
  j["path"] = o.path;
  j["name"] = o.name;
  j["sharding_type"] = std::string(to_string(o.sharding_type));
  j["compute_kernel"] = std::string(to_string(o.compute_kernel));
  j["partition_by"] = std::string(to_string(o.partition_by));
  auto load_factor = o.cache_load_factor();
  j["cache_load_factor"] = load_factor ? nlohmann::json(*load_factor) : nlohmann::json(nullptr);
  j["is_pooled"] = o.is_pooled;
  j["is_weighted"] = o.is_weighted;
  j["input_lengths"] = o.input_lengths;
  j["tensor_shape"] = o.tensor_shape;
  j["tensor_element_size"] = o.tensor_element_size;
  j["num_shards"] = o.num_shards();
  j["total_storage"] = storage_to_json(o.total_storage());
  j["total_perf"] = o.total_perf();
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& s : o.shards) {
    nlohmann::json sj = nlohmann::json::object();
    sj["offsets"] = s.offset;
    sj["sizes"] = s.size;
    sj["perf"] = perf_to_json(s.perf.value_or(Perf{}), false);
    sj["storage"] = storage_to_json(s.storage.value_or(Storage{}));
    if (s.rank) sj["rank"] = *s.rank;
    shards.push_back(std::move(sj));
  }
  j["shards"] = std::move(shards);
  return j;
}

nlohmann::json options_to_json(const std::vector<ShardingOption>& options) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& o : options) list.push_back(option_to_json(o));
  return nlohmann::json{
      {"schema", "shardplan.enumerate/v1"}, {"num_options", options.size()}, {"options", std::move(list)}};
}

namespace {
std::string gib_text(std::int64_t bytes) {
  return fmt::format("{:.3f}", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}
}  // namespace

std::string options_to_text(const std::vector<ShardingOption>& options) {
  std::string out = fmt::format("{:<40} {:<18} {:<18} {:>6} {:>12} {:>10} {:>10}\n", "table", "sharding_type",
                                "compute_kernel", "shards", "perf (ms)", "HBM (GiB)", "DDR (GiB)");
  for (const auto& o : options) {
    Storage total = o.total_storage();
    out += fmt::format("{:<40} {:<18} {:<18} {:>6} {:>12.6f} {:>10} {:>10}\n", o.fqn(), to_string(o.sharding_type),
                       to_string(o.compute_kernel), o.num_shards(), o.total_perf(), gib_text(total.hbm),
                       gib_text(total.ddr));
    for (std::size_t i = 0; i < o.shards.size(); ++i) {
      const auto& s = o.shards[i];
      Perf p = s.perf.value_or(Perf{});
      Storage st = s.storage.value_or(Storage{});
      out += fmt::format(
          "    shard {:>4}  offsets [{}, {}]  sizes [{}, {}]  fwd {:.6f}/{:.6f}  bwd {:.6f}/{:.6f}  "
          "prefetch {:.6f}  hbm {}  ddr {}\n",
          i, s.offset.at(0), s.offset.at(1), s.size.at(0), s.size.at(1), p.fwd_compute, p.fwd_comms, p.bwd_compute,
          p.bwd_comms, p.prefetch_compute, st.hbm, st.ddr);
    }
  }
  return out;
}

}  // namespace shardplan
