// Writing output files so that a failure never leaves a half-written file.
#pragma once

#include <string>

namespace shardplan {

// Writes `content` to a temporary file beside `path`, then renames it over
// `path`. Throws InputError (exit 2) if the directory is not writable. A path
// that is a device, pipe or socket (-o /dev/null, a FIFO) is written in place,
// and a symlink's target file is replaced, not the symlink.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace shardplan
