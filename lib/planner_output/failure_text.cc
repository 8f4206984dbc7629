#include "planner_output/failure_text.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "common/units.h"
#include "planner_output/partition_failure_text.h"
#include "planner_output/storage_words.h"

namespace shardplan {

namespace {

constexpr std::size_t kConstrainedTablesNamed = 10;

std::string fit_option_name(ShardingType type, ComputeKernel kernel) {
  return fmt::format("{}/{}", name_of(kShardingTypeNames, type), name_of(kComputeKernelNames, kernel));
}

std::string shards_text(const OptionFit& fit) {
  if (fit.num_shards == 1) return "1 shard of " + storage_text(fit.largest_shard);
  return fmt::format("{} shards of up to {}", fit.num_shards, storage_text(fit.largest_shard));
}

std::string gib_flag(std::int64_t cap) { return fmt::format("{}GiB", cap / kGiB); }

// "--hbm-cap 45GiB --ddr-cap 200GiB" for the caps a fix sets.
std::string cap_flags(const CapacityFix& fix) {
  std::vector<std::string> flags;
  if (fix.hbm_cap) flags.push_back("--hbm-cap " + gib_flag(*fix.hbm_cap));
  if (fix.ddr_cap) flags.push_back("--ddr-cap " + gib_flag(*fix.ddr_cap));
  return join_text(flags, " ");
}

// "38.15 GiB more HBM and 2.00 GiB more DDR".
std::string more_text(const Storage& more) {
  std::vector<std::string> parts;
  if (more.hbm > 0) parts.push_back(bytes_text(more.hbm) + " more HBM");
  if (more.ddr > 0) parts.push_back(bytes_text(more.ddr) + " more DDR");
  return join_text(parts, " and ");
}

// The fitting option to show for a relaxation: the one whose largest shard is smallest.
const OptionFit& smallest_fit(const std::vector<const OptionFit*>& fits) {
  const auto size = [](const OptionFit* f) { return f->largest_shard.hbm + f->largest_shard.ddr; };
  return **std::min_element(fits.begin(), fits.end(),
                            [&](const OptionFit* a, const OptionFit* b) { return size(a) < size(b); });
}

// "a, b or c".
std::string alternatives(const std::vector<std::string>& items) {
  if (items.size() < 2) return join_text(items, "");
  return join_text(std::vector<std::string>(items.begin(), items.end() - 1), ", ") + " or " + items.back();
}

void add_unique(std::vector<std::string>& list, std::string_view item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.emplace_back(item);
}

// The advice for a table whose constraints leave only options that fit no rank,
// while options they remove would fit: one relaxation per constraint key (or both
// keys together when only that helps), with the smallest option it admits.
std::string constraint_fix(const TableShortfall& t, const PlanFailure& f, const PlanRun& run) {
  std::vector<std::string> allowed;
  for (const auto& option : run.search_space.enumerated())
    if (option.fqn() == t.fqn) allowed.push_back(fit_option_name(option.sharding_type, option.compute_kernel));
  const std::string name = t.fqn.substr(t.fqn.rfind('.') + 1);
  std::string out = fmt::format(
      "{}: its constraints allow only {}, which no rank holds (largest shard {}, largest free rank {})", t.fqn,
      join_text(allowed, ", "), storage_text(t.largest_shard), storage_text(f.largest_rank_free, t.largest_shard));
  std::vector<const OptionFit*> by_types, by_kernels, by_both;
  for (const auto& fit : t.fitting_if_unconstrained)
    (fit.excluded_by.size() > 1               ? by_both
     : fit.excluded_by[0] == "sharding_types" ? by_types
                                              : by_kernels)
        .push_back(&fit);
  bool first = true;
  const auto relaxation = [&](const std::vector<const OptionFit*>& fits, bool types, bool kernels) {
    std::vector<std::string> type_names, kernel_names;
    for (const OptionFit* fit : fits) {
      add_unique(type_names, name_of(kShardingTypeNames, fit->sharding_type));
      add_unique(kernel_names, name_of(kComputeKernelNames, fit->compute_kernel));
    }
    std::vector<std::string> parts;
    if (types) parts.push_back(fmt::format("{} to constraints.{}.sharding_types", alternatives(type_names), name));
    if (kernels) parts.push_back(fmt::format("{} to constraints.{}.compute_kernels", alternatives(kernel_names), name));
    const OptionFit& example = smallest_fit(fits);
    const char* lead = first ? "fix:" : "or: ";
    first = false;
    return fmt::format("\n     {} add {} (e.g. {}: {})", lead, join_text(parts, " and "),
                       fit_option_name(example.sharding_type, example.compute_kernel), shards_text(example));
  };
  if (!by_types.empty()) out += relaxation(by_types, true, false);
  if (!by_kernels.empty()) out += relaxation(by_kernels, false, true);
  if (by_types.empty() && by_kernels.empty()) out += relaxation(by_both, true, true);
  return out;
}

// The advice for one table none of whose options fits the largest free rank.
std::string table_fix(const TableShortfall& t, const PlanFailure& f, const PlanRun& run) {
  if (!t.fitting_if_unconstrained.empty()) return constraint_fix(t, f, run);
  if (!t.nearest) return t.fqn + ": has no option";
  const OptionFit& near = *t.nearest;
  std::string out = fmt::format("{}: its nearest option, {} ({}), needs {} per rank", t.fqn,
                                fit_option_name(near.sharding_type, near.compute_kernel), shards_text(near),
                                more_text(t.fix.more_per_rank));
  if (const std::string flags = cap_flags(t.fix); !flags.empty()) out += ": " + flags;
  return out;
}

// The advice when all ranks together lack storage for the smallest proposal.
std::string total_fix(const CapacityFix& fix, const PlanFailure& f) {
  std::string out =
      fmt::format("the smallest proposal needs {}, all ranks together have {} for the tables: {} in all, {} per rank",
                  storage_text(f.lowest_storage, fix.more_total), storage_text(f.global_available, fix.more_total),
                  more_text(fix.more_total), more_text(fix.more_per_rank));
  if (const std::string flags = cap_flags(fix); !flags.empty()) out += " (" + flags + ")";
  if (fix.world_size)
    out += fmt::format(", or at least {} devices of this size (--world-size {})", *fix.world_size, *fix.world_size);
  return out;
}

std::vector<std::string> fix_list(const PlanRun& run, const PlanFailure& f) {
  std::vector<std::string> fixes;
  for (const auto& t : f.tables) fixes.push_back(table_fix(t, f, run));
  if (f.total_fix) fixes.push_back(total_fix(*f.total_fix, f));
  if (f.tables.empty() && !f.total_fix) {
    std::string placement =
        "every table fits a rank and all ranks together hold the smallest proposal, but no proposal could "
        "be placed (see the last partitioner error): try another partitioner (--partitioner), more devices "
        "(--world-size, now " +
        std::to_string(run.topology.world_size) + ")";
    if (!f.constrained_tables.empty()) {
      // Named up to kConstrainedTablesNamed: a model of thousands of constrained
      // tables would otherwise get a hint thousands of names long.
      const std::size_t named = std::min(f.constrained_tables.size(), kConstrainedTablesNamed);
      const std::vector<std::string> names(f.constrained_tables.begin(),
                                           f.constrained_tables.begin() + static_cast<std::ptrdiff_t>(named));
      placement += ", or fewer constraints on " + join_text(names, ", ");
      if (f.constrained_tables.size() > named)
        placement += fmt::format(" and {} more tables", f.constrained_tables.size() - named);
    }
    fixes.push_back(placement);
  }
  const auto& reservation = run.result.reservation;
  const bool hbm_short = (f.total_fix && f.total_fix->more_total.hbm > 0) ||
                         std::any_of(f.tables.begin(), f.tables.end(), [](const TableShortfall& t) {
                           return t.fitting_if_unconstrained.empty() && t.fix.more_per_rank.hbm > 0;
                         });
  if (hbm_short && reservation && reservation->percentage > 0)
    fixes.push_back(
        fmt::format("a smaller storage reservation (--reservation-percentage, now {})", reservation->percentage));
  return fixes;
}

std::string numbered_fixes_text(const std::vector<std::string>& fixes) {
  std::string out = "Possible fixes:\n";
  for (std::size_t i = 0; i < fixes.size(); ++i) out += fmt::format("  {}) {}\n", i + 1, fixes[i]);
  return out;
}

std::string fixes_text(const PlanRun& run, const PlanFailure& f) { return numbered_fixes_text(fix_list(run, f)); }

// The fixed list of fixes, for a failure without fix data (a PlanResult made
// outside run_plan).
std::vector<std::string> generic_fix_list(const PlanRun& run) {
  return {fmt::format("more devices (world size {}) or devices with more memory (--world-size, --hbm-cap, --ddr-cap)",
                      run.topology.world_size),
          "a smaller model or batch size (--batch-size)", "a smaller storage reservation (--reservation-percentage)"};
}

std::string generic_fixes(const PlanRun& run) { return numbered_fixes_text(generic_fix_list(run)); }

// What `--partitioner optimizing`'s own search adds to a failure.
std::string option_search_text(const OptionSearchVerdict& v, const PlanFailure& f) {
  std::string out = fmt::format(
      "  --partitioner optimizing then searched all {} options of the {} tables from scratch: no placement it "
      "built fits the ranks\n",
      v.num_options, v.num_tables);
  if (!v.proof && !f.tables.empty())  // a table none of whose options fits any rank: proof enough
    return out + fmt::format("  and no plan exists: no option of {} fits a rank (above)\n", f.tables.front().fqn);
  if (!v.proof) return out + "  (no capacity argument proves that no plan exists; the search is not exhaustive)\n";
  const CapacityProof& p = *v.proof;
  const auto bytes = [](double b) { return bytes_text(static_cast<std::int64_t>(b)); };
  std::string argument;
  if (p.ddr_weight == 0)
    argument = fmt::format("the options with the least HBM need {} HBM in all, all ranks together hold {} HBM",
                           bytes(p.needed / p.hbm_weight), bytes(p.available / p.hbm_weight));
  else if (p.hbm_weight == 0)
    argument = fmt::format("the options with the least DDR need {} DDR in all, all ranks together hold {} DDR",
                           bytes(p.needed / p.ddr_weight), bytes(p.available / p.ddr_weight));
  else if (p.hbm_weight == p.ddr_weight)
    argument = fmt::format("the options with the least HBM + DDR need {} in all, all ranks together hold {}",
                           bytes(p.needed / p.ddr_weight), bytes(p.available / p.ddr_weight));
  else
    argument = fmt::format(
        "counting a byte of HBM as {:.4g} bytes of DDR, each table's cheapest option so counted needs {} in all, all "
        "ranks together hold {}",
        p.hbm_weight / p.ddr_weight, bytes(p.needed / p.ddr_weight), bytes(p.available / p.ddr_weight));
  return out + "  and no plan exists: " + argument + "\n";
}

}  // namespace

std::string explain_failure(const PlanRun& run) {
  if (run.enumeration_error) return "no sharding option: " + *run.enumeration_error + "\n";
  if (!run.result.failure) return "";
  const PlanFailure& f = *run.result.failure;
  if (f.stage == FailureStage::kCrash) return f.stage_reason + "\n";
  std::string out = fmt::format("no feasible plan ({}, after {} proposals)\n",
                                name_of(kPlannerErrorTypeNames, f.error_type), run.result.num_proposals);
  if (f.stage != FailureStage::kPlan) return out + "  " + f.stage_reason + "\n";
  for (const auto& t : f.tables)
    out += fmt::format("  {} needs {} in its smallest option; the largest free rank has {}\n", t.fqn,
                       storage_text(t.smallest_option), storage_text(f.largest_rank_free, t.smallest_option));
  out += fmt::format("  storage left for the tables on all ranks: {}; the smallest proposal needs {}\n",
                     storage_text(f.global_available, f.lowest_storage), storage_text(f.lowest_storage));
  if (f.last_partition_failure)
    out += "  last partitioner error: " + partition_failure_words(*f.last_partition_failure, run.search_space) + "\n";
  if (f.option_search) out += option_search_text(*f.option_search, f);
  return out + (f.has_fixes ? fixes_text(run, f) : generic_fixes(run));
}

std::vector<std::string> failure_fixes(const PlanRun& run) {
  if (run.enumeration_error || !run.result.failure) return {};
  const PlanFailure& f = *run.result.failure;
  if (f.stage != FailureStage::kPlan) return {};
  return f.has_fixes ? fix_list(run, f) : generic_fix_list(run);
}

nlohmann::ordered_json failure_json(const PlanRun& run) {
  nlohmann::ordered_json j;
  if (run.enumeration_error) {
    j["kind"] = "NO_SHARDING_OPTION";
    j["stage"] = "enumeration";
  } else if (run.result.failure) {
    j["kind"] = std::string(name_of(kPlannerErrorTypeNames, run.result.failure->error_type));
    j["stage"] = std::string(name_of(kFailureStageNames, run.result.failure->stage));
  } else {
    return nullptr;
  }
  j["message"] = explain_failure(run);
  return j;
}

nlohmann::ordered_json input_error_json(const InputError& error) {
  nlohmann::ordered_json diagnostics = nlohmann::ordered_json::array();
  for (const Diagnostic& d : error.diagnostics()) {
    nlohmann::ordered_json one;
    one["file"] = d.pos.file;
    one["line"] = d.pos.line;
    one["col"] = d.pos.col;
    one["key_path"] = d.key_path;
    one["message"] = d.message;
    diagnostics.push_back(std::move(one));
  }
  nlohmann::ordered_json j;
  j["kind"] = "BAD_INPUT";
  j["message"] = error.diagnostics().empty() ? std::string(error.what()) : error.diagnostics().front().format();
  j["diagnostics"] = std::move(diagnostics);
  return j;
}

}  // namespace shardplan
