// libFuzzer target: the a2a input reader (fast JSON path, positioned path and the
// spec's checks), then the simulation of what it accepted, by both paths.
#include <optional>
#include <string>

#include "common/error.h"
#include "fuzz_input.h"
#include "kjt/all_to_all.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  // The fast path and the positioned one must accept the same inputs and read
  // them alike: one accepting what the other refuses is a finding too.
  std::optional<shardplan::kjt::A2aInput> fast, positioned;
  try {
    fast = shardplan::kjt::parse_a2a_input(input.file, input.text);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions.
  }
  try {
    positioned = shardplan::kjt::parse_a2a_input(input.file, input.text, shardplan::kjt::ReadPath::kPositionedOnly);
  } catch (const shardplan::InputError&) {
  }
  if (fast.has_value() != positioned.has_value()) __builtin_trap();
  if (!fast) return 0;
  std::string a, b;
  shardplan::kjt::append_output_json(*fast, shardplan::kjt::simulate(*fast), a);
  shardplan::kjt::append_output_json(*positioned, shardplan::kjt::simulate(*positioned), b);
  if (a != b) __builtin_trap();
  return 0;
}
