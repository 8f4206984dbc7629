// libFuzzer target: the plan file reader of `show` and `diff`.
#include "common/error.h"
#include "config/plan_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  try {
    shardplan::parse_plan_file(input.file, input.text);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions.
  }
  return 0;
}
