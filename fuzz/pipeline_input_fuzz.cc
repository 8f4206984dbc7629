// libFuzzer target: the pipeline input reader.
#include "common/error.h"
#include "fuzz_input.h"
#include "pipeline/input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = shardplan::fuzz::split_input(data, size);
  try {
    shardplan::pipeline::parse_pipeline_input(input.file, input.text);
  } catch (const shardplan::InputError&) {
    // Bad input, reported with positions.
  }
  return 0;
}
