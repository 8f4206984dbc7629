// The planner's value types and one abstract class per stage, named as in
// torchrec's planner/types.py so that a torchrec reader finds every concept:
//   Topology -> Enumerator (ShardingOptions, estimated by ShardEstimators, owned
//   by a SearchSpace that gives each an OptionId) -> StorageReservation ->
//   Proposer / Partitioner / PerfModel loop over proposals of option ids -> Stats.
// One stage torchrec does not have, PlanRefiner, may follow the loop (the
// "optimizing" partitioner is greedy placement plus a refinement). Each stage's
// implementations sit in the file or folder of its name; advice/ and bounds/
// read the stages' results and nothing here includes them.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/names.h"
#include "config/config.h"
#include "planner/parallelism.h"
#include "planner/placement.h"
#include "planner/shards/shard_layout.h"

namespace shardplan {

// Estimated time of one shard, in ms (torchrec's Perf).
struct Perf {
  double fwd_compute = 0;
  double fwd_comms = 0;
  double bwd_compute = 0;
  double bwd_comms = 0;
  double prefetch_compute = 0;

  // torchrec sums in this order (fwd_compute + bwd_compute + fwd_comms + bwd_comms
  // + prefetch_compute); the order matters for bit-equal totals.
  double total() const { return fwd_compute + bwd_compute + fwd_comms + bwd_comms + prefetch_compute; }
  Perf& operator+=(const Perf& o) {
    fwd_compute += o.fwd_compute;
    fwd_comms += o.fwd_comms;
    bwd_compute += o.bwd_compute;
    bwd_comms += o.bwd_comms;
    prefetch_compute += o.prefetch_compute;
    return *this;
  }
  // Field by field, bit for bit (no tolerance): "the same estimate".
  friend bool operator==(const Perf&, const Perf&) = default;
};

// Bytes of device (HBM) and host (DDR) memory (torchrec's Storage).
struct Storage {
  std::int64_t hbm = 0;
  std::int64_t ddr = 0;

  Storage& operator+=(const Storage& o) {
    hbm += o.hbm;
    ddr += o.ddr;
    return *this;
  }
  Storage& operator-=(const Storage& o) {
    hbm -= o.hbm;
    ddr -= o.ddr;
    return *this;
  }
  friend Storage operator+(Storage a, const Storage& b) { return a += b; }
  friend Storage operator-(Storage a, const Storage& b) { return a -= b; }
  friend bool operator==(const Storage&, const Storage&) = default;
  // torchrec's dataclass(order=True): compares (hbm, ddr) lexicographically.
  friend auto operator<=>(const Storage&, const Storage&) = default;
  bool fits_in(const Storage& o) const { return hbm <= o.hbm && ddr <= o.ddr; }
};

// One device of the topology with its capacity and (after partitioning) its load.
struct DeviceHardware {
  int rank = 0;
  Storage storage;
  Perf perf;
};

// The resolved topology: torchrec's Topology with every default applied.
struct Topology {
  int world_size = 1;
  int local_world_size = 1;
  ComputeDevice compute_device = ComputeDevice::kCuda;
  std::vector<DeviceHardware> devices;
  double hbm_mem_bw = 0;         // bytes/ms
  double ddr_mem_bw = 0;         // bytes/ms
  double hbm_to_ddr_mem_bw = 0;  // bytes/ms
  double intra_host_bw = 0;      // bytes/ms
  double inter_host_bw = 0;      // bytes/ms
  double bwd_compute_multiplier = 2.0;
  double weighted_feature_bwd_compute_multiplier = 1.0;
  double uneven_sharding_perf_multiplier = 1.0;
  bool has_custom_hbm_cap = false;  // custom per-rank HBM given (uneven RW split)
  bool has_custom_ddr_cap = false;

  int num_hosts() const { return world_size / local_world_size; }
};

// A subset of a table: rows/cols `size` at `offset`, with its estimates and rank.
struct Shard {
  ShardDims size{};    // [rows, cols]
  ShardDims offset{};  // [row, col]
  std::optional<Storage> storage;
  std::optional<Perf> perf;
  std::optional<int> rank;
};

// Shards [begin, begin + count) of a ShardList: one size, storage and perf, with
// offsets and ranks in arithmetic progression (shard k of the run is at
// offset + k * offset_step on rank + k * rank_step).
struct ShardRun {
  ShardDims size{};
  ShardDims offset{};       // of the run's first shard
  ShardDims offset_step{};  // added per later shard
  std::optional<Storage> storage;
  std::optional<Perf> perf;
  std::optional<int> rank;  // of the run's first shard
  std::int32_t rank_step = 0;
  std::int32_t begin = 0;  // index of the run's first shard in its list
  std::int32_t count = 0;

  // Shard k (0 <= k < count) of the run.
  Shard shard(std::int32_t k) const {
    Shard s;
    s.size = size;
    s.offset = {offset[0] + k * offset_step[0], offset[1] + k * offset_step[1]};
    s.storage = storage;
    s.perf = perf;
    if (rank) s.rank = *rank + k * rank_step;
    return s;
  }
};

// An option's shards, stored as runs (shard_list.cc): a row-wise option on 1 024
// ranks is full blocks, a remainder and empty shards (three runs, not 1 024
// Shards), a data-parallel one a single run. Reads like a vector of Shard whose
// elements are computed values: operator[] and the iterator return a const Shard
// by value (so `shards[i].rank = r` does not compile), equal field by field (perf
// bit for bit) to the one pushed. Writers push shards in order or change whole
// runs (with_run_values, with_ranks); update() and set() rebuild the list.
class ShardList {
 public:
  class Iterator {
   public:
    using value_type = Shard;
    using difference_type = std::ptrdiff_t;
    using reference = const Shard;
    using iterator_category = std::input_iterator_tag;
    Iterator() = default;
    Iterator(const ShardRun* run, std::int32_t k) : run_(run), k_(k) {}
    const Shard operator*() const { return run_->shard(k_); }
    Iterator& operator++() {
      if (++k_ == run_->count) {
        ++run_;
        k_ = 0;
      }
      return *this;
    }
    Iterator operator++(int) {
      Iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const Iterator&, const Iterator&) = default;

   private:
    const ShardRun* run_ = nullptr;
    std::int32_t k_ = 0;
  };

  ShardList() = default;
  ShardList(std::initializer_list<Shard> shards);
  explicit ShardList(const std::vector<Shard>& shards);

  std::size_t size() const { return static_cast<std::size_t>(size_); }
  bool empty() const { return size_ == 0; }
  const Shard operator[](std::size_t i) const {
    const ShardRun& run = run_at(i);
    return run.shard(static_cast<std::int32_t>(i) - run.begin);
  }
  const Shard at(std::size_t i) const;  // throws std::out_of_range past the end
  const Shard front() const { return runs_.front().shard(0); }
  const Shard back() const { return runs_.back().shard(runs_.back().count - 1); }
  Iterator begin() const { return {runs_.data(), 0}; }
  Iterator end() const { return {runs_.data() + runs_.size(), 0}; }
  // The run holding shard i (i < size()).
  const ShardRun& run_at(std::size_t i) const {
    if (runs_.size() == 1) return runs_.front();
    return find_run(i);
  }
  const std::vector<ShardRun>& runs() const { return runs_; }

  // Appends `shard`, extending the last run where it continues it.
  void push_back(const Shard& shard);
  void clear() {
    runs_.clear();
    size_ = 0;
  }
  // Replaces shard i (rebuilds the list: for tests and rare edits).
  void set(std::size_t i, const Shard& shard);
  // Calls change(shard) on a copy of shard i, then stores it back with set().
  template <typename Change>
  void update(std::size_t i, Change change) {
    Shard shard = at(i);
    change(shard);
    set(i, shard);
  }
  // Calls update(run) on every run to set values that depend only on the run's size
  // (storage, perf): one estimate per run instead of one per shard. update must
  // not change a run's size, offsets, ranks, begin or count.
  template <typename Update>
  void with_run_values(Update update) {
    for (ShardRun& run : runs_) update(run);
  }
  // Sets the rank of shard j to rank_of(j) (an int or std::optional<int>) for every j.
  template <typename RankOf>
  void with_ranks(RankOf rank_of) {
    ShardList out;
    out.runs_.reserve(runs_.size());
    std::size_t j = 0;
    for (Shard shard : *this) {
      shard.rank = rank_of(j++);
      out.push_back(shard);
    }
    *this = std::move(out);
  }
  std::vector<Shard> to_vector() const { return {begin(), end()}; }

 private:
  const ShardRun& find_run(std::size_t i) const;
  std::vector<ShardRun> runs_;
  std::int32_t size_ = 0;
};

// One way of sharding one table (torchrec's ShardingOption).
struct ShardingOption {
  std::string name;      // table name
  std::string path;      // module path
  int module_index = 0;  // index into ModelConfig::modules
  int table_index = 0;   // index into that module's tables
  ModuleKind module_kind = ModuleKind::kEmbeddingBag;
  std::vector<std::int64_t> tensor_shape;  // [num_embeddings, embedding_dim]
  int tensor_element_size = 4;             // bytes per element as torchrec sizes it
  std::vector<double> input_lengths;       // pooling factor per input feature
  std::int64_t batch_size = 512;
  ShardingType sharding_type = ShardingType::kTableWise;
  PartitionBy partition_by = PartitionBy::kDevice;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  ShardList shards;
  std::optional<CacheParams> cache_params;  // config/config.h; the table's constraints give it
  std::optional<bool> enforce_hbm;
  std::optional<bool> stochastic_rounding;
  std::optional<BoundsCheckMode> bounds_check_mode;
  std::optional<DataType> output_dtype;
  bool is_pooled = true;
  bool is_weighted = false;
  std::vector<std::string> feature_names;

  std::string fqn() const { return path + "." + name; }
  std::optional<double> cache_load_factor() const {
    if (cache_params) return cache_params->load_factor;
    return std::nullopt;
  }
  int num_shards() const { return static_cast<int>(shards.size()); }
  int num_inputs() const { return static_cast<int>(input_lengths.size()); }
  Storage total_storage() const {
    Storage s;
    for (const ShardRun& run : shards.runs()) {
      const Storage each = run.storage.value_or(Storage{});
      s.hbm += run.count * each.hbm;  // integers: exact in any order
      s.ddr += run.count * each.ddr;
    }
    return s;
  }
  // Sum of shard totals, in shard order (torchrec's ShardingOption.total_perf):
  // one addition per shard, as floating point needs.
  double total_perf() const {
    double p = 0;
    for (const ShardRun& run : shards.runs()) {
      const double each = run.perf.value_or(Perf{}).total();
      for (std::int32_t k = 0; k < run.count; ++k) p += each;
    }
    return p;
  }
};

}  // namespace shardplan

namespace shardplan {

// torchrec's PlannerErrorType: why no plan was found.
enum class PlannerErrorType {
  kInsufficientStorage,
  kStrictConstraints,
  kPartition,
  kOther,
};

inline constexpr NameTable<PlannerErrorType, 4> kPlannerErrorTypeNames{{
    {PlannerErrorType::kInsufficientStorage, "INSUFFICIENT_STORAGE", ""},
    {PlannerErrorType::kStrictConstraints, "STRICT_CONSTRAINTS", ""},
    {PlannerErrorType::kPartition, "PARTITION", ""},
    {PlannerErrorType::kOther, "OTHER", ""},
}};

// What a storage reservation took away from every rank, and the topology left for
// the sharded tables (torchrec's last_reserved_topology plus its bookkeeping).
struct ReservationResult {
  std::optional<ReservationPolicy> policy;  // unset: no reservation ran
  double percentage = 0;
  double parameter_multiplier = 0;  // heuristical only
  Storage dense_storage;            // per rank (heuristical / inference)
  Storage kjt_storage;              // per rank (heuristical / inference)
  Topology reserved;                // devices hold the capacities left per rank
};

// Everything the estimators may read besides the option itself.
struct EstimatorContext {
  const Topology& topology;
  const ModelConfig& model;
  const PlannerOptions& planner;
  // Optional: per module index, whether any of its tables is constrained
  // is_weighted (precomputed so that estimating is not O(tables) per option).
  const std::vector<char>* module_weighted = nullptr;
  // Constraints of a table by name, or nullptr.
  const ParameterConstraintsConfig* constraints(const std::string& table) const {
    auto it = model.constraints.find(table);
    return it == model.constraints.end() ? nullptr : &it->second;
  }
};

// torchrec's ShardEstimator: fills one kind of estimate (storage or perf) into
// every shard of one option. Implementations must not read other options.
class ShardEstimator {
 public:
  virtual ~ShardEstimator() = default;
  virtual void estimate(ShardingOption& option, const EstimatorContext& context) const = 0;
};

// torchrec's Enumerator: every sharding option of every table, its shards laid
// out, estimated by `estimators` in order. Implementation: EmbeddingEnumerator
// (enumerator.h), chosen by name from kEnumeratorNames.
class Enumerator {
 public:
  virtual ~Enumerator() = default;
  // The options of `input` on `topology`; throws EnumerationError (enumerator.h)
  // when the constraints leave a table without options.
  virtual std::vector<ShardingOption> enumerate(const PlanningInput& input, const Topology& topology,
                                                const std::vector<const ShardEstimator*>& estimators,
                                                const Parallelism& parallelism) const = 0;
};

// An option's id in the SearchSpace (search_space.h) that owns it.
using OptionId = std::uint32_t;

// A proposal: one option id per table, in the proposer's table order.
using Proposal = std::vector<OptionId>;

class SearchSpace;

// Where a partitioner found no room, as data; lib/planner_output/partition_failure_text.h
// renders torchrec's PlannerError text from it when it is shown.
enum class PartitionFailureKind {
  kUniformShardCount,       // a uniform option's shards (count) != devices (devices)
  kUniformMisfit,           // a uniform shard (needed) does not fit its device (free)
  kDeviceMisfit,            // shard `shard` of `option` fits no device; `free`: the largest
  kNoHost,                  // no host takes `option` whole (host-level option)
  kNoHosts,                 // no set of hosts takes `option` (grid_shard)
  kNoHostLevel,             // a grid_shard option and no whole host
  kGridUneven,              // grid_shard: shards (count) not a multiple of local world size (devices)
  kUnexpectedShardingType,  // `option`'s sharding type cannot go where its partition_by says
  kNoPlacement,             // a partitioner's own "no placement" without a torchrec text
};

inline constexpr NameTable<PartitionFailureKind, 9> kPartitionFailureKindNames{{
    {PartitionFailureKind::kUniformShardCount, "uniform_shard_count", "a uniform option has not one shard per device"},
    {PartitionFailureKind::kUniformMisfit, "uniform_misfit", "a uniform shard does not fit its device"},
    {PartitionFailureKind::kDeviceMisfit, "device_misfit", "a shard fits no device"},
    {PartitionFailureKind::kNoHost, "no_host", "no host takes a host-level option"},
    {PartitionFailureKind::kNoHosts, "no_hosts", "no hosts take a grid_shard option"},
    {PartitionFailureKind::kNoHostLevel, "no_host_level", "grid_shard without a whole host"},
    {PartitionFailureKind::kGridUneven, "grid_uneven", "grid_shard shards do not divide into hosts"},
    {PartitionFailureKind::kUnexpectedShardingType, "unexpected_sharding_type",
     "a sharding type its partition_by does not place"},
    {PartitionFailureKind::kNoPlacement, "no_placement", "the partitioner found no placement"},
}};

// A partitioner's structured failure: which kind, the option (by id) and shard
// concerned, and the figures torchrec's text quotes. Cheap to make: no text.
struct PartitionFailure {
  PartitionFailureKind kind = PartitionFailureKind::kNoPlacement;
  OptionId option = 0;       // kDeviceMisfit, kNoHost, kNoHosts, kUnexpectedShardingType
  int shard = -1;            // kDeviceMisfit: index into the option's shards
  Storage needed;            // kUniformMisfit: the shard's storage
  Storage free;              // kUniformMisfit: the device's; kDeviceMisfit: the largest device's
  std::int64_t count = 0;    // kUniformShardCount, kGridUneven: the option's shards
  std::int64_t devices = 0;  // kUniformShardCount: devices; kGridUneven: local world size
  int param_count = 0;       // kNoHost, kNoHosts: options of the proposal on the option's module path
  bool multi_host = false;   // kUnexpectedShardingType: in the multi-host step (else cohost)
};

// A partitioner's answer: a placement, or the reason none exists.
struct PartitionOutcome {
  bool ok = false;
  Placement placement;
  // When ok: the largest per-rank perf total as the partitioner summed it (shard
  // perfs component by component, in its placement order; devices started at zero),
  // or NaN when the partitioner does not keep it.
  double largest_rank_load = std::numeric_limits<double>::quiet_NaN();
  // False when partition_above stopped early: every option surely fits, but the
  // placement is unfinished and largest_rank_load only a lower bound of the whole one.
  bool complete = true;
  PlannerErrorType error_type = PlannerErrorType::kPartition;
  PartitionFailure failure;  // when !ok
};

// Scratch a partitioner keeps from one partition() call to the next (buffers, the
// previous proposal's sort order): owned by the caller, used by one thread at a
// time, so that no partitioner holds hidden per-thread state.
class PartitionWorkspace {
 public:
  virtual ~PartitionWorkspace() = default;
  // A placement the caller no longer needs, handed back so that the next partition()
  // can write into its buffers: a placement of a big proposal is hundreds of KiB, and
  // allocating it afresh for each of tens of thousands of proposals cost page faults
  // and cold caches (5 000 tables x 1 024 ranks, 2 threads).
  void recycle(Placement&& placement) { spare_ = std::move(placement); }
  // The recycled placement (empty, buffers kept), or a fresh one.
  Placement take_spare() { return std::move(spare_); }

 private:
  Placement spare_;
};

// torchrec's Partitioner: assigns every shard of a proposal to a rank within the
// capacities of `storage_constraint` (the reserved topology). Must not mutate its
// inputs; "no placement" is a normal outcome. Callable from several threads at
// once, each with its own workspace.
class Partitioner {
 public:
  virtual ~Partitioner() = default;
  // A workspace for the partition() calls of one thread (null when none is needed).
  virtual std::unique_ptr<PartitionWorkspace> make_workspace() const { return nullptr; }
  // Places `proposal` (ids into `space`); `workspace` is one make_workspace() of
  // this partitioner made.
  virtual PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal,
                                     const Topology& storage_constraint, PartitionWorkspace* workspace) const = 0;
  // partition(), but allowed to stop before the placement is finished once it has
  // proven both that every option will find room and that some rank's load is
  // already above `stop_above` (then the outcome is ok, not complete). Partitioners
  // that cannot prove it place everything.
  virtual PartitionOutcome partition_above(const SearchSpace& space, const Proposal& proposal,
                                           const Topology& storage_constraint, PartitionWorkspace* workspace,
                                           double /*stop_above*/) const {
    return partition(space, proposal, storage_constraint, workspace);
  }
  // The same with a workspace of its own (one-off calls).
  PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal,
                             const Topology& storage_constraint) const {
    std::unique_ptr<PartitionWorkspace> workspace = make_workspace();
    return partition(space, proposal, storage_constraint, workspace.get());
  }
};

// torchrec's StorageReservation: given the full topology and the model, returns
// the capacities left per rank for the sharded tables. Must not mutate its inputs.
// Implementations: reservations/ (make_storage_reservation, kReservationPolicyNames).
// A reservation's answer: the reserved topology, or why none exists (torchrec
// raises PlannerError INSUFFICIENT_STORAGE when HBM goes negative).
struct ReservationOutcome {
  bool ok = true;
  ReservationResult result;  // filled also on failure (dense/kjt figures)
  PlannerErrorType error_type = PlannerErrorType::kInsufficientStorage;
  std::string message;
};

class StorageReservation {
 public:
  virtual ~StorageReservation() = default;
  virtual ReservationOutcome reserve(const Topology& topology, const ModelConfig& model) const = 0;
};

// torchrec's Proposer: proposes one sharding option per table, learns from the
// partitioner's verdict, proposes again until it has nothing left.
// Implementations: proposers/ (make_proposer, kProposerNames).
// Re-estimates one option in place after a proposer changed its kernel or cache
// (torchrec's Enumerator.populate_estimates for a single option).
using OptionEstimator = std::function<void(ShardingOption&)>;

// What the planner tells a proposer about its last proposal (torchrec's feedback()).
struct ProposerFeedback {
  bool partitionable = false;
  const Proposal* plan = nullptr;  // the proposal that was rated or failed
  std::optional<double> perf_rating;
  const Topology* storage_constraint = nullptr;
};

// A proposer: load() once with the search space, then alternate propose() /
// feedback(). Proposals are ids into the search space.
class ProposalSteps;  // proposal_steps.h

class Proposer {
 public:
  virtual ~Proposer() = default;
  // Groups the search space; returns an error message when the proposer cannot
  // work on it (torchrec raises there), else nullopt. `estimator` may be null.
  // Options the proposer derives (changed kernel or cache, re-estimated) are
  // added to `space` here, before anything is proposed; the planner loads the
  // proposers one at a time, so their ids do not depend on threads.
  virtual std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) = 0;
  // The next proposal, or nullopt when the proposer is done.
  virtual std::optional<Proposal> propose() = 0;
  // propose() into `out` (false: done, `out` unspecified). `out_is_last`: `out` holds
  // this proposer's last proposal unchanged, so a proposer that knows which tables
  // changed since may patch it instead of writing all of it (proposals of thousands
  // of tables differ in one).
  virtual bool propose_into(Proposal& out, bool /*out_is_last*/) {
    std::optional<Proposal> next = propose();
    if (!next) return false;
    out = std::move(*next);
    return true;
  }
  // The verdict on the last proposal.
  virtual void feedback(const ProposerFeedback& feedback) = 0;
  // Writes to `out` up to `n` proposals that propose() will return next (the current
  // one first) when the verdicts do not change the sequence, only possibly end it
  // early; the planner evaluates them ahead, in parallel. Leaves `out` empty when the
  // proposer cannot tell.
  virtual void lookahead(std::size_t /*n*/, ProposalSteps& /*out*/) const {}
  // An independent copy in the current state, which given the same verdicts
  // proposes exactly what this one will. nullptr when the proposer cannot be copied.
  virtual std::unique_ptr<Proposer> clone() const { return nullptr; }
  // Whether feedback() looks at the perf rating's value. When no proposer does, a
  // placed proposal that cannot be the best need not be rated exactly
  // (PerfModel::rated_above).
  virtual bool reads_ratings() const { return true; }
};

// torchrec's PerfModel: one number per placed proposal, lower is better.
// Implementation: NoopPerfModel (perf_model.h).
// Rates a placed proposal; the planner keeps the proposal with the lowest rating.
class PerfModel {
 public:
  virtual ~PerfModel() = default;
  // The rating of `proposal` (ids into `space`) placed by `placement`.
  virtual double rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                      int world_size) const = 0;
  // True only when rate() of the placed `outcome` is certainly above `cutoff`,
  // answered without rating it (false: not known).
  virtual bool rated_above(const SearchSpace& /*space*/, const PartitionOutcome& /*outcome*/, double /*cutoff*/) const {
    return false;
  }
  // A load L such that any outcome of `num_options` options whose largest_rank_load
  // is above L is rated_above `cutoff` (infinity: none is known).
  virtual double load_above(const SearchSpace& /*space*/, std::size_t /*num_options*/, double /*cutoff*/) const {
    return std::numeric_limits<double>::infinity();
  }
};

struct StatsInput;   // stats_report.h
struct StatsReport;  // stats_report.h

// torchrec's Stats: the report of a finished run, as data (lib/planner_output renders
// it). Implementation: EmbeddingStats (stats_report.h), chosen by name from kStatsNames.
class Stats {
 public:
  virtual ~Stats() = default;
  // The report of the plan (or last failed proposal) that `input` describes.
  virtual StatsReport log(const StatsInput& input) const = 0;
};

// What a refinement did to the plan it was given.
struct RefinementOutcome {
  bool improved = false;  // false: the plan and its rating are unchanged
  std::string summary;    // one line for the phase times ("optimize placement ... (figures)")
  // The wall-clock cap (--time-budget) ended the search before its work budget:
  // the plan may differ on a slower or busier machine.
  bool stopped_by_clock = false;
};

// A refinement (shardplan's own stage; torchrec has none): composed after a
// partitioner, it improves the best plan of the proposal loop. Implementation:
// OptimizingRefiner (refiners/optimizing_refiner.h), which the partitioner name
// "optimizing" composes after the greedy partitioner (make_refiner).
class PlanRefiner {
 public:
  virtual ~PlanRefiner() = default;
  // Improves `plan` (every shard placed within `reserved`, rated `perf_rating`)
  // in place, choosing each table's option among `options`; never makes the
  // rating worse.
  virtual RefinementOutcome refine(std::vector<ShardingOption>& plan, double& perf_rating,
                                   const std::vector<ShardingOption>& options, const Topology& reserved) const = 0;
  // A plan when the proposal loop found none: searches `options` for a placement
  // within `reserved`; `improved` true when `plan` (every shard placed) and
  // `perf_rating` were set. By default no search (plan left empty).
  virtual RefinementOutcome search(std::vector<ShardingOption>& /*plan*/, double& /*perf_rating*/,
                                   const std::vector<ShardingOption>& /*options*/, const Topology& /*reserved*/) const {
    return {};
  }
};

}  // namespace shardplan
