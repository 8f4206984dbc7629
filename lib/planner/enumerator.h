// torchrec's EmbeddingEnumerator with the default sharders of
// EmbeddingBagCollection and EmbeddingCollection: every allowed (sharding type,
// compute kernel) pair of every table, laid out in shards and estimated.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"
#include "planner/parallelism.h"
#include "planner/types.h"

namespace shardplan {

// torchrec's RuntimeError when the constraints leave a table no (sharding type,
// compute kernel) pair; what() starts with torchrec's own wording.
class EnumerationError : public std::runtime_error {
 public:
  EnumerationError(std::string table, const std::string& message)
      : std::runtime_error(message), table_(std::move(table)) {}
  const std::string& table() const { return table_; }

 private:
  std::string table_;
};

// Sharding types the default sharder of `kind` offers on `device`, in the
// sharder's order (EmbeddingCollectionSharder: DP/TW/CW/RW everywhere;
// EmbeddingBagCollectionSharder: no DP on mtia, RW/TWRW/grid only on cuda/mtia).
std::vector<ShardingType> sharder_sharding_types(ModuleKind kind, ComputeDevice device);

// How a sharding type's shards are placed (torchrec's get_partition_by_type).
PartitionBy partition_by_of(ShardingType type);

// The sharding options of every table, estimated by `estimators` in the given
// order (torchrec's default runs perf then storage; the two are independent).
// Tables come in torchrec's order (modules depth-first, last child first, as its
// named_modules stack pops them; tables in module order), and per table the
// sharding types and kernels in the order torchrec produces under
// PYTHONHASHSEED=0. Tables whose device_group differs from the topology's device
// are skipped. Throws EnumerationError for a table left without options, also
// where torchrec's layout divides by zero (its message names the table and why).
// Big models are enumerated on the threads of `parallelism`; the result does not
// depend on them.
std::vector<ShardingOption> enumerate_options(const PlanningInput& input, const Topology& topology,
                                              const std::vector<const ShardEstimator*>& estimators,
                                              const Parallelism& parallelism = {});

// torchrec's EmbeddingEnumerator as the Enumerator stage: enumerate_options.
class EmbeddingEnumerator final : public Enumerator {
 public:
  std::vector<ShardingOption> enumerate(const PlanningInput& input, const Topology& topology,
                                        const std::vector<const ShardEstimator*>& estimators,
                                        const Parallelism& parallelism) const override {
    return enumerate_options(input, topology, estimators, parallelism);
  }
};

// The enumerators there are (one today; the table names the stage's default as
// every other stage's table does).
enum class EnumeratorKind { kEmbedding };

inline constexpr NameTable<EnumeratorKind, 1> kEnumeratorNames{{
    {EnumeratorKind::kEmbedding, "embedding",
     "every allowed (sharding type, compute kernel) pair of every table, laid out and estimated",
     "EmbeddingEnumerator"},
}};

// The enumerator of `kind`.
std::unique_ptr<Enumerator> make_enumerator(EnumeratorKind kind = EnumeratorKind::kEmbedding);

}  // namespace shardplan
