#include "kjt/input_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "document/document.h"
#include "document/input_text.h"
#include "document/node_reader.h"
#include "kjt/fast_json_reader.h"
#include "kjt/input_checks.h"
#include "kjt/output_json.h"

namespace shardplan::kjt {

namespace {

const std::vector<std::string> kTopKeys{"splits", "feature_layout", "stagger", "protocol", "dtypes", "inputs"};
const std::vector<std::string> kDtypeKeys{"lengths", "values", "weights"};
const std::vector<std::string> kInputKeys{"rank", "keys", "lengths", "values", "weights"};

bool is_quoted(const YAML::Node& node) { return node.Tag() == "!"; }

// True when `text` is a whole int64 written in decimal ("-12", not "1e3" or "+4").
bool is_plain_integer(std::string_view text, std::int64_t& value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// True when `text` follows JSON's number grammar, so it can be echoed as it is.
bool is_json_number(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size();
}

// A value token: an integer or a string, kept as JSON text (values are opaque).
bool read_value(NodeReader& r, const YAML::Node& node, const std::string& path, std::string& token) {
  token.clear();
  if (node.IsScalar() && is_quoted(node)) {
    append_json_string(node.Scalar(), token);
    return true;
  }
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    std::int64_t value = 0;
    if (is_plain_integer(text, value)) {
      char buffer[24];
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
      token.assign(buffer, end);
      return true;
    }
    // A plain YAML word is a string; numbers, booleans and null written bare are not.
    double number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    bool numeric = ec == std::errc() && end == text.data() + text.size();
    if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) {
      r.report(node, path, "expected a finite number or a string, found '" + text + "' (out of range)");
      return false;
    }
    // Float values (spec §9): a finite number, echoed as written when that is JSON.
    if (numeric && std::isfinite(number)) {
      if (is_json_number(text)) {
        token = text;
      } else {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.17g", number);
        token = buffer;
      }
      return true;
    }
    if (!numeric && !node.IsNull() && text != "true" && text != "false" && text != "True" && text != "False") {
      append_json_string(text, token);
      return true;
    }
  }
  r.report(node, path, "expected a number or a string, found " + NodeReader::describe(node));
  return false;
}

// A weight token: a number, echoed as written when that is valid JSON.
bool read_weight(NodeReader& r, const YAML::Node& node, const std::string& path, std::string& token) {
  std::optional<double> value = r.number(node, path);
  if (!value) return false;
  if (is_json_number(node.Scalar())) {
    token = node.Scalar();
  } else {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", *value);
    token = buffer;
  }
  return true;
}

std::optional<std::vector<std::string>> read_names(NodeReader& r, const YAML::Node& node, const std::string& path) {
  return r.list<std::string>(node, path, false,
                             [&](const YAML::Node& n, const std::string& p) { return r.string(n, p); });
}

// One source rank's entry of `inputs`; nullopt after reporting a structural problem.
std::optional<SourceKjt> read_source(NodeReader& r, const YAML::Node& node, const std::string& path) {
  if (!r.expect_map(node, path)) return std::nullopt;
  r.check_keys(node, path, kInputKeys);
  std::size_t before = r.diagnostics().size();
  SourceKjt kjt;
  if (auto rank = r.integer(r.field(node, path, "rank", true), join_key(path, "rank"))) kjt.rank = *rank;
  if (auto keys = read_names(r, r.field(node, path, "keys", true), join_key(path, "keys"))) kjt.keys = std::move(*keys);
  const std::string lengths_path = join_key(path, "lengths");
  YAML::Node lengths = r.field(node, path, "lengths", true);
  if (lengths.IsDefined()) {
    auto rows = r.list<std::vector<std::int64_t>>(
        lengths, lengths_path, false, [&](const YAML::Node& row, const std::string& p) {
          return r.list<std::int64_t>(row, p, false,
                                      [&](const YAML::Node& n, const std::string& q) { return r.integer(n, q); });
        });
    if (rows) kjt.lengths = std::move(*rows);
  }
  const std::string values_path = join_key(path, "values");
  YAML::Node values = r.field(node, path, "values", true);
  std::string token;
  if (values.IsDefined()) {
    if (!values.IsSequence()) {
      r.report(values, values_path, "expected a list, found " + NodeReader::describe(values));
    } else {
      for (std::size_t i = 0; i < values.size(); ++i)
        if (read_value(r, values[i], join_index(values_path, i), token)) kjt.values.push_back(token);
    }
  }
  const std::string weights_path = join_key(path, "weights");
  YAML::Node weights = r.field(node, path, "weights");
  if (weights.IsDefined() && !weights.IsNull()) {
    if (!weights.IsSequence()) {
      r.report(weights, weights_path, "expected a list of numbers or null, found " + NodeReader::describe(weights));
    } else {
      kjt.weights.emplace();
      for (std::size_t i = 0; i < weights.size(); ++i)
        if (read_weight(r, weights[i], join_index(weights_path, i), token)) kjt.weights->push_back(token);
    }
  }
  if (r.diagnostics().size() != before) return std::nullopt;
  return kjt;
}

// Everything with its JSON type, or nullopt after reporting structural problems.
std::optional<RawInput> read_raw(NodeReader& r, const YAML::Node& root) {
  if (!r.expect_map(root, "")) return std::nullopt;
  r.check_keys(root, "", kTopKeys);
  RawInput raw;
  YAML::Node splits = r.field(root, "", "splits");
  if (splits.IsDefined()) {
    auto values = r.list<std::int64_t>(splits, "splits", false,
                                       [&](const YAML::Node& n, const std::string& p) { return r.integer(n, p); });
    if (values) raw.splits = std::move(*values);
  }
  YAML::Node layout = r.field(root, "", "feature_layout");
  if (layout.IsDefined()) {
    auto lists = r.list<std::vector<std::string>>(
        layout, "feature_layout", false,
        [&](const YAML::Node& n, const std::string& p) { return read_names(r, n, p); });
    if (lists) raw.feature_layout = std::move(*lists);
  }
  YAML::Node stagger = r.field(root, "", "stagger");
  if (stagger.IsDefined())
    if (auto value = r.integer(stagger, "stagger")) raw.stagger = *value;
  YAML::Node protocol = r.field(root, "", "protocol");
  if (protocol.IsDefined())
    if (auto value = r.name(protocol, "protocol", "protocol", kProtocolNames)) raw.protocol = *value;
  YAML::Node dtypes = r.field(root, "", "dtypes");
  if (dtypes.IsDefined() && r.expect_map(dtypes, "dtypes")) {
    r.check_keys(dtypes, "dtypes", kDtypeKeys);
    std::optional<std::string>* targets[] = {&raw.lengths_dtype, &raw.values_dtype, &raw.weights_dtype};
    for (std::size_t i = 0; i < kDtypeKeys.size(); ++i) {
      YAML::Node name = r.field(dtypes, "dtypes", kDtypeKeys[i]);
      if (name.IsDefined()) *targets[i] = r.string(name, join_key("dtypes", kDtypeKeys[i]));
    }
  }
  YAML::Node inputs = r.field(root, "", "inputs");
  if (inputs.IsDefined() && !inputs.IsNull()) {
    if (!inputs.IsSequence()) {
      r.report(inputs, "inputs", "expected a list, found " + NodeReader::describe(inputs));
    } else {
      for (std::size_t i = 0; i < inputs.size(); ++i)
        if (auto kjt = read_source(r, inputs[i], join_index("inputs", i))) raw.inputs.push_back(std::move(*kjt));
    }
  }
  if (!r.diagnostics().empty()) return std::nullopt;
  return raw;
}

// The node and key path a Problem is about. (Built fresh in each branch: assigning
// one YAML::Node to another would rewrite the node it referred to.)
std::pair<YAML::Node, std::string> location(const YAML::Node& root, const Problem& p) {
  // The input the problem is in, when the file has it; else the root (a problem of
  // a missing or short `inputs` list): indexing a missing node would throw.
  const YAML::Node inputs = root["inputs"];
  const bool has_input = inputs.IsDefined() && inputs.IsSequence() && p.index < inputs.size();
  const YAML::Node input = has_input ? inputs[p.index] : root;
  const std::string input_path = join_index("inputs", p.index);
  auto in_input = [&](const char* key) -> std::pair<YAML::Node, std::string> {
    if (input[key].IsDefined()) return {input[key], join_key(input_path, key)};
    return {input, input_path};
  };
  const std::string lengths_path = join_key(input_path, "lengths");
  switch (p.where) {
    case Where::kRoot:
      return {root, ""};
    case Where::kInputs:
      if (root["inputs"].IsDefined()) return {root["inputs"], "inputs"};
      return {root, "inputs"};
    case Where::kSplits:
      if (root["splits"].IsDefined()) return {root["splits"], "splits"};
      return {root["feature_layout"], "feature_layout"};
    case Where::kSplitEntry:
      return {root["splits"][p.index], join_index("splits", p.index)};
    case Where::kStagger:
      if (root["stagger"].IsDefined()) return {root["stagger"], "stagger"};
      return {root, "stagger"};
    case Where::kLengthsDtype:
      return {root["dtypes"]["lengths"], "dtypes.lengths"};
    case Where::kValuesDtype:
      return {root["dtypes"]["values"], "dtypes.values"};
    case Where::kWeightsDtype:
      return {root["dtypes"]["weights"], "dtypes.weights"};
    case Where::kInputKeys:
      return in_input("keys");
    case Where::kInputLengths:
      return in_input("lengths");
    case Where::kLengthsRow:
      return {input["lengths"][p.row], join_index(lengths_path, p.row)};
    case Where::kLengthsEntry:
      return {input["lengths"][p.row][p.column], join_index(join_index(lengths_path, p.row), p.column)};
    case Where::kInputValues:
      return in_input("values");
    case Where::kInputWeights:
      return in_input("weights");
  }
  return {root, ""};
}

A2aInput read_checked(Document doc) {
  NodeReader r(doc.file, DiagnosticOrder::kReported);
  std::optional<RawInput> raw = read_raw(r, doc.root);
  r.throw_if_any();
  const YAML::Node& root = doc.root;
  std::optional<A2aInput> input = check_input(std::move(*raw), [&](const Problem& p) {
    auto [node, path] = location(root, p);
    r.report(node, path, p.message);
  });
  r.throw_if_any();
  return std::move(*input);
}

}  // namespace

namespace {

A2aInput read_text(const std::string& file, std::shared_ptr<const std::string> text, ReadPath path) {
  if (path == ReadPath::kFastWhenPossible && is_json_input(file, *text))
    if (std::optional<RawInput> raw = read_raw_json_fast(*text)) {
      // Only a clean input is taken from the fast path; a problem is reported with
      // positions, which needs the positioned reader.
      bool clean = true;
      std::optional<A2aInput> input = check_input(std::move(*raw), [&](const Problem&) { clean = false; });
      if (input && clean) return std::move(*input);
    }
  return read_checked(parse_document(file, *text));
}

}  // namespace

const std::vector<std::string>& a2a_input_keys(std::string_view section) {
  static const std::vector<std::string> kNone;
  if (section.empty()) return kTopKeys;
  if (section == "dtypes") return kDtypeKeys;
  if (section == "input") return kInputKeys;
  return kNone;
}

A2aInput parse_a2a_input(const std::string& file, std::string_view text, ReadPath path) {
  return read_text(file, std::make_shared<const std::string>(text), path);
}

A2aInput read_a2a_input(const std::string& path) {
  // "-" is stdin; the size limit is checked before reading.
  auto text = std::make_shared<const std::string>(read_input_text(path));
  return read_text(input_name(path), std::move(text), ReadPath::kFastWhenPossible);
}

}  // namespace shardplan::kjt
