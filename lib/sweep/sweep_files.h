// Reading sweep output files back: the complete rows an interrupted run left (for
// --resume) and the slices of a sharded sweep (for `sweep merge`).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sweep/sweep_rows.h"

namespace shardplan {

// What an earlier run of the same sweep slice left in its output file.
struct SweepResume {
  std::string kept;           // the complete prefix to keep: the header and the complete rows
  std::size_t rows_done = 0;  // points of the slice already in it (the first rows_done of the slice)
};

// Reads the output file `path` of an interrupted run (absent or empty: nothing
// done). A row is complete when it ends with '\n' and reads back with this sweep's
// id; a last line without '\n' was torn by the interruption and is dropped. Throws
// InputError (file:line) for a header of another grid, a row of another sweep, a
// row out of the slice's order, or a broken row that is not the last line.
SweepResume read_sweep_resume(const std::string& path, SweepFormat format, const std::string& header,
                              const std::string& sweep_id, const std::vector<std::size_t>& slice_indices);

// Joins the slice files of one sweep into exactly the bytes a single run writes:
// the header (csv), then every row in grid order. Throws InputError (exit 2) when
// a slice is torn or not a sweep output, when slices are of different sweeps, or
// when a point is in two slices or in none.
std::string merge_sweep_slices(const std::vector<std::string>& paths);

// Opens a sweep's output file `path` for its rows and returns the descriptor. It
// is locked first (flock, exclusive, not waiting): a second sweep writing the same
// file is refused (InputError) instead of mixing its rows into the first one's.
// Then a regular file is cut to its first `keep` bytes (the rows --resume keeps)
// and written at its end; a device, pipe or FIFO (-o /dev/null) is written as it is.
int open_sweep_output(const std::string& path, std::size_t keep);

}  // namespace shardplan
