// `shardplan validate FILE... [--kind K]`: every problem of every file, exit 0 only if all are valid.
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "config/loader.h"
#include "stdin_input.h"

namespace shardplan::app {

namespace {
struct ValidateOptions {
  std::vector<std::string> files;
  std::string kind;
};

std::optional<InputKind> parse_kind(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (auto kind = parse_name(kInputKindNames, text)) return kind;
  throw InputError(SourcePos{}, "--kind", unknown_name_message("kind", text, names_of(kInputKindNames)));
}

int run(const ValidateOptions& options) {
  std::optional<InputKind> forced = parse_kind(options.kind);
  std::vector<Diagnostic> problems;
  for (const auto& file : options.files) {
    try {
      // "-" is stdin; JSON is read as YAML there, which it is, with the same positions.
      InputKind kind = file == "-" ? validate_text(kStdinName, read_stdin(), forced) : validate_file(file, forced);
      std::cout << (file == "-" ? kStdinName : file) << ": ok (" << name_of(kInputKindNames, kind) << ")\n";
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
  sub.add_option("files", options->files, "input files (YAML or JSON; - for stdin)")->required()->type_name("FILE");
  sub.add_option("--kind", options->kind, "what the files hold: model, topology, planner or case (default: "
                                          "recognised from the top-level keys)")
      ->type_name("KIND");
  sub.footer(
      "Examples:\n"
      "  shardplan validate configs/dlrm-criteo-terabyte.yaml configs/topology-2x8-80g.yaml\n"
      "  shardplan validate --kind planner configs/planner-default.yaml\n"
      "  shardplan validate configs/*.yaml configs/quickstart.json\n"
      "Prints 'FILE: ok (KIND)' per valid file and every problem as file:line:col: key.path: message;\n"
      "exit code 0 when all files are valid, 2 otherwise.");
  return [options] { return run(*options); };
}

}  // namespace shardplan::app
