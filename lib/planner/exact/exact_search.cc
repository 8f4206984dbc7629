#include "planner/exact/exact_search.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <tuple>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::exact {

namespace {

constexpr double kInfinityExact = std::numeric_limits<double>::infinity();
// Work charged per node beside its rank visits (bookkeeping, the bound's terms).
constexpr std::int64_t kNodeOverhead = 16;
// Nodes between two looks at the clock.
constexpr std::int64_t kClockStride = 1024;

// One option of a table as the search places it.
// The refinement's reduced option, plus the order the branch and bound places shards in.
struct SearchShape : optimizing::RefinementOption {
  std::vector<int> order;         // shards placed one by one: largest perf first (index on a tie)
  std::vector<double> rest_perf;  // per position of `order`: perf of order[k..] summed
  std::vector<Storage> rest_storage;
};

struct SearchTable {
  int input_index = 0;              // in BoundInput::tables
  std::vector<SearchShape> shapes;  // usable and distinct, least total perf first
  double least_total = 0;           // over shapes
  double least_largest = 0;
  Storage least_storage;  // component-wise least total storage
};

bool same_search_shape(const SearchShape& a, const SearchShape& b) {
  return a.rule == b.rule && a.table_row_wise == b.table_row_wise && a.perf == b.perf && a.storage == b.storage;
}

// nullopt-like: false when the rule cannot place the option on this topology at all.
bool shape_usable(const SearchShape& s, int world, int local, int hosts) {
  const int n = static_cast<int>(s.perf.size());
  switch (s.rule) {
    case PartitionBy::kUniform:
      return n == world;
    case PartitionBy::kDevice:
      return world > 0;
    case PartitionBy::kHost:
      return hosts > 0 && (!s.table_row_wise || n == local);
    case PartitionBy::kMultiHost:
      return hosts > 0 && n > 0 && n % local == 0;
  }
  return false;
}

SearchShape make_search_shape(const ShardingOption& option) {
  SearchShape s;
  static_cast<optimizing::RefinementOption&>(s) = optimizing::refinement_option_of(option);
  s.order.resize(s.perf.size());
  std::iota(s.order.begin(), s.order.end(), 0);
  std::stable_sort(s.order.begin(), s.order.end(), [&](int a, int b) {
    return s.perf[static_cast<std::size_t>(a)] > s.perf[static_cast<std::size_t>(b)];
  });
  s.rest_perf.assign(s.order.size() + 1, 0.0);
  s.rest_storage.assign(s.order.size() + 1, Storage{});
  for (std::size_t k = s.order.size(); k-- > 0;) {
    s.rest_perf[k] = s.rest_perf[k + 1] + s.perf[static_cast<std::size_t>(s.order[k])];
    s.rest_storage[k] = s.rest_storage[k + 1] + s.storage[static_cast<std::size_t>(s.order[k])];
  }
  return s;
}

class BranchAndBound {
 public:
  BranchAndBound(const BoundInput& input, const ExactOptions& options)
      : options_(options), incumbent_(options.incumbent), start_(std::chrono::steady_clock::now()) {
    const Topology& topo = *input.reserved;
    world_ = static_cast<int>(topo.devices.size());
    local_ = std::max(1, std::min(topo.local_world_size, std::max(world_, 1)));
    hosts_ = world_ / local_;
    for (const DeviceHardware& d : topo.devices) capacity_.push_back(d.storage);
    loads_.assign(static_cast<std::size_t>(world_), 0.0);
    used_.assign(static_cast<std::size_t>(world_), Storage{});
    for (const Storage& c : capacity_) free_total_ += c;
    build_tables(input);
    build_classes();
  }

  // Whether the instance is small enough to search (kMaxDecisions, kMaxRanks).
  bool searchable() const { return world_ > 0 && world_ <= kMaxRanks && decisions_ <= kMaxDecisions; }

  ExactResult run() {
    ExactResult out;
    out.work_budget = options_.work_budget;
    if (!searchable()) return out;
    out.searched = true;
    scratch_.resize(static_cast<std::size_t>(decisions_) + 1);
    if (incumbent_ > options_.floor) visit_table(0);
    out.nodes = nodes_;
    out.work_used = work_;
    out.stopped_by_clock = stopped_by_clock_;
    out.complete = abandoned_min_ == kInfinityExact || incumbent_ <= options_.floor;
    out.bound = std::min(incumbent_, abandoned_min_);
    if (!best_shape_.empty()) {
      out.value = best_value_;
      out.options.resize(input_tables_);
      out.ranks.resize(input_tables_);
      for (std::size_t i = 0; i < tables_.size(); ++i) {
        const SearchTable& t = tables_[i];
        out.options[static_cast<std::size_t>(t.input_index)] =
            t.shapes[static_cast<std::size_t>(best_shape_[i])].option;
        out.ranks[static_cast<std::size_t>(t.input_index)] = best_ranks_[i];
      }
    }
    return out;
  }

 private:
  void build_tables(const BoundInput& input) {
    input_tables_ = input.tables.size();
    std::vector<SearchTable> tables;
    for (std::size_t i = 0; i < input.tables.size(); ++i) {
      SearchTable t;
      t.input_index = static_cast<int>(i);
      for (const ShardingOption* option : input.tables[i]) {
        SearchShape s = make_search_shape(*option);
        if (!shape_usable(s, world_, local_, hosts_)) continue;
        bool seen = false;
        for (const SearchShape& o : t.shapes) seen = seen || same_search_shape(o, s);
        if (!seen) t.shapes.push_back(std::move(s));
      }
      std::stable_sort(t.shapes.begin(), t.shapes.end(),
                       [](const SearchShape& a, const SearchShape& b) { return a.total_perf < b.total_perf; });
      int most_shards = 0;
      t.least_total = t.least_largest = kInfinityExact;
      t.least_storage = Storage{std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max()};
      for (const SearchShape& s : t.shapes) {
        t.least_total = std::min(t.least_total, s.total_perf);
        t.least_largest = std::min(t.least_largest, s.max_shard_perf);
        t.least_storage.hbm = std::min(t.least_storage.hbm, s.total_storage.hbm);
        t.least_storage.ddr = std::min(t.least_storage.ddr, s.total_storage.ddr);
        if (s.rule == PartitionBy::kDevice || s.rule == PartitionBy::kHost)
          most_shards = std::max(most_shards, static_cast<int>(s.perf.size()));
      }
      if (t.shapes.empty()) t.least_storage = Storage{};
      decisions_ += 1 + most_shards;
      tables.push_back(std::move(t));
    }
    // Heaviest tables first: the max rises early, so bounds prune early.
    std::stable_sort(tables.begin(), tables.end(),
                     [](const SearchTable& a, const SearchTable& b) { return a.least_total > b.least_total; });
    tables_ = std::move(tables);
    const std::size_t n = tables_.size();
    rest_total_.assign(n + 1, 0.0);
    rest_largest_.assign(n + 1, 0.0);
    rest_storage_.assign(n + 1, Storage{});
    for (std::size_t i = n; i-- > 0;) {
      rest_total_[i] = rest_total_[i + 1] + tables_[i].least_total;
      rest_largest_[i] = std::max(rest_largest_[i + 1], tables_[i].least_largest);
      rest_storage_[i] = rest_storage_[i + 1] + tables_[i].least_storage;
    }
    cur_shape_.assign(n, -1);
    cur_ranks_.assign(n, {});
    fixed_.assign(n, {});
  }

  // Ranks of one class are interchangeable for every decision the search can
  // make: same capacity, same host where host rules exist, and every uniform,
  // table_row_wise and grid_shard option would put identical shards on them.
  // Built by refining a partition, one option at a time (stops once every rank
  // is alone in its class).
  void build_classes() {
    bool host_rules = false;
    for (const SearchTable& t : tables_)
      for (const SearchShape& s : t.shapes)
        host_rules = host_rules || s.rule == PartitionBy::kHost || s.rule == PartitionBy::kMultiHost;
    using ClassKey = std::tuple<int, double, std::int64_t, std::int64_t>;
    std::vector<int> ids(static_cast<std::size_t>(world_), 0);
    int count = 0;
    // Refines `ids` by a per-rank key; returns the number of classes.
    auto refine = [&](auto key_of) {
      std::map<ClassKey, int> fresh;
      for (int r = 0; r < world_; ++r) {
        const ClassKey key = key_of(r);
        ids[static_cast<std::size_t>(r)] = fresh.try_emplace(key, static_cast<int>(fresh.size())).first->second;
      }
      return static_cast<int>(fresh.size());
    };
    count = refine([&](int r) {
      const Storage& c = capacity_[static_cast<std::size_t>(r)];
      return ClassKey{host_rules ? r / local_ : 0, 0.0, c.hbm, c.ddr};
    });
    for (const SearchTable& t : tables_)
      for (const SearchShape& s : t.shapes) {
        if (count == world_) break;
        auto shard_key = [&](int r, std::size_t j) {
          return ClassKey{ids[static_cast<std::size_t>(r)], s.perf[j], s.storage[j].hbm, s.storage[j].ddr};
        };
        if (s.rule == PartitionBy::kUniform) {
          count = refine([&](int r) { return shard_key(r, static_cast<std::size_t>(r)); });
        } else if (s.rule == PartitionBy::kHost && s.table_row_wise) {
          count = refine([&](int r) { return shard_key(r, static_cast<std::size_t>(r % local_)); });
        } else if (s.rule == PartitionBy::kMultiHost) {
          for (std::size_t b = 0; b < s.perf.size() / static_cast<std::size_t>(local_); ++b)
            count = refine([&](int r) {
              return shard_key(r, b * static_cast<std::size_t>(local_) + static_cast<std::size_t>(r % local_));
            });
        }
      }
    class_ = std::move(ids);
  }

  // A lower bound on every completion of the current node, where tables [i, n)
  // are unplaced and `pending_*` are the unplaced shards of the table now being
  // placed (docs/exact-search.md, "node bound").
  double node_bound(std::size_t i, double pending_perf, double pending_largest, const Storage& pending_storage) const {
    const Storage need = pending_storage + rest_storage_[i];
    const Storage free = free_total_ - used_total_;
    if (!need.fits_in(free)) return kInfinityExact;
    double least_load = kInfinityExact;
    for (double l : loads_) least_load = std::min(least_load, l);
    double lb = std::max(options_.floor, max_load_);
    lb = std::max(lb, (sum_load_ + pending_perf + rest_total_[i]) / world_);
    lb = std::max(lb, least_load + std::max(pending_largest, rest_largest_[i]));
    return lb;
  }

  // Counts the node; false when it is pruned (its bound reaches the incumbent)
  // or left unexplored (work budget or clock spent: its bound is remembered).
  bool enter(double lb) {
    if (stop_) return false;
    ++nodes_;
    work_ += world_ + kNodeOverhead;
    if (lb >= incumbent_) return false;
    if (!out_of_budget_ && (work_ > options_.work_budget || (nodes_ % kClockStride == 0 && out_of_time())))
      out_of_budget_ = true;
    if (out_of_budget_) {
      abandoned_min_ = std::min(abandoned_min_, lb);
      return false;
    }
    return true;
  }

  // Once the budget is spent, a node stops branching and is left unexplored as a
  // whole: its bound holds for its whole subtree, the children it tried included.
  bool abandon_if_spent(double lb) {
    if (!out_of_budget_) return false;
    abandoned_min_ = std::min(abandoned_min_, lb);
    return true;
  }

  bool out_of_time() {
    if (options_.time_budget_seconds <= 0) return false;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (seconds <= options_.time_budget_seconds) return false;
    stopped_by_clock_ = true;
    return true;
  }

  void add(int r, double perf, const Storage& s) {
    const auto ru = static_cast<std::size_t>(r);
    loads_[ru] += perf;
    used_[ru] += s;
    sum_load_ += perf;
    used_total_ += s;
    max_load_ = std::max(max_load_, loads_[ru]);
  }
  void remove(int r, double perf, const Storage& s) {
    const auto ru = static_cast<std::size_t>(r);
    loads_[ru] -= perf;
    used_[ru] -= s;
    sum_load_ -= perf;
    used_total_ -= s;
  }
  bool fits(int r, const Storage& s) const {
    const auto ru = static_cast<std::size_t>(r);
    return (used_[ru] + s).fits_in(capacity_[ru]);
  }

  void leaf() {
    if (max_load_ >= incumbent_) return;
    incumbent_ = max_load_;
    best_value_ = max_load_;
    best_shape_ = cur_shape_;
    best_ranks_ = cur_ranks_;
    // The floor is a proven bound: nothing can be better than a plan on it.
    if (incumbent_ <= options_.floor) stop_ = true;
  }

  void visit_table(std::size_t i) {
    if (i == tables_.size()) return leaf();
    const double lb = node_bound(i, 0, 0, Storage{});
    if (!enter(lb)) return;
    const SearchTable& t = tables_[i];
    for (std::size_t si = 0; si < t.shapes.size() && !stop_; ++si) {
      if (abandon_if_spent(lb)) break;
      const SearchShape& s = t.shapes[si];
      cur_shape_[i] = static_cast<int>(si);
      std::vector<int>& ranks = cur_ranks_[i];
      ranks.assign(s.perf.size(), -1);
      const int n = static_cast<int>(s.perf.size());
      switch (s.rule) {
        case PartitionBy::kUniform: {
          std::vector<int>& all = fixed_[i];
          all.resize(static_cast<std::size_t>(n));
          std::iota(all.begin(), all.end(), 0);
          place_fixed(i, s, all);
          break;
        }
        case PartitionBy::kDevice:
          place_device(i, s, 0, 0, world_, lb);
          break;
        case PartitionBy::kHost:
          for (int h = 0; h < hosts_ && !stop_ && !abandon_if_spent(lb); ++h) {
            if (s.table_row_wise) {
              std::vector<int>& on_host = fixed_[i];
              on_host.resize(static_cast<std::size_t>(n));
              std::iota(on_host.begin(), on_host.end(), h * local_);
              place_fixed(i, s, on_host);
            } else {
              place_device(i, s, 0, h * local_, (h + 1) * local_, lb);
            }
          }
          break;
        case PartitionBy::kMultiHost: {
          std::vector<int> block_host(static_cast<std::size_t>(n / local_), -1);
          place_blocks(i, s, 0, block_host, lb);
          break;
        }
      }
    }
    cur_shape_[i] = -1;
    cur_ranks_[i].clear();
  }

  // Places every shard j of `s` on ranks[j] (if all fit), then the next table.
  void place_fixed(std::size_t i, const SearchShape& s, const std::vector<int>& ranks) {
    const std::size_t n = ranks.size();
    std::size_t placed = 0;
    const double saved_max = max_load_;
    for (; placed < n; ++placed) {
      if (!fits(ranks[placed], s.storage[placed])) break;
      add(ranks[placed], s.perf[placed], s.storage[placed]);
    }
    if (placed == n) {
      cur_ranks_[i] = ranks;
      visit_table(i + 1);
    }
    while (placed-- > 0) remove(ranks[placed], s.perf[placed], s.storage[placed]);
    max_load_ = saved_max;
  }

  // grid_shard: block b on a host (torchrec's multi_host rule, see the header).
  void place_blocks(std::size_t i, const SearchShape& s, std::size_t b, std::vector<int>& block_host, double lb) {
    const std::size_t blocks = block_host.size();
    if (b == blocks) {
      std::vector<int>& ranks = fixed_[i];
      ranks.resize(s.perf.size());
      for (std::size_t j = 0; j < ranks.size(); ++j)
        ranks[j] = block_host[j / static_cast<std::size_t>(local_)] * local_ + static_cast<int>(j) % local_;
      place_fixed(i, s, ranks);
      return;
    }
    const auto hosts = static_cast<std::size_t>(hosts_);
    if (blocks >= hosts && b >= hosts) {  // the cycle repeats the first hosts' order
      block_host[b] = block_host[b % hosts];
      place_blocks(i, s, b + 1, block_host, lb);
      return;
    }
    for (int h = 0; h < hosts_ && !stop_ && !abandon_if_spent(lb); ++h) {
      if (std::find(block_host.begin(), block_host.begin() + static_cast<std::ptrdiff_t>(b), h) !=
          block_host.begin() + static_cast<std::ptrdiff_t>(b))
        continue;
      block_host[b] = h;
      place_blocks(i, s, b + 1, block_host, lb);
    }
    block_host[b] = -1;
  }

  // Shard order[k] of `s` (and those after it) on ranks [lo, hi), then the next table.
  // `lb` is the bound of the node that chose the option (k == 0).
  void place_device(std::size_t i, const SearchShape& s, std::size_t k, int lo, int hi, double lb) {
    if (k == s.order.size()) return visit_table(i + 1);
    if (k > 0) {
      lb = node_bound(i + 1, s.rest_perf[k], s.perf[static_cast<std::size_t>(s.order[k])], s.rest_storage[k]);
      if (!enter(lb)) return;
    }
    const auto j = static_cast<std::size_t>(s.order[k]);
    // A shard identical to the one placed before it (same perf and storage: the
    // shards of a column_wise option usually are) goes on a rank of that one's
    // index or above: any plan is such a plan once identical shards trade ranks,
    // so no plan is lost, and a group of m identical shards is no longer placed in
    // its m! orders. Ranks skipped by the class rule below come after a kept rank
    // of lower index, so exchanging the two keeps the group's order.
    int first = lo;
    if (k > 0) {
      const auto prev = static_cast<std::size_t>(s.order[k - 1]);
      if (s.perf[prev] == s.perf[j] && s.storage[prev] == s.storage[j]) first = cur_ranks_[i][prev];
    }
    // Candidate ranks, least loaded first; of ranks in one class with the same
    // load and storage used, only the first (the others give the same subtrees).
    std::vector<int>& candidates = scratch_[depth_];  // sized in run(): never reallocated under a reference
    candidates.resize(static_cast<std::size_t>(hi - first));
    std::iota(candidates.begin(), candidates.end(), first);
    ++depth_;
    auto key = [&](int r) {
      const auto ru = static_cast<std::size_t>(r);
      return std::make_tuple(loads_[ru], used_[ru].hbm, used_[ru].ddr, class_[ru], r);
    };
    std::sort(candidates.begin(), candidates.end(), [&](int a, int b) { return key(a) < key(b); });
    for (std::size_t c = 0; c < candidates.size() && !stop_; ++c) {
      if (abandon_if_spent(lb)) break;
      const int r = candidates[c];
      if (c > 0) {
        const auto a = key(candidates[c - 1]);
        const auto here = key(r);
        if (std::get<0>(a) == std::get<0>(here) && std::get<1>(a) == std::get<1>(here) &&
            std::get<2>(a) == std::get<2>(here) && std::get<3>(a) == std::get<3>(here))
          continue;
      }
      if (!fits(r, s.storage[j])) continue;
      const double saved_max = max_load_;
      add(r, s.perf[j], s.storage[j]);
      cur_ranks_[i][j] = r;
      if (max_load_ < incumbent_) place_device(i, s, k + 1, lo, hi, lb);
      remove(r, s.perf[j], s.storage[j]);
      max_load_ = saved_max;
      cur_ranks_[i][j] = -1;
    }
    --depth_;
  }

  const ExactOptions& options_;
  int world_ = 0;
  int local_ = 1;
  int hosts_ = 0;
  std::vector<Storage> capacity_;
  std::vector<int> class_;
  std::vector<std::vector<int>> scratch_;  // candidate ranks, per depth of place_device
  std::size_t depth_ = 0;
  std::size_t input_tables_ = 0;
  int decisions_ = 0;
  std::vector<SearchTable> tables_;  // in branching order
  std::vector<double> rest_total_;
  std::vector<double> rest_largest_;
  std::vector<Storage> rest_storage_;

  // The node's state.
  std::vector<double> loads_;
  std::vector<Storage> used_;
  double sum_load_ = 0;
  double max_load_ = 0;
  Storage used_total_;
  Storage free_total_;
  std::vector<int> cur_shape_;
  std::vector<std::vector<int>> cur_ranks_;
  std::vector<std::vector<int>> fixed_;  // per table: the ranks place_fixed is trying

  // The search's state.
  double incumbent_;
  double best_value_ = kInfinityExact;
  std::vector<int> best_shape_;
  std::vector<std::vector<int>> best_ranks_;
  double abandoned_min_ = kInfinityExact;
  std::int64_t nodes_ = 0;
  std::int64_t work_ = 0;
  bool out_of_budget_ = false;
  bool stopped_by_clock_ = false;
  bool stop_ = false;
  std::chrono::steady_clock::time_point start_;
};

// The search's size before anything is built: ranks, and decisions (per table
// one option choice plus the shards its largest device or host option places one
// by one), so that too large an instance costs next to nothing.
bool small_enough(const BoundInput& input) {
  const std::size_t ranks = input.reserved->devices.size();
  if (ranks == 0 || ranks > static_cast<std::size_t>(kMaxRanks)) return false;
  std::size_t decisions = 0;
  for (const auto& table : input.tables) {
    std::size_t most = 0;
    for (const ShardingOption* option : table)
      if (option->partition_by == PartitionBy::kDevice || option->partition_by == PartitionBy::kHost)
        most = std::max(most, option->shards.size());
    decisions += 1 + most;
    if (decisions > static_cast<std::size_t>(kMaxDecisions)) return false;
  }
  return true;
}

}  // namespace

bool exact_searchable(const BoundInput& input) { return small_enough(input); }

ExactResult exact_search(const BoundInput& input, const ExactOptions& options) {
  if (!small_enough(input)) {
    ExactResult out;
    out.work_budget = options.work_budget;
    return out;
  }
  BranchAndBound search(input, options);
  return search.run();
}

}  // namespace shardplan::exact
