// The tensor program `propagate` reads (docs/formats/propagate.md), its options
// (§7, §12.7) and the name tables of its enums.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/names.h"
#include "propagation/axis.h"
#include "propagation/sharding.h"

namespace shardplan::propagation {

// The op kinds; their sharding rules are in sharding_rule.cc (one builder per kind).
enum class OpKind {
  kNegate,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kTanh,
  kSine,
  kCosine,
  kLogistic,
  kConvert,
  kCopy,
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kMaximum,
  kMinimum,
  kPower,
  kDotGeneral,
  kMatmul,
  kReduce,
  kTranspose,
  kBroadcastInDim,
  kReshape,
  kConcatenate,
  // MLIR input only (not in kOpKindNames): `func.call`, which has no sharding rule, is
  // never erased (not pure), and propagates nothing between its operands and result.
  kCall,
};

inline constexpr NameTable<OpKind, 26> kOpKindNames{{
    {OpKind::kNegate, "negate", "unary element-wise"},
    {OpKind::kAbs, "abs", "unary element-wise"},
    {OpKind::kExp, "exp", "unary element-wise"},
    {OpKind::kLog, "log", "unary element-wise"},
    {OpKind::kSqrt, "sqrt", "unary element-wise"},
    {OpKind::kRsqrt, "rsqrt", "unary element-wise"},
    {OpKind::kTanh, "tanh", "unary element-wise"},
    {OpKind::kSine, "sine", "unary element-wise"},
    {OpKind::kCosine, "cosine", "unary element-wise"},
    {OpKind::kLogistic, "logistic", "unary element-wise"},
    {OpKind::kConvert, "convert", "unary element-wise"},
    {OpKind::kCopy, "copy", "unary element-wise; a result sharding pins the value (sharding_constraint)"},
    {OpKind::kAdd, "add", "binary element-wise"},
    {OpKind::kSubtract, "subtract", "binary element-wise"},
    {OpKind::kMultiply, "multiply", "binary element-wise"},
    {OpKind::kDivide, "divide", "binary element-wise"},
    {OpKind::kMaximum, "maximum", "binary element-wise"},
    {OpKind::kMinimum, "minimum", "binary element-wise"},
    {OpKind::kPower, "power", "binary element-wise"},
    {OpKind::kDotGeneral, "dot_general", "batched contraction"},
    {OpKind::kMatmul, "matmul", "2-D x 2-D dot_general contracting [1] x [0]"},
    {OpKind::kReduce, "reduce", "reduction over `dimensions`"},
    {OpKind::kTranspose, "transpose", "out[o] = in[permutation[o]]"},
    {OpKind::kBroadcastInDim, "broadcast_in_dim", "broadcast with `broadcast_dimensions`"},
    {OpKind::kReshape, "reshape", "same elements, new shape"},
    {OpKind::kConcatenate, "concatenate", "join along `dimension`"},
}};

// negate ... copy: one operand, result shape = operand shape.
bool is_unary_elementwise(OpKind kind);
// add ... power: two operands of one shape, result of that shape.
bool is_binary_elementwise(OpKind kind);
// Either of the above (aggressive propagation and op heuristics treat them alike).
inline bool is_elementwise(OpKind kind) { return is_unary_elementwise(kind) || is_binary_elementwise(kind); }

// Dimension sizes, major first (a size of 0 is allowed, §12.2).
using Shape = std::vector<std::int64_t>;

// One declared tensor. `sharding` is the input sharding with priorities.
struct Tensor {
  std::string name;
  Shape shape;
  TensorSharding sharding;
  int defined_by = -1;  // op index, -1 for a program input
  // The input wrote a sharding for it: the result of a `copy` is then pinned (§13.1).
  bool sharding_written = false;
};

// One op with its attributes (only those of its kind are meaningful).
struct Op {
  std::string name;
  OpKind kind = OpKind::kAdd;
  std::vector<int> operands;  // tensor indices
  std::vector<int> results;   // exactly one
  std::vector<std::int64_t> lhs_batching_dims, rhs_batching_dims, lhs_contracting_dims, rhs_contracting_dims;
  std::vector<std::int64_t> dimensions;            // reduce
  std::vector<std::int64_t> permutation;           // transpose
  std::vector<std::int64_t> broadcast_dimensions;  // broadcast_in_dim
  std::int64_t dimension = 0;                      // concatenate
};

// A program result, optionally with its own sharding (Shardy's function result sharding, §12.3).
struct Output {
  int tensor = 0;
  std::optional<TensorSharding> sharding;
};

enum class Strategy { kBasic, kAggressive, kOpPriority, kUserPriority };
inline constexpr NameTable<Strategy, 4> kStrategyNames{{
    {Strategy::kBasic, "basic", "compatible axes only, no conflict resolution (sdy-basic-propagate)"},
    {Strategy::kAggressive, "aggressive", "resolves conflicts per tensor (sdy-aggressive-propagate)"},
    {Strategy::kOpPriority, "op-priority", "aggressive, in five rounds of op heuristics (sdy-op-priority-propagate)"},
    {Strategy::kUserPriority, "user-priority",
     "op-priority once per user priority p0, p1, ... (sdy-user-priority-propagate)"},
}};

// Which factor propagation(s) one propagation runs (ignored by the basic strategy).
enum class FactorPropagationKind { kAggressive, kBasic, kBasicThenAggressive };
inline constexpr NameTable<FactorPropagationKind, 3> kFactorPropagationNames{{
    {FactorPropagationKind::kAggressive, "aggressive", "one aggressive run"},
    {FactorPropagationKind::kBasic, "basic", "one basic run"},
    {FactorPropagationKind::kBasicThenAggressive, "basic_then_aggressive", "a basic run, then an aggressive run"},
}};

enum class OutputFormat { kJson, kText, kMlir };
inline constexpr NameTable<OutputFormat, 3> kOutputFormatNames{{
    {OutputFormat::kJson, "json", "the result as JSON"},
    {OutputFormat::kText, "text", "each tensor with its sharding and the op/iteration that set it"},
    {OutputFormat::kMlir, "mlir", "an MLIR input written back with the propagated shardings (Shardy's form)"},
}};

// Every option of the subcommand; the input's "options" fill what the CLI leaves unset.
struct Options {
  Strategy strategy = Strategy::kUserPriority;
  FactorPropagationKind factor_propagation = FactorPropagationKind::kAggressive;
  bool conservative_propagation = false;
  bool keep_sharding_rules = false;
  bool no_op_priority_propagation = false;
  std::string module_dump_directory;  // empty: no dumps
  std::string output;                 // empty: stdout
  OutputFormat format = OutputFormat::kJson;
};

struct MlirSource;  // mlir_reader.h

// A validated program.
struct Program {
  Mesh mesh;
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<Output> outputs;
  Options options;
  // Read from MLIR: the module text and where each sharding is written (for --format mlir).
  std::shared_ptr<const MlirSource> mlir;
};

// "[8, 8]".
std::string shape_text(const Shape& shape);
// a * b for non-negative sizes, saturating at INT64_MAX instead of overflowing.
std::int64_t saturating_product(std::int64_t a, std::int64_t b);
// Number of elements (0 when a dim is 0; saturates at INT64_MAX).
std::int64_t element_count(const Shape& shape);

}  // namespace shardplan::propagation
