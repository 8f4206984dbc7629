// libFuzzer target: the propagate program reader (the SAX fast path for a valid
// JSON program, the positioned reader for everything else).
#include "common/error.h"
#include "fuzz_input.h"
#include "propagation/program_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  try {
    shardplan::propagation::parse_program(input.file, input.text);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions.
  }
  return 0;
}
