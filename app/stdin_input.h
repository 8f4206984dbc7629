// "-" as an input file name: the input is read from stdin.
#pragma once

#include <string>

#include "common/error.h"
#include "document/input_text.h"

namespace shardplan::app {

// What messages call an input read from stdin.
inline constexpr const char* kStdinName = kStdinInputName;

// The whole of stdin, under the input size limit. Throws InputError when it
// cannot be read or is too large.
std::string read_stdin();

}  // namespace shardplan::app
