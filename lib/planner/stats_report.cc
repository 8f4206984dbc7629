#include "planner/stats_report.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "planner/shards/shard_io_sizes.h"

namespace shardplan {

namespace {

constexpr double kBytesPerMb = 1024.0 * 1024.0;  // torchrec's bytes_to_mb
constexpr double kIdBytes = 8;                   // torchrec's BIGINT_DTYPE
constexpr double kDefaultNumPoolings = 1.0;      // torchrec's NUM_POOLINGS
constexpr std::size_t kNumPeakTiers = 5;         // torchrec's NUM_PEAK_RANK
constexpr std::size_t kNumTopTables = 5;

double bytes_to_mb(double bytes) { return bytes / kBytesPerMb; }

// Python's sum() over floats: left to right from 0.
double py_sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

const ParameterConstraintsConfig* find_constraints(const StatsInput& in, const std::string& table) {
  if (!in.constraints) return nullptr;
  auto it = in.constraints->find(table);
  return it == in.constraints->end() ? nullptr : &it->second;
}

// torchrec: constraints' num_poolings when given and non-empty, else NUM_POOLINGS
// once per input feature.
std::vector<double> num_poolings_of(const StatsInput& in, const ShardingOption& so) {
  const auto* c = find_constraints(in, so.name);
  if (c && c->num_poolings && !c->num_poolings->empty()) return *c->num_poolings;
  return std::vector<double>(so.input_lengths.size(), kDefaultNumPoolings);
}

std::vector<std::int64_t> batch_sizes_of(const StatsInput& in, const ShardingOption& so) {
  const auto* c = find_constraints(in, so.name);
  if (c && c->batch_sizes && !c->batch_sizes->empty()) return *c->batch_sizes;
  return std::vector<std::int64_t>(so.input_lengths.size(), so.batch_size);
}

std::string sharder_name(ModuleKind kind) {
  return kind == ModuleKind::kEmbeddingBag ? "EmbeddingBagCollectionSharder" : "EmbeddingCollectionSharder";
}

// A shard's rank as a per-rank index. The failed-proposal stats give every shard
// rank -1, which torchrec's Python lists read as the last rank; kept.
int rank_index(int rank, int world) { return rank < 0 ? rank + world : rank; }

// `is_int[i]`: rank i's value is a Python int. Python's max() returns the first
// maximal element, so its type decides how the maximum prints.
MaxStat max_stat(const std::vector<double>& values, const std::vector<bool>& is_int = {}) {
  MaxStat m;
  m.value = *std::max_element(values.begin(), values.end());
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == m.value) m.ranks.push_back(static_cast<int>(i));
  m.is_int = !is_int.empty() && is_int.at(static_cast<std::size_t>(m.ranks.front()));
  return m;
}

// Which Perf parts torchrec's estimators return as Python int 0: data-parallel
// fwd_comms (always), and bwd_compute/bwd_comms of every other sharding type when
// planning for inference.
struct IntParts {
  bool fwd_compute = true, fwd_comms = true, bwd_compute = true, bwd_comms = true;
};

IntParts int_parts_of(const ShardingOption& so, bool is_inference) {
  const bool dp = so.sharding_type == ShardingType::kDataParallel;
  return IntParts{false, dp, !dp && is_inference, !dp && is_inference};
}

// math.isclose(bytes_to_mb(a), bytes_to_mb(b), abs_tol=1.0).
bool within_one_mb(double a_bytes, double b_bytes) {
  double a = bytes_to_mb(a_bytes), b = bytes_to_mb(b_bytes);
  double tol = std::max(1e-9 * std::max(std::fabs(a), std::fabs(b)), 1.0);
  return std::fabs(a - b) <= tol;
}

HbmStat hbm_stat(const std::vector<std::int64_t>& per_rank, std::int64_t value) {
  HbmStat s;
  s.bytes = value;
  for (std::size_t i = 0; i < per_rank.size(); ++i)
    if (within_one_mb(static_cast<double>(per_rank[i]), static_cast<double>(value)))
      s.ranks.push_back(static_cast<int>(i));
  return s;
}

// round(statistics.mean(ints)): the exact rational mean rounded half to even.
std::int64_t rounded_int_mean(const std::vector<std::int64_t>& v) {
  std::int64_t sum = 0;
  for (auto x : v) sum += x;
  const auto n = static_cast<std::int64_t>(v.size());
  std::int64_t q = sum / n, r = sum % n;
  if (r < 0) {
    q -= 1;
    r += n;
  }
  if (2 * r > n || (2 * r == n && (q % 2 != 0))) q += 1;
  return q;
}

std::vector<double> normalize_ints(const std::vector<std::int64_t>& v) {
  std::int64_t total = 0;
  for (auto x : v) total += x;
  std::vector<double> p;
  for (auto x : v) p.push_back(static_cast<double>(x) / static_cast<double>(total));
  return p;
}

// torchrec's _find_imbalance_tables: tables (not DP/RW) that have a shard on every
// rank holding the maximum, largest first shard first (stable).
template <typename Value, typename ShardValue>
std::vector<const ShardingOption*> imbalance_tables(const std::vector<ShardingOption>& plan, ShardValue shard_value) {
  std::vector<int> order;  // ranks in first-seen order, as torchrec's dict
  std::map<int, Value> per_rank;
  for (const auto& so : plan)
    for (const auto& shard : so.shards) {
      int r = shard.rank.value_or(-1);
      if (!per_rank.count(r)) {
        order.push_back(r);
        per_rank[r] = 0;
      }
      per_rank[r] += shard_value(shard);
    }
  std::vector<const ShardingOption*> out;
  if (per_rank.size() <= 1) return out;
  Value max_value = per_rank[order[0]];
  for (int r : order) max_value = std::max(max_value, per_rank[r]);
  std::set<int> max_ranks;
  for (int r : order)
    if (per_rank[r] == max_value) max_ranks.insert(r);
  for (const auto& so : plan) {
    if (so.sharding_type == ShardingType::kDataParallel || so.sharding_type == ShardingType::kRowWise) continue;
    std::set<int> ranks;
    for (const auto& shard : so.shards) ranks.insert(shard.rank.value_or(-1));
    if (std::includes(ranks.begin(), ranks.end(), max_ranks.begin(), max_ranks.end())) out.push_back(&so);
  }
  std::stable_sort(out.begin(), out.end(), [&](const ShardingOption* a, const ShardingOption* b) {
    return shard_value(a->shards[0]) > shard_value(b->shards[0]);
  });
  return out;
}

void fill_parameters(const StatsInput& in, StatsReport& report) {
  for (const auto& so : *in.plan) {
    ParameterStats p;
    p.fqn = so.fqn();
    p.sharding_abbr = sharding_type_abbr(so.sharding_type);
    p.compute_kernel = std::string(to_string(so.compute_kernel));
    for (const auto& shard : so.shards) {
      p.perf += shard.perf.value_or(Perf{});
      p.storage += shard.storage.value_or(Storage{});
    }
    p.shows_cache_load_factor = so.compute_kernel == ComputeKernel::kFusedUvmCaching;
    p.cache_load_factor = so.cache_load_factor();
    p.sum_pooling_factor = py_sum(so.input_lengths);
    std::vector<double> num_poolings = num_poolings_of(in, so);
    double indices = 0;
    for (std::size_t i = 0; i < so.input_lengths.size() && i < num_poolings.size(); ++i)
      indices += so.input_lengths[i] * num_poolings[i];
    p.num_indices = indices;
    p.sum_num_poolings = py_sum(num_poolings);
    p.is_pooled = so.is_pooled;
    p.is_weighted = so.is_weighted;
    p.sharder = sharder_name(so.module_kind);
    p.num_features = static_cast<int>(so.input_lengths.size());
    p.embedding_dim = so.tensor_shape.at(1);
    if (so.sharding_type == ShardingType::kColumnWise || so.sharding_type == ShardingType::kTableColumnWise ||
        so.sharding_type == ShardingType::kGridShard)
      p.column_shard_dim = so.shards.at(0).size.at(1);
    p.hash_size = so.tensor_shape.at(0);
    if (in.has_plan) {
      for (const auto& shard : so.shards) p.ranks.push_back(shard.rank.value_or(-1));
      std::sort(p.ranks.begin(), p.ranks.end());
    }
    // torchrec shows the constraint's batch_sizes whenever the table has constraints.
    if (const auto* c = find_constraints(in, so.name)) p.batch_sizes = c->batch_sizes;
    report.parameters.push_back(std::move(p));
  }
}

void fill_maxima(const StatsInput& in, StatsReport& report) {
  const auto& ranks = report.ranks;
  std::vector<double> totals, fwd_compute, fwd_comms, bwd_compute, bwd_comms, prefetch;
  std::vector<std::int64_t> sparse_hbm, used_hbm;
  for (const auto& r : ranks) {
    totals.push_back(r.perf.total());
    fwd_compute.push_back(r.perf.fwd_compute);
    fwd_comms.push_back(r.perf.fwd_comms);
    bwd_compute.push_back(r.perf.bwd_compute);
    bwd_comms.push_back(r.perf.bwd_comms);
    prefetch.push_back(r.perf.prefetch_compute);
    sparse_hbm.push_back(r.sparse_hbm);
    used_hbm.push_back(r.used_hbm);
  }
  report.max_total_perf = max_stat(totals);
  report.mean_total_perf = python_mean(totals);
  if (report.mean_total_perf > 0.0)
    report.total_perf_delta_pct = (report.max_total_perf.value - report.mean_total_perf) / report.mean_total_perf * 100;
  // A rank's sum stays a Python int while every shard added to it is an int
  // (torchrec starts each rank at Perf(0, 0, 0, 0)).
  std::vector<IntParts> ints(ranks.size());
  for (const auto& so : *in.plan) {
    IntParts parts = int_parts_of(so, in.is_inference);
    for (const auto& shard : so.shards) {
      auto& r = ints.at(rank_index(shard.rank.value_or(-1), static_cast<int>(ranks.size())));
      r.fwd_compute = r.fwd_compute && parts.fwd_compute;
      r.fwd_comms = r.fwd_comms && parts.fwd_comms;
      r.bwd_compute = r.bwd_compute && parts.bwd_compute;
      r.bwd_comms = r.bwd_comms && parts.bwd_comms;
    }
  }
  auto column = [&](bool IntParts::*part) {
    std::vector<bool> out;
    for (const auto& r : ints) out.push_back(r.*part);
    return out;
  };
  report.max_fwd_compute = max_stat(fwd_compute, column(&IntParts::fwd_compute));
  report.max_fwd_comms = max_stat(fwd_comms, column(&IntParts::fwd_comms));
  report.max_bwd_compute = max_stat(bwd_compute, column(&IntParts::bwd_compute));
  report.max_bwd_comms = max_stat(bwd_comms, column(&IntParts::bwd_comms));
  report.max_prefetch_compute = max_stat(prefetch);
  report.sum_of_maxima = report.max_fwd_compute.value + report.max_fwd_comms.value + report.max_bwd_compute.value +
                         report.max_bwd_comms.value + report.max_prefetch_compute.value;

  auto max_of = [](const std::vector<std::int64_t>& v) { return *std::max_element(v.begin(), v.end()); };
  auto min_of = [](const std::vector<std::int64_t>& v) { return *std::min_element(v.begin(), v.end()); };
  report.sparse_max_hbm = hbm_stat(sparse_hbm, max_of(sparse_hbm));
  report.sparse_min_hbm = hbm_stat(sparse_hbm, min_of(sparse_hbm));
  report.max_hbm = hbm_stat(used_hbm, max_of(used_hbm));
  report.min_hbm = hbm_stat(used_hbm, min_of(used_hbm));
  report.mean_hbm = hbm_stat(used_hbm, rounded_int_mean(used_hbm));
  std::vector<std::int64_t> sorted = used_hbm;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  // statistics.median_low / median_high
  report.low_median_hbm = hbm_stat(used_hbm, n % 2 ? sorted[n / 2] : sorted[n / 2 - 1]);
  report.high_median_hbm = hbm_stat(used_hbm, sorted[n / 2]);

  // torchrec's _calculate_critical_path: comms synchronise per (module, sharding
  // type, direction), compute per direction; each costs its slowest rank.
  using CommsKey = std::tuple<std::string, ShardingType, int>;
  std::vector<CommsKey> comms_order;
  std::map<CommsKey, std::map<int, double>> comms;
  std::map<int, double> fwd_comp, bwd_comp;
  for (const auto& so : *in.plan) {
    CommsKey fwd{so.path, so.sharding_type, 0}, bwd{so.path, so.sharding_type, 1};
    for (const auto& key : {fwd, bwd})
      if (!comms.count(key)) {
        comms_order.push_back(key);
        comms[key];
      }
    for (const auto& shard : so.shards) {
      int r = shard.rank.value_or(-1);
      Perf p = shard.perf.value_or(Perf{});
      comms[fwd][r] += p.fwd_comms;
      comms[bwd][r] += p.bwd_comms;
      fwd_comp[r] += p.fwd_compute;
      bwd_comp[r] += p.bwd_compute;
    }
  }
  auto max_value = [](const std::map<int, double>& m) {
    double best = m.begin()->second;
    for (const auto& [r, v] : m) best = std::max(best, v);
    return best;
  };
  double comms_estimate = 0;
  for (const auto& key : comms_order)
    if (!comms[key].empty()) comms_estimate += max_value(comms[key]);
  double comp_estimate = 0;
  if (!fwd_comp.empty()) comp_estimate += max_value(fwd_comp);
  if (!bwd_comp.empty()) comp_estimate += max_value(bwd_comp);
  report.critical_path_comms = comms_estimate;
  report.critical_path_compute = comp_estimate;

  const std::int64_t max_used = max_of(used_hbm);
  std::int64_t sum_used = 0;
  for (auto x : used_hbm) sum_used += x;
  const double mean_used = static_cast<double>(sum_used) / static_cast<double>(n);
  if (mean_used > 0.0) report.hbm_delta_pct = (static_cast<double>(max_used) - mean_used) / mean_used * 100;

  report.top_hbm = max_used;
  std::vector<std::int64_t> remaining = used_hbm;
  std::vector<int> remaining_ranks(used_hbm.size());
  for (std::size_t i = 0; i < remaining_ranks.size(); ++i) remaining_ranks[i] = static_cast<int>(i);
  for (std::size_t tier = 0; tier < kNumPeakTiers && !remaining.empty(); ++tier) {
    std::int64_t top = max_of(remaining);
    PeakTier t;
    t.bytes = top;
    std::vector<std::int64_t> rest;
    std::vector<int> rest_ranks;
    for (std::size_t i = 0; i < remaining.size(); ++i) {
      if (within_one_mb(static_cast<double>(remaining[i]), static_cast<double>(top))) {
        // torchrec numbers a tier's ranks by their position in the shortened list.
        t.ranks.push_back(static_cast<int>(i));
        t.actual_ranks.push_back(remaining_ranks[i]);
      } else {
        rest.push_back(remaining[i]);
        rest_ranks.push_back(remaining_ranks[i]);
      }
    }
    report.peak_tiers.push_back(std::move(t));
    remaining = std::move(rest);
    remaining_ranks = std::move(rest_ranks);
  }
}

}  // namespace

std::string sharding_type_abbr(ShardingType type) {
  switch (type) {
    case ShardingType::kDataParallel:
      return "DP";
    case ShardingType::kTableWise:
      return "TW";
    case ShardingType::kColumnWise:
      return "CW";
    case ShardingType::kRowWise:
      return "RW";
    case ShardingType::kTableRowWise:
      return "TWRW";
    case ShardingType::kTableColumnWise:
      return "TWCW";
    case ShardingType::kGridShard:
      return "GS";
  }
  return "?";
}

ImbalanceStats imbalance_stats(const std::vector<double>& p) {
  ImbalanceStats s;
  const std::size_t k = p.size();
  if (k == 0) return s;
  const double uniform = 1.0 / static_cast<double>(k);
  const double kd = static_cast<double>(k);
  double tv = 0, td = 0, chi = 0, kl = 0;
  for (double pi : p) {
    double d = std::fabs(pi - uniform);
    tv = std::max(tv, d);
    td += d;
    chi += std::pow(d, 2.0) * kd;
    if (pi > 0) kl += pi * std::log(kd * pi);
  }
  s.total_variation = tv;
  s.total_distance = td;
  // Upper bounds for k ranks; both are 0 for one rank, where torchrec reports 0.
  const double max_chi = std::pow((kd - 1) / kd, 2.0) * kd + (kd - 1) * (1 / kd);
  const double max_kl = std::log(kd);
  s.chi_divergence = max_chi > 0 ? chi / max_chi : 0.0;
  s.kl_divergence = max_kl > 0 ? kl / max_kl : 0.0;
  return s;
}

double python_mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  // Shewchuk's exact partials (as math.fsum), then one division: statistics.mean
  // divides the exact sum; a double rounding here is a 1-ulp risk, never visible
  // at the 3 decimals torchrec prints.
  std::vector<double> partials;
  for (double x : values) {
    std::size_t i = 0;
    for (double y : partials) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0) partials[i++] = lo;
      x = hi;
    }
    partials.resize(i);
    partials.push_back(x);
  }
  long double sum = 0;
  for (double p : partials) sum += p;
  return static_cast<double>(sum / static_cast<long double>(values.size()));
}

StatsReport compute_stats_report(const StatsInput& in) {
  const auto& plan = *in.plan;
  const Topology& topo = *in.topology;
  const ReservationResult& res = *in.reservation;
  const int world = topo.world_size;

  StatsReport report;
  report.has_plan = in.has_plan;
  report.debug = in.debug;
  report.num_proposals = in.num_proposals;
  report.num_plans = in.num_plans;
  report.run_time_seconds = in.run_time_seconds;
  report.batch_size = in.batch_size;
  report.world_size = world;

  // torchrec's _compute_storage: the percentage of the three known policies, and
  // dense/KJT storage of heuristical and inference reservations.
  const bool known_policy = res.policy.has_value();
  const bool has_dense_kjt =
      res.policy == ReservationPolicy::kHeuristical || res.policy == ReservationPolicy::kInference;
  const double reserved_pct = known_policy ? res.percentage : 0.0;
  const Storage dense = has_dense_kjt ? res.dense_storage : Storage{};
  const Storage kjt = has_dense_kjt ? res.kjt_storage : Storage{};

  report.ranks.resize(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) report.ranks[r].rank = r;

  std::set<std::string> used_types;
  for (const auto& so : plan) {
    std::string kernel(to_string(so.compute_kernel));
    report.kernel_counts[kernel] += 1;
    report.kernel_storage[kernel] += so.total_storage();
    if (!in.has_plan) continue;  // torchrec finds no table in an empty sharding plan

    ShardIoRequest io;
    io.sharding_type = so.sharding_type;
    io.batch_sizes = batch_sizes_of(in, so);
    io.world_size = world;
    io.local_world_size = topo.local_world_size;
    io.input_lengths = so.input_lengths;
    io.emb_dim = so.tensor_shape.at(1);
    for (const auto& shard : so.shards) io.shard_sizes.push_back(shard.size);
    io.input_data_type_size = kIdBytes;
    io.output_data_type_size = so.tensor_element_size;
    io.num_poolings = num_poolings_of(in, so);
    io.is_pooled = so.is_pooled;
    ShardIoSizes sizes = calculate_shard_io_sizes(io);

    std::string abbr = sharding_type_abbr(so.sharding_type);
    used_types.insert(abbr);
    // torchrec zips the plan's ranks with the IO lists (table-wise has one entry).
    for (std::size_t i = 0; i < so.shards.size() && i < sizes.input_bytes.size(); ++i) {
      auto& rs = report.ranks.at(rank_index(so.shards[i].rank.value_or(-1), world));
      rs.shards_by_type[abbr] += 1;
      rs.input_mb += bytes_to_mb(static_cast<double>(sizes.input_bytes[i]));
      rs.output_mb += bytes_to_mb(static_cast<double>(sizes.output_bytes[i]));
    }
  }
  for (auto& rs : report.ranks)
    for (const auto& t : used_types) rs.shards_by_type.try_emplace(t, 0);

  // torchrec's _compute_mem_usage_and_perf, in plan order.
  for (const auto& so : plan)
    for (const auto& shard : so.shards) {
      auto& rs = report.ranks.at(rank_index(shard.rank.value_or(-1), world));
      Storage st = shard.storage.value_or(Storage{});
      rs.sparse_hbm += st.hbm;
      rs.used_ddr += st.ddr;
      rs.perf += shard.perf.value_or(Perf{});
    }
  for (auto& rs : report.ranks) {
    rs.used_hbm = rs.sparse_hbm + dense.hbm + kjt.hbm;
    rs.used_ddr = rs.used_ddr + dense.ddr + kjt.ddr;
    const Storage& cap = topo.devices.at(rs.rank).storage;
    const double planning_hbm = (1 - reserved_pct) * static_cast<double>(cap.hbm);
    const bool gpu = topo.compute_device == ComputeDevice::kCuda || topo.compute_device == ComputeDevice::kMtia;
    rs.hbm_ratio = gpu && planning_hbm != 0 ? static_cast<double>(rs.used_hbm) / planning_hbm : 0;
    rs.ddr_ratio = cap.ddr > 0 ? static_cast<double>(rs.used_ddr) / static_cast<double>(cap.ddr) : 0;
  }

  if (in.debug) fill_parameters(in, report);

  if (in.debug && in.has_plan) {
    std::vector<double> totals;
    std::vector<std::int64_t> hbm, ddr;
    for (const auto& rs : report.ranks) {
      totals.push_back(rs.perf.total());
      hbm.push_back(rs.used_hbm);
      ddr.push_back(rs.used_ddr);
    }
    double total_perf = py_sum(totals);
    std::int64_t total_hbm = 0, total_ddr = 0;
    for (auto x : hbm) total_hbm += x;
    for (auto x : ddr) total_ddr += x;
    if (total_perf > 0) {
      std::vector<double> p;
      for (double t : totals) p.push_back(t / total_perf);
      report.perf_imbalance = imbalance_stats(p);
    }
    if (total_hbm > 0) report.hbm_imbalance = imbalance_stats(normalize_ints(hbm));
    if (total_ddr > 0) report.ddr_imbalance = imbalance_stats(normalize_ints(ddr));
    fill_maxima(in, report);
  }

  if (in.debug) {
    // torchrec's _log_storage_reservation_stats reads rank 0's capacity.
    const Storage& cap = topo.devices.at(0).storage;
    auto& rv = report.reservation;
    rv.reserved_hbm_percent = reserved_pct;
    rv.usable_hbm = static_cast<std::int64_t>((1 - reserved_pct) * static_cast<double>(cap.hbm));
    rv.reserved_hbm = static_cast<std::int64_t>(reserved_pct * static_cast<double>(cap.hbm));
    rv.usable_ddr = cap.ddr;
    rv.is_heuristical = res.policy == ReservationPolicy::kHeuristical;
    rv.dense_storage = dense;
    rv.kjt_storage = kjt;
  }

  if (in.debug && in.has_plan) {
    auto by_perf = imbalance_tables<double>(plan, [](const Shard& s) { return s.perf.value_or(Perf{}).total(); });
    for (std::size_t i = 0; i < by_perf.size() && i < kNumTopTables; ++i)
      report.top_perf_tables.push_back(by_perf[i]->name);
    auto by_hbm =
        imbalance_tables<std::int64_t>(plan, [](const Shard& s) { return s.storage.value_or(Storage{}).hbm; });
    for (std::size_t i = 0; i < by_hbm.size() && i < kNumTopTables; ++i) {
      TopHbmTable t;
      t.name = by_hbm[i]->name;
      t.hbm = by_hbm[i]->shards.at(0).storage.value_or(Storage{}).hbm;
      for (const auto& s : by_hbm[i]->shards) t.ranks.push_back(s.rank.value_or(-1));
      report.top_hbm_tables.push_back(std::move(t));
    }
  }
  return report;
}

std::unique_ptr<Stats> make_stats(StatsKind kind) {
  switch (kind) {
    case StatsKind::kEmbedding:
      return std::make_unique<EmbeddingStats>();
  }
  return nullptr;  // unreachable: the switch covers every kind (-Wswitch)
}

}  // namespace shardplan
