#include "document/json_value_tree.h"

namespace shardplan {

JsonNode JsonValueTree::root() const { return values.empty() ? JsonNode() : JsonNode(this, 0); }

std::string_view JsonNode::scalar_view() const {
  if (!IsScalar()) return {};
  const JsonValueTree::Value& v = value();
  return std::string_view(tree_->text).substr(v.first, v.count);
}

std::string_view JsonNode::Tag() const {
  if (!tree_) return "";
  switch (value().kind) {
    case JsonValueTree::Kind::kNull:
      return "";
    case JsonValueTree::Kind::kQuotedScalar:
      return "!";
    default:
      return "?";
  }
}

JsonMark JsonNode::Mark() const {
  if (!tree_) return JsonMark{};
  return JsonMark{static_cast<int>(value().line), static_cast<int>(value().column), false};
}

std::size_t JsonNode::size() const {
  if (IsSequence()) return value().count;
  if (IsMap()) return value().count / 2;
  return 0;
}

JsonNode JsonNode::operator[](std::size_t i) const {
  if (!IsSequence() || i >= value().count) return JsonNode();
  return JsonNode(tree_, tree_->children[value().first + i]);
}

JsonNode JsonNode::operator[](std::string_view key) const {
  if (!IsMap()) return JsonNode();
  const JsonValueTree::Value& v = value();
  for (std::uint32_t i = 0; i < v.count; i += 2) {
    const JsonNode name(tree_, tree_->children[v.first + i]);
    if (name.scalar_view() == key) return JsonNode(tree_, tree_->children[v.first + i + 1]);
  }
  return JsonNode();
}

JsonNode::const_iterator JsonNode::begin() const {
  if (!IsMap()) return const_iterator(tree_, nullptr);
  return const_iterator(tree_, tree_->children.data() + value().first);
}

JsonNode::const_iterator JsonNode::end() const {
  if (!IsMap()) return const_iterator(tree_, nullptr);
  return const_iterator(tree_, tree_->children.data() + value().first + value().count);
}

}  // namespace shardplan
