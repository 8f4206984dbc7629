#include "document/document.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/depthguard.h>

#include "common/error.h"
#include "document/document_bounds.h"
#include "document/input_text.h"
#include "document/json_tree.h"
#include "document/limits.h"

namespace shardplan {

namespace {

// The bytes that can change check_nesting's state outside quotes and comments.
constexpr std::array<bool, 256> kNestingCheckStops = [] {
  std::array<bool, 256> stops{};
  for (unsigned char c : std::string_view("\"'#[{]}")) stops[c] = true;
  return stops;
}();

// Refuses flow nesting ([ and {) deeper than kMaxNestingDepth; quoted strings and
// comments are skipped so brackets inside them do not count.
void check_nesting(const std::string& file, std::string_view text) {
  int depth = 0;
  char quote = 0;
  bool comment = false;
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size; ++i) {
    if (!quote && !comment) {  // the common case, bytes that change nothing skipped in a tight loop
      while (i < size && !kNestingCheckStops[static_cast<unsigned char>(text[i])]) ++i;
      if (i == size) break;
    }
    char c = text[i];
    if (comment) {
      if (c == '\n') comment = false;
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == '\'' && quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
        ++i;  // '' is a quote
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      // In YAML a quote only opens a string at the start of a scalar; a stray one
      // inside a plain word (don't) does not, so only count it after a separator.
      if (c == '"' || i == 0 || std::string_view(" \t\n[{,:").find(text[i - 1]) != std::string_view::npos) quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n' || text[i - 1] == '\t')) {
      comment = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth)
        throw InputError(position_in_text(file, text, i), "",
                         "nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

[[noreturn]] void throw_too_large(const std::string& file, std::uintmax_t bytes) {
  throw InputError(SourcePos{file, 0, 0}, "",
                   "the file has " + std::to_string(bytes) + " bytes; expected at most " +
                       std::to_string(kMaxInputFileBytes) + " (shardplan's limit)");
}

}  // namespace

SourcePos position_in_text(const std::string& file, std::string_view text, std::size_t offset) {
  SourcePos pos{file, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.col = 1;
    } else {
      ++pos.col;
    }
  }
  return pos;
}

Document parse_document(const std::string& file, std::string_view text, Positions) {
  if (text.size() > static_cast<std::size_t>(kMaxInputFileBytes)) throw_too_large(file, text.size());
  Document doc{file, {}, true};
  if (is_json_input(file, text)) {
    // The one JSON reader (json_tree.h), positions always kept. The text scans
    // first: nesting past the limit is reported as such even where nlohmann would
    // stop earlier at a syntax error, and the value count before any node is built.
    check_nesting(file, text);
    check_json_bounds(file, text);
    doc.root = read_json_tree(file, text);
  } else {
    check_nesting(file, text);
    check_yaml_bounds(file, text);
    try {
      doc.root = YAML::Load(std::string(text));
    } catch (const YAML::DeepRecursion& e) {
      throw InputError(SourcePos{file, e.mark.line + 1, e.mark.column + 1}, "",
                       "invalid YAML: nesting too deep (" + std::to_string(e.depth()) + " levels)");
    } catch (const YAML::Exception& e) {
      SourcePos pos{file, 0, 0};
      if (!e.mark.is_null()) pos = SourcePos{file, e.mark.line + 1, e.mark.column + 1};
      throw InputError(pos, "", "invalid YAML: " + e.msg);
    }
  }
  if (!doc.root.IsDefined() || doc.root.IsNull())
    throw InputError(SourcePos{file, 0, 0}, "", "the file is empty; expected a mapping of keys");
  return doc;
}

JsonDocument parse_json_document(const std::string& file, std::string_view text) {
  if (text.size() > static_cast<std::size_t>(kMaxInputFileBytes)) throw_too_large(file, text.size());
  JsonDocument doc{file, {}};
  check_nesting(file, text);
  check_json_bounds(file, text);
  doc.tree = read_json_value_tree(file, text);
  if (!doc.root().IsDefined() || doc.root().IsNull())
    throw InputError(SourcePos{file, 0, 0}, "", "the file is empty; expected a mapping of keys");
  return doc;
}

Document read_document(const std::string& path, Positions positions) {
  const std::string text = read_input_text(path);  // "-" is stdin; the size limit is checked first
  return parse_document(input_name(path), text, positions);
}

// ---- input_text.h: reading an input's text (kept in this file: the unity build batches stay as they are)

namespace {  // input_text.h

[[noreturn]] void throw_input_too_large(const std::string& name, const std::string& bytes) {
  throw InputError(SourcePos{name, 0, 0}, "",
                   "the file has " + bytes + " bytes; expected at most " + std::to_string(kMaxInputFileBytes) +
                       " (shardplan's limit)");
}

// Reads `fd` to its end, refusing more than kMaxInputFileBytes. `expected`: the
// size of a regular file (read in one go), 0 when unknown.
std::string read_all_bounded(int fd, const std::string& name, std::size_t expected = 0) {
  std::string text;
  const std::size_t limit = static_cast<std::size_t>(kMaxInputFileBytes);
  std::size_t used = 0;
  text.resize(expected > 0 ? expected + 1 : std::size_t{1} << 16);
  for (;;) {
    if (used == text.size()) text.resize(std::min(text.size() * 2, limit + 1));
    ssize_t got = ::read(fd, text.data() + used, text.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(SourcePos{name, 0, 0}, "", "cannot read the input");
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
    if (used > limit) throw_input_too_large(name, "more than " + std::to_string(limit));
  }
  text.resize(used);
  return text;
}

}  // namespace

std::string input_name(const std::string& path) { return path == "-" ? kStdinInputName : path; }

std::string read_input_text(const std::string& path) {
  if (path == "-") {
    // Standard input holds one input: a second "-" in the same run would read
    // nothing (or the rest of the first), and be reported as an empty or broken file.
    static std::atomic<bool> stdin_taken{false};
    if (stdin_taken.exchange(true))
      throw InputError(SourcePos{kStdinInputName, 0, 0}, "",
                       "standard input was already read for another input of this command; give '-' for one input "
                       "only");
    return read_all_bounded(STDIN_FILENO, kStdinInputName);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(SourcePos{path, 0, 0}, "", "cannot open the file (missing or not readable)");
  struct stat info {};
  if (::fstat(fd, &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      ::close(fd);
      throw InputError(SourcePos{path, 0, 0}, "", "is a directory, expected an input file");
    }
    if (S_ISREG(info.st_mode) && info.st_size > kMaxInputFileBytes) {
      ::close(fd);
      throw_input_too_large(path, std::to_string(info.st_size));
    }
  }
  try {
    std::string text = read_all_bounded(fd, path, S_ISREG(info.st_mode) ? static_cast<std::size_t>(info.st_size) : 0);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

bool is_json_input(const std::string& file, std::string_view text) {
  if (file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0) return true;
  if (file != kStdinInputName) return false;
  auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

}  // namespace shardplan
