#include "propagation/json_program_reader.h"

#include <algorithm>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "propagation/op_shapes.h"

namespace shardplan::propagation {

namespace {

using Json = nlohmann::json;

// Signals "not a plainly valid program": the caller falls back to the positioned reader.
struct NotPlain {};

void require(bool condition) {
  if (!condition) throw NotPlain{};
}

const Json& member(const Json& object, const char* key) {
  auto it = object.find(key);
  require(it != object.end());
  return *it;
}

const Json* optional_member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

void only_keys(const Json& object, std::initializer_list<const char*> known) {
  require(object.is_object());
  for (const auto& [key, value] : object.items())
    require(std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; }));
}

std::int64_t integer(const Json& node, std::int64_t min) {
  require(node.is_number_integer());
  std::int64_t value = node.get<std::int64_t>();
  require(value >= min);
  return value;
}

std::vector<std::int64_t> integers(const Json& node) {
  require(node.is_array());
  std::vector<std::int64_t> out;
  out.reserve(node.size());
  for (const Json& v : node) out.push_back(integer(v, 0));
  return out;
}

const std::string& text(const Json& node) {
  require(node.is_string() && !node.get_ref<const std::string&>().empty());
  return node.get_ref<const std::string&>();
}

TensorSharding sharding(const Json& node, const Mesh& mesh, std::size_t rank) {
  auto written = parse_sharding_text(text(node));
  require(written && written->dims.size() == rank);
  std::vector<std::string> problems;
  auto resolved = resolve_sharding(*written, mesh, problems);
  require(resolved.has_value());
  return *resolved;
}

class JsonProgramReader {
 public:
  Program read(const Json& root, const OptionOverrides& overrides) {
    only_keys(root, {"mesh", "tensors", "ops", "outputs", "options"});
    read_mesh(member(root, "mesh"));
    read_tensors(member(root, "tensors"));
    if (const Json* ops = optional_member(root, "ops")) read_ops(*ops);
    for (std::size_t t = 0; t < program_.tensors.size(); ++t) {
      require(has_shape_[t] || program_.tensors[t].defined_by >= 0);
      if (pending_[t]) program_.tensors[t].sharding = sharding(*pending_[t], program_.mesh, program_.tensors[t].shape.size());
    }
    if (const Json* outputs = optional_member(root, "outputs")) read_outputs(*outputs);
    read_options(optional_member(root, "options"), overrides);
    return std::move(program_);
  }

 private:
  void read_mesh(const Json& mesh) {
    require(mesh.is_array());
    for (const Json& entry : mesh) {
      require(entry.is_array() && entry.size() == 2);
      const std::string& name = text(entry[0]);
      require(program_.mesh.find(name) < 0);
      program_.mesh.axes.push_back(MeshAxis{name, integer(entry[1], 1)});
    }
  }

  void read_tensors(const Json& tensors) {
    require(tensors.is_array());
    std::size_t n = tensors.size();
    program_.tensors.reserve(n);
    pending_.assign(n, nullptr);
    used_.assign(n, 0);
    by_name_.reserve(n * 2);
    for (std::size_t i = 0; i < n; ++i) {
      const Json& entry = tensors[i];
      only_keys(entry, {"name", "shape", "sharding"});
      Tensor tensor;
      tensor.name = text(member(entry, "name"));
      require(by_name_.emplace(tensor.name, static_cast<int>(i)).second);
      const Json* shape = optional_member(entry, "shape");
      const Json* written = optional_member(entry, "sharding");
      if (shape) {
        tensor.shape = integers(*shape);
        tensor.sharding = written ? sharding(*written, program_.mesh, tensor.shape.size())
                                  : open_sharding(tensor.shape.size());
      } else if (written) {
        pending_[i] = written;  // checked once the rank is inferred
      }
      has_shape_.push_back(shape != nullptr);
      program_.tensors.push_back(std::move(tensor));
    }
  }

  int tensor_index(const Json& name) {
    auto it = by_name_.find(text(name));
    require(it != by_name_.end());
    return it->second;
  }

  void read_ops(const Json& ops) {
    require(ops.is_array());
    program_.ops.reserve(ops.size());
    std::vector<Shape> in;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const Json& entry = ops[k];
      require(entry.is_object());
      Op op;
      op.name = "op" + std::to_string(k);
      if (const Json* name = optional_member(entry, "name")) op.name = text(*name);
      auto kind = parse_name(kOpKindNames, text(member(entry, "kind")));
      require(kind.has_value());
      op.kind = *kind;
      read_attributes(entry, op);
      for (const Json& name : member(entry, "operands")) {
        int t = tensor_index(name);
        op.operands.push_back(t);
        used_[t] = 1;
      }
      require(member(entry, "operands").is_array() && member(entry, "results").is_array());
      for (const Json& name : member(entry, "results")) {
        int t = tensor_index(name);
        // Used before this definition (or defined twice): the positioned reader says which.
        require(program_.tensors[t].defined_by < 0 && !used_[t]);
        program_.tensors[t].defined_by = static_cast<int>(k);
        op.results.push_back(t);
      }
      require(check_arity(op).empty());
      in.clear();
      for (int t : op.operands) {
        require(has_shape_[t] || program_.tensors[t].defined_by >= 0);
        in.push_back(program_.tensors[t].shape);
      }
      Tensor& result = program_.tensors[op.results[0]];
      std::optional<Shape> inferred;
      require(infer_result_shape(op, in, has_shape_[op.results[0]] ? &result.shape : nullptr, inferred).empty());
      if (has_shape_[op.results[0]]) {
        require(result.shape == *inferred);
      } else {
        result.shape = *inferred;
        if (!pending_[op.results[0]]) result.sharding = open_sharding(result.shape.size());
      }
      program_.ops.push_back(std::move(op));
    }
  }

  void read_attributes(const Json& entry, Op& op) {
    switch (op.kind) {
      case OpKind::kDotGeneral:
        only_keys(entry, {"name", "kind", "operands", "results", "lhs_batching_dims", "rhs_batching_dims",
                          "lhs_contracting_dims", "rhs_contracting_dims"});
        if (const Json* v = optional_member(entry, "lhs_batching_dims")) op.lhs_batching_dims = integers(*v);
        if (const Json* v = optional_member(entry, "rhs_batching_dims")) op.rhs_batching_dims = integers(*v);
        op.lhs_contracting_dims = integers(member(entry, "lhs_contracting_dims"));
        op.rhs_contracting_dims = integers(member(entry, "rhs_contracting_dims"));
        break;
      case OpKind::kReduce:
        only_keys(entry, {"name", "kind", "operands", "results", "dimensions"});
        op.dimensions = integers(member(entry, "dimensions"));
        break;
      case OpKind::kTranspose:
        only_keys(entry, {"name", "kind", "operands", "results", "permutation"});
        op.permutation = integers(member(entry, "permutation"));
        break;
      case OpKind::kBroadcastInDim:
        only_keys(entry, {"name", "kind", "operands", "results", "broadcast_dimensions"});
        op.broadcast_dimensions = integers(member(entry, "broadcast_dimensions"));
        break;
      case OpKind::kConcatenate:
        only_keys(entry, {"name", "kind", "operands", "results", "dimension"});
        op.dimension = integer(member(entry, "dimension"), 0);
        break;
      default: only_keys(entry, {"name", "kind", "operands", "results"}); break;
    }
  }

  void read_outputs(const Json& outputs) {
    require(outputs.is_array());
    for (const Json& entry : outputs) {
      Output output;
      if (entry.is_object()) {
        only_keys(entry, {"tensor", "sharding"});
        output.tensor = tensor_index(member(entry, "tensor"));
        if (const Json* s = optional_member(entry, "sharding"))
          output.sharding = sharding(*s, program_.mesh, program_.tensors[output.tensor].shape.size());
      } else {
        output.tensor = tensor_index(entry);
      }
      program_.outputs.push_back(std::move(output));
    }
  }

  template <typename Enum, std::size_t N>
  static void choose(const std::optional<std::string>& cli, const Json* options, const char* key,
                     const NameTable<Enum, N>& table, Enum& out) {
    const Json* node = options ? optional_member(*options, key) : nullptr;
    if (!cli && !node) return;
    auto value = parse_name(table, cli ? *cli : text(*node));
    require(value.has_value());
    out = *value;
  }

  static void flag(const std::optional<bool>& cli, const Json* options, const char* key, bool& out) {
    if (cli) {
      out = *cli;
      return;
    }
    const Json* node = options ? optional_member(*options, key) : nullptr;
    if (!node) return;
    require(node->is_boolean());
    out = node->get<bool>();
  }

  static void text_option(const std::optional<std::string>& cli, const Json* options, const char* key,
                          std::string& out) {
    if (cli) {
      out = *cli;
      return;
    }
    const Json* node = options ? optional_member(*options, key) : nullptr;
    if (node) out = text(*node);
  }

  void read_options(const Json* options, const OptionOverrides& cli) {
    if (options)
      only_keys(*options, {"strategy", "conservative_propagation", "keep_sharding_rules", "module_dump_directory",
                           "factor_propagation", "no_op_priority_propagation", "output", "format"});
    Options& o = program_.options;
    flag(cli.conservative_propagation, options, "conservative_propagation", o.conservative_propagation);
    flag(cli.keep_sharding_rules, options, "keep_sharding_rules", o.keep_sharding_rules);
    flag(cli.no_op_priority_propagation, options, "no_op_priority_propagation", o.no_op_priority_propagation);
    text_option(cli.module_dump_directory, options, "module_dump_directory", o.module_dump_directory);
    text_option(cli.output, options, "output", o.output);
    choose(cli.factor_propagation, options, "factor_propagation", kFactorPropagationNames, o.factor_propagation);
    choose(cli.format, options, "format", kOutputFormatNames, o.format);
    choose(cli.strategy, options, "strategy", kStrategyNames, o.strategy);
  }

  Program program_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<bool> has_shape_;
  std::vector<const Json*> pending_;
  std::vector<char> used_;  // per tensor: used as an operand so far
};

}  // namespace

std::optional<Program> read_valid_json_program(std::string_view text, const OptionOverrides& overrides) {
  Json root = Json::parse(text, nullptr, false);
  if (root.is_discarded()) return std::nullopt;
  try {
    return JsonProgramReader().read(root, overrides);
  } catch (const NotPlain&) {
    return std::nullopt;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

}  // namespace shardplan::propagation
