// The one writer of Perf and Storage as JSON, used by the plan file, --stats json
// and enumerate. Key order: the five perf parts in torchrec's Perf field order,
// then "total"; storage as hbm, ddr.
//
// Two outputs keep the order they have always had, so that their bytes do not
// change: --stats json puts "total" first (PerfTotal::kFirst), and enumerate's
// JSON is an nlohmann::json whose object keys are sorted alphabetically.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/types.h"

namespace shardplan {

// Where "total" goes in a perf object, if anywhere.
enum class PerfTotal { kLast, kFirst, kNone };

// {"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms", "prefetch_compute"}
// with "total" placed as `total` says.
nlohmann::ordered_json perf_json(const Perf& perf, PerfTotal total = PerfTotal::kLast);

// {"hbm": bytes, "ddr": bytes}.
nlohmann::ordered_json storage_json(const Storage& storage);

}  // namespace shardplan
