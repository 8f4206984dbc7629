// libFuzzer target: the planner reader (validation of one planner file).
#include "common/error.h"
#include "config/loader.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  try {
    shardplan::validate_text(input.file, input.text, shardplan::InputKind::kPlanner);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions: the expected outcome for most inputs.
  }
  return 0;
}
