#include "planner_output/perf_storage_json.h"

#include "common/json_object.h"

namespace shardplan {

nlohmann::ordered_json perf_json(const Perf& p, PerfTotal total) {
  switch (total) {
    case PerfTotal::kFirst:
      return json_object("total", p.total(), "fwd_compute", p.fwd_compute, "fwd_comms", p.fwd_comms, "bwd_compute",
                         p.bwd_compute, "bwd_comms", p.bwd_comms, "prefetch_compute", p.prefetch_compute);
    case PerfTotal::kNone:
      return json_object("fwd_compute", p.fwd_compute, "fwd_comms", p.fwd_comms, "bwd_compute", p.bwd_compute,
                         "bwd_comms", p.bwd_comms, "prefetch_compute", p.prefetch_compute);
    case PerfTotal::kLast:
      break;
  }
  return json_object("fwd_compute", p.fwd_compute, "fwd_comms", p.fwd_comms, "bwd_compute", p.bwd_compute, "bwd_comms",
                     p.bwd_comms, "prefetch_compute", p.prefetch_compute, "total", p.total());
}

nlohmann::ordered_json storage_json(const Storage& s) { return json_object("hbm", s.hbm, "ddr", s.ddr); }

}  // namespace shardplan
