#include "kjt/input_checks.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/checked_sum.h"
#include "kjt/output_json.h"

namespace shardplan::kjt {

namespace {

// `["A","B"]`: the spec's {list}, a JSON array without spaces.
std::string json_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    append_json_string(names[i], out);
  }
  return out + "]";
}

std::string dtype_list(bool integer) {
  std::vector<std::string> names;
  for (const auto& entry : kDtypeNames)
    if (is_integer(entry.value) == integer) names.emplace_back(entry.name);
  return json_list(names);
}

// Rule 6 for one dtype name; returns the dtype when it is known and allowed.
// Which dtypes a tensor may have: lengths integers, weights floats, values any (spec §9).
enum class DtypeKind { kInteger, kFloat, kAny };

std::optional<Dtype> check_dtype(const std::optional<std::string>& name, Dtype fallback, DtypeKind allowed, Where where,
                                 const std::function<void(Problem)>& report) {
  if (!name) return fallback;
  std::optional<Dtype> dtype = parse_name(kDtypeNames, *name);
  if (!dtype) {
    report(Problem{where, 0, 0, 0, "unknown dtype '" + *name + "'"});
    return std::nullopt;
  }
  // torchrec: lengths are index tensors, weights float tensors; values are moved
  // whatever their dtype (spec §9).
  if (allowed != DtypeKind::kAny && is_integer(*dtype) != (allowed == DtypeKind::kInteger)) {
    const bool integer = allowed == DtypeKind::kInteger;
    report(Problem{where, 0, 0, 0, "'" + *name + "' is not allowed here (expected " + dtype_list(integer) + ")"});
    return std::nullopt;
  }
  return dtype;
}

// Rule 7 b-e for one rank; true when its lengths and values are consistent.
bool check_lengths(const SourceKjt& kjt, std::size_t index, const std::function<void(Problem)>& report) {
  const std::string rank = "rank " + std::to_string(kjt.rank) + ": ";
  if (kjt.lengths.size() != kjt.keys.size()) {
    report(Problem{Where::kInputLengths, index, 0, 0,
                   rank + "lengths has " + std::to_string(kjt.lengths.size()) + " rows but there are " +
                       std::to_string(kjt.keys.size()) + " keys"});
    return false;
  }
  for (std::size_t k = 1; k < kjt.lengths.size(); ++k)
    if (kjt.lengths[k].size() != kjt.lengths[0].size()) {
      report(Problem{Where::kLengthsRow, index, k, 0,
                     rank + "key '" + kjt.keys[k] + "' has " + std::to_string(kjt.lengths[k].size()) +
                         " samples but key '" + kjt.keys[0] + "' has " + std::to_string(kjt.lengths[0].size()) +
                         "; all keys of a KeyedJaggedTensor must have the same batch size"});
      return false;
    }
  std::int64_t sum = 0;
  for (std::size_t k = 0; k < kjt.lengths.size(); ++k)
    for (std::size_t b = 0; b < kjt.lengths[k].size(); ++b) {
      std::int64_t l = kjt.lengths[k][b];
      if (l < 0) {
        report(Problem{Where::kLengthsEntry, index, k, b,
                       rank + "key '" + kjt.keys[k] + "' sample " + std::to_string(b) + " has negative length " +
                           std::to_string(l)});
        return false;
      }
      // Checked: lengths summing past 2^63 must not wrap round to the value count.
      auto next = add_or_overflow(sum, l);
      if (!next) {
        report(Problem{Where::kLengthsEntry, index, k, b,
                       rank + "too large: the lengths up to key '" + kjt.keys[k] + "' sample " + std::to_string(b) +
                           " sum past 2^63 - 1 values"});
        return false;
      }
      sum = *next;
    }
  if (static_cast<std::size_t>(sum) != kjt.values.size()) {
    report(Problem{Where::kInputValues, index, 0, 0,
                   rank + "lengths sum to " + std::to_string(sum) + " but there are " +
                       std::to_string(kjt.values.size()) + " values"});
    return false;
  }
  return true;
}

// Rule 1: the input indices in rank order, or nullopt when ranks are not 0..W-1 once each.
std::optional<std::vector<std::size_t>> rank_order(const std::vector<SourceKjt>& inputs) {
  if (inputs.empty()) return std::nullopt;
  std::vector<std::size_t> by_rank(inputs.size(), inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::int64_t r = inputs[i].rank;
    if (r < 0 || static_cast<std::size_t>(r) >= inputs.size() || by_rank[r] != inputs.size()) return std::nullopt;
    by_rank[r] = i;
  }
  return by_rank;
}

}  // namespace

std::optional<A2aInput> check_input(RawInput raw, const std::function<void(Problem)>& report) {
  bool failed = false;
  auto fail = [&](Problem p) {
    failed = true;
    report(std::move(p));
  };
  const std::size_t world = raw.inputs.size();
  // Bounded before anything else: the checks below and the simulation are sized by W.
  if (static_cast<std::int64_t>(world) > kMaxA2aWorldSize) {
    report(Problem{Where::kInputs, 0, 0, 0,
                   "too large: " + std::to_string(world) + " ranks; shardplan's limit is " +
                       std::to_string(kMaxA2aWorldSize) + " (every rank receives from every rank)"});
    return std::nullopt;
  }

  // 1. ranks 0..W-1 exactly once.
  std::optional<std::vector<std::size_t>> by_rank = rank_order(raw.inputs);
  if (!by_rank)
    fail(
        Problem{Where::kInputs, 0, 0, 0,
                "inputs must list ranks 0.." + std::to_string(static_cast<std::int64_t>(world) - 1) + " exactly once"});

  // 2. exactly one of splits / feature_layout.
  bool splits_ok = raw.splits.has_value() != raw.feature_layout.has_value();
  if (!splits_ok) fail(Problem{Where::kRoot, 0, 0, 0, "give exactly one of splits or feature_layout"});
  std::vector<std::int64_t> splits;
  std::vector<std::string> layout_keys;
  if (splits_ok && raw.splits) splits = *raw.splits;
  if (splits_ok && raw.feature_layout)
    for (const auto& features : *raw.feature_layout) {
      splits.push_back(static_cast<std::int64_t>(features.size()));
      layout_keys.insert(layout_keys.end(), features.begin(), features.end());
    }

  // 3. one split per rank (torchrec checks len(splits) == pg.size()); needs W.
  if (splits_ok && world > 0 && splits.size() != world) {
    fail(Problem{
        Where::kSplits, 0, 0, 0,
        "splits has " + std::to_string(splits.size()) + " entries but there are " + std::to_string(world) + " ranks"});
    splits_ok = false;
  }
  // 4. no negative split (skipped when an earlier splits check failed).
  if (splits_ok)
    for (std::size_t d = 0; d < splits.size(); ++d)
      if (splits[d] < 0) {
        fail(Problem{Where::kSplitEntry, d, 0, 0,
                     "splits[" + std::to_string(d) + "] is negative (" + std::to_string(splits[d]) + ")"});
        splits_ok = false;
      }

  // 5. stagger divides W (torchrec would silently drop sources; we refuse).
  if (world > 0 && (raw.stagger < 1 || static_cast<std::int64_t>(world) % raw.stagger != 0))
    fail(Problem{Where::kStagger, 0, 0, 0,
                 "stagger must be a positive divisor of the world size " + std::to_string(world) + " (got " +
                     std::to_string(raw.stagger) + ")"});

  // 6. dtypes.
  Dtypes defaults;
  auto lengths_dtype =
      check_dtype(raw.lengths_dtype, defaults.lengths, DtypeKind::kInteger, Where::kLengthsDtype, fail);
  auto values_dtype = check_dtype(raw.values_dtype, defaults.values, DtypeKind::kAny, Where::kValuesDtype, fail);
  auto weights_dtype = check_dtype(raw.weights_dtype, defaults.weights, DtypeKind::kFloat, Where::kWeightsDtype, fail);
  // A number with a fraction or exponent can only be a value of a float tensor.
  if (values_dtype && is_integer(*values_dtype))
    for (std::size_t i = 0; i < raw.inputs.size(); ++i)
      for (std::size_t k = 0; k < raw.inputs[i].values.size(); ++k) {
        std::string_view token = raw.inputs[i].values.at(k);
        if (token.empty() || token.front() == '"') continue;
        std::int64_t whole = 0;
        auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), whole);
        if (ec == std::errc() && end == token.data() + token.size()) continue;
        fail(Problem{Where::kInputValues, i, 0, 0,
                     "rank " + std::to_string(raw.inputs[i].rank) + ": value " + std::to_string(k) + " (" +
                         std::string(token) + ") is not a 64-bit integer but values are " +
                         std::string(name_of(kDtypeNames, *values_dtype)) + " (give dtypes.values a float dtype)"});
        break;
      }

  // 7. per rank, in rank order. Needs rule 1 (rank 0 and the order exist).
  bool same_keys = true;
  if (by_rank) {
    const SourceKjt& rank0 = raw.inputs[(*by_rank)[0]];
    for (std::size_t r = 0; r < world; ++r) {
      std::size_t index = (*by_rank)[r];
      const SourceKjt& kjt = raw.inputs[index];
      const std::string rank = "rank " + std::to_string(r) + ": ";
      // a. the same keys everywhere (or the feature layout's order).
      if (raw.feature_layout && !raw.splits) {
        if (kjt.keys != layout_keys) {
          same_keys = false;
          fail(Problem{
              Where::kInputKeys, index, 0, 0,
              rank + "keys " + json_list(kjt.keys) + " do not match feature_layout order " + json_list(layout_keys)});
        }
      } else if (r > 0 && kjt.keys != rank0.keys) {
        same_keys = false;
        fail(Problem{Where::kInputKeys, index, 0, 0,
                     rank + "keys " + json_list(kjt.keys) + " differ from rank 0 keys " + json_list(rank0.keys)});
      }
      // b-e.
      if (!check_lengths(kjt, index, fail)) failed = true;
      // f. weighted everywhere or nowhere: the ranks that disagree with rank 0 are
      // named (torchrec would issue a weights collective on some ranks only and hang).
      if (kjt.weights.has_value() != rank0.weights.has_value())
        fail(Problem{Where::kInputWeights, index, 0, 0, rank + "weights must be given on every rank or on none"});
      // g. one weight per value.
      if (kjt.weights && kjt.weights->size() != kjt.values.size())
        fail(Problem{Where::kInputWeights, index, 0, 0,
                     rank + "weights has " + std::to_string(kjt.weights->size()) + " entries but values has " +
                         std::to_string(kjt.values.size())});
    }
    // 8. the splits cover the keys (torchrec asserts len(keys) == sum(splits)).
    if (same_keys && splits_ok) {
      std::int64_t sum = 0;
      for (std::int64_t s : splits) sum += s;
      if (sum != static_cast<std::int64_t>(rank0.keys.size()))
        fail(Problem{Where::kSplits, 0, 0, 0,
                     "sum of splits (" + std::to_string(sum) + ") does not equal the number of keys (" +
                         std::to_string(rank0.keys.size()) + ")"});
    }
  }
  if (failed) return std::nullopt;

  A2aInput input;
  input.splits = std::move(splits);
  input.stagger = raw.stagger;
  input.protocol = raw.protocol;
  input.dtypes = Dtypes{*lengths_dtype, *values_dtype, *weights_dtype};
  input.source_text = std::move(raw.source_text);
  input.inputs.reserve(world);
  for (std::size_t index : *by_rank) input.inputs.push_back(std::move(raw.inputs[index]));
  return input;
}

}  // namespace shardplan::kjt
