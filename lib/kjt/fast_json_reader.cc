#include "kjt/fast_json_reader.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "kjt/output_json.h"

namespace shardplan::kjt {

namespace {

// Where a JSON value sits in an a2a input (docs/formats/a2a.md). Containers are
// the slots that open an object or a list; the others take one scalar.
enum class A2aSlot : std::uint8_t {
  kRoot,
  kTop,     // the top-level object
  kSplits,  // list of integers
  kSplit,
  kLayout,  // list of name lists
  kLayoutNames,
  kLayoutName,
  kStagger,
  kProtocol,
  kDtypes,  // object of three names
  kLengthsDtype,
  kValuesDtype,
  kWeightsDtype,
  kInputs,  // list of source objects
  kSource,
  kRank,
  kKeys,  // list of names
  kKey,
  kLengths,  // list of integer rows
  kLengthsRow,
  kLength,
  kValues,  // list of value tokens
  kValue,
  kWeights,  // null or a list of numbers
  kWeight,
};

// The slot of each element of a list slot.
A2aSlot a2a_element_slot(A2aSlot list) {
  switch (list) {
    case A2aSlot::kSplits:
      return A2aSlot::kSplit;
    case A2aSlot::kLayout:
      return A2aSlot::kLayoutNames;
    case A2aSlot::kLayoutNames:
      return A2aSlot::kLayoutName;
    case A2aSlot::kInputs:
      return A2aSlot::kSource;
    case A2aSlot::kKeys:
      return A2aSlot::kKey;
    case A2aSlot::kLengths:
      return A2aSlot::kLengthsRow;
    case A2aSlot::kLengthsRow:
      return A2aSlot::kLength;
    case A2aSlot::kValues:
      return A2aSlot::kValue;
    case A2aSlot::kWeights:
      return A2aSlot::kWeight;
    default:
      return A2aSlot::kRoot;  // not a list: no element fits
  }
}

struct A2aKeySlot {
  const char* name;
  A2aSlot slot;
};
// The keys of each object slot, in the order of the positioned reader's key lists.
constexpr A2aKeySlot kA2aTopKeySlots[] = {{"splits", A2aSlot::kSplits},   {"feature_layout", A2aSlot::kLayout},
                                          {"stagger", A2aSlot::kStagger}, {"protocol", A2aSlot::kProtocol},
                                          {"dtypes", A2aSlot::kDtypes},   {"inputs", A2aSlot::kInputs}};
constexpr A2aKeySlot kA2aDtypeKeySlots[] = {
    {"lengths", A2aSlot::kLengthsDtype}, {"values", A2aSlot::kValuesDtype}, {"weights", A2aSlot::kWeightsDtype}};
constexpr A2aKeySlot kA2aSourceKeySlots[] = {{"rank", A2aSlot::kRank},
                                             {"keys", A2aSlot::kKeys},
                                             {"lengths", A2aSlot::kLengths},
                                             {"values", A2aSlot::kValues},
                                             {"weights", A2aSlot::kWeights}};
// rank, keys, lengths and values (the first four source keys) are required.
constexpr unsigned kA2aRequiredSourceKeys = 15u;

// nlohmann's SAX events (the parser every JSON input goes through, json_tree.h)
// straight into a RawInput. Any event the schema does not expect returns false,
// which stops the parse: the caller then reads the text with positions, and the
// same parser, so the two paths see the same syntax, UTF-8 and escapes.
class A2aInputSax {
 public:
  RawInput raw;

  bool null() { return incoming() == A2aSlot::kWeights; }  // "weights": null is an unweighted input
  bool boolean(bool) { return false; }
  bool number_unsigned(std::uint64_t value) {
    A2aSlot slot = incoming();
    if (slot == A2aSlot::kValue || slot == A2aSlot::kWeight) return token(slot, value);
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    return integer(slot, static_cast<std::int64_t>(value));
  }
  // Only a literal starting with '-' arrives here ("-0" as 0).
  bool number_integer(std::int64_t value) {
    A2aSlot slot = incoming();
    if (slot == A2aSlot::kValue) return token(slot, value);  // a value integer in canonical form: -0 is 0
    if (slot == A2aSlot::kWeight) {
      if (value == 0) return push(*raw.inputs.back().weights, "-0");  // a weight is kept as written
      return token(slot, value);
    }
    return integer(slot, value);
  }
  // Values and weights keep a fraction or exponent as written; one outside a
  // double's range (1e-999; nlohmann refuses 1e999 itself) is for the positioned
  // reader to report. Integer fields take no such literal.
  bool number_float(double, const std::string& literal) {
    A2aSlot slot = incoming();
    if (slot != A2aSlot::kValue && slot != A2aSlot::kWeight) return false;
    double value = 0;
    auto [end, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
    if (ec != std::errc() || end != literal.data() + literal.size()) return false;
    return push(tokens(slot), literal);
  }
  bool string(std::string& text) {
    switch (incoming()) {
      case A2aSlot::kValue:
        scratch_.clear();
        append_json_string(text, scratch_);
        return push(raw.inputs.back().values, scratch_);
      case A2aSlot::kKey:
        if (text.empty()) return false;  // the positioned reader refuses empty names
        raw.inputs.back().keys.push_back(std::move(text));
        return true;
      case A2aSlot::kLayoutName:
        if (text.empty()) return false;
        raw.feature_layout->back().push_back(std::move(text));
        return true;
      case A2aSlot::kLengthsDtype:
        return dtype(raw.lengths_dtype, text);
      case A2aSlot::kValuesDtype:
        return dtype(raw.values_dtype, text);
      case A2aSlot::kWeightsDtype:
        return dtype(raw.weights_dtype, text);
      case A2aSlot::kProtocol: {
        std::optional<Protocol> value = parse_name(kProtocolNames, text);
        if (!value) return false;
        raw.protocol = *value;
        return true;
      }
      default:
        return false;
    }
  }
  bool binary(nlohmann::json::binary_t&) { return false; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  bool start_object(std::size_t) {
    A2aSlot slot = incoming();
    if (slot == A2aSlot::kRoot)
      slot = A2aSlot::kTop;
    else if (slot == A2aSlot::kSource)
      raw.inputs.emplace_back();
    else if (slot != A2aSlot::kDtypes)
      return false;
    open_.push_back(Frame{slot});
    return true;
  }
  bool key(std::string& name) {
    Frame& frame = open_.back();
    const A2aKeySlot* first = nullptr;
    std::size_t count = 0;
    if (frame.slot == A2aSlot::kTop)
      first = kA2aTopKeySlots, count = std::size(kA2aTopKeySlots);
    else if (frame.slot == A2aSlot::kDtypes)
      first = kA2aDtypeKeySlots, count = std::size(kA2aDtypeKeySlots);
    else
      first = kA2aSourceKeySlots, count = std::size(kA2aSourceKeySlots);
    for (std::size_t i = 0; i < count; ++i) {
      if (name != first[i].name) continue;
      if (frame.seen & (1u << i)) return false;  // a duplicate key: the positioned reader says where
      frame.seen |= 1u << i;
      frame.next = first[i].slot;
      return true;
    }
    return false;  // an unknown key (with a "did you mean" from the positioned reader)
  }
  bool end_object() {
    const Frame frame = open_.back();
    open_.pop_back();
    return frame.slot != A2aSlot::kSource || (frame.seen & kA2aRequiredSourceKeys) == kA2aRequiredSourceKeys;
  }
  bool start_array(std::size_t) {
    A2aSlot slot = incoming();
    switch (slot) {
      case A2aSlot::kSplits:
        raw.splits.emplace();
        break;
      case A2aSlot::kLayout:
        raw.feature_layout.emplace();
        break;
      case A2aSlot::kLayoutNames:
        raw.feature_layout->emplace_back();
        break;
      case A2aSlot::kLengthsRow:
        raw.inputs.back().lengths.emplace_back();
        break;
      case A2aSlot::kWeights:
        raw.inputs.back().weights.emplace();
        break;
      case A2aSlot::kInputs:
      case A2aSlot::kKeys:
      case A2aSlot::kLengths:
      case A2aSlot::kValues:
        break;
      default:
        return false;
    }
    open_.push_back(Frame{slot});
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }

 private:
  struct Frame {
    A2aSlot slot;
    A2aSlot next = A2aSlot::kRoot;  // an object's slot for the value after its last key
    unsigned seen = 0;              // an object's keys so far, one bit each
  };

  // The slot of the value about to arrive.
  A2aSlot incoming() const {
    if (open_.empty()) return A2aSlot::kRoot;
    const Frame& top = open_.back();
    switch (top.slot) {
      case A2aSlot::kTop:
      case A2aSlot::kDtypes:
      case A2aSlot::kSource:
        return top.next;  // JSON puts a key before every value of an object
      default:
        return a2a_element_slot(top.slot);
    }
  }
  // The token list a kValue or kWeight slot adds to.
  TokenList& tokens(A2aSlot slot) {
    SourceKjt& source = raw.inputs.back();
    return slot == A2aSlot::kValue ? source.values : *source.weights;
  }

  bool integer(A2aSlot slot, std::int64_t value) {
    switch (slot) {
      case A2aSlot::kSplit:
        raw.splits->push_back(value);
        break;
      case A2aSlot::kStagger:
        raw.stagger = value;
        break;
      case A2aSlot::kRank:
        raw.inputs.back().rank = value;
        break;
      case A2aSlot::kLength:
        raw.inputs.back().lengths.back().push_back(value);
        break;
      default:
        return false;
    }
    return true;
  }
  template <class Integer>
  bool token(A2aSlot slot, Integer value) {
    char buffer[24];
    char* end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return push(tokens(slot), std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
  }
  bool push(TokenList& list, std::string_view text) {
    list.push_back(text);
    return true;
  }
  bool dtype(std::optional<std::string>& out, std::string& text) {
    if (text.empty()) return false;
    out = std::move(text);
    return true;
  }

  std::vector<Frame> open_;
  std::string scratch_;
};

}  // namespace

std::optional<RawInput> read_raw_json_fast(std::string_view text) {
  A2aInputSax sax;
  // A NUL ends nlohmann's input early: the positioned reader reports it (json_tree.h).
  if (text.find('\0') != std::string_view::npos) return std::nullopt;
  if (!nlohmann::json::sax_parse(text, &sax)) return std::nullopt;
  return std::move(sax.raw);
}

}  // namespace shardplan::kjt
