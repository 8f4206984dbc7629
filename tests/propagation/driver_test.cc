// The worklist driver's guard (docs/formats/propagate.md): a run that needs more op visits than
// allowed stops with PropagationDidNotConverge (exit 1 in the command).
#include <catch2/catch.hpp>

#include "config/config_test_util.h"
#include "propagation/driver.h"
#include "propagation/program_reader.h"
#include "propagation/strategies.h"

namespace {

using namespace shardplan::propagation;

// x -> negate -> y -> negate -> z with z pinned: the first op finds nothing to do,
// the second moves z's axis to y and re-queues the first, which moves it to x: three
// visits (docs/formats/propagate.md: the defining op of a changed tensor is notified).
const char* kChain = R"({"mesh": [["a", 2]],
 "tensors": [{"name": "x", "shape": [8]}, {"name": "y"}, {"name": "z", "shape": [8], "sharding": "[{a}]"}],
 "ops": [{"kind": "negate", "operands": ["x"], "results": ["y"]},
         {"kind": "negate", "operands": ["y"], "results": ["z"]}],
 "outputs": ["z"], "options": {"strategy": "aggressive"}})";

}  // namespace

TEST_CASE("a worklist run stops at its visit limit", "[propagate]") {
  Program program = read_program(shardplan::testing::write_scratch("chain.json", kChain));
  {
    PropagationDriver enough(program, 3);
    make_strategy(program.options.strategy)->propagate(enough);
    CHECK(sharding_text(enough.state().shardings[0], program.mesh) == "[{a, ?}]");
  }
  PropagationDriver too_few(program, 2);
  CHECK_THROWS_AS(make_strategy(program.options.strategy)->propagate(too_few), PropagationDidNotConverge);
}
