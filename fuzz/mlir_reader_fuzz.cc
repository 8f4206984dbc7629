// libFuzzer target: the MLIR reader of `propagate` (lib/propagation/mlir_reader.h), and
// for small modules that read, propagation and `--format mlir` writing back: every
// input ends in a program or an InputError; the writer's text edits must stay in range (ASan checks them).
#include <cstdint>
#include <string>

#include "common/error.h"
#include "propagation/driver.h"
#include "propagation/mlir_reader.h"
#include "propagation/mlir_writer.h"
#include "propagation/strategies.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardplan::propagation;
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    Program program = read_mlir_program("input.mlir", std::move(text), {});
    if (program.ops.size() > 64 || program.tensors.size() > 128) return 0;  // keep each run short
    PropagationDriver driver(program, 20'000);
    make_strategy(program.options.strategy)->propagate(driver);
    std::string written = render_mlir(driver);
    if (written.empty() && !program.mlir->text.empty()) __builtin_trap();  // the module is always written back
  } catch (const shardplan::InputError&) {
    // Bad input, reported with a position: the expected outcome for most inputs.
  } catch (const PropagationDidNotConverge&) {
  }
  return 0;
}
