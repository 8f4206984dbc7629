// Writing a whole text to stdout or stderr in one go.
#pragma once

#include <string_view>

namespace shardplan {

// Writes `text` to file descriptor `fd` (1 or 2) completely, after flushing the
// C++ streams so earlier output stays first. When `fd` is a pipe smaller than
// the text, the pipe is grown first (as far as the system allows): otherwise the
// planner stalls until the reading process wakes to drain it, which on a busy
// or virtual machine took longer than planning a 100-table model (92 KB of
// --stats json cost 5 ms through a 64 KB pipe). Returns false on a write error.
bool write_whole(int fd, std::string_view text);

}  // namespace shardplan
