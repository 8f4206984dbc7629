#include "sweep/sweep_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <map>
#include <sstream>

#include "common/error.h"

namespace shardplan {

namespace {

struct Line {
  std::string_view text;  // without '\n'
  bool terminated = false;
  int number = 0;  // 1-based
};

std::vector<Line> lines_of(std::string_view content) {
  std::vector<Line> out;
  std::size_t start = 0;
  while (start < content.size()) {
    const std::size_t end = content.find('\n', start);
    const bool terminated = end != std::string_view::npos;
    const std::size_t stop = terminated ? end : content.size();
    out.push_back({content.substr(start, stop - start), terminated, static_cast<int>(out.size()) + 1});
    start = stop + 1;
  }
  return out;
}

// The whole file, or nullopt when it does not exist.
std::optional<std::string> read_if_present(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t length_through(std::string_view content, const Line& line) {
  return static_cast<std::size_t>(line.text.data() - content.data()) + line.text.size() + 1;
}

}  // namespace

SweepResume read_sweep_resume(const std::string& path, SweepFormat format, const std::string& header,
                              const std::string& sweep_id, const std::vector<std::size_t>& slice_indices) {
  SweepResume out;
  const auto content = read_if_present(path);
  if (!content || content->empty()) return out;
  const std::vector<Line> lines = lines_of(*content);
  std::size_t first_row = 0;
  std::size_t kept_bytes = 0;
  if (!header.empty()) {
    const Line& first = lines.front();
    if (!first.terminated) return out;  // a torn header: nothing was done
    if (std::string(first.text) + "\n" != header)
      throw InputError(SourcePos{path, 1, 1}, "",
                       "the header is not this sweep's (other fields?): '" + std::string(first.text) +
                           "'; give another -o, or drop --resume to start afresh");
    first_row = 1;
    kept_bytes = length_through(*content, first);
  }
  for (std::size_t i = first_row; i < lines.size(); ++i) {
    const Line& line = lines[i];
    const bool last = i + 1 == lines.size();
    if (last && !line.terminated) break;  // torn by the interruption: planned again
    const auto row = parse_sweep_row(format, line.text, csv_column_count(header));
    if (!row)
      throw InputError(SourcePos{path, line.number, 1}, "",
                       fmt::format("not a complete {} row of a sweep", name_of(kSweepFormatNames, format)));
    if (row->sweep_id != sweep_id)
      throw InputError(SourcePos{path, line.number, 1}, "",
                       "this row is of another sweep (id " + row->sweep_id + "; this sweep's id is " + sweep_id +
                           ": other inputs, grid, format or version); give another -o, or drop --resume");
    if (out.rows_done >= slice_indices.size() || row->index != slice_indices[out.rows_done])
      throw InputError(SourcePos{path, line.number, 1}, "",
                       fmt::format("point {} is not the next point of this slice (expected {})", row->index,
                                   out.rows_done < slice_indices.size() ? std::to_string(slice_indices[out.rows_done])
                                                                        : std::string("none: the slice is complete")));
    ++out.rows_done;
    kept_bytes = length_through(*content, line);
  }
  out.kept = content->substr(0, kept_bytes);
  return out;
}

int open_sweep_output(const std::string& path, std::size_t keep) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  auto fail = [&](const std::string& what) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw InputError(SourcePos{path, 0, 0}, "", what + std::strerror(error));
  };
  if (fd < 0) fail("cannot open the sweep's output: ");
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail("cannot open the sweep's output: ");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      ::close(fd);
      throw InputError(SourcePos{path, 0, 0}, "",
                       "another sweep is writing this file now; wait for it, or give another -o");
    }
    if (S_ISREG(info.st_mode)) fail("cannot lock the sweep's output: ");
    // A device or pipe that takes no lock is written without one.
  }
  if (S_ISREG(info.st_mode) && (::ftruncate(fd, static_cast<off_t>(keep)) != 0 || ::lseek(fd, 0, SEEK_END) < 0))
    fail("writing the sweep's rows failed: ");
  return fd;
}

std::string merge_sweep_slices(const std::vector<std::string>& paths) {
  struct Placed {
    std::string row;
    std::string file;
    int line = 0;
  };
  std::map<std::size_t, Placed> rows;
  std::optional<std::string> header;  // csv only
  std::optional<SweepFormat> format;
  std::string sweep_id, first_place;
  std::size_t points = 0;
  for (const auto& path : paths) {
    const auto content = read_if_present(path);
    if (!content) throw InputError(SourcePos{path, 0, 0}, "", "cannot read this slice");
    const std::vector<Line> lines = lines_of(*content);
    if (lines.empty()) continue;  // a slice without points (more slices than points)
    const SweepFormat this_format = lines.front().text.rfind("{", 0) == 0 ? SweepFormat::kJsonl : SweepFormat::kCsv;
    if (format && *format != this_format)
      throw InputError(SourcePos{path, 1, 1}, "",
                       "this slice is " + std::string(name_of(kSweepFormatNames, this_format)) +
                           ", an earlier one is " + std::string(name_of(kSweepFormatNames, *format)));
    format = this_format;
    std::size_t first_row = 0;
    if (this_format == SweepFormat::kCsv) {
      const std::string this_header = std::string(lines.front().text) + "\n";
      if (lines.front().text.rfind("sweep,index,points,", 0) != 0)
        throw InputError(SourcePos{path, 1, 1}, "",
                         "not a sweep output (expected a JSON row or the CSV header 'sweep,index,points,...')");
      if (header && *header != this_header)
        throw InputError(SourcePos{path, 1, 1}, "",
                         "this slice's header differs from " + first_place + "'s: slices of different sweeps");
      header = this_header;
      first_row = 1;
    }
    for (std::size_t i = first_row; i < lines.size(); ++i) {
      const Line& line = lines[i];
      if (!line.terminated)
        throw InputError(SourcePos{path, line.number, 1}, "",
                         "a torn last row: this slice did not finish (run it again with --resume)");
      const auto row = parse_sweep_row(this_format, line.text, header ? csv_column_count(*header) : 0);
      if (!row) throw InputError(SourcePos{path, line.number, 1}, "", "not a complete sweep row");
      const std::string place = fmt::format("{}:{}", path, line.number);
      if (first_place.empty()) {
        sweep_id = row->sweep_id;
        points = row->points;
        first_place = place;
      } else if (row->sweep_id != sweep_id || row->points != points) {
        throw InputError(SourcePos{path, line.number, 1}, "",
                         fmt::format("this row is of another sweep (id {}, {} points) than {} (id {}, {} points)",
                                     row->sweep_id, row->points, first_place, sweep_id, points));
      }
      const auto [it, added] = rows.emplace(row->index, Placed{std::string(line.text), path, line.number});
      if (!added)
        throw InputError(
            SourcePos{path, line.number, 1}, "",
            fmt::format("point {} is also at {}:{}: slices overlap", row->index, it->second.file, it->second.line));
    }
  }
  if (first_place.empty()) throw InputError(SourcePos{}, "", "no rows in any slice: nothing to merge");
  if (rows.size() != points) {
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < points && missing.size() < 5; ++i)
      if (!rows.count(i)) missing.push_back(i);
    throw InputError(SourcePos{}, "",
                     fmt::format("{} of the sweep's {} points are in no slice (the first: {}); merge every slice",
                                 points - rows.size(), points, fmt::join(missing, ", ")));
  }
  std::string out = header.value_or("");
  for (const auto& [index, placed] : rows) out += placed.row + "\n";
  return out;
}

}  // namespace shardplan
