#include "propagation/program_reader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "document/document.h"
#include "document/input_text.h"
#include "document/node_reader.h"
#include "propagation/json_program_reader.h"
#include "propagation/mlir_reader.h"
#include "propagation/op_shapes.h"

namespace shardplan::propagation {

namespace {

using IntList = std::vector<std::int64_t>;

const std::vector<std::string> kTopKeys{"mesh", "tensors", "ops", "outputs", "options"};
const std::vector<std::string> kTensorKeys{"name", "shape", "sharding"};
const std::vector<std::string> kOutputKeys{"tensor", "sharding"};
// §12.7: the long CLI flags without dashes, `-` as `_`.
const std::vector<std::string> kOptionKeys{"strategy",
                                           "conservative_propagation",
                                           "keep_sharding_rules",
                                           "module_dump_directory",
                                           "factor_propagation",
                                           "no_op_priority_propagation",
                                           "output",
                                           "format"};

std::vector<std::string> yaml_op_attribute_keys(OpKind kind) {
  std::vector<std::string> keys{"name", "kind", "operands", "results"};
  std::vector<std::string> more = op_attribute_keys(kind);
  keys.insert(keys.end(), more.begin(), more.end());
  return keys;
}

// A sharding as written in the input, with where it was written.
struct PendingSharding {
  std::string text;
  YAML::Node node;
};

class ProgramReader {
 public:
  explicit ProgramReader(const Document& doc) : doc_(doc), r_(doc.file, DiagnosticOrder::kReported) {}

  Program read(const OptionOverrides& overrides) {
    const YAML::Node& root = doc_.root;
    if (!r_.expect_map(root, "")) r_.throw_if_any();
    r_.check_keys(root, "", kTopKeys);
    read_mesh(r_.field(root, "", "mesh", true));
    read_tensors(r_.field(root, "", "tensors", true));
    report_duplicate_tensors();
    read_ops(r_.field(root, "", "ops", false));
    check_inferred_ranks();
    read_outputs(r_.field(root, "", "outputs", false));
    read_options(r_.field(root, "", "options", false), overrides);
    r_.throw_if_any();
    return std::move(program_);
  }

 private:
  void spec_error(const YAML::Node& at, std::string message) { r_.report(at, "", std::move(message)); }

  std::optional<IntList> int_list(const YAML::Node& node, const std::string& path, Range range) {
    return r_.list<std::int64_t>(node, path, false,
                                 [&](const YAML::Node& n, const std::string& p) { return r_.integer(n, p, range); });
  }

  void read_mesh(const YAML::Node& node) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, "mesh", "expected a list of [name, size] pairs, found " + NodeReader::describe(node));
      return;
    }
    std::vector<std::pair<YAML::Node, std::string>> bad_sizes;
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node& entry = node[i];
      std::string path = join_index("mesh", i);
      if (!entry.IsSequence() || entry.size() != 2) {
        r_.report(entry, path, "expected [name, size], found " + NodeReader::describe(entry));
        continue;
      }
      auto name = r_.string(entry[0], join_index(path, 0));
      auto size = r_.integer(entry[1], join_index(path, 1));
      if (!name || !size) continue;
      if (program_.mesh.find(*name) >= 0) {
        spec_error(entry, "mesh: axis '" + *name + "' declared twice");
        continue;
      }
      if (*size < 1) bad_sizes.emplace_back(entry[1], "mesh: axis '" + *name + "' has size " + std::to_string(*size));
      program_.mesh.axes.push_back(MeshAxis{*name, std::max<std::int64_t>(*size, 1)});
    }
    // The spec lists "declared twice" before "has size": every duplicate is reported first.
    for (auto& [at, message] : bad_sizes) spec_error(at, std::move(message));
  }

  // Parses and checks one sharding; `rank` < 0 when not known yet. `who` prefixes messages.
  std::optional<TensorSharding> read_sharding(const PendingSharding& written, long rank, const std::string& who) {
    auto parsed = parse_sharding_text(written.text);
    if (!parsed) {
      spec_error(written.node, who + ": cannot parse sharding '" + written.text + "'");
      return std::nullopt;
    }
    if (rank >= 0 && static_cast<long>(parsed->dims.size()) != rank) {
      spec_error(written.node, who + ": sharding has " + std::to_string(parsed->dims.size()) +
                                   " dimensions but rank is " + std::to_string(rank));
      return std::nullopt;
    }
    std::vector<std::string> problems;
    auto resolved = resolve_sharding(*parsed, program_.mesh, problems);
    for (auto& p : problems) spec_error(written.node, who + ": " + p);
    return resolved;
  }

  void read_tensors(const YAML::Node& node) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, "tensors", "expected a list, found " + NodeReader::describe(node));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node& entry = node[i];
      std::string path = join_index("tensors", i);
      Tensor tensor;
      bool ok = r_.expect_map(entry, path);
      std::optional<IntList> shape;
      PendingSharding sharding;
      if (ok) {
        r_.check_keys(entry, path, kTensorKeys);
        auto name = r_.string(r_.field(entry, path, "name", true), join_key(path, "name"));
        if (name)
          tensor.name = *name;
        else
          ok = false;
        YAML::Node shape_node = r_.field(entry, path, "shape");
        if (shape_node.IsDefined()) {
          shape = int_list(shape_node, join_key(path, "shape"), Range::kNonNegative);
          if (!shape) ok = false;
        }
        YAML::Node sharding_node = r_.field(entry, path, "sharding");
        if (sharding_node.IsDefined()) {
          auto text = r_.string(sharding_node, join_key(path, "sharding"));
          if (text)
            sharding = PendingSharding{*text, sharding_node};
          else
            ok = false;
          tensor.sharding_written = true;
        }
      }
      if (shape) tensor.shape = *shape;
      has_shape_.push_back(shape.has_value());
      bool pending = false;
      if (ok && !sharding.text.empty()) {
        auto resolved =
            read_sharding(sharding, shape ? static_cast<long>(shape->size()) : -1, "tensor '" + tensor.name + "'");
        if (resolved) tensor.sharding = *resolved;
        if (!shape && resolved) {
          pending_rank_.push_back({program_.tensors.size(), sharding});
          pending = true;
        }
      } else if (shape) {
        tensor.sharding = open_sharding(shape->size());
      }
      has_pending_.push_back(pending);
      inferred_.push_back(false);
      if (!tensor.name.empty() && !by_name_.count(tensor.name))
        by_name_.emplace(tensor.name, static_cast<int>(program_.tensors.size()));
      nodes_.push_back(entry);
      program_.tensors.push_back(std::move(tensor));
    }
  }

  void report_duplicate_tensors() {
    std::map<std::string, int> seen;
    for (std::size_t i = 0; i < program_.tensors.size(); ++i) {
      const std::string& name = program_.tensors[i].name;
      if (name.empty()) continue;
      if (seen[name]++ == 1) spec_error(nodes_[i], "tensor '" + name + "' is declared twice");
    }
  }

  void read_ops(const YAML::Node& node) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, "ops", "expected a list, found " + NodeReader::describe(node));
      return;
    }
    // Who defines each tensor, first: a use before the definition needs the later definers.
    std::vector<int> definer(program_.tensors.size(), -1);
    std::vector<int> definer_count(program_.tensors.size(), 0);
    for (std::size_t k = 0; k < node.size(); ++k) {
      const YAML::Node& entry = node[k];
      if (!entry.IsMap()) continue;
      YAML::Node results = r_.field(entry, "", "results");
      if (!results.IsSequence()) continue;
      for (std::size_t j = 0; j < results.size(); ++j) {
        if (!results[j].IsScalar()) continue;
        auto it = by_name_.find(results[j].Scalar());
        if (it == by_name_.end()) continue;
        if (definer_count[it->second]++ == 0)
          definer[it->second] = static_cast<int>(k);
        else if (definer_count[it->second] == 2)
          spec_error(results[j], "tensor '" + it->first + "' is produced by more than one op");
      }
    }
    for (std::size_t t = 0; t < program_.tensors.size(); ++t) program_.tensors[t].defined_by = definer[t];
    for (std::size_t k = 0; k < node.size(); ++k) read_op(node[k], static_cast<int>(k), definer);
    for (std::size_t t = 0; t < program_.tensors.size(); ++t)
      if (!has_shape_[t] && definer[t] < 0 && !program_.tensors[t].name.empty())
        spec_error(nodes_[t], "tensor '" + program_.tensors[t].name + "': a program input needs a shape");
  }

  // Resolves tensor names; false when one is unknown or not defined yet.
  bool tensor_refs(const YAML::Node& list, const std::string& path, const std::string& op_name, int k,
                   const std::vector<int>& definer, bool check_defined, std::vector<int>& out) {
    auto names = r_.list<std::string>(list, path, false,
                                      [&](const YAML::Node& n, const std::string& p) { return r_.string(n, p); });
    if (!names) return false;
    bool ok = true;
    for (std::size_t i = 0; i < names->size(); ++i) {
      const std::string& name = (*names)[i];
      auto it = by_name_.find(name);
      if (it == by_name_.end()) {
        spec_error(list[i], "op '" + op_name + "': unknown tensor '" + name + "'");
        ok = false;
        continue;
      }
      if (check_defined && definer[it->second] >= k) {
        spec_error(list[i], "op '" + op_name + "': tensor '" + name + "' is used before it is defined");
        ok = false;
      }
      out.push_back(it->second);
    }
    return ok;
  }

  void read_op(const YAML::Node& entry, int k, const std::vector<int>& definer) {
    std::string path = join_index("ops", k);
    Op op;
    op.name = "op" + std::to_string(k);
    bool ok = r_.expect_map(entry, path);
    if (!ok) {
      program_.ops.push_back(std::move(op));
      return;
    }
    if (auto n = r_.field(entry, path, "name"); n.IsDefined()) {
      if (auto name = r_.string(n, join_key(path, "name")))
        op.name = *name;
      else
        ok = false;
    }
    ok = tensor_refs(r_.field(entry, path, "operands", true), join_key(path, "operands"), op.name, k, definer, true,
                     op.operands) &&
         ok;
    ok = tensor_refs(r_.field(entry, path, "results", true), join_key(path, "results"), op.name, k, definer, false,
                     op.results) &&
         ok;
    YAML::Node kind_node = r_.field(entry, path, "kind", true);
    std::optional<OpKind> kind;
    if (kind_node.IsDefined()) {
      if (auto text = r_.string(kind_node, join_key(path, "kind"))) {
        kind = parse_name(kOpKindNames, *text);
        if (!kind) spec_error(kind_node, "op '" + op.name + "': unknown kind '" + *text + "'");
      }
    }
    if (kind) {
      op.kind = *kind;
      r_.check_keys(entry, path, yaml_op_attribute_keys(*kind));
    } else {
      ok = false;
    }
    if (ok) ok = read_attributes(entry, path, op);
    if (ok) ok = check_shapes(entry, op);
    program_.ops.push_back(std::move(op));
  }

  bool read_attributes(const YAML::Node& entry, const std::string& path, Op& op) {
    bool ok = true;
    auto dims = [&](const char* key, IntList& out, bool required) {
      YAML::Node n = r_.field(entry, path, key, required);
      if (!n.IsDefined()) {
        if (required) ok = false;
        return;
      }
      auto list = int_list(n, join_key(path, key), Range::kNonNegative);
      if (list)
        out = *list;
      else
        ok = false;
    };
    switch (op.kind) {
      case OpKind::kDotGeneral:
        dims("lhs_batching_dims", op.lhs_batching_dims, false);
        dims("rhs_batching_dims", op.rhs_batching_dims, false);
        dims("lhs_contracting_dims", op.lhs_contracting_dims, true);
        dims("rhs_contracting_dims", op.rhs_contracting_dims, true);
        break;
      case OpKind::kReduce:
        dims("dimensions", op.dimensions, true);
        break;
      case OpKind::kTranspose:
        dims("permutation", op.permutation, true);
        break;
      case OpKind::kBroadcastInDim:
        dims("broadcast_dimensions", op.broadcast_dimensions, true);
        break;
      case OpKind::kConcatenate: {
        YAML::Node n = r_.field(entry, path, "dimension", true);
        auto d = n.IsDefined() ? r_.integer(n, join_key(path, "dimension"), Range::kNonNegative) : std::nullopt;
        if (d)
          op.dimension = *d;
        else
          ok = false;
        break;
      }
      default:
        break;
    }
    return ok;
  }

  // Infers the result shape and checks the attributes against the operand shapes.
  bool check_shapes(const YAML::Node& entry, Op& op) {
    std::string who = "op '" + op.name + "': ";
    auto fail = [&](std::string message) {
      spec_error(entry, who + message);
      return false;
    };
    if (std::string problem = check_arity(op); !problem.empty()) return fail(problem);
    std::vector<Shape> in;
    for (int t : op.operands) {
      if (!has_shape_[t] && !inferred_[t]) return false;  // reported elsewhere
      in.push_back(program_.tensors[t].shape);
    }
    Tensor& result = program_.tensors[op.results[0]];
    std::optional<Shape> inferred;
    std::string problem = infer_result_shape(op, in, has_shape_[op.results[0]] ? &result.shape : nullptr, inferred);
    if (!problem.empty()) return fail(problem);
    if (has_shape_[op.results[0]]) {
      if (result.shape != *inferred)
        return fail("result shape " + shape_text(result.shape) + " != inferred " + shape_text(*inferred));
    } else {
      result.shape = *inferred;
      inferred_[op.results[0]] = true;
      if (!has_pending_[op.results[0]]) result.sharding = open_sharding(result.shape.size());
    }
    return true;
  }

  // Shardings of results whose shape was inferred: checked once the rank is known.
  void check_inferred_ranks() {
    for (const auto& [t, written] : pending_rank_) {
      Tensor& tensor = program_.tensors[t];
      if (!inferred_[t]) continue;
      auto resolved = read_sharding(written, static_cast<long>(tensor.shape.size()), "tensor '" + tensor.name + "'");
      if (resolved) tensor.sharding = *resolved;
    }
  }

  void read_outputs(const YAML::Node& node) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, "outputs", "expected a list, found " + NodeReader::describe(node));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node& entry = node[i];
      std::string path = join_index("outputs", i);
      // Nodes are bound once: assigning one YAML::Node to another rewrites the node it referred to.
      const bool is_map = entry.IsMap();
      if (is_map) r_.check_keys(entry, path, kOutputKeys);
      const YAML::Node name_node = is_map ? r_.field(entry, path, "tensor", true) : entry;
      if (!name_node.IsDefined()) continue;
      PendingSharding sharding;
      if (is_map) {
        const YAML::Node s = r_.field(entry, path, "sharding");
        if (s.IsDefined()) {
          auto text = r_.string(s, join_key(path, "sharding"));
          if (!text) continue;
          sharding = PendingSharding{*text, s};
        }
      }
      auto name = r_.string(name_node, path);
      if (!name) continue;
      auto it = by_name_.find(*name);
      if (it == by_name_.end()) {
        spec_error(name_node, "outputs: unknown tensor '" + *name + "'");
        continue;
      }
      Output output{it->second, std::nullopt};
      const Tensor& tensor = program_.tensors[it->second];
      if (!sharding.text.empty() && (has_shape_[it->second] || inferred_[it->second])) {
        output.sharding = read_sharding(sharding, static_cast<long>(tensor.shape.size()),
                                        "output " + std::to_string(i) + " ('" + tensor.name + "')");
        if (!output.sharding) continue;
      }
      program_.outputs.push_back(std::move(output));
    }
  }

  template <typename Enum, std::size_t N>
  void choose(const std::optional<std::string>& cli, const YAML::Node& options, const char* key,
              const NameTable<Enum, N>& table, const std::string& what, Enum& out) {
    YAML::Node node = options.IsDefined() ? r_.field(options, "options", key) : YAML::Node(YAML::NodeType::Undefined);
    std::optional<std::string> text = cli;
    if (!text && node.IsDefined()) text = r_.string(node, join_key("options", key));
    if (!text) return;
    if (auto value = parse_name(table, *text)) {
      out = *value;
      return;
    }
    std::string message = "unknown " + what + " '" + *text + "'";
    if (cli)
      r_.report(SourcePos{}, "", message);
    else
      spec_error(node, message);
  }

  void flag(const std::optional<bool>& cli, const YAML::Node& options, const char* key, bool& out) {
    if (cli) {
      out = *cli;
      return;
    }
    if (!options.IsDefined()) return;
    YAML::Node node = r_.field(options, "options", key);
    if (!node.IsDefined()) return;
    if (auto value = r_.boolean(node, join_key("options", key))) out = *value;
  }

  void text_option(const std::optional<std::string>& cli, const YAML::Node& options, const char* key,
                   std::string& out) {
    if (cli) {
      out = *cli;
      return;
    }
    if (!options.IsDefined()) return;
    YAML::Node node = r_.field(options, "options", key);
    if (!node.IsDefined()) return;
    if (auto value = r_.string(node, join_key("options", key))) out = *value;
  }

  void read_options(const YAML::Node& node, const OptionOverrides& cli) {
    bool usable = node.IsDefined() && r_.expect_map(node, "options");
    if (usable) r_.check_keys(node, "options", kOptionKeys);
    const YAML::Node options = usable ? node : YAML::Node(YAML::NodeType::Undefined);
    Options& o = program_.options;
    flag(cli.conservative_propagation, options, "conservative_propagation", o.conservative_propagation);
    flag(cli.keep_sharding_rules, options, "keep_sharding_rules", o.keep_sharding_rules);
    flag(cli.no_op_priority_propagation, options, "no_op_priority_propagation", o.no_op_priority_propagation);
    text_option(cli.module_dump_directory, options, "module_dump_directory", o.module_dump_directory);
    text_option(cli.output, options, "output", o.output);
    choose(cli.factor_propagation, options, "factor_propagation", kFactorPropagationNames, "factor propagation",
           o.factor_propagation);
    choose(cli.format, options, "format", kOutputFormatNames, "format", o.format);
    choose(cli.strategy, options, "strategy", kStrategyNames, "strategy", o.strategy);
  }

  const Document& doc_;
  NodeReader r_;
  Program program_;
  std::unordered_map<std::string, int> by_name_;  // first declaration of each name
  std::vector<YAML::Node> nodes_;                 // per tensor
  std::vector<bool> has_shape_;
  std::vector<bool> inferred_, has_pending_;
  std::vector<std::pair<std::size_t, PendingSharding>> pending_rank_;
};

}  // namespace

std::vector<std::string> op_attribute_keys(OpKind kind) {
  switch (kind) {
    case OpKind::kDotGeneral:
      return {"lhs_batching_dims", "rhs_batching_dims", "lhs_contracting_dims", "rhs_contracting_dims"};
    case OpKind::kReduce:
      return {"dimensions"};
    case OpKind::kTranspose:
      return {"permutation"};
    case OpKind::kBroadcastInDim:
      return {"broadcast_dimensions"};
    case OpKind::kConcatenate:
      return {"dimension"};
    default:
      return {};
  }
}

Program read_program(const std::string& path, const OptionOverrides& overrides) {
  // "-" is stdin; the size limit is checked before reading.
  return parse_program(input_name(path), read_input_text(path), overrides);
}

Program parse_program(const std::string& file, std::string_view text, const OptionOverrides& overrides) {
  // MLIR (by extension or by its first token) has a reader of its own.
  if (looks_like_mlir(file, text)) return read_mlir_program(file, std::string(text), overrides);
  // A valid JSON program goes through nlohmann's SAX events alone (no node tree:
  // 10^5 ops would take seconds and most of a gigabyte). Anything it does not
  // accept is read again by the one positioned JSON reader, which reports every problem.
  std::optional<Program> fast;
  if (is_json_input(file, text)) fast = read_valid_json_program(text, overrides);
  Program program = fast ? std::move(*fast) : [&] {
    Document doc = parse_document(file, text);
    return ProgramReader(doc).read(overrides);
  }();
  if (program.options.format == OutputFormat::kMlir)
    throw InputError(SourcePos{}, "", "--format mlir needs an MLIR input (the program was read as JSON or YAML)");
  return program;
}

}  // namespace shardplan::propagation
