#include "propagation/json_program_reader.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "propagation/op_shapes.h"

namespace shardplan::propagation {

namespace {

using IntList = std::vector<std::int64_t>;

// The program as written, before any name is resolved. Filled from nlohmann's SAX
// events: a 10^5-op file never becomes a DOM (that cost most of the reading time).
struct RawTensor {
  std::string name;
  std::optional<Shape> shape;
  std::optional<std::string> sharding;
};
struct RawOp {
  std::optional<std::string> name, kind;
  std::optional<std::vector<std::string>> operands, results;
  std::vector<std::pair<std::string, IntList>> lists;  // integer-list attributes
  std::optional<std::int64_t> dimension;
  std::vector<std::string> keys;
};
struct RawOutput {
  std::optional<std::string> tensor, sharding;
  bool is_object = false;
};
struct RawOption {
  std::string key;
  std::optional<std::string> text;
  std::optional<bool> flag;
};
struct RawProgram {
  bool has_mesh = false, has_tensors = false;
  std::vector<std::pair<std::string, std::int64_t>> mesh;
  std::vector<RawTensor> tensors;
  std::vector<RawOp> ops;
  std::vector<RawOutput> outputs;
  std::vector<RawOption> options;
};

// Accepts only the shapes a valid program has; anything else stops the parse (the
// positioned reader then says what is wrong). Depth = containers open.
class RawProgramSax {
 public:
  using Json = nlohmann::json;
  RawProgram raw;

  bool null() { return false; }
  bool boolean(bool value) {
    if (section_ != Section::kOptions || depth_ != 2) return false;
    raw.options.push_back(RawOption{key_, std::nullopt, value});
    return true;
  }
  bool number_integer(std::int64_t value) { return integer(value); }
  bool number_unsigned(std::uint64_t value) {
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    return integer(static_cast<std::int64_t>(value));
  }
  bool number_float(double, const std::string&) { return false; }
  bool binary(Json::binary_t&) { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  bool string(std::string& value) {
    switch (section_) {
      case Section::kMesh:
        if (depth_ != 3 || index_ != 0) return false;
        raw.mesh.back().first = std::move(value);
        ++index_;
        return true;
      case Section::kTensors:
        if (depth_ != 3) return false;
        if (key_ == "name")
          raw.tensors.back().name = std::move(value);
        else if (key_ == "sharding")
          raw.tensors.back().sharding = std::move(value);
        else
          return false;
        return true;
      case Section::kOps: {
        if (depth_ < 3) return false;  // a bare string in the ops list: no op to hold it
        RawOp& op = raw.ops.back();
        if (depth_ == 3 && key_ == "name")
          op.name = std::move(value);
        else if (depth_ == 3 && key_ == "kind")
          op.kind = std::move(value);
        else if (depth_ == 4 && key_ == "operands")
          op.operands->push_back(std::move(value));
        else if (depth_ == 4 && key_ == "results")
          op.results->push_back(std::move(value));
        else
          return false;
        return true;
      }
      case Section::kOutputs:
        if (depth_ == 2)
          raw.outputs.push_back(RawOutput{std::move(value), std::nullopt, false});
        else if (depth_ == 3 && key_ == "tensor")
          raw.outputs.back().tensor = std::move(value);
        else if (depth_ == 3 && key_ == "sharding")
          raw.outputs.back().sharding = std::move(value);
        else
          return false;
        return true;
      case Section::kOptions:
        if (depth_ != 2) return false;
        raw.options.push_back(RawOption{key_, std::move(value), std::nullopt});
        return true;
      case Section::kNone:
        break;
    }
    return false;
  }

  bool start_object(std::size_t) {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2) return section_ == Section::kOptions;
    if (depth_ != 3) return false;
    element_keys_.clear();
    switch (section_) {
      case Section::kTensors:
        raw.tensors.emplace_back();
        return true;
      case Section::kOps:
        raw.ops.emplace_back();
        return true;
      case Section::kOutputs:
        raw.outputs.push_back(RawOutput{std::nullopt, std::nullopt, true});
        return true;
      default:
        return false;
    }
  }
  bool end_object() {
    --depth_;
    if (depth_ == 1) section_ = Section::kNone;
    return true;
  }

  bool start_array(std::size_t) {
    ++depth_;
    if (depth_ == 2)
      return section_ == Section::kMesh || section_ == Section::kTensors || section_ == Section::kOps ||
             section_ == Section::kOutputs;
    if (depth_ == 3) {
      if (section_ != Section::kMesh) return false;
      raw.mesh.emplace_back();
      index_ = 0;
      return true;
    }
    if (depth_ != 4) return false;
    if (section_ == Section::kTensors && key_ == "shape") {
      raw.tensors.back().shape.emplace();
      return true;
    }
    if (section_ != Section::kOps) return false;
    RawOp& op = raw.ops.back();
    if (key_ == "operands")
      op.operands.emplace();
    else if (key_ == "results")
      op.results.emplace();
    else
      op.lists.emplace_back(key_, IntList{});
    return true;
  }
  bool end_array() {
    if (depth_ == 3 && section_ == Section::kMesh && index_ != 2) return false;
    --depth_;
    if (depth_ == 1) section_ = Section::kNone;
    return true;
  }

  bool key(std::string& name) {
    if (depth_ == 1) {
      if (name == "mesh")
        section_ = Section::kMesh, raw.has_mesh = true;
      else if (name == "tensors")
        section_ = Section::kTensors, raw.has_tensors = true;
      else if (name == "ops")
        section_ = Section::kOps;
      else if (name == "outputs")
        section_ = Section::kOutputs;
      else if (name == "options")
        section_ = Section::kOptions;
      else
        return false;
      if (std::find(sections_seen_.begin(), sections_seen_.end(), name) != sections_seen_.end()) return false;
      sections_seen_.push_back(name);
      return true;
    }
    // Keys of one element or of the options: a duplicate is for the positioned reader.
    std::vector<std::string>& seen = depth_ == 2 ? option_keys_ : element_keys_;
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) return false;
    seen.push_back(name);
    key_ = name;
    if (section_ == Section::kOps && depth_ == 3) raw.ops.back().keys.push_back(name);
    if (section_ == Section::kTensors) return key_ == "name" || key_ == "shape" || key_ == "sharding";
    if (section_ == Section::kOutputs) return key_ == "tensor" || key_ == "sharding";
    return true;
  }

 private:
  enum class Section { kNone, kMesh, kTensors, kOps, kOutputs, kOptions };

  bool integer(std::int64_t value) {
    if (section_ == Section::kMesh && depth_ == 3 && index_ == 1) {
      raw.mesh.back().second = value;
      ++index_;
      return true;
    }
    if (section_ == Section::kTensors && depth_ == 4 && key_ == "shape") {
      raw.tensors.back().shape->push_back(value);
      return true;
    }
    if (section_ == Section::kOps && depth_ == 4 && !raw.ops.back().lists.empty() &&
        raw.ops.back().lists.back().first == key_) {
      raw.ops.back().lists.back().second.push_back(value);
      return true;
    }
    if (section_ == Section::kOps && depth_ == 3 && key_ == "dimension") {
      raw.ops.back().dimension = value;
      return true;
    }
    return false;
  }

  Section section_ = Section::kNone;
  int depth_ = 0;
  int index_ = 0;  // position inside a mesh entry
  std::string key_;
  std::vector<std::string> sections_seen_, element_keys_, option_keys_;
};

// Signals "not a plainly valid program": the caller falls back to the positioned reader.
struct NotPlain {};

void require(bool condition) {
  if (!condition) throw NotPlain{};
}

const std::string& nonempty(const std::optional<std::string>& text) {
  require(text.has_value() && !text->empty());
  return *text;
}

TensorSharding sharding(const std::string& text, const Mesh& mesh, std::size_t rank) {
  auto written = parse_sharding_text(text);
  require(written && written->dims.size() == rank);
  std::vector<std::string> problems;
  auto resolved = resolve_sharding(*written, mesh, problems);
  require(resolved.has_value());
  return std::move(*resolved);
}

class RawProgramReader {
 public:
  Program read(RawProgram& raw, const OptionOverrides& overrides) {
    require(raw.has_mesh && raw.has_tensors);
    for (auto& [name, size] : raw.mesh) {
      require(!name.empty() && size >= 1 && program_.mesh.find(name) < 0);
      program_.mesh.axes.push_back(MeshAxis{std::move(name), size});
    }
    read_tensors(raw.tensors);
    read_ops(raw.ops);
    for (std::size_t t = 0; t < program_.tensors.size(); ++t) {
      require(raw.tensors[t].shape || program_.tensors[t].defined_by >= 0);
      if (!raw.tensors[t].shape && raw.tensors[t].sharding)
        program_.tensors[t].sharding =
            sharding(*raw.tensors[t].sharding, program_.mesh, program_.tensors[t].shape.size());
    }
    for (const RawOutput& o : raw.outputs) {
      require(!o.is_object || o.tensor.has_value());
      Output output;
      output.tensor = tensor_index(nonempty(o.tensor));
      if (o.sharding)
        output.sharding = sharding(*o.sharding, program_.mesh, program_.tensors[output.tensor].shape.size());
      program_.outputs.push_back(std::move(output));
    }
    read_options(raw.options, overrides);
    return std::move(program_);
  }

 private:
  int tensor_index(const std::string& name) {
    auto it = by_name_.find(name);
    require(it != by_name_.end());
    return it->second;
  }

  void read_tensors(std::vector<RawTensor>& tensors) {
    std::size_t n = tensors.size();
    program_.tensors.reserve(n);
    by_name_.reserve(n * 2);
    used_.assign(n, 0);
    shape_known_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      RawTensor& raw = tensors[i];
      Tensor tensor;
      require(!raw.name.empty() && by_name_.emplace(raw.name, static_cast<int>(i)).second);
      tensor.name = raw.name;
      tensor.sharding_written = raw.sharding.has_value();
      if (raw.shape) {
        shape_known_[i] = 1;
        for (std::int64_t d : *raw.shape) require(d >= 0);
        tensor.shape = *raw.shape;
        tensor.sharding = raw.sharding ? sharding(*raw.sharding, program_.mesh, tensor.shape.size())
                                       : open_sharding(tensor.shape.size());
      }
      program_.tensors.push_back(std::move(tensor));
    }
  }

  void read_ops(std::vector<RawOp>& ops) {
    program_.ops.reserve(ops.size());
    std::vector<Shape> in;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      RawOp& raw = ops[k];
      Op op;
      op.name = raw.name ? nonempty(raw.name) : "op" + std::to_string(k);
      auto kind = parse_name(kOpKindNames, nonempty(raw.kind));
      require(kind.has_value());
      op.kind = *kind;
      read_attributes(raw, op);
      require(raw.operands.has_value() && raw.results.has_value());
      for (const std::string& name : *raw.operands) {
        int t = tensor_index(name);
        op.operands.push_back(t);
        used_[t] = 1;
      }
      for (const std::string& name : *raw.results) {
        int t = tensor_index(name);
        // Used before this definition (or defined twice): the positioned reader says which.
        require(program_.tensors[t].defined_by < 0 && !used_[t]);
        program_.tensors[t].defined_by = static_cast<int>(k);
        op.results.push_back(t);
      }
      require(check_arity(op).empty());
      in.clear();
      for (int t : op.operands) {
        require(shape_known_[t]);
        in.push_back(program_.tensors[t].shape);
      }
      Tensor& result = program_.tensors[op.results[0]];
      bool given = shape_known_[op.results[0]];
      std::optional<Shape> inferred;
      require(infer_result_shape(op, in, given ? &result.shape : nullptr, inferred).empty());
      if (given) {
        require(result.shape == *inferred);
      } else {
        result.shape = *inferred;
        result.sharding = open_sharding(result.shape.size());  // a written one is read after all ops
        shape_known_[op.results[0]] = 1;
      }
      program_.ops.push_back(std::move(op));
    }
  }

  void read_attributes(const RawOp& raw, Op& op) {
    std::vector<std::string> allowed = op_attribute_keys(op.kind);  // "dimension" for concatenate
    for (const std::string& key : raw.keys) {
      bool base = key == "name" || key == "kind" || key == "operands" || key == "results";
      bool attribute = std::find(allowed.begin(), allowed.end(), key) != allowed.end();
      require(base || attribute);
    }
    auto list = [&](const char* key, IntList& out, bool required) {
      for (const auto& [name, values] : raw.lists)
        if (name == key) {
          for (std::int64_t v : values) require(v >= 0);
          out = values;
          return;
        }
      require(!required);
    };
    for (const auto& [name, values] : raw.lists)
      require(std::find(allowed.begin(), allowed.end(), name) != allowed.end());
    switch (op.kind) {
      case OpKind::kDotGeneral:
        list("lhs_batching_dims", op.lhs_batching_dims, false);
        list("rhs_batching_dims", op.rhs_batching_dims, false);
        list("lhs_contracting_dims", op.lhs_contracting_dims, true);
        list("rhs_contracting_dims", op.rhs_contracting_dims, true);
        break;
      case OpKind::kReduce:
        list("dimensions", op.dimensions, true);
        break;
      case OpKind::kTranspose:
        list("permutation", op.permutation, true);
        break;
      case OpKind::kBroadcastInDim:
        list("broadcast_dimensions", op.broadcast_dimensions, true);
        break;
      case OpKind::kConcatenate:
        require(raw.dimension.has_value() && *raw.dimension >= 0);
        op.dimension = *raw.dimension;
        break;
      default:
        require(!raw.dimension.has_value());
        break;
    }
    if (op.kind != OpKind::kConcatenate) require(!raw.dimension.has_value());
  }

  template <typename Enum, std::size_t N>
  static void choose(const std::optional<std::string>& cli, const RawOption* option, const NameTable<Enum, N>& table,
                     Enum& out) {
    if (!cli && !option) return;
    if (!cli) require(option->text.has_value());
    auto value = parse_name(table, cli ? *cli : *option->text);
    require(value.has_value());
    out = *value;
  }

  void read_options(const std::vector<RawOption>& options, const OptionOverrides& cli) {
    static const char* const kKeys[] = {"strategy",
                                        "conservative_propagation",
                                        "keep_sharding_rules",
                                        "module_dump_directory",
                                        "factor_propagation",
                                        "no_op_priority_propagation",
                                        "output",
                                        "format"};
    auto find = [&](const char* key) -> const RawOption* {
      for (const RawOption& o : options)
        if (o.key == key) return &o;
      return nullptr;
    };
    for (const RawOption& o : options)
      require(std::any_of(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return o.key == k; }));
    auto flag = [&](const std::optional<bool>& given, const char* key, bool& out) {
      if (given) {
        out = *given;
        return;
      }
      if (const RawOption* o = find(key)) {
        require(o->flag.has_value());
        out = *o->flag;
      }
    };
    auto text = [&](const std::optional<std::string>& given, const char* key, std::string& out) {
      if (given) {
        out = *given;
        return;
      }
      if (const RawOption* o = find(key)) out = nonempty(o->text);
    };
    Options& o = program_.options;
    flag(cli.conservative_propagation, "conservative_propagation", o.conservative_propagation);
    flag(cli.keep_sharding_rules, "keep_sharding_rules", o.keep_sharding_rules);
    flag(cli.no_op_priority_propagation, "no_op_priority_propagation", o.no_op_priority_propagation);
    text(cli.module_dump_directory, "module_dump_directory", o.module_dump_directory);
    text(cli.output, "output", o.output);
    choose(cli.factor_propagation, find("factor_propagation"), kFactorPropagationNames, o.factor_propagation);
    choose(cli.format, find("format"), kOutputFormatNames, o.format);
    choose(cli.strategy, find("strategy"), kStrategyNames, o.strategy);
  }

 private:
  Program program_;
  std::unordered_map<std::string, int> by_name_;
  std::vector<char> used_;         // per tensor: used as an operand so far
  std::vector<char> shape_known_;  // per tensor: declared with a shape, or inferred by its op so far
};

}  // namespace

std::optional<Program> read_valid_json_program(std::string_view text, const OptionOverrides& overrides) {
  RawProgramSax sax;
  // A NUL ends nlohmann's input early: the positioned reader reports it (json_tree.h).
  if (text.find('\0') != std::string_view::npos) return std::nullopt;
  if (!nlohmann::json::sax_parse(text, &sax)) return std::nullopt;
  try {
    return RawProgramReader().read(sax.raw, overrides);
  } catch (const NotPlain&) {
    return std::nullopt;
  }
}

}  // namespace shardplan::propagation
