#include "propagation/propagate.h"

#include "propagation/mlir_writer.h"
#include "propagation/render.h"
#include "propagation/strategies.h"

namespace shardplan::propagation {

std::string propagate_and_render(const Program& program, PhaseTimes* times) {
  PropagationDriver driver(program);
  const std::string& dump_directory = program.options.module_dump_directory;
  if (!dump_directory.empty()) {
    std::vector<TensorSharding> input;
    for (const Tensor& t : program.tensors) input.push_back(t.sharding);
    const auto& outputs = driver.state().output_shardings;
    write_dump(dump_directory, 0, "before_propagation", render_program_json(driver, input, outputs, true));
    driver.on_iteration_end = [&](int iteration) {
      const PropagationState& state = driver.state();
      write_dump(dump_directory, iteration + 1, state.iterations[iteration].label,
                 render_program_json(driver, state.shardings, state.output_shardings, false));
    };
  }
  make_strategy(program.options.strategy)->propagate(driver);
  if (times) times->mark("propagate");
  std::string rendered;
  switch (program.options.format) {
    case OutputFormat::kText:
      rendered = render_result_text(driver);
      break;
    case OutputFormat::kMlir:
      rendered = render_mlir(driver);
      break;
    case OutputFormat::kJson:
      rendered = render_result_json(driver);
      break;
  }
  if (times) times->mark("render");
  return rendered;
}

}  // namespace shardplan::propagation
