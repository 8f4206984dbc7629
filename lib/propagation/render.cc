#include "propagation/render.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/json_object.h"
#include "propagation/collectives.h"

namespace shardplan::propagation {

namespace {

using Json = nlohmann::ordered_json;

Json rules_json(const PropagationDriver& driver) {
  Json rules = Json::array();
  const Program& program = driver.program();
  for (std::size_t k = 0; k < program.ops.size(); ++k)
    if (const auto& rule = driver.rule(static_cast<int>(k)))
      rules.push_back(json_object("op", program.ops[k].name, "rule", rule_text(*rule)));
  return rules;
}

Json output_shardings_json(const PropagationDriver& driver,
                           const std::vector<std::optional<TensorSharding>>& output_shardings, bool with_priorities) {
  Json out = Json::array();
  for (std::size_t i = 0; i < output_shardings.size(); ++i)
    if (output_shardings[i])
      out.push_back(json_object("index", static_cast<int>(i), "sharding",
                                sharding_text(*output_shardings[i], driver.program().mesh, with_priorities)));
  return out;
}

std::string iteration_label(const PropagationState& state, int iteration) {
  return iteration >= 0 ? state.iterations[iteration].label : std::string();
}

std::string setter_text(const PropagationDriver& driver, const Setter& setter) {
  const PropagationState& state = driver.state();
  switch (setter.kind) {
    case Setter::Kind::kInput:
      return "input";
    case Setter::Kind::kOp:
      return "set by " + driver.program().ops[setter.index].name + " in " + iteration_label(state, setter.iteration);
    case Setter::Kind::kOutput:
      return "set by output " + std::to_string(setter.index) + " in " + iteration_label(state, setter.iteration);
  }
  return "";
}

// One top-level key per line, and one array element per line, each element compact:
// small enough to read, stable enough to diff.
std::string layout(const Json& object) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : object.items()) {
    out += first ? "\n  " : ",\n  ";
    first = false;
    out += Json(key).dump() + ": ";
    if (value.is_array() && !value.empty() && (value.front().is_object() || value.front().is_array())) {
      out += "[";
      for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ",\n    " : "\n    ") + value[i].dump();
      out += "\n  ]";
    } else {
      out += value.dump();
    }
  }
  return out + "\n}\n";
}

// A JSON string literal; plain text (the usual case) skips nlohmann's serializer.
std::string json_string(std::string_view text) {
  bool plain = std::all_of(text.begin(), text.end(),
                           [](char c) { return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20; });
  if (!plain) return Json(std::string(text)).dump();
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  out += text;
  out += '"';
  return out;
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::string render_result_json(const PropagationDriver& driver) {
  const Program& program = driver.program();
  const PropagationState& state = driver.state();
  // The shardings list is written directly (one line per tensor, as layout() would):
  // building 10^5 JSON objects first cost more than the propagation.
  std::string out =
      "{\n  \"strategy\": " + json_string(name_of(kStrategyNames, program.options.strategy)) + ",\n  \"shardings\": [";
  for (std::size_t t = 0; t < program.tensors.size(); ++t) {
    out += t ? ",\n    {\"name\":" : "\n    {\"name\":";
    out += json_string(program.tensors[t].name);
    out += ",\"sharding\":";
    out += json_string(sharding_text(state.shardings[t], program.mesh));
    out += "}";
  }
  out += program.tensors.empty() ? "]" : "\n  ]";
  Json rest(Json::value_t::object);
  Json outputs = output_shardings_json(driver, state.output_shardings, false);
  if (!outputs.empty()) rest["output_shardings"] = std::move(outputs);
  Json iterations = Json::array();
  for (const Iteration& iteration : state.iterations) {
    Json changed = Json::array();
    for (int t : iteration.changed) changed.push_back(program.tensors[t].name);
    iterations.push_back(json_object("label", iteration.label, "changed", std::move(changed)));
  }
  rest["iterations"] = std::move(iterations);
  Json collectives = Json::array();
  for (const Collective& c : find_collectives(driver)) {
    Json axes = Json::array();
    for (const AxisRef& a : c.axes) axes.push_back(axis_name_text(a, program.mesh));
    collectives.push_back(json_object("op", program.ops[c.op].name, "kind", collective_kind_name(c.kind), "tensor",
                                      program.tensors[c.tensor].name, "axes", std::move(axes), "text",
                                      collective_text(c, program)));
  }
  rest["collectives"] = std::move(collectives);
  if (program.options.keep_sharding_rules) rest["sharding_rules"] = rules_json(driver);
  std::string tail = layout(rest);  // "{\n  ...\n}\n": its fields follow the shardings
  return out + ",\n" + tail.substr(2);
}

std::string render_result_text(const PropagationDriver& driver) {
  const Program& program = driver.program();
  const PropagationState& state = driver.state();
  std::string out = "strategy " + std::string(name_of(kStrategyNames, program.options.strategy)) + ", mesh [";
  for (std::size_t a = 0; a < program.mesh.axes.size(); ++a)
    out += (a ? ", " : "") + program.mesh.axes[a].name + "=" + std::to_string(program.mesh.axes[a].size);
  out += "]\n";
  std::size_t name_width = 6, shape_width = 5, sharding_width = 8;
  std::vector<std::string> texts;
  for (std::size_t t = 0; t < program.tensors.size(); ++t) {
    texts.push_back(sharding_text(state.shardings[t], program.mesh));
    name_width = std::max(name_width, program.tensors[t].name.size());
    shape_width = std::max(shape_width, shape_text(program.tensors[t].shape).size());
    sharding_width = std::max(sharding_width, texts.back().size());
  }
  out += pad("tensor", name_width) + "  " + pad("shape", shape_width) + "  " + pad("sharding", sharding_width) +
         "  origin\n";
  for (std::size_t t = 0; t < program.tensors.size(); ++t)
    out += pad(program.tensors[t].name, name_width) + "  " + pad(shape_text(program.tensors[t].shape), shape_width) +
           "  " + pad(texts[t], sharding_width) + "  " + setter_text(driver, state.set_by[t]) + "\n";
  for (std::size_t i = 0; i < state.output_shardings.size(); ++i)
    if (state.output_shardings[i])
      out += "output " + std::to_string(i) + " (" + program.tensors[program.outputs[i].tensor].name +
             "): " + sharding_text(*state.output_shardings[i], program.mesh) + "\n";
  for (const Iteration& iteration : state.iterations) {
    out += iteration.label + ": changed";
    if (iteration.changed.empty()) out += " nothing";
    for (std::size_t i = 0; i < iteration.changed.size(); ++i)
      out += (i ? ", " : " ") + program.tensors[iteration.changed[i]].name;
    out += "\n";
  }
  std::vector<Collective> collectives = find_collectives(driver);
  if (collectives.empty()) out += "collectives: none\n";
  for (const Collective& c : collectives) out += "collective: " + collective_text(c, program) + "\n";
  if (program.options.keep_sharding_rules)
    for (std::size_t k = 0; k < program.ops.size(); ++k)
      if (const auto& rule = driver.rule(static_cast<int>(k)))
        out += "rule " + program.ops[k].name + ": " + rule_text(*rule) + "\n";
  return out;
}

std::string render_program_json(const PropagationDriver& driver, const std::vector<TensorSharding>& shardings,
                                const std::vector<std::optional<TensorSharding>>& output_shardings,
                                bool with_priorities) {
  const Program& program = driver.program();
  Json mesh = Json::array();
  for (const MeshAxis& axis : program.mesh.axes) mesh.push_back(Json::array({axis.name, axis.size}));
  Json tensors = Json::array();
  for (std::size_t t = 0; t < program.tensors.size(); ++t)
    tensors.push_back(json_object("name", program.tensors[t].name, "shape", program.tensors[t].shape, "sharding",
                                  sharding_text(shardings[t], program.mesh, with_priorities)));
  Json ops = Json::array();
  for (const Op& op : program.ops) {
    Json operands = Json::array(), results = Json::array();
    for (int t : op.operands) operands.push_back(program.tensors[t].name);
    for (int t : op.results) results.push_back(program.tensors[t].name);
    Json entry =
        json_object("name", op.name, "kind",
                    op.kind == OpKind::kCall ? std::string("call") : std::string(name_of(kOpKindNames, op.kind)),
                    "operands", std::move(operands), "results", std::move(results));
    switch (op.kind) {
      case OpKind::kDotGeneral:
        entry["lhs_batching_dims"] = op.lhs_batching_dims;
        entry["rhs_batching_dims"] = op.rhs_batching_dims;
        entry["lhs_contracting_dims"] = op.lhs_contracting_dims;
        entry["rhs_contracting_dims"] = op.rhs_contracting_dims;
        break;
      case OpKind::kReduce:
        entry["dimensions"] = op.dimensions;
        break;
      case OpKind::kTranspose:
        entry["permutation"] = op.permutation;
        break;
      case OpKind::kBroadcastInDim:
        entry["broadcast_dimensions"] = op.broadcast_dimensions;
        break;
      case OpKind::kConcatenate:
        entry["dimension"] = op.dimension;
        break;
      default:
        break;
    }
    ops.push_back(std::move(entry));
  }
  Json outputs = Json::array();
  for (std::size_t i = 0; i < program.outputs.size(); ++i) {
    const std::string& name = program.tensors[program.outputs[i].tensor].name;
    if (output_shardings[i])
      outputs.push_back(
          json_object("tensor", name, "sharding", sharding_text(*output_shardings[i], program.mesh, with_priorities)));
    else
      outputs.push_back(name);
  }
  Json result = json_object("mesh", std::move(mesh), "tensors", std::move(tensors), "ops", std::move(ops), "outputs",
                            std::move(outputs));
  if (program.options.keep_sharding_rules) result["sharding_rules"] = rules_json(driver);
  return layout(result);
}

void write_dump(const std::string& directory, int index, const std::string& label, const std::string& content) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%02d.", index);
  std::string path = (std::filesystem::path(directory) / (prefix + label + ".json")).string();
  std::ofstream out(path, std::ios::binary);
  if (out) out << content;
  if (!out) std::cerr << "warning: cannot write dump " << path << "\n";
}

}  // namespace shardplan::propagation
