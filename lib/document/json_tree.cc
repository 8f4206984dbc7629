#include "document/json_tree.h"

#include <cstring>
#include <iterator>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "document/limits.h"
#include "document/node_reader.h"

namespace shardplan {
struct JsonNodeMarker {};
}  // namespace shardplan

// yaml-cpp gives no public way to set a node's Mark, nor to make a node in an
// existing tree's memory, but Node befriends every as_if<T, S>: this
// specialization is that way in, used only by the builder below.
namespace YAML {
template <>
struct as_if<shardplan::JsonNodeMarker, void> {
  static void set(const Node& node, const Mark& mark) {
    node.EnsureNodeExists();
    node.m_pNode->set_mark(mark);
  }
  // What Node(type) makes, but in `owner`'s memory instead of a memory of its own.
  // A node made on its own gets a memory (a std::set of nodes) that adding it to
  // the tree then merges into the tree's: three allocations and a set insertion
  // per node, for nothing. Then the tree holds the same nodes either way.
  static Node make_in(const Node& owner, NodeType::value type) {
    owner.EnsureNodeExists();
    detail::node& node = owner.m_pMemory->create_node();
    node.set_type(type);
    return Node(node, owner.m_pMemory);
  }
};
}  // namespace YAML

namespace shardplan {
namespace {

// nlohmann's messages start "[json.exception.parse_error.101] parse error at line
// 1, column 2: "; we print our own position, so keep only the explanation. Bytes
// outside ASCII (nlohmann quotes what it last read, invalid UTF-8 included) are
// written as \xNN so that the message itself is valid UTF-8.
std::string json_message(const std::string& what) {
  std::string out = what;
  auto bracket = out.find("] ");
  if (bracket != std::string::npos) out = out.substr(bracket + 2);
  auto colon = out.find(": ");
  if (out.rfind("parse error", 0) == 0 && colon != std::string::npos) out = out.substr(colon + 2);
  std::string clean;
  for (char c : out) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      clean += c;
    } else {
      static const char kHex[] = "0123456789abcdef";
      clean += "\\x";
      clean += kHex[byte >> 4];
      clean += kHex[byte & 15];
    }
  }
  return clean;
}

// A character iterator that records, in `*last`, the last character nlohmann read:
// the SAX interface gives no positions, but every event comes right after the
// lexer read its token, so the token's bytes end there.
struct TrackedChar {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** last = nullptr;

  reference operator*() const {
    *last = at;
    return *at;
  }
  TrackedChar& operator++() {
    ++at;
    return *this;
  }
  TrackedChar operator++(int) {
    TrackedChar before = *this;
    ++at;
    return before;
  }
  bool operator==(const TrackedChar& other) const { return at == other.at; }
  bool operator!=(const TrackedChar& other) const { return at != other.at; }
};

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// What a parsed value is, for the sinks below.
enum class JsonScalarKind { kNull, kPlain, kQuoted };

// Turns nlohmann's SAX events into positioned values for a Sink (the yaml-cpp tree,
// the compact JsonValueTree, or nothing), each marked with the position of its
// first byte. JSON strings are quoted scalars (yaml-cpp's tag "!"), numbers and
// booleans plain ones (tag "?"), null a null. A key given twice in one object is
// an error with both positions. Depth and value count are bounded here, the one
// place every JSON input passes through, whatever it is read into.
//
// A Sink has scalar(kind, text, mark), open(is_map, mark), key(name, mark) and
// close(); a value arrives right after its key when its parent is a mapping.
template <class Sink>
class JsonEventBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  JsonEventBuilder(std::string_view text, Sink& sink) : text_(text), sink_(sink) {}

  bool null() override { return add_scalar(JsonScalarKind::kNull, std::string(), literal_start(4)); }
  bool boolean(bool value) override {
    return add_scalar(JsonScalarKind::kPlain, value ? "true" : "false", literal_start(value ? 4 : 5));
  }
  // Only a negative literal reaches number_integer (non-negative ones arrive as
  // unsigned), so a zero here was written "-0"; yaml-cpp keeps that text.
  bool number_integer(number_integer_t value) override {
    return add_scalar(JsonScalarKind::kPlain, value == 0 ? "-0" : std::to_string(value), number_start());
  }
  bool number_unsigned(number_unsigned_t value) override {
    return add_scalar(JsonScalarKind::kPlain, std::to_string(value), number_start());
  }
  // The literal as written, so "1e3" and "0.10" stay what yaml-cpp would hold.
  bool number_float(number_float_t, const string_t& literal) override {
    return add_scalar(JsonScalarKind::kPlain, literal, number_start());
  }
  bool string(string_t& value) override { return add_scalar(JsonScalarKind::kQuoted, value, string_start()); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(true); }
  bool key(string_t& name) override {
    const std::size_t offset = string_start();
    if (auto first = frames_.back().first_offset(name, offset)) {
      const YAML::Mark at = mark_at(*first);
      return fail(offset,
                  "duplicate key '" + name + "' (first given at line " + std::to_string(at.line + 1) + ", column " +
                      std::to_string(at.column + 1) + ")",
                  join_key(path(), name));
    }
    frames_.back().key = name;
    // Marked now, while offsets still arrive in increasing order (marking it when its
    // value arrives would count the lines again from the start: quadratic).
    sink_.key(name, mark_at(offset));
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // `position` counts the bytes read, so the offending byte is at position - 1.
    if (!error) error = JsonSyntaxError{position > 0 ? position - 1 : 0, "invalid JSON: " + json_message(e.what()), ""};
    return false;
  }

  const char* last_read = nullptr;       // the last character the lexer read (TrackedChar)
  std::optional<JsonSyntaxError> error;  // the first problem, its message complete

 private:
  // Bytes read so far.
  std::size_t consumed() const { return last_read ? static_cast<std::size_t>(last_read - text_.data()) + 1 : 0; }
  std::size_t literal_start(std::size_t length) const { return consumed() - length; }
  // A number ends where the lexer stopped, less the one character it read past it.
  std::size_t number_start() const {
    std::size_t at = consumed();
    if (at > 0 && !is_number_char(text_[at - 1])) --at;
    while (at > 0 && is_number_char(text_[at - 1])) --at;
    return at;
  }
  // A string ends at its closing quote; its opening one is the first quote before
  // that which is not escaped (preceded by an even number of backslashes).
  std::size_t string_start() const {
    std::size_t close = consumed() - 1;
    for (std::size_t at = close; at-- > 0;) {
      if (text_[at] != '"') continue;
      std::size_t slashes = 0;
      while (slashes < at && text_[at - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 0) return at;
    }
    return 0;
  }

  // The 0-based line and column of `offset`; offsets arrive in increasing order,
  // so the newlines are counted once (an earlier offset counts again from the
  // start: only a duplicate key's message asks for one).
  YAML::Mark mark_at(std::size_t offset) {
    if (offset < counted_) {  // not expected; count again from the start
      counted_ = 0;
      line_ = 0;
      line_start_ = 0;
    }
    while (counted_ < offset) {
      const void* newline = std::memchr(text_.data() + counted_, '\n', offset - counted_);
      if (!newline) {
        counted_ = offset;
        break;
      }
      ++line_;
      counted_ = static_cast<std::size_t>(static_cast<const char*>(newline) - text_.data()) + 1;
      line_start_ = counted_;
    }
    YAML::Mark mark;
    mark.pos = static_cast<int>(offset);
    mark.line = line_;
    mark.column = static_cast<int>(offset - line_start_);
    return mark;
  }

  bool fail(std::size_t offset, std::string message, std::string key_path = "") {
    error = JsonSyntaxError{offset, std::move(message), std::move(key_path)};
    return false;
  }

  // The key path of the value being read ("a.b[3]"), for messages.
  std::string path() const {
    std::string out;
    // Each open container but the last holds the next one as its newest entry.
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      if (frames_[i].is_sequence)
        out = join_index(out, frames_[i].entries - 1);
      else
        out = join_key(out, frames_[i].key);
    }
    return out;
  }

  // Counts one more value (refused past the limit) and its place in its parent.
  bool count_value(std::size_t offset) {
    if (++values_ > kMaxDocumentNodes)
      return fail(offset,
                  "the file holds more than " + std::to_string(kMaxDocumentNodes) + " JSON values (shardplan's limit)");
    if (!frames_.empty()) ++frames_.back().entries;
    return true;
  }
  bool add_scalar(JsonScalarKind kind, const std::string& text, std::size_t offset) {
    if (!count_value(offset)) return false;
    sink_.scalar(kind, text, mark_at(offset));
    return true;
  }
  bool open(bool is_map) {
    const std::size_t offset = consumed() - 1;
    if (static_cast<int>(frames_.size()) >= kMaxJsonDepth)
      return fail(offset, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    if (!count_value(offset)) return false;
    sink_.open(is_map, mark_at(offset));
    frames_.emplace_back();
    frames_.back().is_sequence = !is_map;
    return true;
  }
  bool close() {
    frames_.pop_back();
    sink_.close();
    return true;
  }

  // One open object or array.
  struct Frame {
    bool is_sequence = false;
    std::size_t entries = 0;  // values added so far
    std::string key;          // an object's pending key
    // An object's keys so far and where they are (duplicates are refused): a list
    // while short (most objects have a few keys), then a hash map.
    std::vector<std::pair<std::string, std::size_t>> few_keys;
    std::unordered_map<std::string, std::size_t> many_keys;

    // Where `name` was given before in this object, or nullopt (then it is
    // remembered at `offset`).
    std::optional<std::size_t> first_offset(const std::string& name, std::size_t offset) {
      constexpr std::size_t kFewKeys = 16;
      if (many_keys.empty()) {
        for (const auto& [seen, at] : few_keys)
          if (seen == name) return at;
        if (few_keys.size() < kFewKeys) {
          few_keys.emplace_back(name, offset);
          return std::nullopt;
        }
        for (auto& [seen, at] : few_keys) many_keys.emplace(std::move(seen), at);
        few_keys.clear();
      }
      auto [first, added] = many_keys.emplace(name, offset);
      if (!added) return first->second;
      return std::nullopt;
    }
  };

  std::string_view text_;
  Sink& sink_;
  std::int64_t values_ = 0;
  std::size_t counted_ = 0, line_start_ = 0;
  int line_ = 0;
  std::vector<Frame> frames_;
};

// Builds the node tree yaml-cpp makes of the same text: quoted scalars tagged "!",
// plain ones "?", a null an untagged Null node, every node (keys too) marked.
class YamlTreeSink {
 public:
  void scalar(JsonScalarKind kind, const std::string& text, const YAML::Mark& mark) {
    add(kind == JsonScalarKind::kNull ? make(YAML::NodeType::Null) : make_scalar(text, kind == JsonScalarKind::kQuoted),
        mark);
  }
  void open(bool is_map, const YAML::Mark& mark) {
    YAML::Node node = make(is_map ? YAML::NodeType::Map : YAML::NodeType::Sequence);
    node.SetTag("?");
    add(node, mark);
    open_nodes_.push_back(node);
    keys_.emplace_back();
  }
  void key(const std::string& name, const YAML::Mark& mark) {
    keys_.back().first = name;
    keys_.back().second = mark;
  }
  void close() {
    open_nodes_.pop_back();
    keys_.pop_back();
  }

  YAML::Node root;

 private:
  // A node of `type`, in the memory of the first node made (see make_in).
  YAML::Node make(YAML::NodeType::value type) {
    if (!memory_owner_) {
      memory_owner_ = YAML::Node(type);
      return *memory_owner_;
    }
    return YAML::as_if<JsonNodeMarker, void>::make_in(*memory_owner_, type);
  }
  // What YAML::Node(text) holds, tagged as yaml-cpp tags a quoted or plain scalar.
  YAML::Node make_scalar(const std::string& text, bool quoted) {
    YAML::Node node = make(YAML::NodeType::Scalar);
    node = text;
    node.SetTag(quoted ? "!" : "?");
    return node;
  }
  void add(const YAML::Node& node, const YAML::Mark& mark) {
    YAML::as_if<JsonNodeMarker, void>::set(node, mark);
    if (open_nodes_.empty()) {
      root = node;
    } else if (open_nodes_.back().IsSequence()) {
      open_nodes_.back().push_back(node);
    } else {
      // force_insert keeps a duplicate key as a second entry, as yaml-cpp's parser
      // does (the JSON events refuse one before it gets here).
      YAML::Node key = make_scalar(keys_.back().first, true);
      YAML::as_if<JsonNodeMarker, void>::set(key, keys_.back().second);
      open_nodes_.back().force_insert(key, node);
    }
  }

  std::optional<YAML::Node> memory_owner_;  // the first node made: every other is made in its memory
  std::vector<YAML::Node> open_nodes_;
  // The pending key of each open mapping and its position (plain strings: assigning
  // one YAML::Node to another rebinds shared data).
  std::vector<std::pair<std::string, YAML::Mark>> keys_;
};

// Builds the compact JsonValueTree: each value appended as it arrives, each
// container's children (a mapping's keys and values alternating) gathered while
// it is open and stored together when it closes.
class CompactTreeSink {
 public:
  explicit CompactTreeSink(JsonValueTree& tree) : tree_(tree) {}

  void scalar(JsonScalarKind kind, const std::string& text, const YAML::Mark& mark) {
    if (kind == JsonScalarKind::kNull)
      append(JsonValueTree::Kind::kNull, mark, 0, 0);
    else
      append_text(
          kind == JsonScalarKind::kQuoted ? JsonValueTree::Kind::kQuotedScalar : JsonValueTree::Kind::kPlainScalar,
          text, mark);
  }
  void open(bool is_map, const YAML::Mark& mark) {
    open_.push_back(append(is_map ? JsonValueTree::Kind::kMap : JsonValueTree::Kind::kSequence, mark, 0, 0));
    if (pending_.size() < open_.size()) pending_.emplace_back();
    pending_[open_.size() - 1].clear();
  }
  // The key is a value of its own (a quoted scalar with its position), listed
  // right before the value it names.
  void key(const std::string& name, const YAML::Mark& mark) {
    std::uint32_t index = append_text(JsonValueTree::Kind::kQuotedScalar, name, mark, false);
    pending_[open_.size() - 1].push_back(index);
  }
  void close() {
    std::vector<std::uint32_t>& children = pending_[open_.size() - 1];
    JsonValueTree::Value& container = tree_.values[open_.back()];
    container.first = static_cast<std::uint32_t>(tree_.children.size());
    container.count = static_cast<std::uint32_t>(children.size());
    tree_.children.insert(tree_.children.end(), children.begin(), children.end());
    open_.pop_back();
  }

 private:
  std::uint32_t append_text(JsonValueTree::Kind kind, const std::string& text, const YAML::Mark& mark,
                            bool is_child = true) {
    const auto first = static_cast<std::uint32_t>(tree_.text.size());
    tree_.text += text;
    return append(kind, mark, first, static_cast<std::uint32_t>(text.size()), is_child);
  }
  std::uint32_t append(JsonValueTree::Kind kind, const YAML::Mark& mark, std::uint32_t first, std::uint32_t count,
                       bool is_child = true) {
    const auto index = static_cast<std::uint32_t>(tree_.values.size());
    tree_.values.push_back(JsonValueTree::Value{kind, static_cast<std::uint32_t>(mark.line),
                                                static_cast<std::uint32_t>(mark.column), first, count});
    if (is_child && !open_.empty()) pending_[open_.size() - 1].push_back(index);
    return index;
  }

  JsonValueTree& tree_;
  std::vector<std::uint32_t> open_;                  // the open containers' indices
  std::vector<std::vector<std::uint32_t>> pending_;  // their children so far, by depth (reused)
};

// Keeps nothing: check_json only wants the first problem.
struct NoTreeSink {
  void scalar(JsonScalarKind, const std::string&, const YAML::Mark&) {}
  void open(bool, const YAML::Mark&) {}
  void key(const std::string&, const YAML::Mark&) {}
  void close() {}
};

template <class Sink>
std::optional<JsonSyntaxError> run_builder(std::string_view text, Sink& sink) {
  JsonEventBuilder<Sink> sax(text, sink);
  // nlohmann's lexer takes a NUL byte for the end of the input, so that a file
  // with a NUL and anything after it would read as its part before the NUL.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    return JsonSyntaxError{nul, "invalid JSON: a NUL byte (JSON text holds none: is this a binary file?)", ""};
  TrackedChar first{text.data(), &sax.last_read};
  TrackedChar last{text.data() + text.size(), &sax.last_read};
  if (!nlohmann::json::sax_parse(first, last, &sax) && !sax.error) sax.error = JsonSyntaxError{0, "invalid JSON", ""};
  return sax.error;
}

// The size limit, checked before parsing.
void check_json_text_size(const std::string& file, std::string_view text) {
  if (text.size() > static_cast<std::size_t>(kMaxInputFileBytes))
    throw InputError(SourcePos{file, 0, 0}, "",
                     "the text has " + std::to_string(text.size()) + " bytes; expected at most " +
                         std::to_string(kMaxInputFileBytes) + " (shardplan's limit)");
}

}  // namespace

std::optional<JsonSyntaxError> check_json(std::string_view text) {
  NoTreeSink sink;
  return run_builder(text, sink);
}

std::optional<JsonSyntaxError> build_json_tree(std::string_view text, YAML::Node& root) {
  YamlTreeSink sink;
  auto error = run_builder(text, sink);
  if (!error) root = sink.root;
  return error;
}

std::optional<JsonSyntaxError> build_json_value_tree(std::string_view text, JsonValueTree& tree) {
  tree = JsonValueTree{};
  // Sized once from the text (a value takes at least a few bytes of it: a plan
  // file about 19), so that the arrays are not copied as they grow; pages never
  // written to are not memory used.
  tree.values.reserve(text.size() / 16 + 16);
  tree.children.reserve(text.size() / 8 + 16);
  tree.text.reserve(text.size() / 2 + 16);
  CompactTreeSink sink(tree);
  auto error = run_builder(text, sink);
  if (error) tree = JsonValueTree{};
  return error;
}

SourcePos json_position(const std::string& file, std::string_view text, std::size_t offset) {
  SourcePos pos{file, 1, 1};
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++pos.line;
      line_start = i + 1;
    }
  pos.col = static_cast<int>(std::min(offset, text.size()) - line_start) + 1;
  return pos;
}

YAML::Node read_json_tree(const std::string& file, std::string_view text) {
  check_json_text_size(file, text);
  YAML::Node root;
  if (auto error = build_json_tree(text, root))
    throw InputError(json_position(file, text, error->offset), error->key_path, error->message);
  return root;
}

JsonValueTree read_json_value_tree(const std::string& file, std::string_view text) {
  check_json_text_size(file, text);
  JsonValueTree tree;
  if (auto error = build_json_value_tree(text, tree))
    throw InputError(json_position(file, text, error->offset), error->key_path, error->message);
  return tree;
}

}  // namespace shardplan
