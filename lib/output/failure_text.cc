#include "output/failure_text.h"

#include <fmt/format.h>

#include "common/units.h"

namespace shardplan {

namespace {
std::string storage_text(const Storage& s) {
  return format_bytes(static_cast<double>(s.hbm)) + " HBM + " + format_bytes(static_cast<double>(s.ddr)) + " DDR";
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
                       storage_text(t.smallest_option), storage_text(f.largest_rank_free));
  out += fmt::format("  storage left for the tables on all ranks: {}; the smallest proposal needs {}\n",
                     storage_text(f.global_available), storage_text(f.lowest_storage));
  if (!f.last_partition_error.empty()) out += "  last partitioner error: " + f.last_partition_error + "\n";
  out += fmt::format(
      "Possible fixes:\n"
      "  1) more devices (world size {}) or devices with more memory (--world-size, --hbm-cap)\n"
      "  2) a smaller model or batch size (--batch-size)\n"
      "  3) a smaller storage reservation (--reservation-percentage)\n"
      "  4) fewer constraints on the tables named above\n",
      run.topology.world_size);
  return out;
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
