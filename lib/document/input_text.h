// Reading an input's text, the same way for every command: "-" is stdin, a
// directory or an unreadable file is refused, and the size limit (document/limits.h) is
// checked before a regular file is read (while reading, for stdin and pipes).
#pragma once

#include <string>
#include <string_view>

namespace shardplan {

// What messages call an input read from stdin.
inline constexpr const char* kStdinInputName = "<stdin>";

// The name messages use for the input `path`: kStdinInputName for "-".
std::string input_name(const std::string& path);

// The whole content of `path` ("-" = stdin). Throws InputError (at the input's
// name, no line) when it cannot be read or is larger than kMaxInputFileBytes.
std::string read_input_text(const std::string& path);

// Whether an input is JSON: a name ending ".json", or stdin (kStdinInputName)
// whose first character after blanks is '{' or '['. Anything else is YAML.
bool is_json_input(const std::string& file, std::string_view text);

}  // namespace shardplan
