// Writing output files so that a failure never leaves a half-written file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

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

class TempFileGuard;

// The same output written in pieces, for a text too large to hold whole (the
// options of thousands of tables on a thousand ranks: gigabytes). The
// constructor opens what write_file_atomically would write to (the temporary
// file, or the device or pipe itself) and throws its InputErrors; write()
// appends a piece; commit() renames the temporary file over `path`. Destroyed
// without commit() (a failed write, or any exception while the pieces were
// made), the writer removes its temporary file: nothing half-written is left at
// `path`. A device or pipe keeps what it was sent.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view piece);
  void commit();

 private:
  void fail(const std::string& what, int error_number);
  std::string path_;    // as given, for messages
  std::string target_;  // what the temporary file replaces (a symlink's target)
  std::string temp_;    // empty when written in place
  int fd_ = -1;
  std::unique_ptr<TempFileGuard> guard_;
};

}  // namespace shardplan
