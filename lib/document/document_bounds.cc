#include "document/document_bounds.h"

#include <array>
#include <cstdint>
#include <map>
#include <sstream>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "common/error.h"
#include "document/document.h"
#include "document/limits.h"

namespace shardplan {

namespace {

// Counts the nodes of a document as a reader walking it would meet them: an
// alias counts as every node of the node it names (yaml-cpp shares that node,
// so a tiny file can stand for billions of nodes).
class ExpandedNodeCounter : public YAML::EventHandler {
 public:
  explicit ExpandedNodeCounter(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(mark,
           "a second YAML document; an input file holds exactly one (remove the '---' line and what follows, "
           "or split the file)");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const Open& o : open_)
      if (o.anchor == anchor && anchor != 0) fail(mark, "an alias inside the node it names (a cycle)");
    auto it = anchor_nodes_.find(anchor);
    std::int64_t nodes = it == anchor_nodes_.end() ? 1 : it->second;
    add(mark, nodes);
    if (!open_.empty()) open_.back().nodes += nodes;
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::int64_t nodes;
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw InputError(SourcePos{file_, mark.line + 1, mark.column + 1}, "", message);
  }
  void add(const YAML::Mark& mark, std::int64_t nodes) {
    total_ += nodes;
    if (total_ > kMaxDocumentNodes)
      fail(mark, "the file holds more than " + std::to_string(kMaxDocumentNodes) +
                     " YAML nodes once its aliases are expanded (shardplan's limit)");
  }
  void finished(YAML::anchor_t anchor, std::int64_t nodes) {
    if (anchor != 0) anchor_nodes_[anchor] = nodes;
    if (!open_.empty()) open_.back().nodes += nodes;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    finished(anchor, 1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    open_.push_back(Open{anchor, 1});
  }
  void close() {
    if (open_.empty()) return;
    Open done = open_.back();
    open_.pop_back();
    finished(done.anchor, done.nodes);
  }

  std::string file_;
  int documents_ = 0;
  std::int64_t total_ = 0;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, std::int64_t> anchor_nodes_;
};

}  // namespace

void check_yaml_bounds(const std::string& file, std::string_view text) {
  // Without an alias, a document marker or a large text there is nothing to find:
  // every node takes at least two bytes. Skipping the pass keeps plain files fast.
  const bool may_expand = text.find('*') != std::string_view::npos;
  const bool may_hold_two = text.find("---") != std::string_view::npos || text.find("...") != std::string_view::npos;
  if (!may_expand && !may_hold_two && text.size() <= 2 * static_cast<std::size_t>(kMaxDocumentNodes)) return;
  std::istringstream in{std::string(text)};
  ExpandedNodeCounter counter(file);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const YAML::Exception&) {
    // Malformed YAML: the parse that follows reports it with its position.
  }
}

// The bytes check_json_bounds looks at outside strings.
constexpr std::array<bool, 256> kJsonBoundsStops = [] {
  std::array<bool, 256> stops{};
  for (unsigned char c : std::string_view("\",:[{")) stops[c] = true;
  return stops;
}();

void check_json_bounds(const std::string& file, std::string_view text) {
  // Every value but the first follows a ',' a ':' or an opening bracket.
  std::int64_t values = 1;
  bool in_string = false;
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    if (!in_string) {  // bytes that neither start a string nor a value, skipped in a tight loop
      while (i < size && !kJsonBoundsStops[static_cast<unsigned char>(text[i])]) ++i;
      if (i == size) break;
    }
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == ',' || c == ':' || c == '[' || c == '{')
      ++values;
    if (values > kMaxDocumentNodes)
      throw InputError(
          position_in_text(file, text, i), "",
          "the file holds more than " + std::to_string(kMaxDocumentNodes) + " JSON values (shardplan's limit)");
  }
}

}  // namespace shardplan
