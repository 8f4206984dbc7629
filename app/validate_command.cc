// `shardplan validate FILE... [--kind K]`: every problem of every file, exit 0 only if all are valid.
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "config/loader.h"
#include "config/plan_file.h"
#include "document/input_text.h"
#include "output.h"
#include "stdin_input.h"
#include "validate/plan_model_check.h"

namespace shardplan::app {

namespace {
struct ValidateOptions {
  std::vector<std::string> files;
  std::string kind;
  std::string plan;  // --plan: check this plan file against the model the files hold
};

std::optional<InputKind> parse_kind(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (auto kind = parse_name(kInputKindNames, text)) return kind;
  throw InputError(SourcePos{}, "--kind", unknown_name_message("kind", text, names_of(kInputKindNames)));
}

// --plan PLAN FILE...: FILE is a case, a model, or a model and a topology.
int check_plan_against_model(const ValidateOptions& options) {
  const PlanFile plan = read_plan_file(options.plan);
  ModelConfig model;
  std::optional<std::int64_t> world_size;
  const std::string& first = options.files.front();
  if (options.files.size() == 1 && validate_file(first, std::nullopt) == InputKind::kCase) {
    PlanningInput input = load_case(first);
    model = std::move(input.model);
    world_size = input.topology.world_size;
  } else if (options.files.size() == 1) {
    model = load_model(first);
  } else if (options.files.size() == 2) {
    PlanningInput input = load_inputs(first, options.files[1], std::nullopt);
    model = std::move(input.model);
    world_size = input.topology.world_size;
  } else {
    throw InputError(SourcePos{}, "--plan",
                     "expected a case, a model, or a model and a topology after the plan, found " +
                         std::to_string(options.files.size()) + " files");
  }
  std::vector<Diagnostic> problems;
  for (std::string& difference : plan_model_differences(plan, model, world_size)) {
    // A difference about one table ("<fqn>: ...") is reported at that table's entry.
    SourcePos pos{options.plan, 0, 0};
    for (const PlanFileTable& table : plan.tables)
      if (table.line > 0 && difference.rfind(table.fqn() + ": ", 0) == 0)
        pos = SourcePos{options.plan, table.line, table.column};
    problems.push_back(Diagnostic{pos, "", std::move(difference)});
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  std::cout << options.plan << ": ok (matches " << first << ")\n";
  return static_cast<int>(ExitCode::kOk);
}

int run(const ValidateOptions& options) {
  std::vector<std::string> inputs = options.files;
  if (!options.plan.empty()) inputs.push_back(options.plan);
  check_one_stdin_input(inputs);
  if (!options.plan.empty()) return check_plan_against_model(options);
  std::optional<InputKind> forced = parse_kind(options.kind);
  std::vector<Diagnostic> problems;
  for (const auto& file : options.files) {
    try {
      // "-" is stdin; JSON is read as YAML there, which it is, with the same positions.
      const std::string name = file == "-" ? kStdinName : file;
      const std::string text = file == "-" ? read_stdin() : read_input_text(file);
      // A plan file (by its top-level keys) is checked as show and diff read it.
      if (!forced && parse_if_plan_file(name, text)) {
        std::cout << name << ": ok (plan)\n";
        continue;
      }
      InputKind kind = validate_text(name, text, forced);
      std::cout << name << ": ok (" << name_of(kInputKindNames, kind) << ")\n";
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  std::cout.flush();
  if (!problems.empty()) throw InputError(std::move(problems));
  return static_cast<int>(ExitCode::kOk);
}
}  // namespace

CommandRun setup_validate(CLI::App& sub) {
  auto options = std::make_shared<ValidateOptions>();
  sub.add_option("files", options->files, "input files (YAML or JSON; - for stdin); a plan file is checked as one")
      ->required()
      ->type_name("FILE");
  sub.add_option("--kind", options->kind,
                 "what the files hold: model, topology, planner or case (default: "
                 "recognised from the top-level keys; a plan file by its schema or shardplan key)")
      ->type_name("KIND");
  sub.add_option("--plan", options->plan,
                 "check this plan file against the model the FILEs hold (a case, a model, or a model and a "
                 "topology): every table planned, shards inside and covering each table, ranks in the world")
      ->type_name("PLAN");
  sub.footer(
      "Examples:\n"
      "  shardplan validate configs/dlrm-criteo-terabyte.yaml configs/topology-2x8-80g.yaml\n"
      "  shardplan validate --kind planner configs/planner-default.yaml\n"
      "  shardplan validate configs/*.yaml configs/quickstart.json\n"
      "  shardplan validate plan.json                                  # a plan file on its own: well-formed?\n"
      "  shardplan validate --plan plan.json configs/quickstart.json   # a stale plan fails with what differs\n"
      "Prints 'FILE: ok (KIND)' per valid file and every problem as file:line:col: key.path: message;\n"
      "exit code 0 when all files are valid, 2 otherwise.");
  return [options] { return run(*options); };
}

}  // namespace shardplan::app
