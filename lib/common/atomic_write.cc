#include "common/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "common/temp_file_guard.h"

namespace shardplan {

namespace {

// A device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place:
// renaming a temporary file over it would replace the device node itself.
void write_in_place(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(SourcePos{path, 0, 0}, "", std::string("cannot write output: ") + std::strerror(errno));
  out << content;
  out.flush();
  if (!out) throw InputError(SourcePos{path, 0, 0}, "", "writing the output failed");
}

// Creates `<target>.tmp.<pid>.<n>` for the smallest n whose name is free. O_EXCL
// with O_NOFOLLOW: a file or symlink already there (another run's leftover, or
// one planted to redirect our write) is skipped, never opened.
int create_temp_beside(const std::filesystem::path& target, std::string& temp_out) {
  constexpr int kMaxAttempts = 1000;
  const std::string stem = target.string() + ".tmp." + std::to_string(::getpid()) + ".";
  for (int n = 0; n < kMaxAttempts; ++n) {
    temp_out = stem + std::to_string(n);
    const int fd = ::open(temp_out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows symlinks
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    if (fs::is_directory(status))
      throw InputError(SourcePos{path, 0, 0}, "", "is a directory, expected a file to write");
    write_in_place(path, content);
    return;
  }
  // A symlink to a file keeps being a symlink: the file it points to is replaced.
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(path, ec))) target = fs::weakly_canonical(target, ec);
  if (ec) target = path;
  std::string temp;
  const int fd = create_temp_beside(target, temp);
  if (fd < 0) {
    throw InputError(SourcePos{path, 0, 0}, "", std::string("cannot write output file: ") + std::strerror(errno));
  }
  TempFileGuard guard(temp);
  const bool written = write_all(fd, content);
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(temp.c_str());
    throw InputError(SourcePos{path, 0, 0}, "",
                     std::string("writing the output file failed: ") + std::strerror(written ? errno : write_errno));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int rename_errno = errno;
    ::unlink(temp.c_str());
    throw InputError(SourcePos{path, 0, 0}, "",
                     std::string("cannot replace output file: ") + std::strerror(rename_errno));
  }
}

}  // namespace shardplan
