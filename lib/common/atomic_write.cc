#include "common/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/error.h"
#include "common/temp_file_guard.h"

namespace shardplan {

namespace {

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

bool write_all_to_fd(int fd, std::string_view content) {
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

AtomicFileWriter::AtomicFileWriter(const std::string& path) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows symlinks
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    if (fs::is_directory(status))
      throw InputError(SourcePos{path, 0, 0}, "", "is a directory, expected a file to write");
    // A device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place:
    // renaming a temporary file over it would replace the device node itself.
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0)
      throw InputError(SourcePos{path, 0, 0}, "", std::string("cannot write output: ") + std::strerror(errno));
    return;
  }
  // A symlink to a file keeps being a symlink: the file it points to is replaced.
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(path, ec))) target = fs::weakly_canonical(target, ec);
  if (ec) target = path;
  target_ = target.string();
  std::string temp;
  fd_ = create_temp_beside(target, temp);
  if (fd_ < 0)
    throw InputError(SourcePos{path, 0, 0}, "", std::string("cannot write output file: ") + std::strerror(errno));
  temp_ = temp;
  guard_ = std::make_unique<TempFileGuard>(temp_);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicFileWriter::fail(const std::string& what, int error_number) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  guard_.reset();
  throw InputError(SourcePos{path_, 0, 0}, "", error_number ? what + std::strerror(error_number) : what);
}

void AtomicFileWriter::write(std::string_view piece) {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::write after commit or failure");
  if (write_all_to_fd(fd_, piece)) return;
  if (temp_.empty()) fail("writing the output failed", 0);
  fail("writing the output file failed: ", errno);
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter::commit twice or after failure");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    if (temp_.empty()) fail("writing the output failed", 0);
    fail("writing the output file failed: ", errno);
  }
  if (temp_.empty()) return;
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail("cannot replace output file: ", errno);
  temp_.clear();
  guard_.reset();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFileWriter writer(path);
  writer.write(content);
  writer.commit();
}

}  // namespace shardplan
