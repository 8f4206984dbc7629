// Renderers of a propagation result (docs/formats/propagate.md): the JSON result,
// the `--format text` listing, and the program dumps. Computing is done by then.
#pragma once

#include <string>

#include "propagation/driver.h"
#include "propagation/program.h"

namespace shardplan::propagation {

// The result JSON: strategy, shardings, output_shardings, iterations, sharding_rules.
std::string render_result_json(const PropagationDriver& driver);

// Each tensor with its shape, sharding and what set it (op and iteration), then the
// output shardings, the iterations and (when kept) the sharding rules.
std::string render_result_text(const PropagationDriver& driver);

// The program in input format with `shardings` as every tensor's sharding (and the
// output shardings given); `with_priorities` keeps `p<N>` (the before-propagation dump).
std::string render_program_json(const PropagationDriver& driver, const std::vector<TensorSharding>& shardings,
                                const std::vector<std::optional<TensorSharding>>& output_shardings,
                                bool with_priorities);

// Writes DIR/<tt>.<label>.json; on failure a warning on stderr, and propagation goes on (as Shardy).
void write_dump(const std::string& directory, int index, const std::string& label, const std::string& content);

}  // namespace shardplan::propagation
