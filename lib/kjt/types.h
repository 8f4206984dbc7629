// The KeyedJaggedTensor all-to-all (torchrec's KJTAllToAll, docs/formats/a2a.md):
// what every source rank holds, how it is split, and what the collectives move.
// Reading: kjt/input_reader.h; checks: kjt/input_checks.h; simulation: kjt/all_to_all.h;
// rendering: kjt/output_json.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/names.h"

namespace shardplan::kjt {

// The most ranks an a2a input may list (exact mode): every rank receives a segment
// from every rank, so the result grows as ranks x ranks (at 2 048 ranks of one key
// each about 0.3 s, 140 MB and 42 MB of JSON; at 20 000 it ran out of 2 GiB).
inline constexpr std::int64_t kMaxA2aWorldSize = 2048;

// Element types of the three tensors of a KJT (only byte counts depend on them).
enum class Dtype { kInt32, kInt64, kFloat16, kBfloat16, kFloat32, kFloat64 };

inline constexpr NameTable<Dtype, 6> kDtypeNames{{
    {Dtype::kInt32, "int32", "4 bytes"},
    {Dtype::kInt64, "int64", "8 bytes"},
    {Dtype::kFloat16, "float16", "2 bytes"},
    {Dtype::kBfloat16, "bfloat16", "2 bytes"},
    {Dtype::kFloat32, "float32", "4 bytes"},
    {Dtype::kFloat64, "float64", "8 bytes"},
}};

// Bytes of one element of `dtype`.
std::int64_t element_bytes(Dtype dtype);
// True for int32/int64 (torchrec requires integer lengths and values).
bool is_integer(Dtype dtype);

// Which message sequence the all-to-all uses (docs/formats/a2a.md).
enum class Protocol { kLengthsThenValues, kSplitsThenTensors };

inline constexpr NameTable<Protocol, 2> kProtocolNames{{
    {Protocol::kLengthsThenValues, "lengths_then_values",
     "torchrec v0.1-v0.3.0: lengths first (receivers size their buffers), then values"},
    {Protocol::kSplitsThenTensors, "splits_then_tensors",
     "torchrec v0.3.2 to HEAD: one splits exchange, then lengths, values, weights together"},
}};

// JSON scalars kept as their compact JSON text, back to back with ',' between
// them, so a run of consecutive tokens is one contiguous slice that can be copied
// into the output as it is. Values are opaque (docs/formats/a2a.md): they are moved, never parsed.
// Tokens that already lie that way in the input text (a compact JSON list) are not
// copied at all: the list records their offsets in that text, which its owner
// (A2aInput::source_text) keeps alive.
class TokenList {
 public:
  std::size_t size() const { return ends_.size(); }
  // Appends one token (already valid JSON text: "\"A.V0\"", "17", "0.5"), copying it.
  void push_back(std::string_view json_token);
  // Appends a token found at `in_text` in a text that outlives the list: while the
  // tokens follow each other with exactly one ',' between them, nothing is copied.
  void push_back_in_place(std::string_view in_text);
  // The JSON text of tokens [first, last), separated by ','; "" when first == last.
  std::string_view run(std::size_t first, std::size_t last) const;
  std::string_view at(std::size_t index) const { return run(index, index + 1); }

 private:
  const char* data() const { return borrowed_ ? borrowed_ : text_.data(); }
  // From borrowing to owning: copies the tokens so far (they are laid out alike).
  void own();

  std::string text_;
  const char* borrowed_ = nullptr;  // start of the first token in the input text, while borrowing
  // End offset of each token: 32 bits halve the largest structure of a big input
  // (one entry per value); a list past 4 GiB of text is refused.
  std::vector<std::uint32_t> ends_;
};

// One source rank's KeyedJaggedTensor (docs/formats/a2a.md): K keys, one batch size B.
struct SourceKjt {
  std::int64_t rank = 0;
  std::vector<std::string> keys;
  // lengths[k][b]: torchrec keeps them flat key-major, we keep the rows.
  std::vector<std::vector<std::int64_t>> lengths;
  TokenList values;                  // key-major, then sample
  std::optional<TokenList> weights;  // parallel to values; absent = unweighted

  // B: the common row length (0 when there are no keys).
  std::size_t batch_size() const { return lengths.empty() ? 0 : lengths.front().size(); }
};

// The dtypes of the three tensors; defaults are the spec's.
struct Dtypes {
  Dtype lengths = Dtype::kInt32;
  Dtype values = Dtype::kInt64;
  Dtype weights = Dtype::kFloat32;
};

// A whole exact-mode input, checked (kjt/input_checks.h): inputs sorted by rank.
struct A2aInput {
  std::vector<std::int64_t> splits;  // keys per destination rank (from feature_layout if given)
  std::int64_t stagger = 1;
  Protocol protocol = Protocol::kLengthsThenValues;
  Dtypes dtypes;
  std::vector<SourceKjt> inputs;
  // The input text that tokens read in place point into (fast_json_reader.h), if any.
  std::shared_ptr<const std::string> source_text;

  std::size_t world_size() const { return inputs.size(); }
  bool weighted() const { return !inputs.empty() && inputs.front().weights.has_value(); }
};

// One all-to-all collective: elements[s][d] = elements source s sends to destination d.
struct Collective {
  int phase = 0;
  std::string name;  // batch_sizes, splits, lengths, values, weights
  Dtype dtype = Dtype::kInt32;
  std::vector<std::vector<std::int64_t>> elements;

  // elements[source][destination] times the element size.
  std::int64_t bytes(std::size_t source, std::size_t destination) const;
  // The sum of the byte matrix, local copies included.
  std::int64_t total_bytes() const;
  std::int64_t cross_rank_bytes() const;  // total minus the diagonal (local copies)
};

// What destination rank d receives, described without moving any value.
struct Destination {
  std::size_t rank = 0;
  std::size_t first_key = 0;  // owns keys [first_key, first_key + num_keys) of the input KJT
  std::size_t num_keys = 0;
  std::int64_t stride = 0;                         // sum of all source batch sizes
  std::optional<std::vector<std::int64_t>> recat;  // torchrec's row permutation; none when it owns no key
};

// Bytes one rank sends and receives over all collectives (diagonal = local copy).
struct RankBytes {
  std::int64_t sent = 0;
  std::int64_t received = 0;
  std::int64_t cross_rank_sent = 0;
  std::int64_t cross_rank_received = 0;
};

// The simulated all-to-all: destinations (values are moved by the writer, which
// walks source_order) and the collectives with their element matrices.
struct A2aResult {
  std::size_t world_size = 0;
  std::int64_t stagger = 1;
  Protocol protocol = Protocol::kLengthsThenValues;
  std::vector<std::size_t> source_order;
  std::vector<std::int64_t> stride_per_rank;  // B_s in source-rank order
  std::vector<Destination> destinations;
  std::vector<Collective> collectives;  // in phase order, then the spec's table order
  std::vector<RankBytes> rank_bytes;    // per rank, over all collectives
};

}  // namespace shardplan::kjt
