// Writing output files so that a failure never leaves a half-written file.
#pragma once

#include <string>

namespace shardplan {

// Writes `content` to a new temporary file beside `path`, then renames it over
// `path`. Throws InputError (exit 2) if the directory is not writable. A path
// that is a device, pipe or socket (-o /dev/null, a FIFO) is written in place,
// and a symlink's target file is replaced, not the symlink.
//
// The temporary file is named `<path>.tmp.<pid>.<n>` and created with
// O_CREAT | O_EXCL | O_NOFOLLOW, so an existing file or symlink of that name is
// never followed or overwritten (the next n is tried). It is removed on every
// error path and when SIGINT, SIGTERM or SIGHUP arrives while it exists (the
// signal then takes its default course). Only SIGKILL or a power cut can leave
// it behind: at most one such file per killed process.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace shardplan
