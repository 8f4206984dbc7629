// A compact, positioned tree of a JSON text: one flat array of values (kind,
// position, text or child range), built from the same parser events as the YAML
// node tree of json_tree.h (read_json_value_tree there), so it has the same
// limits, duplicate-key errors and positions. A JsonNode is a handle into it with
// the part of yaml-cpp's Node interface the readers use (IsMap, Scalar, Tag,
// Mark, operator[], iteration over a mapping's pairs), so that one reader
// template (BasicNodeReader, node_reader.h) reads either tree. About 20 bytes a
// value instead of yaml-cpp's several hundred: a 34 MB plan file reads in a
// fraction of the memory and time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardplan {

class JsonNode;

// The values of one JSON text. Built by read_json_value_tree (json_tree.h).
struct JsonValueTree {
  enum class Kind : std::uint8_t { kNull, kPlainScalar, kQuotedScalar, kMap, kSequence };
  struct Value {
    Kind kind = Kind::kNull;
    std::uint32_t line = 0, column = 0;  // 0-based, column in bytes (as yaml-cpp's Mark)
    // Scalars: the text's [first, first + count) in `text`. Containers: the children's
    // [first, first + count) in `children` (a mapping's as key, value, key, value...).
    std::uint32_t first = 0, count = 0;
  };
  std::vector<Value> values;            // values[0] is the root; keys are values too (quoted scalars)
  std::vector<std::uint32_t> children;  // indices into `values`
  std::string text;                     // every scalar's text, one after another

  // The root value; undefined when the tree is empty.
  JsonNode root() const;
};

// The position a JsonNode reports (yaml-cpp's Mark, less what the readers do not use).
struct JsonMark {
  int line = 0, column = 0;  // 0-based
  bool null = true;
  bool is_null() const { return null; }
};

// A value of a JsonValueTree, or undefined (what a missing key gives). Cheap to
// copy; valid while its tree lives. Reads as yaml-cpp's Node of the same text:
// strings are quoted scalars (Tag "!"), numbers and booleans plain ones ("?"), null
// is IsNull() and no scalar.
class JsonNode {
 public:
  JsonNode() = default;  // undefined
  JsonNode(const JsonValueTree* tree, std::uint32_t index) : tree_(tree), index_(index) {}

  bool IsDefined() const { return tree_ != nullptr; }
  explicit operator bool() const { return IsDefined(); }
  bool IsNull() const { return is(JsonValueTree::Kind::kNull); }
  bool IsScalar() const { return is(JsonValueTree::Kind::kPlainScalar) || is(JsonValueTree::Kind::kQuotedScalar); }
  bool IsMap() const { return is(JsonValueTree::Kind::kMap); }
  bool IsSequence() const { return is(JsonValueTree::Kind::kSequence); }
  // A scalar's text ("" for anything else, as yaml-cpp gives).
  std::string Scalar() const { return std::string(scalar_view()); }
  std::string_view scalar_view() const;
  // "!" for a string, "?" for other scalars and containers, "" for null and undefined.
  std::string_view Tag() const;
  JsonMark Mark() const;
  // A list's entries or a mapping's pairs; 0 for anything else.
  std::size_t size() const;
  // The list's entry `i`; undefined when out of range or not a list.
  JsonNode operator[](std::size_t i) const;
  // The mapping's value under `key`; undefined when absent or not a mapping.
  JsonNode operator[](std::string_view key) const;
  // The same value of the same tree (yaml-cpp's Node::is).
  bool is(const JsonNode& other) const { return tree_ == other.tree_ && index_ == other.index_; }

  // A mapping's pairs in file order: it->first (the key) and it->second (the value).
  class const_iterator;
  // Empty ranges for anything but a mapping.
  const_iterator begin() const;
  const_iterator end() const;

 private:
  bool is(JsonValueTree::Kind kind) const { return tree_ && tree_->values[index_].kind == kind; }
  const JsonValueTree::Value& value() const { return tree_->values[index_]; }

  const JsonValueTree* tree_ = nullptr;
  std::uint32_t index_ = 0;
};

// A mapping's key and value.
struct JsonNodePair {
  JsonNode first, second;
};

class JsonNode::const_iterator {
 public:
  const_iterator(const JsonValueTree* tree, const std::uint32_t* at) : tree_(tree), at_(at) {}
  JsonNodePair operator*() const { return JsonNodePair{JsonNode(tree_, at_[0]), JsonNode(tree_, at_[1])}; }
  const JsonNodePair* operator->() {
    pair_ = **this;
    return &pair_;
  }
  const_iterator& operator++() {
    at_ += 2;
    return *this;
  }
  bool operator==(const const_iterator& other) const { return at_ == other.at_; }
  bool operator!=(const const_iterator& other) const { return at_ != other.at_; }

 private:
  const JsonValueTree* tree_;
  const std::uint32_t* at_;
  JsonNodePair pair_;
};

}  // namespace shardplan
