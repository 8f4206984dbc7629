// Typed reads from a node tree that collect every problem as a Diagnostic
// (file:line:col, key path, expected vs found) instead of stopping at the first.
// One reader for both trees: yaml-cpp's (NodeReader) and the compact JSON tree of
// json_value_tree.h (JsonNodeReader), so both give the same messages.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/error.h"
#include "common/names.h"
#include "document/json_value_tree.h"

namespace shardplan {

// "a.b" from ("a", "b"); "b" when the parent path is empty.
std::string join_key(const std::string& parent, std::string_view key);
// "a[3]".
std::string join_index(const std::string& parent, std::size_t index);

// The order in which throw_if_any() lists diagnostics: by position in the file
// (model, topology and planner files), or in the order they were reported, for
// input kinds whose spec prescribes a check order (a2a, pipeline, propagate).
enum class DiagnosticOrder { kPosition, kReported };

// The allowed range of an integer or number field.
enum class Range { kAny, kNonNegative, kPositive };

// `Node` is YAML::Node or JsonNode.
template <class Node>
class BasicNodeReader {
 public:
  explicit BasicNodeReader(std::string file, DiagnosticOrder order = DiagnosticOrder::kPosition)
      : file_(std::move(file)), order_(order) {}

  const std::string& file() const { return file_; }
  // 1-based position of `node` (0:0 when the node has none).
  SourcePos pos(const Node& node) const;
  void report(const Node& at, const std::string& path, std::string message);
  void report(SourcePos at, const std::string& path, std::string message);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Throws InputError with every diagnostic (in the reader's DiagnosticOrder) when there are any.
  void throw_if_any() const;

  // True when `node` is a mapping; reports "expected a mapping" otherwise.
  bool expect_map(const Node& node, const std::string& path);
  // Reports keys of `map` not in `known` (with the closest known key) and duplicates.
  void check_keys(const Node& map, const std::string& path, const std::vector<std::string>& known);
  // The value under `key`, or an undefined node when absent (reported when required).
  Node field(const Node& map, const std::string& path, std::string_view key, bool required = false);

  std::optional<std::int64_t> integer(const Node& node, const std::string& path, Range range = Range::kAny);
  std::optional<double> number(const Node& node, const std::string& path, Range range = Range::kAny);
  std::optional<bool> boolean(const Node& node, const std::string& path);
  // Any non-null scalar; `non_empty` rejects "".
  std::optional<std::string> string(const Node& node, const std::string& path, bool non_empty = true);
  std::optional<std::int64_t> size_bytes(const Node& node, const std::string& path);
  std::optional<double> bandwidth(const Node& node, const std::string& path);
  // One of `names`; reports "unknown <what> 'x', did you mean 'y'?" otherwise.
  std::optional<std::string> one_of(const Node& node, const std::string& path, std::string_view what,
                                    const std::vector<std::string>& names);

  template <typename Enum, std::size_t N>
  std::optional<Enum> name(const Node& node, const std::string& path, std::string_view what,
                           const NameTable<Enum, N>& table) {
    auto text = one_of(node, path, what, names_of(table));
    if (!text) return std::nullopt;
    return parse_name(table, *text);
  }

  // A list whose every element `element(node, path)` reads; nullopt if the node is
  // not a list or any element fails (every failing element is reported).
  template <typename T>
  std::optional<std::vector<T>> list(const Node& node, const std::string& path, bool non_empty,
                                     const std::function<std::optional<T>(const Node&, const std::string&)>& element) {
    if (!node.IsSequence()) {
      report(node, path, "expected a list, found " + describe(node));
      return std::nullopt;
    }
    if (non_empty && node.size() == 0) {
      report(node, path, "expected a non-empty list");
      return std::nullopt;
    }
    std::vector<T> out;
    bool ok = true;
    for (std::size_t i = 0; i < node.size(); ++i) {
      auto value = element(node[i], join_index(path, i));
      if (value)
        out.push_back(std::move(*value));
      else
        ok = false;
    }
    if (!ok) return std::nullopt;
    return out;
  }

  // How a node reads in a message: 'abc', "abc" (quoted), a mapping, a list, null.
  static std::string describe(const Node& node);

 private:
  std::string file_;
  DiagnosticOrder order_;
  std::vector<Diagnostic> diagnostics_;
  // The scalar keys of the mapping field() read last: a table or constraint has a
  // dozen optional fields, and walking yaml-cpp's iterators once per field cost
  // more than the rest of reading the model.
  struct MapIndex {
    std::optional<Node> map;
    std::vector<std::pair<std::string, Node>> entries;
  };
  MapIndex index_;
};

extern template class BasicNodeReader<YAML::Node>;
extern template class BasicNodeReader<JsonNode>;
using NodeReader = BasicNodeReader<YAML::Node>;
using JsonNodeReader = BasicNodeReader<JsonNode>;

}  // namespace shardplan
