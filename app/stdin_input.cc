#include "stdin_input.h"

namespace shardplan::app {

std::string read_stdin() { return read_input_text("-"); }

}  // namespace shardplan::app
