// Small pieces of text that several renderers in lib/planner_output share: a byte count,
// a Storage quoted with only the resources that matter, a joined list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// A byte count as format_bytes writes it ("80.00 GiB").
std::string bytes_text(std::int64_t bytes);

// "X HBM + Y DDR", leaving out a resource that `relevant` does not use (so that a
// table living in HBM is never compared in "0.00 B DDR"); HBM when neither is used.
std::string storage_text(const Storage& storage, const Storage& relevant);
// The same with the storage's own resources as the relevant ones.
std::string storage_text(const Storage& storage);

// The items separated by `separator`; an empty item adds no separator before the
// next one while nothing has been written yet.
std::string join_text(const std::vector<std::string>& items, const std::string& separator);

}  // namespace shardplan
