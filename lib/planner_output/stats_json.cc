#include "planner_output/stats_json.h"

#include "common/json_object.h"
#include "planner_output/perf_storage_json.h"

namespace shardplan {

namespace {

using Json = nlohmann::ordered_json;

// --stats json has always put "total" first.
Json stats_perf_json(const Perf& p) { return perf_json(p, PerfTotal::kFirst); }

Json imbalance_json(const std::optional<ImbalanceStats>& s) {
  if (!s) return nullptr;
  return json_object("total_variation", s->total_variation, "total_distance", s->total_distance, "chi_divergence",
                     s->chi_divergence, "kl_divergence", s->kl_divergence);
}

Json max_json(const MaxStat& m) { return json_object("value", m.value, "ranks", m.ranks); }
Json hbm_json(const HbmStat& h) { return json_object("bytes", h.bytes, "ranks", h.ranks); }

}  // namespace

nlohmann::ordered_json render_stats_json(const StatsReport& r) {
  Json out;
  out["has_plan"] = r.has_plan;
  out["num_proposals"] = r.num_proposals;
  out["num_plans"] = r.num_plans;
  out["run_time_seconds"] = r.run_time_seconds;
  out["batch_size"] = r.batch_size;
  out["world_size"] = r.world_size;
  if (r.has_plan) {
    Json ranks = Json::array();
    for (const auto& rs : r.ranks)
      ranks.push_back(json_object("rank", rs.rank, "used_hbm", rs.used_hbm, "sparse_hbm", rs.sparse_hbm, "used_ddr",
                                  rs.used_ddr, "hbm_ratio", rs.hbm_ratio, "ddr_ratio", rs.ddr_ratio, "perf",
                                  stats_perf_json(rs.perf), "input_mb", rs.input_mb, "output_mb", rs.output_mb,
                                  "shards", rs.shards_by_type));
    out["ranks"] = std::move(ranks);
  }
  if (r.debug) {
    Json params = Json::array();
    for (const auto& p : r.parameters) {
      Json j =
          json_object("fqn", p.fqn, "sharding", p.sharding_abbr, "compute_kernel", p.compute_kernel, "perf",
                      stats_perf_json(p.perf), "storage", storage_json(p.storage), "cache_load_factor", nullptr,
                      "sum_pooling_factor", p.sum_pooling_factor, "sum_num_poolings", p.sum_num_poolings, "num_indices",
                      p.num_indices, "output", p.is_pooled ? "pooled" : "sequence", "weighted", p.is_weighted,
                      "sharder", p.sharder, "features", p.num_features, "embedding_dim", p.embedding_dim,
                      "column_shard_dim", nullptr, "hash_size", p.hash_size, "ranks", nullptr, "batch_sizes", nullptr);
      if (p.shows_cache_load_factor && p.cache_load_factor) j["cache_load_factor"] = *p.cache_load_factor;
      if (p.column_shard_dim) j["column_shard_dim"] = *p.column_shard_dim;
      if (r.has_plan) j["ranks"] = p.ranks;
      if (p.batch_sizes) j["batch_sizes"] = *p.batch_sizes;
      params.push_back(std::move(j));
    }
    out["parameters"] = std::move(params);
  }
  out["compute_kernel_counts"] = r.kernel_counts;
  Json kernel_storage = Json::object();
  for (const auto& [k, s] : r.kernel_storage) kernel_storage[k] = storage_json(s);
  out["compute_kernel_storage"] = std::move(kernel_storage);
  if (r.debug && r.has_plan) {
    out["imbalance"] = json_object("perf", imbalance_json(r.perf_imbalance), "hbm", imbalance_json(r.hbm_imbalance),
                                   "ddr", imbalance_json(r.ddr_imbalance));
    out["perf"] =
        json_object("max_total", max_json(r.max_total_perf), "mean_total", r.mean_total_perf, "max_total_over_mean_pct",
                    r.total_perf_delta_pct, "max_fwd_compute", max_json(r.max_fwd_compute), "max_fwd_comms",
                    max_json(r.max_fwd_comms), "max_bwd_compute", max_json(r.max_bwd_compute), "max_bwd_comms",
                    max_json(r.max_bwd_comms), "max_prefetch_compute", max_json(r.max_prefetch_compute),
                    "sum_of_maxima", r.sum_of_maxima);
    out["hbm"] =
        json_object("sparse_max", hbm_json(r.sparse_max_hbm), "sparse_min", hbm_json(r.sparse_min_hbm), "max",
                    hbm_json(r.max_hbm), "min", hbm_json(r.min_hbm), "mean", json_object("bytes", r.mean_hbm.bytes),
                    "low_median", hbm_json(r.low_median_hbm), "high_median", hbm_json(r.high_median_hbm),
                    "max_over_mean_pct", r.hbm_delta_pct, "top", r.top_hbm);
    Json tiers = Json::array();
    // The ranks really at each tier, not torchrec's positions in a shortened list; the
    // mean is no rank's figure, so it has no ranks (torchrec's text lists those within 1 MB).
    for (const auto& t : r.peak_tiers) tiers.push_back(json_object("bytes", t.bytes, "ranks", t.actual_ranks));
    out["hbm"]["peak_tiers"] = std::move(tiers);
    out["critical_path"] = json_object("comms", r.critical_path_comms, "compute", r.critical_path_compute, "total",
                                       r.critical_path_comms + r.critical_path_compute);
  }
  if (r.debug) {
    const auto& rv = r.reservation;
    out["reservation"] = json_object("percent", rv.reserved_hbm_percent, "reserved_hbm", rv.reserved_hbm, "usable_hbm",
                                     rv.usable_hbm, "usable_ddr", rv.usable_ddr, "dense_storage",
                                     rv.is_heuristical ? storage_json(rv.dense_storage) : Json(nullptr), "kjt_storage",
                                     rv.is_heuristical ? storage_json(rv.kjt_storage) : Json(nullptr));
  }
  if (r.debug && r.has_plan) {
    out["top_perf_tables"] = r.top_perf_tables;
    Json top = Json::array();
    for (const auto& t : r.top_hbm_tables) top.push_back(json_object("name", t.name, "hbm", t.hbm, "ranks", t.ranks));
    out["top_hbm_tables"] = std::move(top);
  }
  return out;
}

}  // namespace shardplan
