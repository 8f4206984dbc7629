#include "config/json_tree.h"

#include <vector>

#include <nlohmann/json.hpp>

namespace shardplan {
namespace {

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line
// 1, column 2: "; we print our own position, so keep only the explanation.
std::string json_message(const std::string& what) {
  std::string out = what;
  auto bracket = out.find("] ");
  if (bracket != std::string::npos) out = out.substr(bracket + 2);
  auto colon = out.find(": ");
  if (out.rfind("parse error", 0) == 0 && colon != std::string::npos) out = out.substr(colon + 2);
  return out;
}

// A SAX consumer that builds nothing and records nlohmann's parse error.
struct SyntaxOnly : nlohmann::json_sax<nlohmann::json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // `position` counts the bytes read, so the offending byte is at position - 1.
    error = JsonSyntaxError{position > 0 ? position - 1 : 0, json_message(e.what())};
    return false;
  }
  std::optional<JsonSyntaxError> error;
};

// Builds the node tree yaml-cpp makes of the same text. JSON strings are
// double-quoted scalars to yaml-cpp (tag "!"), numbers and booleans plain ones
// (tag "?"), and a plain null becomes an untagged Null node.
struct TreeBuilder : SyntaxOnly {
  bool null() override { return add(YAML::Node(YAML::NodeType::Null)); }
  bool boolean(bool value) override { return add(scalar(value ? "true" : "false", false)); }
  // Only a negative literal reaches number_integer (non-negative ones arrive as
  // unsigned), so a zero here was written "-0"; yaml-cpp keeps that text.
  bool number_integer(number_integer_t value) override {
    return add(scalar(value == 0 ? "-0" : std::to_string(value), false));
  }
  bool number_unsigned(number_unsigned_t value) override { return add(scalar(std::to_string(value), false)); }
  // The literal as written, so "1e3" and "0.10" stay what yaml-cpp would hold.
  bool number_float(number_float_t, const string_t& literal) override { return add(scalar(literal, false)); }
  bool string(string_t& value) override { return add(scalar(value, true)); }
  bool start_object(std::size_t) override { return open(YAML::NodeType::Map); }
  bool key(string_t& name) override {
    keys.back() = name;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(YAML::NodeType::Sequence); }
  bool end_array() override { return close(); }

  static YAML::Node scalar(const std::string& text, bool quoted) {
    YAML::Node node(text);
    node.SetTag(quoted ? "!" : "?");
    return node;
  }
  bool add(const YAML::Node& node) {
    if (open_nodes.empty()) {
      root = node;
    } else if (open_nodes.back().IsSequence()) {
      open_nodes.back().push_back(node);
    } else {
      // force_insert keeps a duplicate key as a second entry, as yaml-cpp's parser
      // does, so the reader can report it.
      open_nodes.back().force_insert(scalar(keys.back(), true), node);
    }
    return true;
  }
  bool open(YAML::NodeType::value type) {
    YAML::Node node(type);
    node.SetTag("?");
    add(node);
    open_nodes.push_back(node);
    keys.emplace_back();
    return true;
  }
  bool close() {
    open_nodes.pop_back();
    keys.pop_back();
    return true;
  }

  YAML::Node root;
  std::vector<YAML::Node> open_nodes;
  std::vector<std::string> keys;  // the pending key of each open mapping (plain strings:
                                  // assigning one YAML::Node to another rebinds shared data)
};

}  // namespace

std::optional<JsonSyntaxError> check_json(std::string_view text) {
  SyntaxOnly sax;
  if (!nlohmann::json::sax_parse(text, &sax) && !sax.error) sax.error = JsonSyntaxError{0, "invalid JSON"};
  return sax.error;
}

std::optional<JsonSyntaxError> build_json_tree(std::string_view text, YAML::Node& root) {
  TreeBuilder sax;
  if (!nlohmann::json::sax_parse(text, &sax) && !sax.error) sax.error = JsonSyntaxError{0, "invalid JSON"};
  if (!sax.error) root = sax.root;
  return sax.error;
}

}  // namespace shardplan
