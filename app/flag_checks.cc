#include "flag_checks.h"

#include <fmt/format.h>

#include "common/units.h"

#include <charconv>
#include <cstdlib>

#include "common/error.h"
#include "common/names.h"

namespace shardplan::app {

namespace {

bool is_integer(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && ptr == end && !text.empty();
}

bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// Every long and short name `sub` accepts, with its dashes ("--partitioner", "-o").
std::vector<std::string> flag_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* option : sub.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

}  // namespace

void check_flag_names(const CLI::App& app, const std::string& command, const std::vector<std::string>& args) {
  const std::vector<std::string> known = flag_names(app);
  for (const std::string& arg : args) {
    if (arg == "--") return;
    // A negative number, or percentage ("-1%", refused later with its reason), is a value.
    if (arg.size() < 2 || arg[0] != '-' || is_number(arg) ||
        (arg.back() == '%' && is_number(arg.substr(0, arg.size() - 1))))
      continue;
    std::string flag = arg.substr(0, arg.find('='));
    // "-ofile" is -o with its value attached.
    if (flag[1] != '-') flag = flag.substr(0, 2);
    bool found = false;
    for (const auto& name : known) found = found || name == flag;
    if (found) continue;
    // One letter is too little to guess from ("-q" is not a typo of "-h").
    const std::string suggestion = flag[1] == '-' ? closest_name(flag, known) : "";
    throw InputError(SourcePos{}, flag,
                     "unknown flag of '" + command + "'" +
                         (suggestion.empty() ? "; run '" + command + " --help' for its flags"
                                             : ", did you mean '" + suggestion + "'?"));
  }
}

void add_number_checks(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name() == "N")
      option->check(CLI::Validator(
          [](std::string& text) { return is_integer(text) ? "" : "expected an integer, found '" + text + "'"; }, "",
          "integer"));
    else if (option->get_type_name() == "X")
      option->check(CLI::Validator(
          [](std::string& text) { return is_number(text) ? "" : "expected a number, found '" + text + "'"; }, "",
          "number"));
    else if (option->get_type_name() == "RATIO")
      // "5%" or "0.05" in, the fraction out; a bare 5 (5% or 500%?) is refused.
      option->transform(CLI::Validator(
          [](std::string& text) {
            std::string error;
            const auto ratio = parse_ratio(text, &error);
            if (!ratio) return error;
            text = fmt::format("{}", *ratio);
            return std::string();
          },
          "", "ratio"));
  }
  for (CLI::App* sub : app.get_subcommands({})) add_number_checks(*sub);
}

}  // namespace shardplan::app
