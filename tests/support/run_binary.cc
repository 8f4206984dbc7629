#include "support/run_binary.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config/config_test_util.h"

namespace shardplan::testing {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

RunResult run_shardplan(const std::string& args) {
  std::string out = scratch_prefix() + "run.out";
  std::string err = scratch_prefix() + "run.err";
  std::string command =
      std::string("'") + SHARDPLAN_BINARY + "' " + args + " >'" + out + "' 2>'" + err + "' </dev/null";
  int status = std::system(command.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace shardplan::testing
