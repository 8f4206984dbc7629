// Every reference case and every example in configs/ loads without a problem.
#include <catch2/catch.hpp>
#include <filesystem>

#include "common/units.h"
#include "config/loader.h"
#include "support/golden.h"

namespace fs = std::filesystem;
using namespace shardplan;

namespace {
std::vector<std::string> files_in(const fs::path& dir, std::string_view prefix, bool skip_goldens) {
  std::vector<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.rfind(prefix, 0) != 0) continue;
    if (skip_goldens && name.find(".golden.") != std::string::npos) continue;
    if (name.size() < 5 || (name.substr(name.size() - 5) != ".json" && name.substr(name.size() - 5) != ".yaml"))
      continue;
    out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("every reference case loads", "[config]") {
  auto dir = testing::cases_dir();
  if (!dir) return;
  auto cases = files_in(*dir, "case-", true);
  auto scale = files_in(fs::path(*dir) / "scale", "case-", true);
  cases.insert(cases.end(), scale.begin(), scale.end());
  REQUIRE(cases.size() >= 30);
  for (const auto& path : cases) {
    INFO(path);
    try {
      PlanningInput input = load_case(path);
      CHECK(input.topology.world_size > 0);
      CHECK(!input.model.modules.empty());
      for (const auto& module : input.model.modules)
        for (const auto& table : module.tables) CHECK(!table.feature_names.empty());
      CHECK(validate_file(path, std::nullopt) == InputKind::kCase);
    } catch (const InputError& e) {
      FAIL_CHECK(e.format());
    }
  }
}

TEST_CASE("a case with string bandwidths reads them as bytes/ms", "[config]") {
  auto dir = testing::cases_dir();
  if (!dir) return;
  PlanningInput input = load_case(*dir + "/case-custom-bandwidths-misc-ws16.json");
  // "2000 GB/s" = 2000 * 1024^3 bytes / 1000 ms.
  REQUIRE(input.topology.hbm_mem_bw.has_value());
  CHECK(*input.topology.hbm_mem_bw == 2000.0 * 1073741824.0 / 1000.0);
  REQUIRE(input.topology.hbm_cap.has_value());
  CHECK(*input.topology.hbm_cap == 80 * kGiB);
  CHECK(*input.topology.ddr_cap == kTiB);
  CHECK(input.model.batch_size == 2048);
  const auto& b_c = input.model.constraints.at("b_c");
  REQUIRE(b_c.cache_params.has_value());
  CHECK(*b_c.cache_params->load_factor == 0.25);
  CHECK(*b_c.cache_params->prefetch_pipeline);
  // An omitted feature_names is the table's own name.
  CHECK(input.model.modules[0].tables[1].feature_names == std::vector<std::string>{"b_b"});
}

TEST_CASE("every example in configs/ loads", "[config]") {
  auto configs = files_in(fs::path(SHARDPLAN_SOURCE_DIR) / "configs", "", false);
  for (const auto& path : configs) {
    INFO(path);
    try {
      InputKind kind = validate_file(path, std::nullopt);
      if (kind == InputKind::kCase) (void)load_case(path);
      if (kind == InputKind::kModel) (void)load_model(path);
      if (kind == InputKind::kTopology) (void)load_topology(path);
      if (kind == InputKind::kPlanner) (void)load_planner(path);
    } catch (const InputError& e) {
      FAIL_CHECK(e.format());
    }
  }
}
