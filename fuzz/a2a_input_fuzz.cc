// libFuzzer target: the a2a input reader (fast JSON path, positioned path and the
// spec's checks), then the simulation of what it accepted (small inputs only).
#include "common/error.h"
#include "fuzz_input.h"
#include "kjt/all_to_all.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  try {
    shardplan::kjt::A2aInput fast = shardplan::kjt::parse_a2a_input(input.file, input.text);
    // The fast path and the positioned one must agree on every accepted input.
    shardplan::kjt::A2aInput positioned =
        shardplan::kjt::parse_a2a_input(input.file, input.text, shardplan::kjt::ReadPath::kPositionedOnly);
    std::string a, b;
    shardplan::kjt::append_output_json(fast, shardplan::kjt::simulate(fast), a);
    shardplan::kjt::append_output_json(positioned, shardplan::kjt::simulate(positioned), b);
    if (a != b) __builtin_trap();
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions.
  }
  return 0;
}
