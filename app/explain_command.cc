// `shardplan explain`: why a table got its sharding option, and what became of every
// other option of it (or, for a model without a feasible plan, of its failing tables).
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "common/names.h"
#include "common/thread_pool.h"
#include "input_options.h"
#include "output.h"
#include "planner/advice/table_explanation.h"
#include "planner/bounds/bottleneck.h"
#include "planner/memory_basis.h"
#include "planner/rank_load.h"
#include "planner/run.h"
#include "planner_flags.h"
#include "planner_output/bound_report.h"
#include "planner_output/explained_memory.h"
#include "planner_output/explanation_output.h"
#include "planner_output/failure_text.h"

namespace shardplan::app {

namespace {

struct ExplainOptions {
  InputOptions inputs;
  PlannerOverrides overrides;
  std::string table;
  std::string format = "text";
  std::string output;
};

// The fqn `--table` names: an fqn, or a table name that only one module holds.
std::string resolve_table(const std::string& asked, const std::vector<std::string>& fqns) {
  std::string by_name;
  int matches = 0;
  for (const auto& fqn : fqns) {
    if (fqn == asked) return fqn;
    if (fqn.size() > asked.size() && fqn.compare(fqn.size() - asked.size(), asked.size(), asked) == 0 &&
        fqn[fqn.size() - asked.size() - 1] == '.') {
      by_name = fqn;
      ++matches;
    }
  }
  if (matches == 1) return by_name;
  // A typo in a bare table name is compared with the bare names.
  std::string suggestion = closest_name(asked, fqns);
  if (suggestion.empty()) {
    std::vector<std::string> names;
    for (const auto& fqn : fqns) names.push_back(fqn.substr(fqn.rfind('.') + 1));
    const std::string name = closest_name(asked, names);
    for (std::size_t i = 0; i < names.size() && !name.empty(); ++i)
      if (names[i] == name) suggestion = fqns[i];
  }
  if (!suggestion.empty())
    throw InputError(SourcePos{}, "--table", "unknown table '" + asked + "', did you mean '" + suggestion + "'?");
  throw InputError(SourcePos{}, "--table", unknown_name_message("table", asked, fqns, "tables"));
}

int run(const ExplainOptions& options) {
  const std::optional<ExplainFormat> format = parse_name(kExplainFormatNames, options.format);
  if (!format)
    throw InputError(SourcePos{}, "--format",
                     "expected " + alternatives_text(kExplainFormatNames) + ", found '" + options.format + "'");
  PlanningInput input = load_input_options(options.inputs);
  apply_planner_overrides(options.overrides, input);

  ThreadPool pool;  // one thread per core; the plan does not depend on it
  OptionVerdictRecorder recorder;
  PlanRun run = run_plan(input, Parallelism{&pool}, &recorder);
  if (run.enumeration_error) {
    std::cerr << "error: " << explain_failure(run);
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  std::vector<std::string> fqns;
  if (!options.table.empty()) {
    fqns.push_back(resolve_table(options.table, table_fqns(run.search_space.enumerated())));
  } else if (run.ok()) {
    throw InputError(SourcePos{}, "--table",
                     "expected the table to explain (a plan exists; without --table only the failing tables of a "
                     "model without a feasible plan are explained)");
  } else {
    for (const auto& t : run.result.failure->tables) fqns.push_back(t.fqn);
  }
  std::vector<TableExplanation> explained;
  for (const auto& fqn : fqns)
    explained.push_back(explain_table({run.result, run.search_space, run.topology, run.ok()}, input, recorder, fqn));
  if (!explained.empty()) {
    // With a plan: where its bottleneck is and how far it is from the lower bound.
    const bool has_plan = run.ok() && !run.result.plan.empty();
    const Bottleneck bottleneck = has_plan ? find_bottleneck(run.result.plan, run.topology.world_size) : Bottleneck{};
    // Memory use on the basis of every output (planner/memory_basis.h).
    const std::vector<RankMemory> memory =
        has_plan && run.result.reservation
            ? rank_memory(run.topology, *run.result.reservation, rank_loads(run.result.plan, run.topology.world_size))
            : std::vector<RankMemory>{};
    if (*format == ExplainFormat::kJson) {
      nlohmann::json json = explanations_to_json(explained);
      if (has_plan) json["bottleneck"] = nlohmann::json::parse(bottleneck_json(bottleneck).dump());
      if (!memory.empty()) json["memory"] = explained_memory_json(explained, memory);
      if (has_plan && run.bound)
        json["lower_bound"] = nlohmann::json::parse(bound_json(*run.bound, run.result.perf_rating).dump());
      write_output(options.output, json.dump(2) + "\n");
    } else {
      std::string text = explanations_to_text(explained);
      if (has_plan) text += "\n" + bottleneck_text(bottleneck);
      if (has_plan && run.bound) text += bound_line(*run.bound, run.result.perf_rating) + "\n";
      if (!memory.empty()) text += "\n" + explained_memory_text(explained, memory);
      write_output(options.output, text);
    }
  }
  if (!run.ok()) {
    std::cerr << "error: " << explain_failure(run);
    if (fqns.empty()) std::cerr << "note: every table fits a rank on its own; name one with --table to explain it\n";
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_explain(CLI::App& sub) {
  auto options = std::make_shared<ExplainOptions>();
  add_input_options(sub, options->inputs);
  add_planner_overrides(sub, options->overrides);
  sub.add_option("--table", options->table, "the table to explain: its fqn (module path + name) or a unique name")
      ->type_name("FQN");
  sub.add_option("--format", options->format, "text (default) or json")->type_name("FORMAT");
  sub.add_option("-o,--output", options->output, "write here instead of stdout")->type_name("FILE");
  sub.footer(
      "Plans the model as `plan` does, then lists every sharding option of the table (sharding\n"
      "type x compute kernel) with its shards, storage and perf estimates and what became of it:\n"
      "CHOSEN (with the ranks and the margin over the best proposal with another option), rated\n"
      "worse (its best rating), did not fit on any rank, excluded by a constraint (which key), or\n"
      "never proposed. With a plan, also the bottleneck rank, the lower bound, and how full the\n"
      "ranks holding the table are (HBM/DDR GiB used of usable, on the basis of `plan`'s summary,\n"
      "`show` and `diff`: used = shards + dense/KJT reservation, usable = device less the\n"
      "reservation percentage). Without --table, for a model with no feasible plan, explains\n"
      "the tables that fit no rank. JSON output: schemas/explain.schema.json.\n\n"
      "Examples:\n"
      "  shardplan explain --config configs/quickstart.json --table sparse.ebc.t_query\n"
      "  shardplan explain --config configs/examples/infeasible.yaml --format json\n\n"
      "Exit codes: 0 explained, 1 no feasible plan (the explanation is still printed),\n"
      "2 bad input or usage (an unknown table: did you mean ...).");
  return [options] {
    return run_removing_stale_output(options->output, input_paths(options->inputs), [&] { return run(*options); });
  };
}

}  // namespace shardplan::app
