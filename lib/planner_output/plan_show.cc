#include "planner_output/plan_show.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/units.h"
#include "planner/memory_basis.h"
#include "planner/stats_report.h"

namespace shardplan {

namespace {

constexpr std::size_t kTableColumn = 22;

// [0-3,8] with runs of three or more ranks joined; shortened to fit `width`.
std::string ranks_text(const std::vector<int>& ranks, std::size_t width) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out +=
        (out.empty() ? "" : ",") + (j >= i + 2 ? fmt::format("{}-{}", ranks[i], ranks[j]) : std::to_string(ranks[i]));
    if (j >= i + 2) i = j;
  }
  if (out.size() > width) out = out.substr(0, width - 3) + "...";
  return out;
}

// "4x 250x64": how many shards of which size (the first shard's; '~' when uneven).
std::string shards_text(const PlanFileTable& t) {
  if (t.shards.empty()) return "-";
  const auto& first = t.shards.front().sizes;
  bool uniform = true;
  for (const auto& s : t.shards) uniform = uniform && s.sizes == first;
  const std::string size = first.size() == 2 ? fmt::format("{}x{}", first[0], first[1]) : "?";
  return fmt::format("{}x {}{}", t.shards.size(), size, uniform ? "" : "~");
}

}  // namespace

std::string text_bar(double value, double scale, int width) {
  if (!(scale > 0)) return std::string(static_cast<std::size_t>(width), '.');
  if (value > scale) return std::string(static_cast<std::size_t>(width - 1), '#') + "!";
  const int filled = std::clamp(static_cast<int>(std::lround(value / scale * width)), 0, width);
  return std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.');
}

std::string render_plan_show(const PlanFile& plan) {
  std::string out = fmt::format("{}: {} tables on {} ranks ({}, {} per host); max-rank perf {:.4f} ms\n", plan.model,
                                plan.tables.size(), plan.world_size, plan.compute_device, plan.local_world_size,
                                plan.summary.max_rank_perf);
  if (plan.tool_version)
    out += fmt::format("written by shardplan {} from inputs sha256 {}\n", *plan.tool_version,
                       plan.inputs_sha256.value_or("?").substr(0, 16));
  out += "\n";
  const std::string row = "{:<22}  {:<4}  {:<17}  {:<12}  {:<16}  {:>8}  {:>8}\n";
  out += fmt::format(fmt::runtime(row), "table", "type", "kernel", "ranks", "shards", "HBM GiB", "perf ms");
  for (const PlanFileTable& t : plan.tables) {
    std::string name = t.fqn();
    if (name.size() > kTableColumn) {
      out += name + "\n";
      name.clear();
    }
    out += fmt::format(fmt::runtime(row), name, sharding_type_abbr(t.sharding_type), to_string(t.compute_kernel),
                       ranks_text(t.ranks, 12), shards_text(t), fmt::format("{:.3f}", to_gib(t.total_storage.hbm)),
                       fmt::format("{:.4f}", t.total_perf));
  }
  double max_perf = 0;
  for (const auto& r : plan.ranks) max_perf = std::max(max_perf, r.perf.total);
  // Memory on the one basis of every output (planner/memory_basis.h), from the plan
  // file's "memory" block; a file written before it has only the shards' bytes
  // against the room the reservation left, and says so.
  const bool basis = plan.memory.size() == plan.ranks.size() && !plan.memory.empty();
  const char* memory_heading = basis ? "used/usable" : "shards/room left";
  out += fmt::format("\n{:>4}  {:<25}  {:<31}  {}\n", "rank", "perf ms (of the slowest)",
                     fmt::format("HBM GiB {}", memory_heading), fmt::format("DDR GiB {}", memory_heading));
  for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
    const PlanFileRank& rank = plan.ranks[r];
    const PlanFileStorage room = r < plan.reserved.size() ? plan.reserved[r] : PlanFileStorage{};
    const PlanFileStorage used = basis ? plan.memory[r].used : rank.storage;
    const PlanFileStorage usable = basis ? plan.memory[r].usable : room;
    out += fmt::format("{:>4}  {} {:>8.4f}  {} {:>6.2f}/{:<7.2f}  {} {:>7.2f}/{:.2f}\n", r,
                       text_bar(rank.perf.total, max_perf), rank.perf.total,
                       text_bar(static_cast<double>(used.hbm), static_cast<double>(usable.hbm)), to_gib(used.hbm),
                       to_gib(usable.hbm), text_bar(static_cast<double>(used.ddr), static_cast<double>(usable.ddr)),
                       to_gib(used.ddr), to_gib(usable.ddr));
  }
  if (basis) {
    out += "\n";
    std::vector<RankMemory> memory;
    for (const PlanFileMemory& m : plan.memory)
      memory.push_back(RankMemory{{m.used.hbm, m.usable.hbm}, {m.used.ddr, m.usable.ddr}});
    for (const bool hbm : {true, false})
      if (const auto peak = peak_memory_fraction(memory, hbm))
        out += fmt::format("{:<8}max {:.2f} GiB on rank {} of {:.2f} GiB usable ({:.1f}%)\n", hbm ? "HBM" : "DDR",
                           to_gib(peak->use.used), peak->rank, to_gib(peak->use.capacity), peak->fraction * 100);
    out += "memory  " + std::string(kMemoryBasisText) + "\n";
  }
  return out;
}

}  // namespace shardplan
