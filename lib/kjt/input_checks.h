// The spec's validation of an a2a input (docs/formats/a2a.md): checks 1-8 in the
// prescribed order with the normative messages. Readers (input_reader.h) fill a
// RawInput and turn each Problem's location into a file position.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kjt/types.h"

namespace shardplan::kjt {

// An input as read, before the spec's checks: every field has its JSON type.
struct RawInput {
  std::optional<std::vector<std::int64_t>> splits;
  std::optional<std::vector<std::vector<std::string>>> feature_layout;
  std::int64_t stagger = 1;
  Protocol protocol = Protocol::kLengthsThenValues;
  // dtype names as given (checked by rule 6); absent = the default.
  std::optional<std::string> lengths_dtype, values_dtype, weights_dtype;
  std::vector<SourceKjt> inputs;                   // in file order; empty when missing
  std::shared_ptr<const std::string> source_text;  // what tokens read in place point into, if any
};

// Which part of the input a problem is about (indices are file order).
enum class Where {
  kRoot,
  kInputs,
  kSplits,      // or feature_layout, whichever was given
  kSplitEntry,  // splits[index]
  kStagger,
  kLengthsDtype,
  kValuesDtype,
  kWeightsDtype,
  kInputKeys,     // inputs[input].keys
  kInputLengths,  // inputs[input].lengths
  kLengthsRow,    // inputs[input].lengths[row]
  kLengthsEntry,  // inputs[input].lengths[row][column]
  kInputValues,
  kInputWeights,  // inputs[input].weights (the input itself when absent)
};

// One failed check: where (for the reader to turn into file:line:col) and the message.
struct Problem {
  Where where = Where::kRoot;
  std::size_t index = 0;  // splits entry, or input (file order)
  std::size_t row = 0;
  std::size_t column = 0;
  std::string message;  // the spec's normative text
};

// Runs checks 1-8 on `raw`, calling `report` for each problem in the spec's order.
// Returns the checked input (sorted by rank, splits derived from feature_layout)
// when there was no problem.
std::optional<A2aInput> check_input(RawInput raw, const std::function<void(Problem)>& report);

}  // namespace shardplan::kjt
