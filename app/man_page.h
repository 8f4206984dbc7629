// `shardplan help --man`: the manual page (roff), generated from the command table
// (commands.h) and each command's own --help text, so it cannot drift from them.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace shardplan::app {

// The whole page for `top`, the shardplan App with every subcommand set up.
std::string man_page(const CLI::App& top);

}  // namespace shardplan::app
