// `shardplan a2a --input FILE [--output FILE]`: simulates torchrec's KJTAllToAll
// (docs/formats/a2a.md) and prints what every destination rank receives and
// what every collective moves, as JSON.
#include <memory>
#include <string>

#include "commands.h"
#include "common/error.h"
#include "config/loader.h"
#include "kjt/all_to_all.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"
#include "kjt/plan_reader.h"
#include "kjt/plan_traffic_json.h"
#include "output.h"

namespace shardplan::app {

namespace {

struct A2aOptions {
  std::string input;
  std::string output;
  bool check_only = false;
  std::string plan;
  std::string model;
  std::string config;
  std::string protocol = "lengths_then_values";
};

kjt::Protocol parse_protocol(const std::string& text) {
  if (auto protocol = parse_name(kjt::kProtocolNames, text)) return *protocol;
  std::string suggestion = closest_name(text, names_of(kjt::kProtocolNames));
  throw InputError(SourcePos{}, "--protocol",
                   "unknown protocol '" + text + "'" +
                       (suggestion.empty() ? " (expected lengths_then_values or splits_then_tensors)"
                                           : ", did you mean '" + suggestion + "'?"));
}

// --plan/--model: expected traffic of every input dist, no values.
int run_plan_mode(const A2aOptions& options) {
  if (!options.input.empty() || options.plan.empty() || options.model.empty() == options.config.empty())
    throw InputError(SourcePos{}, "",
                     "give either --input FILE, or --plan FILE with --model FILE (or with --config CASE)");
  const kjt::Protocol protocol = parse_protocol(options.protocol);
  // A one-file config (`plan --config`) holds the model and the topology the plan was made for.
  kjt::PlanTrafficInput input;
  if (options.config.empty()) {
    input = kjt::read_plan_traffic_input(options.plan, options.model, protocol);
  } else {
    const PlanningInput config = load_case(options.config);
    input = kjt::read_plan_traffic_input(options.plan, config.model, options.config, protocol, &config.topology);
  }
  if (options.check_only) return static_cast<int>(ExitCode::kOk);
  write_output(options.output, kjt::plan_traffic_json(input, kjt::plan_traffic(input)));
  return static_cast<int>(ExitCode::kOk);
}

int run(const A2aOptions& options) {
  if (!options.plan.empty() || !options.model.empty() || !options.config.empty() || options.input.empty())
    return run_plan_mode(options);
  kjt::A2aInput input = kjt::read_a2a_input(options.input);
  if (options.check_only) return static_cast<int>(ExitCode::kOk);
  kjt::A2aResult result = kjt::simulate(input);
  std::string text;
  kjt::append_output_json(input, result, text);
  input = kjt::A2aInput{};  // every value now lives in `text`: give the input's memory back before writing
  write_output(options.output, text);
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_a2a(CLI::App& sub) {
  auto options = std::make_shared<A2aOptions>();
  sub.add_option("--input,-i", options->input, "exact mode: the KJT on every source rank and the splits (JSON or YAML)")
      ->type_name("FILE");
  sub.add_option("--plan", options->plan, "plan-derived mode: a plan written by `shardplan plan`")->type_name("FILE");
  sub.add_option("--model", options->model, "plan-derived mode: the model the plan was made for")->type_name("FILE");
  sub.add_option("--config", options->config,
                 "plan-derived mode: the one-file config (model, topology, planner) the plan was made for, "
                 "instead of --model")
      ->type_name("CASE");
  sub.add_option("--protocol", options->protocol,
                 "plan-derived mode: lengths_then_values (default) or splits_then_tensors")
      ->type_name("NAME");
  sub.add_option("--output,-o", options->output, "write the result here (atomically) instead of stdout")
      ->type_name("FILE");
  sub.add_flag("--check-only", options->check_only,
               "read and check the input, then stop: no simulation, no output (exit code as usual)");
  sub.footer(
      "Examples:\n"
      "  shardplan a2a --input kjt.json -o received.json\n"
      "  shardplan a2a --plan plan.json --model configs/dlrm-criteo-terabyte.yaml\n"
      "  shardplan a2a --plan plan.json --config case.json   (the config `plan --config` read)\n"
      "  where kjt.json holds\n"
      "  {\"splits\": [2, 1], \"inputs\": [\n"
      "    {\"rank\": 0, \"keys\": [\"A\",\"B\",\"C\"], \"lengths\": [[1,0,2],[0,1,1],[1,1,0]],\n"
      "     \"values\": [\"A.V0\",\"A.V1\",\"A.V2\",\"B.V0\",\"B.V1\",\"C.V0\",\"C.V1\"]},\n"
      "    {\"rank\": 1, \"keys\": [\"A\",\"B\",\"C\"], \"lengths\": [[1,1,0],[0,1,2],[1,1,0]],\n"
      "     \"values\": [\"A.V3\",\"A.V4\",\"B.V2\",\"B.V3\",\"B.V4\",\"C.V2\",\"C.V3\"]}]}\n"
      "Optional input keys: feature_layout (instead of splits), stagger, protocol\n"
      "(lengths_then_values | splits_then_tensors), dtypes {lengths, values, weights}, weights per rank.\n"
      "Plan-derived mode: each rank's feature layout from the plan, and the expected elements\n"
      "and bytes of every input-dist collective (uniform ids over rows), per rank split into\n"
      "intra-host and cross-host; see docs/commands/a2a.md.\n"
      "Exit code 0 on success, 2 on bad input (every problem listed as file:line:col: key.path: message).");
  return [options] {
    return run_removing_stale_output(options->output, {options->input, options->plan, options->model, options->config},
                                     [&] { return run(*options); });
  };
}

}  // namespace shardplan::app
