// `shardplan help [COMMAND]`: the same text as `shardplan --help` / `COMMAND --help`.
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "common/names.h"
#include "man_page.h"

namespace shardplan::app {

CommandRun setup_help(CLI::App& sub) {
  auto command = std::make_shared<std::string>();
  sub.add_option("command", *command, "the command to describe (default: the list of commands)")->type_name("COMMAND");
  auto man = std::make_shared<bool>(false);
  sub.add_flag("--man", *man, "print the manual page (roff, from the command table; `man -l -` reads it)");
  sub.footer("Examples:\n  shardplan help\n  shardplan help plan\n  shardplan help --man | man -l -");
  CLI::App* self = &sub;
  return [self, command, man] {
    const CLI::App* top = self->get_parent();
    if (*man) {
      std::cout << man_page(*top);
      return static_cast<int>(ExitCode::kOk);
    }
    if (command->empty()) {
      // Through the formatter: App::help() would describe the selected subcommand, `help` itself.
      std::cout << top->get_formatter()->make_help(top, "shardplan", CLI::AppFormatMode::Normal);
      return static_cast<int>(ExitCode::kOk);
    }
    std::vector<std::string> names;
    for (const auto& c : commands()) {
      if (c.name == *command) {
        const CLI::App* described = top->get_subcommand(*command);
        std::cout << described->get_formatter()->make_help(described, "shardplan " + *command,
                                                           CLI::AppFormatMode::Normal);
        return static_cast<int>(ExitCode::kOk);
      }
      names.emplace_back(c.name);
    }
    const std::string suggestion = closest_name(*command, names);
    throw InputError(
        SourcePos{}, "help",
        "unknown command '" + *command + "'" + (suggestion.empty() ? "" : ", did you mean '" + suggestion + "'?"));
  };
}

}  // namespace shardplan::app
