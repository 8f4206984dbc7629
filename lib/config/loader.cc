// loader.h: files in, validated typed structs out (or InputError with every problem).
#include "config/loader.h"

#include <algorithm>
#include <type_traits>

#include "config/known_keys.h"
#include "config/section_readers.h"
#include "document/document.h"
#include "document/input_text.h"

namespace shardplan {

namespace {

template <class Node>
ModelConfig model_of(const Node& root, BasicNodeReader<Node>& r) {
  return read_model(r, root, "");
}

// The kind whose known top-level keys best match the file's; nullopt when none
// or a tie. A `model` or `topology` key always means a case file.
template <class Node>
std::optional<InputKind> detect_kind(const Node& root) {
  if (!root.IsMap()) return std::nullopt;
  std::vector<std::string> keys;
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  auto has = [&](std::string_view key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  if (has("model") || has("topology")) return InputKind::kCase;
  if (has("world_size")) return InputKind::kTopology;
  if (has("modules")) return InputKind::kModel;
  const std::pair<InputKind, const char*> kinds[] = {
      {InputKind::kModel, "model"}, {InputKind::kTopology, "topology"}, {InputKind::kPlanner, "planner"}};
  std::optional<InputKind> best;
  int best_count = 0;
  bool tie = false;
  for (const auto& [kind, section] : kinds) {
    int count = 0;
    for (const auto& key : known_keys(section)) count += has(key) ? 1 : 0;
    if (count > best_count) {
      best = kind;
      best_count = count;
      tie = false;
    } else if (count == best_count && count > 0) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

// Parses `text` (the content of `file`) and hands its root to
// `read(file, root)`, a generic callable: JSON into the compact tree
// (document/json_value_tree.h), YAML into yaml-cpp's. Both trees come from the
// same parser events for JSON and the readers are one template over the tree, so
// a JSON file's messages are those the yaml-cpp tree of it gives, at a fraction
// of the time and memory (a 5 000-table model is 770 KB of JSON).
template <typename Read>
auto read_parsed(const std::string& file, std::string_view text, Read read) {
  if (is_json_input(file, text)) {
    const JsonDocument doc = parse_json_document(file, text);
    return read(doc.file, doc.root());
  }
  const Document doc = parse_document(file, text);
  return read(doc.file, doc.root);
}

// Reads one input with `read(file, root, reader)` and throws every problem found, or returns the value.
template <typename Read>
auto load_parsed(const std::string& file, std::string_view text, Read read) {
  return read_parsed(file, text, [&](const std::string& name, const auto& root) {
    BasicNodeReader<std::decay_t<decltype(root)>> r(name);
    auto value = read(name, root, r);
    r.throw_if_any();
    return value;
  });
}

template <typename Read>
auto load_with(const std::string& path, Read read) {
  const std::string text = read_input_text(path);  // "-" is stdin; the size limit is checked first
  return load_parsed(input_name(path), text, read);
}

template <class Node>
InputKind validate_root(const std::string& file, const Node& root, std::optional<InputKind> forced);

}  // namespace

template <class Node>
PlanningInput read_case(BasicNodeReader<Node>& r, const std::type_identity_t<Node>& root, const std::string& file) {
  PlanningInput input;
  input.source = file;
  if (!r.expect_map(root, "")) return input;
  r.check_keys(root, "", known_keys("case"));
  if (Node n = r.field(root, "", "model", true); n.IsDefined()) input.model = read_model(r, n, "model");
  if (Node n = r.field(root, "", "topology", true); n.IsDefined()) input.topology = read_topology(r, n, "topology");
  // The case's own planner key wins over a `planner:` inside its model.
  if (Node n = r.field(root, "", "planner"); n.IsDefined())
    input.planner = read_planner(r, n, "planner");
  else if (input.model.planner)
    input.planner = *input.model.planner;
  return input;
}
template PlanningInput read_case(NodeReader&, const YAML::Node&, const std::string&);
template PlanningInput read_case(JsonNodeReader&, const JsonNode&, const std::string&);

ModelConfig load_model(const std::string& path) {
  return load_with(path, [](const std::string&, const auto& root, auto& r) { return model_of(root, r); });
}

TopologyConfig load_topology(const std::string& path) {
  return load_with(path, [](const std::string&, const auto& root, auto& r) { return read_topology(r, root, ""); });
}

PlannerOptions load_planner(const std::string& path) {
  return load_with(path, [](const std::string&, const auto& root, auto& r) { return read_planner(r, root, ""); });
}

PlanningInput load_case(const std::string& path) {
  return load_with(path, [](const std::string& file, const auto& root, auto& r) { return read_case(r, root, file); });
}

PlanningInput load_case_text(const std::string& file, std::string_view text) {
  return load_parsed(file, text,
                     [](const std::string& name, const auto& root, auto& r) { return read_case(r, root, name); });
}

PlanningInput load_inputs(const std::string& model_path, const std::string& topology_path,
                          const std::optional<std::string>& planner_path) {
  // Every file is read even when an earlier one has problems, so one run reports all.
  std::vector<Diagnostic> problems;
  PlanningInput input;
  auto collect = [&](auto&& load) {
    try {
      load();
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  };
  collect([&] { input.model = load_model(model_path); });
  collect([&] { input.topology = load_topology(topology_path); });
  if (planner_path)
    collect([&] { input.planner = load_planner(*planner_path); });
  else if (input.model.planner)
    input.planner = *input.model.planner;
  if (!problems.empty()) throw InputError(std::move(problems));
  input.source = model_path + ", " + topology_path + (planner_path ? ", " + *planner_path : "");
  return input;
}

InputKind validate_file(const std::string& path, std::optional<InputKind> forced) {
  const std::string text = read_input_text(path);
  return validate_text(input_name(path), text, forced);
}

InputKind validate_text(const std::string& file, std::string_view text, std::optional<InputKind> forced) {
  return read_parsed(file, text,
                     [forced](const std::string& name, const auto& root) { return validate_root(name, root, forced); });
}

namespace {
template <class Node>
InputKind validate_root(const std::string& file, const Node& root, std::optional<InputKind> forced) {
  BasicNodeReader<Node> r(file);
  std::optional<InputKind> kind = forced ? forced : detect_kind(root);
  if (!kind) {
    if (!root.IsMap())
      throw InputError(r.pos(root), "", "expected a mapping of keys, found " + BasicNodeReader<Node>::describe(root));
    throw InputError(r.pos(root), "",
                     "cannot tell what this file holds: expected top-level keys model and topology (case), "
                     "modules (model), world_size (topology) or proposers/partitioner/storage_reservation "
                     "(planner); use --kind to say");
  }
  switch (*kind) {
    case InputKind::kModel:
      (void)model_of(root, r);
      break;
    case InputKind::kTopology:
      (void)read_topology(r, root, "");
      break;
    case InputKind::kPlanner:
      (void)read_planner(r, root, "");
      break;
    case InputKind::kCase:
      (void)read_case(r, root, file);
      break;
  }
  r.throw_if_any();
  return *kind;
}

}  // namespace

}  // namespace shardplan
