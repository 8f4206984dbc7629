#include "planner_output/stats_text.h"

#include <algorithm>

#include "common/python_format.h"

namespace shardplan {

namespace {

constexpr std::size_t kMinWidth = 90;  // torchrec's MIN_WIDTH
constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;

using Table = std::vector<std::vector<std::string>>;

double bytes_to_gb(std::int64_t bytes) { return static_cast<double>(bytes) / kBytesPerGb; }

// str(round(x, n)) in Python.
std::string round_repr(double x, int ndigits) { return python_repr(python_round(x, ndigits)); }
std::string gb3(std::int64_t bytes) { return round_repr(bytes_to_gb(bytes), 3); }

// torchrec's round_to_one_sigfig: f'{float(f"{x:.1g}"):g}'.
std::string one_sigfig(double x) { return format_general(std::strtod(format_general(x, 1).c_str(), nullptr), 6); }

// torchrec's _format_perf_breakdown: total to 3 decimals, parts >= 1 as integers,
// smaller parts to one significant figure.
std::string perf_breakdown(const Perf& perf) {
  std::string parts;
  for (double v : {perf.fwd_compute, perf.fwd_comms, perf.bwd_compute, perf.bwd_comms, perf.prefetch_compute}) {
    if (!parts.empty()) parts += ",";
    parts += v >= 1 ? std::to_string(python_round_int(v)) : one_sigfig(v);
  }
  return round_repr(perf.total(), 3) + " (" + parts + ")";
}

// torchrec's _collapse_consecutive_ranks: "2-5" for a run of 2+ ranks, else each.
std::vector<std::string> collapse_ranks(const std::vector<int>& ranks) {
  if (ranks.size() > 1) {
    int lo = *std::min_element(ranks.begin(), ranks.end());
    int hi = *std::max_element(ranks.begin(), ranks.end());
    bool run = static_cast<std::size_t>(hi - lo + 1) == ranks.size();
    for (std::size_t i = 0; run && i < ranks.size(); ++i) run = ranks[i] == lo + static_cast<int>(i);
    if (run) return {std::to_string(lo) + "-" + std::to_string(hi)};
  }
  std::vector<std::string> out;
  for (int r : ranks) out.push_back(std::to_string(r));
  return out;
}

std::string join_stats_parts(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string rank_word(std::size_t n) { return n > 1 ? "ranks" : "rank"; }

// torchrec's _reduce_int_list, including its spelling: inner runs "v * n", the
// final run "v*n".
std::string reduce_int_list(const std::vector<std::int64_t>& values) {
  if (values.empty()) return "";
  std::vector<std::string> parts;
  std::int64_t prev = values[0];
  int count = 1;
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (values[i] == prev) {
      ++count;
      continue;
    }
    parts.push_back(count > 1 ? std::to_string(prev) + " * " + std::to_string(count) : std::to_string(prev));
    prev = values[i];
    count = 1;
  }
  parts.push_back(count > 1 ? std::to_string(prev) + "*" + std::to_string(count) : std::to_string(prev));
  return join_stats_parts(parts, ", ");
}

// torchrec's _format_table: every column right-aligned to its widest cell + 3.
std::vector<std::string> format_table(const Table& table) {
  std::vector<std::size_t> widths(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t i = 0; i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size() + 3);
  std::vector<std::string> out;
  for (const auto& row : table) {
    std::string line;
    for (std::size_t i = 0; i < widths.size(); ++i) line += pad_right_aligned(row[i], widths[i]);
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> rank_table(const StatsReport& r) {
  Table t{{"Rank", "HBM (GB)", "DDR (GB)", "Perf (ms)", "Input (MB)", "Output (MB)", "Shards"},
          {"------", "----------", "----------", "-----------", "------------", "-------------", "--------"}};
  for (const auto& rs : r.ranks) {
    std::vector<std::string> shards;
    for (const auto& [type, n] : rs.shards_by_type) shards.push_back(type + ": " + std::to_string(n));
    t.push_back({std::to_string(rs.rank), gb3(rs.used_hbm) + " (" + format_percent0(rs.hbm_ratio) + ")",
                 gb3(rs.used_ddr) + " (" + format_percent0(rs.ddr_ratio) + ")", perf_breakdown(rs.perf),
                 round_repr(rs.input_mb, 2), round_repr(rs.output_mb, 2), join_stats_parts(shards, " ")});
  }
  return format_table(t);
}

std::vector<std::string> parameter_table(const StatsReport& r) {
  Table t{{"FQN", "Sharding", "Compute Kernel", "Perf (ms)", "Storage (HBM, DDR)", "Cache Load Factor",
           "Sum Pooling Factor", "Sum Num Poolings", "Num Indices", "Output", "Weighted", "Sharder", "Features",
           "Emb Dim (CW Dim)", "Hash Size", "Ranks"},
          {"-----", "----------", "----------------", "-----------", "--------------------", "-------------------",
           "--------------------", "------------------", "-------------", "--------", "----------", "---------",
           "----------", "------------------", "-----------", "-------"}};
  const bool with_batch_sizes = std::any_of(r.parameters.begin(), r.parameters.end(),
                                            [](const auto& p) { return p.batch_sizes && !p.batch_sizes->empty(); });
  if (with_batch_sizes) {
    t[0].push_back("Batch Sizes");
    t[1].push_back("-------------");
  }
  for (const auto& p : r.parameters) {
    std::string clf = "None";
    if (p.shows_cache_load_factor && p.cache_load_factor) clf = python_repr(*p.cache_load_factor);
    std::string dim = std::to_string(p.embedding_dim);
    if (p.column_shard_dim) dim += " (" + std::to_string(*p.column_shard_dim) + ")";
    t.push_back({p.fqn, p.sharding_abbr, p.compute_kernel, perf_breakdown(p.perf),
                 "(" + gb3(p.storage.hbm) + " GB, " + gb3(p.storage.ddr) + " GB)", clf,
                 round_repr(p.sum_pooling_factor, 3), round_repr(p.sum_num_poolings, 3), round_repr(p.num_indices, 3),
                 p.is_pooled ? "pooled" : "sequence", p.is_weighted ? "weighted" : "unweighted", p.sharder,
                 std::to_string(p.num_features), dim, std::to_string(p.hash_size),
                 r.has_plan ? join_stats_parts(collapse_ranks(p.ranks), ",") : "None"});
    if (with_batch_sizes)
      t.back().push_back(p.batch_sizes && !p.batch_sizes->empty() ? reduce_int_list(*p.batch_sizes) : "n/a");
  }
  return format_table(t);
}

// Appends framed lines at the table's final width.
class Frame {
 public:
  explicit Frame(std::size_t width) : width_(width) {}
  void rule() { lines_.push_back(std::string(width_, '#')); }
  void centered(const std::string& text) { lines_.push_back("#" + pad_center(text, width_ - 2) + "#"); }
  void blank() { centered(""); }
  void row(const std::string& text) { lines_.push_back("# " + pad_left_aligned(text, width_ - 3) + "#"); }
  // torchrec pads this one line to width - 2, so its closing '#' sticks out.
  void wide_row(const std::string& text) { lines_.push_back("# " + pad_left_aligned(text, width_ - 2) + "#"); }
  void item(const std::string& text) { lines_.push_back("#    " + pad_left_aligned(text, width_ - 6) + "#"); }
  std::vector<std::string> take() { return std::move(lines_); }

 private:
  std::size_t width_;
  std::vector<std::string> lines_;
};

std::string max_text(const MaxStat& m) {
  // round(int, 3) stays an int in Python.
  std::string value = m.is_int ? std::to_string(python_round_int(m.value)) : round_repr(m.value, 3);
  return value + " ms on " + rank_word(m.ranks.size()) + " " + join_stats_parts(collapse_ranks(m.ranks), ",");
}

std::string hbm_text(const HbmStat& s) {
  return gb3(s.bytes) + " GB on " + rank_word(s.ranks.size()) + " " + python_int_list(s.ranks);
}

void imbalance_lines(Frame& f, const std::string& title, const ImbalanceStats& s) {
  f.blank();
  f.row(title);
  f.row("Total Variation: " + format_fixed(s.total_variation, 3));
  f.row("Total Distance: " + format_fixed(s.total_distance, 3));
  f.row("Chi Divergence: " + format_fixed(s.chi_divergence, 3));
  f.row("KL Divergence: " + format_fixed(s.kl_divergence, 3));
}

void maxima_lines(Frame& f, const StatsReport& r) {
  f.blank();
  f.row("Maximum of Total Perf: " + max_text(r.max_total_perf));
  f.row("Mean Total Perf: " + round_repr(r.mean_total_perf, 3) + " ms");
  f.row("Max Total Perf is " + format_general(r.total_perf_delta_pct, 3) + "% greater than the mean");
  f.row("Maximum of Forward Compute: " + max_text(r.max_fwd_compute));
  f.row("Maximum of Forward Comms: " + max_text(r.max_fwd_comms));
  f.row("Maximum of Backward Compute: " + max_text(r.max_bwd_compute));
  f.row("Maximum of Backward Comms: " + max_text(r.max_bwd_comms));
  f.row("Maximum of Prefetch Compute: " + max_text(r.max_prefetch_compute));
  f.row("Sum of Maxima: " + round_repr(r.sum_of_maxima, 3) + " ms");
  f.blank();
  f.wide_row("Estimated Sharding Distribution");
  f.row("Sparse only Max HBM: " + hbm_text(r.sparse_max_hbm));
  f.row("Sparse only Min HBM: " + hbm_text(r.sparse_min_hbm));
  f.row("Max HBM: " + hbm_text(r.max_hbm));
  f.row("Min HBM: " + hbm_text(r.min_hbm));
  f.row("Mean HBM: " + hbm_text(r.mean_hbm));
  f.row("Low Median HBM: " + hbm_text(r.low_median_hbm));
  f.row("High Median HBM: " + hbm_text(r.high_median_hbm));
  f.row("Critical Path (comms): " + round_repr(r.critical_path_comms, 3));
  f.row("Critical Path (compute): " + round_repr(r.critical_path_compute, 3));
  f.row("Critical Path (comms + compute): " + round_repr(r.critical_path_comms + r.critical_path_compute, 3));
  f.row("Max HBM is " + format_general(r.hbm_delta_pct, 3) + "% greater than the mean");
  f.blank();
  f.blank();
  f.row("Top HBM Memory Usage Estimation: " + gb3(r.top_hbm) + " GB");
  for (std::size_t i = r.peak_tiers.size(); i-- > 0;) {
    const auto& tier = r.peak_tiers[i];
    f.row("Top Tier #" + std::to_string(i + 1) + " Estimated Peak HBM Pressure: " + gb3(tier.bytes) + " GB on " +
          rank_word(tier.ranks.size()) + " " + join_stats_parts(collapse_ranks(tier.ranks), ","));
  }
}

void reservation_lines(Frame& f, const ReservationStats& rv) {
  f.blank();
  f.row("Reserved Memory:");
  f.item("HBM: " + gb3(rv.reserved_hbm) + " GB");
  f.item("Percent of Total HBM: " + format_percent0(rv.reserved_hbm_percent));
  f.row("Planning Memory:");
  f.item("HBM: " + gb3(rv.usable_hbm) + " GB, DDR: " + gb3(rv.usable_ddr) + " GB");
  f.item("Percent of Total HBM: " + format_percent0(1 - rv.reserved_hbm_percent));
  if (!rv.is_heuristical) return;
  f.blank();
  f.row("Dense Storage (per rank): ");
  f.item("HBM: " + gb3(rv.dense_storage.hbm) + " GB, DDR: " + gb3(rv.dense_storage.ddr) + " GB");
  f.blank();
  f.row("KJT Storage (per rank): ");
  f.item("HBM: " + gb3(rv.kjt_storage.hbm) + " GB, DDR: " + gb3(rv.kjt_storage.ddr) + " GB");
}

}  // namespace

std::vector<std::string> render_stats_lines(const StatsReport& r) {
  // The width grows to fit the rank table (+8) and the parameter table (+6),
  // computed even when the rank table is not printed, as torchrec does.
  std::size_t width = kMinWidth;
  std::vector<std::string> ranks = rank_table(r);
  width = std::max(width, ranks[0].size() + 8);
  std::vector<std::string> params;
  if (r.debug) {
    params = parameter_table(r);
    width = std::max(width, params[0].size() + 6);
  }

  Frame f(width);
  f.rule();
  f.centered("--- Planner Statistics ---");
  f.centered("--- Evaluated " + std::to_string(r.num_proposals) + " proposal(s), found " + std::to_string(r.num_plans) +
             " possible plan(s), ran for " + format_fixed(r.run_time_seconds, 2) + "s ---");
  f.centered(std::string(width - 4, '-'));
  if (r.has_plan) {
    for (const auto& row : ranks) f.row(row);
    f.blank();
    f.row("Perf: Total perf (Forward compute, Forward comms, Backward compute, Backward comms, Prefetch compute)");
    f.row("Input: MB/iteration, Output: MB/iteration, Shards: number of tables");
    f.row("HBM: estimated peak memory usage for shards, dense tensors, and features (KJT)");
  }
  if (r.debug) {
    f.blank();
    f.row("Parameter Info:");
    for (const auto& row : params) f.row(row);
  }
  f.blank();
  f.row("Batch Size: " + std::to_string(r.batch_size));
  if (!r.has_plan) {
    f.blank();
    f.row("World Size: " + std::to_string(r.world_size));
  }
  f.blank();
  f.row("Compute Kernels Count:");
  for (const auto& [kernel, n] : r.kernel_counts) f.item(kernel + ": " + std::to_string(n));
  f.blank();
  f.row("Compute Kernels Storage:");
  for (const auto& [kernel, s] : r.kernel_storage)
    f.item(kernel + ": HBM: " + gb3(s.hbm) + " GB, DDR: " + gb3(s.ddr) + " GB");

  if (r.debug) {
    if (r.has_plan) {
      if (r.perf_imbalance) imbalance_lines(f, "Total Perf Imbalance Statistics", *r.perf_imbalance);
      if (r.hbm_imbalance) imbalance_lines(f, "HBM Imbalance Statistics", *r.hbm_imbalance);
      if (r.ddr_imbalance) imbalance_lines(f, "DDR Imbalance Statistics", *r.ddr_imbalance);
      if (r.perf_imbalance || r.hbm_imbalance || r.ddr_imbalance) {
        f.blank();
        f.row("Imbalance stats range 0-1, higher means more imbalanced");
      }
      maxima_lines(f, r);
    }
    reservation_lines(f, r.reservation);
    if (r.has_plan) {
      f.blank();
      f.row("Top 5 Tables Causing Max Perf:");
      for (const auto& name : r.top_perf_tables) f.item(name);
      f.row("Top 5 Tables Causing Max HBM:");
      for (const auto& t : r.top_hbm_tables)
        f.item(t.name + ": " + gb3(t.hbm) + " GB on " + rank_word(t.ranks.size()) + " " + python_int_list(t.ranks));
    }
  }
  f.rule();
  return f.take();
}

std::string render_stats_text(const StatsReport& report) {
  std::string out;
  for (const auto& line : render_stats_lines(report)) out += line + "\n";
  return out;
}

}  // namespace shardplan
