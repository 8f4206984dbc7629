#include "common/stream_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iostream>

namespace shardplan {
namespace {

void grow_pipe_for(int fd, std::size_t bytes) {
#ifdef F_SETPIPE_SZ
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  const int current = ::fcntl(fd, F_GETPIPE_SZ);
  if (current < 0 || static_cast<std::size_t>(current) >= bytes) return;
  // Unprivileged processes may go up to /proc/sys/fs/pipe-max-size (1 MiB by
  // default); asking for more fails, so fall back to that. Failure is harmless.
  constexpr std::size_t kUsualMax = std::size_t{1} << 20;
  if (::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(std::min(bytes, kUsualMax * 64))) < 0)
    (void)::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(std::min(bytes, kUsualMax)));
#else
  (void)fd;
  (void)bytes;
#endif
}

}  // namespace

bool write_whole(int fd, std::string_view text) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  grow_pipe_for(fd, text.size());
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace shardplan
