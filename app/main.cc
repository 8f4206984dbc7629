// shardplan's entry point: parses the command line with the subcommand table
// (commands.h) and maps errors to exit codes. All work happens in lib/.
#include <exception>
#include <iostream>
#include <map>
#include <new>

#include "commands.h"
#include "common/diagnostic_list.h"
#include "common/error.h"
#include "common/names.h"
#include "common/out_of_memory.h"
#include "config/limits.h"
#include "flag_checks.h"

namespace {

using shardplan::ExitCode;
using shardplan::app::commands;

std::string footer() {
  std::string out = "Examples:\n";
  for (const auto& c : commands()) out += "  " + std::string(c.example) + "\n";
  out += "\nRun 'shardplan COMMAND --help' for the options of one command.";
  return out;
}

// "shardplan valdate ...": a bare first word that names no command.
bool unknown_command(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::string word = argv[1];
  std::vector<std::string> names;
  for (const auto& c : commands()) {
    if (c.name == word) return false;
    names.emplace_back(c.name);
  }
  std::string suggestion = shardplan::closest_name(word, names);
  std::cerr << "error: unknown command '" << word << "'"
            << (suggestion.empty() ? "" : ", did you mean '" + suggestion + "'?") << "\n"
            << "Run 'shardplan --help' for the list of commands.\n";
  return true;
}

int run(int argc, char** argv) {
  CLI::App app{"shardplan: torchrec's embedding sharding planner, as a command-line tool", "shardplan"};
  app.set_version_flag("-V,--version", "shardplan " SHARDPLAN_VERSION, "print the version and exit");
  app.require_subcommand(1);
  app.footer(footer());
  std::map<const CLI::App*, shardplan::app::CommandRun> runs;
  for (const auto& c : commands()) {
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.description));
    runs[sub] = c.setup(*sub);
  }
  shardplan::app::add_number_checks(app);
  if (argc < 2) {
    // A bare call is a usage error, answered with the usage.
    std::cerr << app.get_formatter()->make_help(&app, "shardplan", CLI::AppFormatMode::Normal);
    return static_cast<int>(ExitCode::kBadInput);
  }
  if (unknown_command(argc, argv)) return static_cast<int>(ExitCode::kBadInput);
  if (argv[1][0] == '-') {
    shardplan::app::check_flag_names(app, "shardplan", {argv[1]});
  } else {
    const std::vector<std::string> words(argv + 2, argv + argc);
    shardplan::app::check_flag_names(*app.get_subcommand(argv[1]), std::string("shardplan ") + argv[1], words);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    std::cerr << "error: " << e.what() << "\nRun 'shardplan --help' (or 'shardplan COMMAND --help') for usage.\n";
    return static_cast<int>(ExitCode::kBadInput);
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (auto it = runs.find(sub); it != runs.end()) return it->second();
  return static_cast<int>(ExitCode::kBadInput);
}

}  // namespace

int main(int argc, char** argv) {
  // Room for the destructors and the message after a failed allocation (exit 4, not abort).
  shardplan::keep_memory_for_out_of_memory_exit(std::size_t{16} << 20);
  try {
    return run(argc, argv);
  } catch (const shardplan::InputError& e) {
    shardplan::print_diagnostics(std::cerr, e.diagnostics(), shardplan::kMaxDiagnosticsPrinted);
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const shardplan::OutOfMemoryError& e) {
    std::cerr << shardplan::out_of_memory_message(e.stage());
    return static_cast<int>(ExitCode::kOutOfMemory);
  } catch (const std::bad_alloc&) {
    // A command that does not say which stage it was in.
    std::cerr << shardplan::out_of_memory_message(std::string("running 'shardplan ") + (argc > 1 ? argv[1] : "") + "'");
    return static_cast<int>(ExitCode::kOutOfMemory);
  } catch (const std::exception& e) {
    // Not the user's fault, but still no stack trace: say what broke.
    std::cerr << "error: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternal);
  }
}
