#include "man_page.h"

#include <sstream>

#include "commands.h"

namespace shardplan::app {

namespace {

// Text as roff shows it: backslashes escaped, a line starting with '.' or '\''
// protected so it is not read as a request.
std::string man_escaped(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// A block printed as is (no filling), ending in a newline.
std::string man_verbatim(const std::string& text) {
  std::string body = man_escaped(text);
  if (!body.empty() && body.back() != '\n') body += '\n';
  return ".PP\n.nf\n" + body + ".fi\n";
}

}  // namespace

std::string man_page(const CLI::App& top) {
  std::ostringstream out;
  out << ".TH SHARDPLAN 1 \"\" \"shardplan " SHARDPLAN_VERSION "\" \"User Commands\"\n"
      << ".SH NAME\nshardplan \\- plan the sharding of embedding tables as torchrec's planner does\n"
      << ".SH SYNOPSIS\n.B shardplan\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n.B shardplan\n"
      << "[\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR]\n"
      << ".SH DESCRIPTION\n"
      << man_escaped(top.get_description()) << "\n"
      << ".PP\nAn input file named \\fB\\-\\fR is read from standard input. "
      << "The documentation of every input and output format is in the docs/ folder of the source tree.\n"
      << ".SH COMMANDS\n";
  for (const auto& c : commands()) {
    const std::string name(c.name);
    out << ".SS " << name << "\n"
        << man_escaped(std::string(c.description)) << "\n"
        << ".PP\nExample:\n"
        << man_verbatim(std::string(c.example));
    if (const CLI::App* sub = top.get_subcommand(name))
      out << man_verbatim(sub->get_formatter()->make_help(sub, "shardplan " + name, CLI::AppFormatMode::Normal));
  }
  out << ".SH EXIT STATUS\n"
      << ".TP\n0\nsuccess\n"
      << ".TP\n1\nno feasible plan (diff: a regression; pipeline: no partition fits)\n"
      << ".TP\n2\nbad input or usage; the message gives file:line:col and the key path\n"
      << ".TP\n3\ninternal error (a bug in shardplan; please report it with the input)\n"
      << ".TP\n4\nout of memory; the message names the stage\n"
      << ".SH SEE ALSO\nshardplan help COMMAND; docs/README.md in the source tree\n";
  return out.str();
}

}  // namespace shardplan::app
