// The numbers behind torchrec's EmbeddingStats table, as data: what the planner
// logs after planning (per-rank load, per-table info, imbalance, maxima, HBM
// distribution, critical path, reservation, top tables). stats_text.h renders it
// exactly as torchrec prints it; stats_json.h renders it as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "planner/types.h"

namespace shardplan {

// What EmbeddingStats.log receives.
struct StatsInput {
  // The best plan (every shard's rank, storage and perf set), in the partitioner's
  // order; or, when no plan was found, the last failed proposal (has_plan false).
  const std::vector<ShardingOption>* plan = nullptr;
  bool has_plan = true;
  const Topology* topology = nullptr;  // before storage reservation
  const ReservationResult* reservation = nullptr;
  std::int64_t batch_size = 512;
  std::int64_t num_proposals = 0;
  std::int64_t num_plans = 0;
  double run_time_seconds = 0;
  // Per-table constraints by table name (num_poolings, batch_sizes), or nullptr.
  const std::map<std::string, ParameterConstraintsConfig>* constraints = nullptr;
  bool debug = true;  // torchrec's default: parameter table and the debug sections
  // Inference planning: torchrec's estimators then give bwd_compute/bwd_comms as
  // Python int 0, which the maxima lines print as "0" rather than "0.0".
  bool is_inference = false;
};

// Load of one rank.
struct RankStats {
  int rank = 0;
  std::int64_t sparse_hbm = 0;  // bytes of this rank's shards
  std::int64_t used_hbm = 0;    // shards + dense + KJT reservation
  std::int64_t used_ddr = 0;
  double hbm_ratio = 0;  // used_hbm / planning HBM (0 on cpu)
  double ddr_ratio = 0;
  Perf perf;
  double input_mb = 0;                        // MB per iteration
  double output_mb = 0;                       // MB per iteration
  std::map<std::string, int> shards_by_type;  // abbreviation ("TW") -> count
};

// One row of the "Parameter Info" table.
struct ParameterStats {
  std::string fqn;
  std::string sharding_abbr;             // "TW", "RW", ...
  std::string compute_kernel;            // "fused", ...
  Perf perf;                             // summed over shards
  Storage storage;                       // summed over shards
  bool shows_cache_load_factor = false;  // only fused_uvm_caching
  std::optional<double> cache_load_factor;
  double sum_pooling_factor = 0;
  double sum_num_poolings = 0;
  double num_indices = 0;
  bool is_pooled = true;
  bool is_weighted = false;
  std::string sharder;  // torchrec sharder class name
  int num_features = 0;
  std::int64_t embedding_dim = 0;
  std::optional<std::int64_t> column_shard_dim;  // CW / TWCW / grid: first shard's cols
  std::int64_t hash_size = 0;
  std::vector<int> ranks;                                // sorted shard ranks (empty when no plan)
  std::optional<std::vector<std::int64_t>> batch_sizes;  // from constraints
};

// torchrec's four imbalance measures of a normalised per-rank distribution.
struct ImbalanceStats {
  double total_variation = 0;
  double total_distance = 0;
  double chi_divergence = 0;  // normalised to [0, 1]
  double kl_divergence = 0;   // normalised to [0, 1]
};

// A maximum and the ranks holding it.
struct MaxStat {
  double value = 0;
  std::vector<int> ranks;
  // torchrec's maximum is a Python int (an integer 0 that no float was added to):
  // printed without ".0".
  bool is_int = false;
};

// A per-rank HBM statistic (max, min, mean, ...) rounded to whole bytes, and the
// ranks within 1 MB of it.
struct HbmStat {
  std::int64_t bytes = 0;
  std::vector<int> ranks;
};

// One tier of "Estimated Peak HBM Pressure". torchrec numbers the ranks of each
// tier by position among the ranks left after removing the higher tiers; kept.
struct PeakTier {
  std::int64_t bytes = 0;
  std::vector<int> ranks;         // as torchrec prints them: positions among the ranks left after the tiers above
  std::vector<int> actual_ranks;  // the ranks whose HBM use is at this tier (for our JSON)
};

struct TopHbmTable {
  std::string name;
  std::int64_t hbm = 0;    // first shard's HBM
  std::vector<int> ranks;  // every shard's rank, in shard order
};

struct ReservationStats {
  double reserved_hbm_percent = 0;
  std::int64_t reserved_hbm = 0;  // of rank 0's HBM
  std::int64_t usable_hbm = 0;
  std::int64_t usable_ddr = 0;
  bool is_heuristical = false;  // only HeuristicalStorageReservation prints dense/KJT
  Storage dense_storage;
  Storage kjt_storage;
};

// Everything EmbeddingStats prints.
struct StatsReport {
  bool has_plan = true;
  bool debug = true;
  std::int64_t num_proposals = 0;
  std::int64_t num_plans = 0;
  double run_time_seconds = 0;
  std::int64_t batch_size = 0;
  int world_size = 0;
  std::vector<RankStats> ranks;
  std::vector<ParameterStats> parameters;
  std::map<std::string, int> kernel_counts;  // kernel name -> tables
  std::map<std::string, Storage> kernel_storage;
  // Present only when the plan exists and the distribution sums to more than 0.
  std::optional<ImbalanceStats> perf_imbalance;
  std::optional<ImbalanceStats> hbm_imbalance;
  std::optional<ImbalanceStats> ddr_imbalance;
  // Maxima, means and distribution (plan only).
  MaxStat max_total_perf;
  double mean_total_perf = 0;
  double total_perf_delta_pct = 0;
  MaxStat max_fwd_compute, max_fwd_comms, max_bwd_compute, max_bwd_comms, max_prefetch_compute;
  double sum_of_maxima = 0;
  HbmStat sparse_max_hbm, sparse_min_hbm, max_hbm, min_hbm, mean_hbm, low_median_hbm, high_median_hbm;
  double critical_path_comms = 0;
  double critical_path_compute = 0;
  double hbm_delta_pct = 0;
  std::int64_t top_hbm = 0;
  std::vector<PeakTier> peak_tiers;  // highest first
  ReservationStats reservation;
  std::vector<std::string> top_perf_tables;  // at most 5 names
  std::vector<TopHbmTable> top_hbm_tables;   // at most 5
};

// Computes the report as torchrec's EmbeddingStats.log does (same arithmetic and
// order of summation, so rounded figures agree).
StatsReport compute_stats_report(const StatsInput& input);

// torchrec's EmbeddingStats as the Stats stage: compute_stats_report.
class EmbeddingStats final : public Stats {
 public:
  StatsReport log(const StatsInput& input) const override { return compute_stats_report(input); }
};

// The stats reports there are (one today; the table names the stage's default as
// every other stage's table does).
enum class StatsKind { kEmbedding };

inline constexpr NameTable<StatsKind, 1> kStatsNames{{
    {StatsKind::kEmbedding, "embedding", "torchrec's EmbeddingStats table, as data", "EmbeddingStats"},
}};

// The stats report of `kind`.
std::unique_ptr<Stats> make_stats(StatsKind kind = StatsKind::kEmbedding);

// torchrec's abbreviation of a sharding type ("TW", "TWRW", "GS", ...).
std::string sharding_type_abbr(ShardingType type);

// torchrec's imbalance measures of `p` (already normalised to sum 1).
ImbalanceStats imbalance_stats(const std::vector<double>& p);

// statistics.mean of floats: the exact mean, rounded once.
double python_mean(const std::vector<double>& values);

}  // namespace shardplan
