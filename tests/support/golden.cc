#include "support/golden.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace fs = std::filesystem;

namespace shardplan::testing {

std::optional<std::string> cases_dir() {
  fs::path dir = fs::path(SHARDPLAN_SOURCE_DIR) / ".." / "shared" / "cases";
  if (fs::is_directory(dir)) return fs::canonical(dir).string();
  const char* ci = std::getenv("CI");
  if (ci && std::string(ci) == "true") {
    FAIL("CI=true but ../shared/cases is missing at " << dir.string() << ": the parity tests cannot run");
  }
  WARN("\n*** ../shared/cases not found (" << dir.string() << "): PARITY TESTS SKIPPED ***\n");
  note_parity_skipped();
  return std::nullopt;
}

namespace {
bool& parity_skipped_flag() {
  static bool skipped = false;
  return skipped;
}
}  // namespace

void note_parity_skipped() { parity_skipped_flag() = true; }

bool parity_skipped() { return parity_skipped_flag(); }

std::vector<GoldenCase> golden_cases(bool include_scale) {
  std::vector<GoldenCase> out;
  auto dir = cases_dir();
  if (!dir) return out;
  std::vector<fs::path> dirs{fs::path(*dir)};
  if (include_scale) dirs.push_back(fs::path(*dir) / "scale");
  for (const auto& d : dirs) {
    if (!fs::is_directory(d)) continue;
    for (const auto& entry : fs::directory_iterator(d)) {
      std::string file = entry.path().filename().string();
      const std::string suffix = ".golden.json";
      if (file.rfind("case-", 0) != 0 || file.size() <= suffix.size() ||
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      std::string stem = file.substr(0, file.size() - suffix.size());
      fs::path case_path = d / (stem + ".json");
      if (!fs::exists(case_path)) continue;
      out.push_back({stem.substr(5), case_path.string(), entry.path().string()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const GoldenCase& a, const GoldenCase& b) { return a.golden_path < b.golden_path; });
  return out;
}

nlohmann::json load_golden(const GoldenCase& c) {
  std::ifstream in(c.golden_path);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

namespace {
std::string gunzip(const std::string& path) {
  std::string command = "gzip -dc '" + path + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe != nullptr);
  std::string data;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) data.append(buffer, n);
  return data;
}
}  // namespace

nlohmann::json expand_shards(const nlohmann::json& shards) {
  if (shards.is_array()) return shards;
  nlohmann::json out = nlohmann::json::array();
  const auto& profiles = shards.at("profiles");
  const auto& fields = shards.at("row_fields");
  for (const auto& row : shards.at("shards")) {
    nlohmann::json shard = profiles.at(row.at(0).get<std::size_t>());
    nlohmann::json expanded;
    expanded["sizes"] = shard.at("sizes");
    expanded["offsets"] = {row.at(1), row.at(2)};
    expanded["perf"] = shard.at("perf");
    expanded["storage"] = shard.at("storage");
    for (std::size_t i = 3; i < fields.size() && i < row.size(); ++i)
      expanded[fields.at(i).get<std::string>()] = row.at(i);
    out.push_back(expanded);
  }
  return out;
}

nlohmann::json golden_options(const GoldenCase& c, const nlohmann::json& golden) {
  nlohmann::json options;
  if (golden.contains("options")) {
    options = golden.at("options");
  } else if (golden.contains("options_file")) {
    fs::path sidecar = fs::path(c.golden_path).parent_path() / golden.at("options_file").get<std::string>();
    options = nlohmann::json::parse(gunzip(sidecar.string()));
  } else {
    return nlohmann::json::array();
  }
  for (auto& option : options) option["shards"] = expand_shards(option.at("shards"));
  return options;
}

ShardDims shard_dims(const nlohmann::json& pair) {
  const auto values = pair.get<std::vector<std::int64_t>>();
  if (values.size() != 2) throw std::runtime_error("expected [rows, cols], found " + pair.dump());
  return {values[0], values[1]};
}

ShardingOption option_from_golden(const nlohmann::json& o) {
  ShardingOption opt;
  opt.name = o.at("name").get<std::string>();
  opt.path = o.at("path").get<std::string>();
  opt.tensor_shape = o.at("tensor_shape").get<std::vector<std::int64_t>>();
  opt.tensor_element_size = o.at("tensor_element_size").get<int>();
  opt.input_lengths = o.at("input_lengths").get<std::vector<double>>();
  opt.sharding_type = *parse_name(kShardingTypeNames, o.at("sharding_type").get<std::string>());
  opt.compute_kernel = *parse_name(kComputeKernelNames, o.at("compute_kernel").get<std::string>());
  opt.partition_by = *parse_name(kPartitionByNames, o.at("partition_by").get<std::string>());
  opt.is_pooled = o.at("is_pooled").get<bool>();
  opt.is_weighted = o.value("is_weighted", false);
  opt.module_kind = opt.is_pooled ? ModuleKind::kEmbeddingBag : ModuleKind::kEmbedding;
  if (!o.at("cache_load_factor").is_null()) {
    CacheParams cp;
    cp.load_factor = o.at("cache_load_factor").get<double>();
    opt.cache_params = cp;
  }
  for (const auto& s : expand_shards(o.at("shards"))) {
    Shard shard;
    shard.size = shard_dims(s.at("sizes"));
    shard.offset = shard_dims(s.at("offsets"));
    const auto& p = s.at("perf");
    shard.perf =
        Perf{p.at("fwd_compute").get<double>(), p.at("fwd_comms").get<double>(), p.at("bwd_compute").get<double>(),
             p.at("bwd_comms").get<double>(), p.at("prefetch_compute").get<double>()};
    shard.storage =
        Storage{s.at("storage").at("hbm").get<std::int64_t>(), s.at("storage").at("ddr").get<std::int64_t>()};
    if (s.contains("rank")) shard.rank = s.at("rank").get<int>();
    opt.shards.push_back(std::move(shard));
  }
  return opt;
}

Topology topology_from_golden(const nlohmann::json& t) {
  Topology topo;
  topo.world_size = t.at("world_size").get<int>();
  topo.local_world_size = t.at("local_world_size").get<int>();
  topo.compute_device = *parse_name(kComputeDeviceNames, t.at("compute_device").get<std::string>());
  topo.hbm_mem_bw = t.at("hbm_mem_bw").get<double>();
  topo.ddr_mem_bw = t.at("ddr_mem_bw").get<double>();
  topo.hbm_to_ddr_mem_bw = t.at("hbm_to_ddr_mem_bw").get<double>();
  topo.intra_host_bw = t.at("intra_host_bw").get<double>();
  topo.inter_host_bw = t.at("inter_host_bw").get<double>();
  topo.bwd_compute_multiplier = t.at("bwd_compute_multiplier").get<double>();
  topo.weighted_feature_bwd_compute_multiplier = t.at("weighted_feature_bwd_compute_multiplier").get<double>();
  topo.uneven_sharding_perf_multiplier = t.at("uneven_sharding_perf_multiplier").get<double>();
  int rank = 0;
  for (const auto& d : t.at("devices"))
    topo.devices.push_back(
        DeviceHardware{rank++, Storage{d.at("hbm").get<std::int64_t>(), d.at("ddr").get<std::int64_t>()}, Perf{}});
  return topo;
}

void check_every_case(const std::vector<GoldenCase>& cases, const std::string& what,
                      const std::function<std::string(const GoldenCase&)>& compare) {
  int matched = 0;
  for (const auto& c : cases) {
    std::string diff;
    try {
      diff = compare(c);
    } catch (const std::exception& e) {
      diff = std::string("exception: ") + e.what();
    }
    if (diff.empty())
      ++matched;
    else
      FAIL_CHECK("case " << c.name << ": " << diff);
  }
  WARN(what << ": " << matched << "/" << cases.size() << " cases match torchrec");
  CHECK(matched == static_cast<int>(cases.size()));
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool close_enough(double a, double b, double rel) {
  if (std::fabs(a) <= 1e-15 && std::fabs(b) <= 1e-15) return true;
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace shardplan::testing
