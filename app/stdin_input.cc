#include "stdin_input.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "common/atomic_write.h"
#include "common/error.h"

namespace shardplan::app {

std::string read_stdin() {
  std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (std::cin.bad()) throw InputError(SourcePos{kStdinName, 0, 0}, "", "cannot read stdin");
  return text;
}

StdinFile::StdinFile() {
  const std::string text = read_stdin();
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool json = first != std::string::npos && text[first] == '{';
  const std::string suffix = json ? ".json" : ".yaml";
  std::string pattern = (std::filesystem::temp_directory_path() / ("shardplan-stdin-XXXXXX" + suffix)).string();
  const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw InputError(SourcePos{kStdinName, 0, 0}, "", "cannot make a scratch file for stdin");
  close(fd);
  path_ = pattern;
  write_file_atomically(path_, text);
}

StdinFile::~StdinFile() { std::remove(path_.c_str()); }

}  // namespace shardplan::app
