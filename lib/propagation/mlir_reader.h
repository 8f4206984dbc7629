// Reading a StableHLO module with Shardy's `sdy` dialect in MLIR's printed form (what
// `jax.jit(f).lower(...).as_text()` prints) into a Program, keeping where each sharding
// is written so that `--format mlir` can write the module back (mlir_writer.h).
//
// Our own recursive-descent reader: no MLIR dependency. It knows `sdy.mesh`, argument and
// result `sdy.sharding` attributes, `sdy.sharding_constraint`, the StableHLO ops that
// match the op kinds of program.h, `stablehlo.constant`, `func.call` and `return`.
// Every function's body becomes part of the program (Shardy's passes propagate each
// function of the module; a call has no sharding rule, so nothing crosses it); the
// public function's results are the outputs. Anything else is a positioned error.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "propagation/program.h"
#include "propagation/program_reader.h"

namespace shardplan::propagation {

// Where one sharding is written in the module text, and how to write a new one.
struct MlirShardingSite {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  enum class Form {
    kPerValue,  // an op result: `sdy.sharding = #sdy.sharding_per_value<[<@m, [...]>]>`
    kTensor,    // a function argument or result: `sdy.sharding = #sdy.sharding<@m, [...]>`
    kInline,    // `sdy.sharding_constraint %x <@m, [...]>`: the `<...>` itself
  };
  Form form = Form::kPerValue;
  std::size_t value_begin = kNone, value_end = kNone;  // an existing sharding value: replaced
  std::size_t dict_close = kNone;                      // an attribute dict without one: `}` position
  bool dict_empty = false;
  std::size_t insert = kNone;  // no dict: ` {sdy.sharding = ...}` goes here
  // A single function result written without parentheses: `-> tensor<...>` must become
  // `-> (tensor<...> {...})`: the type's range.
  std::size_t type_begin = kNone, type_end = kNone;
};

// What the MLIR reader keeps besides the program.
struct MlirSource {
  std::string text;       // the module as read
  std::string mesh_name;  // the `sdy.mesh` the shardings refer to
  // Per tensor of the program: where its sharding is written.
  std::vector<std::vector<MlirShardingSite>> tensor_sites;
  std::vector<MlirShardingSite> output_sites;  // per output: main's results, then other functions'
};

// True when `text` is MLIR rather than JSON or YAML: a `.mlir` path, or a first token of
// `module`, `func.func`, `sdy.mesh` or `#loc`.
bool looks_like_mlir(const std::string& path, std::string_view text);

// Reads the module in `text` (read from `path`, which positions messages name).
// Throws InputError ("path:line:col: what") on anything it does not accept.
Program read_mlir_program(const std::string& path, std::string text, const OptionOverrides& overrides);

}  // namespace shardplan::propagation
