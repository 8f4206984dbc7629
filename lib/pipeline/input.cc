#include "pipeline/input.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "common/checked_sum.h"
#include "common/python_format.h"
#include "document/document.h"
#include "document/node_reader.h"
#include "pipeline/partition.h"
#include "pipeline/schedule.h"
#include "pipeline/skip_check.h"

namespace shardplan::pipeline {

namespace {

using Node = YAML::Node;

const std::vector<std::string> kRootKeys{"layers", "input_bytes_per_sample", "skips", "batch_size", "devices",
                                         "options"};
const std::vector<std::string> kLayerKeys{"name",
                                          "param_bytes",
                                          "activation_bytes_per_sample",
                                          "fwd_ms_per_sample",
                                          "bwd_ms_per_sample",
                                          "fwd_ms",
                                          "bwd_ms",
                                          "bwd_input_ms_per_sample",
                                          "bwd_input_ms",
                                          "bwd_weight_ms_per_sample",
                                          "bwd_weight_ms",
                                          "batch_norm_features"};
const std::vector<std::string> kSkipKeys{"name", "stash", "pop", "bytes_per_sample"};
const std::vector<std::string> kDeviceKeys{"count", "memory_bytes"};
const std::vector<std::string> kOptionKeys{
    "chunks",     "checkpoint",       "deferred_batch_norm", "balance",      "stages",
    "balance_by", "partition_method", "balance_algorithm",   "memory_aware", "param_scale",
    "ddp",        "schedule",         "virtual_stages"};

// A value under `key`, or undefined when absent or null (docs/formats/pipeline.md: null = default).
Node given(NodeReader& r, const Node& map, const std::string& path, std::string_view key) {
  if (!map.IsDefined() || !map.IsMap()) return Node(YAML::NodeType::Undefined);
  Node n = r.field(map, path, key);
  if (n.IsDefined() && n.IsNull()) return Node(YAML::NodeType::Undefined);
  return n;
}

// A plain (unquoted) number, as JSON and YAML numbers are.
std::optional<double> plain_number(const Node& node) {
  if (!node.IsScalar() || node.Tag() == "!") return std::nullopt;
  std::string_view text = node.Scalar();
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// An integer >= 1 written as a number with no fraction (4 or 4.0; docs/formats/pipeline.md).
// shardplan's bound on a count (chunks, batch_size): it fits an int with room.
constexpr double kMaxPipelineCount = 1e9;

std::optional<int> positive_whole(const Node& node) {
  auto value = plain_number(node);
  if (!value || *value < 1 || std::floor(*value) != *value || *value > kMaxPipelineCount) return std::nullopt;
  return static_cast<int>(*value);
}

// A positive whole number past kMaxPipelineCount: valid for torch, too large here,
// which deserves its own message rather than torch's "must be a positive integer".
bool whole_past_limit(const Node& node) {
  auto value = plain_number(node);
  return value && std::floor(*value) == *value && *value > kMaxPipelineCount;
}

std::string past_limit_message(const Node& node) {
  return "too large: expected at most 1000000000 (shardplan's limit), found " + node.Scalar();
}

class PipelineReader {
 public:
  explicit PipelineReader(const std::string& file)
      : checks_(file, DiagnosticOrder::kReported), others_(file, DiagnosticOrder::kReported) {}

  PipelineInput read(const Node& root) {
    if (!checks_.expect_map(root, "")) finish();
    root_ = root;
    checks_.check_keys(root, "", kRootKeys);
    devices_ = given(checks_, root, "", "devices");
    if (devices_.IsDefined() && checks_.expect_map(devices_, "devices"))
      checks_.check_keys(devices_, "devices", kDeviceKeys);
    options_ = given(checks_, root, "", "options");
    if (options_.IsDefined() && checks_.expect_map(options_, "options"))
      checks_.check_keys(options_, "options", kOptionKeys);
    else
      options_ = Node(YAML::NodeType::Undefined);

    read_other_options();
    check_chunks();                          // 1
    check_checkpoint();                      // 2
    bool have_layers = check_layers_list();  // 3
    if (have_layers) {
      check_layers();  // 4
      check_skips();   // 5
    }
    check_batch_size();  // 6
    read_devices();
    if (have_layers) check_partitions();  // 7
    check_ddp();                          // 8
    check_schedule_fits();
    check_schedule_size();
    finish();
    return input_;
  }

 private:
  NodeReader checks_;  // the spec's checks, in its order
  NodeReader others_;  // every other malformed option, listed after them
  Node root_, devices_, options_;
  PipelineInput input_;
  bool chunks_ok_ = true, batch_ok_ = true, devices_ok_ = true, schedule_ok_ = true;
  std::vector<std::string> layer_names_;
  // Raw whole-batch times, divided by batch_size once it is known.
  std::vector<std::optional<double>> fwd_ms_, bwd_ms_, bwd_input_ms_, bwd_weight_ms_;
  std::string checkpoint_text_ = "except_last";  // the input's own checkpoint value, for messages

  Node option(std::string_view key) { return given(checks_, options_, "options", key); }

  [[noreturn]] void finish_with_errors() {
    std::vector<Diagnostic> all = checks_.diagnostics();
    all.insert(all.end(), others_.diagnostics().begin(), others_.diagnostics().end());
    throw InputError(std::move(all));
  }
  void finish() {
    if (!checks_.diagnostics().empty() || !others_.diagnostics().empty()) finish_with_errors();
  }

  void read_other_options() {
    auto& o = input_.options;
    auto read_bool = [&](std::string_view key, bool& out) {
      if (Node n = option(key); n.IsDefined())
        if (auto v = others_.boolean(n, join_key("options", key))) out = *v;
    };
    read_bool("deferred_batch_norm", o.deferred_batch_norm);
    read_bool("memory_aware", o.memory_aware);
    Node by = option("balance_by");
    Node method = option("partition_method");
    if (by.IsDefined() && method.IsDefined())
      others_.report(method, "options.partition_method",
                     "give balance_by or partition_method (DeepSpeed's name), not both");
    else if (Node n = by.IsDefined() ? by : method; n.IsDefined()) {
      std::string path = by.IsDefined() ? "options.balance_by" : "options.partition_method";
      if (auto v = others_.name(n, path, "balance_by", kBalanceByNames)) o.balance_by = *v;
    }
    if (Node n = option("balance_algorithm"); n.IsDefined())
      if (auto v = others_.name(n, "options.balance_algorithm", "balance_algorithm", kBalanceAlgorithmNames))
        o.balance_algorithm = *v;
    if (Node n = option("param_scale"); n.IsDefined())
      if (auto v = others_.number(n, "options.param_scale", Range::kNonNegative)) o.param_scale = *v;
    if (Node n = option("schedule"); n.IsDefined()) {
      if (auto v = others_.name(n, "options.schedule", "schedule", kScheduleKindNames))
        o.schedule = *v;
      else
        schedule_ok_ = false;
    }
    if (Node n = option("virtual_stages"); n.IsDefined()) {
      if (auto v = others_.integer(n, "options.virtual_stages", Range::kPositive)) {
        if (*v > 1 && !multi_stage_schedule(o.schedule) && schedule_ok_)
          others_.report(
              n, "options.virtual_stages",
              "virtual_stages > 1 needs a multi-stage schedule (interleaved_1f1b, interleaved_1f1b_megatron, "
              "interleaved_zero_bubble, zbv_zero_bubble or dualpipev), found schedule '" +
                  std::string(name_of(kScheduleKindNames, o.schedule)) + "'");
        else if (v_shaped_schedule(o.schedule) && *v != 2)
          others_.report(n, "options.virtual_stages",
                         "ValueError: ZBV requires exactly 2 stages per rank, but got " + std::to_string(*v) + "."),
              schedule_ok_ = false;
        else if (*v > 1024)
          others_.report(n, "options.virtual_stages",
                         "expected at most 1024 virtual stages, found " + std::to_string(*v));
        else
          o.virtual_stages = static_cast<int>(*v);
      } else {
        schedule_ok_ = false;
      }
    }
    // The V-shaped schedules always hold two stages per device.
    if (v_shaped_schedule(o.schedule) && !option("virtual_stages").IsDefined()) o.virtual_stages = 2;
    if (Node n = given(checks_, root_, "", "input_bytes_per_sample"); n.IsDefined())
      if (auto v = others_.size_bytes(n, "input_bytes_per_sample")) input_.input_bytes_per_sample = *v;
  }

  // Check 1 (Pipe: chunks must be a positive int).
  void check_chunks() {
    Node n = option("chunks");
    if (!n.IsDefined()) return;
    if (auto v = positive_whole(n))
      input_.options.chunks = *v;
    else {
      checks_.report(
          n, "options.chunks",
          whole_past_limit(n) ? past_limit_message(n) : "ValueError: number of chunks must be positive integer");
      chunks_ok_ = false;
    }
  }

  // Check 2.
  void check_checkpoint() {
    Node n = option("checkpoint");
    if (!n.IsDefined()) return;
    std::optional<CheckpointMode> mode;
    if (n.IsScalar()) {
      mode = parse_name(kCheckpointModeNames, n.Scalar());
      checkpoint_text_ = n.Scalar();
    } else {
      checkpoint_text_ = NodeReader::describe(n);
    }
    if (mode)
      input_.options.checkpoint = *mode;
    else
      checks_.report(n, "options.checkpoint",
                     "ValueError: checkpoint is not one of 'always', 'except_last', or 'never'");
  }

  // Check 3: Pipe partitions only an nn.Sequential.
  bool check_layers_list() {
    Node n = checks_.field(root_, "", "layers");
    if (n.IsDefined() && n.IsSequence()) return true;
    checks_.report(n.IsDefined() ? n : root_, "layers", "TypeError: module must be nn.Sequential to be partitioned");
    return false;
  }

  // Reads a byte count or count field of a layer (units allowed for bytes).
  std::optional<std::int64_t> layer_bytes(const Node& layer, const std::string& path, const std::string& name,
                                          std::string_view key, bool is_size) {
    Node n = given(checks_, layer, path, key);
    if (!n.IsDefined()) return 0;
    if (auto v = plain_number(n); v && *v < 0) {
      checks_.report(n, join_key(path, key), "ValueError: layer '" + name + "': " + std::string(key) + " must be >= 0");
      return std::nullopt;
    }
    return is_size ? checks_.size_bytes(n, join_key(path, key))
                   : checks_.integer(n, join_key(path, key), Range::kNonNegative);
  }

  std::optional<double> layer_ms(const Node& layer, const std::string& path, const std::string& name,
                                 std::string_view key) {
    Node n = given(checks_, layer, path, key);
    if (!n.IsDefined()) return std::nullopt;
    if (auto v = plain_number(n); v && *v < 0) {
      checks_.report(n, join_key(path, key), "ValueError: layer '" + name + "': " + std::string(key) + " must be >= 0");
      return std::nullopt;
    }
    std::optional<double> value = checks_.number(n, join_key(path, key), Range::kNonNegative);
    // Far above any real layer, and small enough that every sum and product of
    // times the plan forms stays finite (1e308 twice is infinity: no stage fits).
    if (value && *value > kMaxLayerMs) {
      checks_.report(n, join_key(path, key), "expected at most 1e12 (shardplan's limit), found " + n.Scalar());
      return std::nullopt;
    }
    return value;
  }

  // Check 4 and the layer fields.
  void check_layers() {
    Node layers = root_["layers"];
    std::vector<bool> is_map;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::string path = join_index("layers", i);
      const Node layer = layers[i];
      std::string name;
      if (checks_.expect_map(layer, path)) {
        checks_.check_keys(layer, path, kLayerKeys);
        Node n = checks_.field(layer, path, "name", true);
        if (n.IsDefined())
          if (auto v = checks_.string(n, join_key(path, "name"))) name = *v;
      }
      layer_names_.push_back(name);
      is_map.push_back(layer.IsMap());
    }
    std::set<std::string> seen;
    for (std::size_t i = 0; i < layer_names_.size(); ++i) {
      if (layer_names_[i].empty() || seen.insert(layer_names_[i]).second) continue;
      checks_.report(layers[i]["name"], join_key(join_index("layers", i), "name"),
                     "ValueError: module with duplicate children is not supported");
      break;
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
      Layer out;
      out.name = layer_names_[i];
      std::optional<double> fwd, bwd;
      if (is_map[i]) {
        const Node layer = layers[i];
        const std::string path = join_index("layers", i);
        for (auto [per_sample, whole] :
             {std::pair{"fwd_ms_per_sample", "fwd_ms"}, std::pair{"bwd_ms_per_sample", "bwd_ms"}})
          if (given(checks_, layer, path, per_sample).IsDefined() && given(checks_, layer, path, whole).IsDefined())
            checks_.report(layer[whole], join_key(path, whole),
                           "ValueError: layer '" + out.name + "': give " + per_sample + " or " + whole + ", not both");
        if (auto v = layer_bytes(layer, path, out.name, "param_bytes", true)) out.param_bytes = *v;
        if (auto v = layer_bytes(layer, path, out.name, "activation_bytes_per_sample", true))
          out.activation_bytes_per_sample = *v;
        if (auto v = layer_ms(layer, path, out.name, "fwd_ms_per_sample")) out.fwd_ms_per_sample = *v;
        fwd = layer_ms(layer, path, out.name, "fwd_ms");
        if (auto v = layer_ms(layer, path, out.name, "bwd_ms_per_sample")) out.bwd_ms_per_sample = *v;
        bwd = layer_ms(layer, path, out.name, "bwd_ms");
        for (auto [per_sample, whole] : {std::pair{"bwd_input_ms_per_sample", "bwd_input_ms"},
                                         std::pair{"bwd_weight_ms_per_sample", "bwd_weight_ms"}})
          if (given(checks_, layer, path, per_sample).IsDefined() && given(checks_, layer, path, whole).IsDefined())
            others_.report(layer[whole], join_key(path, whole),
                           "ValueError: layer '" + out.name + "': give " + per_sample + " or " + whole + ", not both");
        out.bwd_input_ms_per_sample = layer_ms(layer, path, out.name, "bwd_input_ms_per_sample");
        out.bwd_weight_ms_per_sample = layer_ms(layer, path, out.name, "bwd_weight_ms_per_sample");
        bwd_input_ms_.resize(i + 1);
        bwd_weight_ms_.resize(i + 1);
        bwd_input_ms_[i] = layer_ms(layer, path, out.name, "bwd_input_ms");
        bwd_weight_ms_[i] = layer_ms(layer, path, out.name, "bwd_weight_ms");
        if (auto v = layer_bytes(layer, path, out.name, "batch_norm_features", false)) out.batch_norm_features = *v;
      }
      fwd_ms_.push_back(fwd);
      bwd_ms_.push_back(bwd);
      input_.layers.push_back(out);
    }
  }

  // Check 5: skip connections (torchgpipe verify_skippables).
  void check_skips() {
    Node skips = given(checks_, root_, "", "skips");
    if (!skips.IsDefined()) return;
    if (!skips.IsSequence()) {
      checks_.report(skips, "skips", "expected a list, found " + NodeReader::describe(skips));
      return;
    }
    std::map<std::string, int> index;
    for (std::size_t l = 0; l < layer_names_.size(); ++l) index.emplace(layer_names_[l], static_cast<int>(l));
    std::vector<SkipDeclaration> names;
    bool complete = true;
    for (std::size_t i = 0; i < skips.size(); ++i) {
      const std::string path = join_index("skips", i);
      const Node skip = skips[i];
      if (!checks_.expect_map(skip, path)) {
        complete = false;
        continue;
      }
      checks_.check_keys(skip, path, kSkipKeys);
      SkipDeclaration entry;
      auto text = [&](std::string_view key, std::string& out) {
        Node n = checks_.field(skip, path, key, true);
        if (!n.IsDefined()) return false;
        auto v = checks_.string(n, join_key(path, key));
        if (v) out = *v;
        return v.has_value();
      };
      bool ok = text("name", entry.name);
      ok = text("stash", entry.stash) && ok;
      ok = text("pop", entry.pop) && ok;
      Skip out;
      out.name = entry.name;
      if (Node n = given(checks_, skip, path, "bytes_per_sample"); n.IsDefined()) {
        auto v = checks_.size_bytes(n, join_key(path, "bytes_per_sample"));
        if (v)
          out.bytes_per_sample = *v;
        else
          ok = false;
      }
      for (auto [key, layer] : {std::pair{"stash", &entry.stash}, std::pair{"pop", &entry.pop}}) {
        if (layer->empty()) continue;
        auto it = index.find(*layer);
        if (it == index.end()) {
          checks_.report(skip[key], join_key(path, key),
                         "ValueError: skip '" + entry.name + "' refers to unknown layer '" + *layer + "'");
          ok = false;
        } else {
          (std::string_view(key) == "stash" ? out.stash_layer : out.pop_layer) = it->second;
        }
      }
      complete = complete && ok;
      names.push_back(entry);
      input_.skips.push_back(out);
    }
    if (!complete) return;
    auto messages = unmatched_skips(layer_names_, names);
    if (messages.empty()) return;
    std::string joined;
    for (const auto& m : messages) joined += (joined.empty() ? "" : "; ") + m;
    checks_.report(skips, "skips", "TypeError: one or more pairs of stash and pop do not match: " + joined);
  }

  // Check 6.
  void check_batch_size() {
    Node n = checks_.field(root_, "", "batch_size");
    std::optional<int> value;
    if (n.IsDefined() && !n.IsNull()) value = positive_whole(n);
    if (!value) {
      checks_.report(n.IsDefined() ? n : root_, "batch_size",
                     n.IsDefined() && whole_past_limit(n) ? past_limit_message(n)
                                                          : "ValueError: batch_size must be a positive integer");
      batch_ok_ = false;
      return;
    }
    input_.batch_size = *value;
    for (std::size_t l = 0; l < input_.layers.size(); ++l) {
      if (fwd_ms_[l]) input_.layers[l].fwd_ms_per_sample = *fwd_ms_[l] / *value;
      if (bwd_ms_[l]) input_.layers[l].bwd_ms_per_sample = *bwd_ms_[l] / *value;
      if (l < bwd_input_ms_.size() && bwd_input_ms_[l])
        input_.layers[l].bwd_input_ms_per_sample = *bwd_input_ms_[l] / *value;
      if (l < bwd_weight_ms_.size() && bwd_weight_ms_[l])
        input_.layers[l].bwd_weight_ms_per_sample = *bwd_weight_ms_[l] / *value;
    }
    check_byte_totals();
  }

  void read_devices() {
    if (!devices_.IsDefined()) {
      checks_.report(root_, "devices", "missing required key 'devices'");
      devices_ok_ = false;
      return;
    }
    if (!devices_.IsMap()) {
      devices_ok_ = false;
      return;
    }
    Node count = checks_.field(devices_, "devices", "count", true);
    if (!count.IsDefined())
      devices_ok_ = false;
    else if (auto v = checks_.integer(count, "devices.count", Range::kPositive); v && *v <= 1000000)
      input_.device_count = static_cast<int>(*v);
    else {
      if (v) checks_.report(count, "devices.count", "expected at most 1000000 devices, found " + std::to_string(*v));
      devices_ok_ = false;
    }
    if (Node n = given(checks_, devices_, "devices", "memory_bytes"); n.IsDefined())
      input_.memory_bytes = others_.size_bytes(n, "devices.memory_bytes");
  }

  // Check 7: torchgpipe's split_module / blockpartition checks, first failure only.
  void check_partitions() {
    const int layers = static_cast<int>(input_.layers.size());
    const bool interleaved = multi_stage_schedule(input_.options.schedule);
    const int v = interleaved ? input_.options.virtual_stages : 1;
    const std::string devices = std::to_string(input_.device_count);
    if (Node n = option("balance"); n.IsDefined()) {
      auto balance = checks_.list<std::int64_t>(n, "options.balance", false, [&](const Node& e, const std::string& p) {
        auto value = checks_.integer(e, p);
        if (value && (*value > 1000000000 || *value < -1000000000)) {
          checks_.report(e, p, "integer out of range, found " + std::to_string(*value));
          return std::optional<std::int64_t>();
        }
        return value;
      });
      if (!balance) return;
      std::vector<int> values(balance->begin(), balance->end());
      std::int64_t sum = 0;
      for (int b : values) sum += b;
      const int partitions = static_cast<int>(values.size());
      if (sum != layers) {
        checks_.report(n, "options.balance",
                       "ValueError: module and sum of balance have different length (module: " +
                           std::to_string(layers) + ", sum of balance: " + std::to_string(sum) + ")");
      } else if (std::any_of(values.begin(), values.end(), [](int b) { return b <= 0; })) {
        checks_.report(
            n, "options.balance",
            "ValueError: all balance numbers must be positive integer (balance: " + python_int_list(values) + ")");
      } else if (interleaved && partitions % v != 0) {
        checks_.report(n, "options.balance",
                       "ValueError: " + std::string(name_of(kScheduleKindNames, input_.options.schedule)) +
                           " needs virtual_stages (" + std::to_string(v) + ") stages per device, found " +
                           std::to_string(partitions) + " stages");
      } else if (devices_ok_ && partitions / v > input_.device_count) {
        checks_.report(n, "options.balance",
                       "IndexError: too few devices to hold given partitions (devices: " + devices +
                           ", partitions: " + std::to_string(partitions / v) + ")");
      } else {
        input_.options.balance = values;
      }
      return;
    }
    Node stages = option("stages");
    std::int64_t partitions = 0;
    if (stages.IsDefined()) {
      auto value = checks_.integer(stages, "options.stages");
      if (!value) return;
      partitions = *value;
    } else {
      if (!devices_ok_) return;
      partitions = input_.device_count;
    }
    const Node& at = stages.IsDefined() ? stages : devices_["count"];
    const std::string path = stages.IsDefined() ? "options.stages" : "devices.count";
    if (partitions < 1) {
      checks_.report(at, path,
                     "ValueError: partitions must be a positive integer (" + std::to_string(partitions) + " < 1)");
    } else if (layers < partitions * v) {
      checks_.report(at, path,
                     "ValueError: sequence is shorter than intended partitions (" + std::to_string(layers) + " < " +
                         std::to_string(partitions * v) + ")");
    } else if (devices_ok_ && partitions > input_.device_count) {
      checks_.report(at, path,
                     "IndexError: too few devices to hold given partitions (devices: " + devices +
                         ", partitions: " + std::to_string(partitions) + ")");
    } else if (balancing_work_too_large(layers, partitions * v)) {
      checks_.report(at, path,
                     "too large: balancing " + std::to_string(layers) + " layers into " +
                         std::to_string(partitions * v) +
                         " stages needs layers x stages <= " + std::to_string(kMaxBalanceWork) + " (found " +
                         std::to_string(static_cast<std::int64_t>(layers) * partitions * v) +
                         "); give options.balance, balance_by 'uniform', or fewer stages");
    } else if (stages.IsDefined()) {
      input_.options.stages = static_cast<int>(partitions);
    }
  }

  // The documented bound on balancing work (kMaxBalanceWork, partition.h).
  bool balancing_work_too_large(int layers, std::int64_t stages) const {
    if (input_.options.balance_by == BalanceBy::kUniform) return false;
    return static_cast<std::int64_t>(layers) * stages > kMaxBalanceWork;
  }

  // Check 8: Pipe documents that DDP may wrap it only without checkpointing.
  void check_ddp() {
    Node n = option("ddp");
    if (!n.IsDefined()) return;
    auto value = others_.boolean(n, "options.ddp");
    if (!value) return;
    input_.options.ddp = *value;
    // The message names the input's own value, even when it is not a valid mode (torch does).
    if (*value && checkpoint_text_ != "never")
      checks_.report(n, "options.ddp",
                     "ValueError: DistributedDataParallel can wrap Pipe only when checkpoint='never' (got '" +
                         checkpoint_text_ + "')");
  }

  // torch's own refusals (ScheduleInterleaved1F1B's rounds, ZBV's two stages per rank,
  // DualPipeV's micro-batch minimum) and Megatron-LM's groups of one micro-batch per device.
  void check_schedule_fits() {
    const auto& o = input_.options;
    if (!multi_stage_schedule(o.schedule) || !schedule_ok_ || !chunks_ok_ || !batch_ok_ || input_.layers.empty())
      return;
    int devices = 0;
    if (o.balance)
      devices = static_cast<int>(o.balance->size()) / o.virtual_stages;
    else if (o.stages)
      devices = *o.stages;
    else if (devices_ok_)
      devices = input_.device_count;
    if (devices <= 0) return;
    const int per_chunk = (input_.batch_size + o.chunks - 1) / o.chunks;
    const int micro_batches = (input_.batch_size + per_chunk - 1) / per_chunk;
    if (auto refusal = schedule_refusal(o.schedule, micro_batches, devices, o.virtual_stages)) {
      Node at = option("schedule");
      others_.report(at.IsDefined() ? at : root_, "options.schedule", *refusal);
    }
  }

  // The schedule's (micro-batch, stage) pairs within kMaxScheduleSteps (schedule.h),
  // checked before any balancing or simulation.
  void check_schedule_size() {
    const auto& o = input_.options;
    if (!chunks_ok_ || !batch_ok_ || input_.layers.empty()) return;
    std::int64_t stages = 0;
    if (o.balance)
      stages = static_cast<std::int64_t>(o.balance->size());
    else if (o.stages)
      stages = static_cast<std::int64_t>(*o.stages) * o.virtual_stages;
    else if (devices_ok_)
      stages = static_cast<std::int64_t>(input_.device_count) * o.virtual_stages;
    if (stages <= 0) return;
    const int per_chunk = (input_.batch_size + o.chunks - 1) / o.chunks;
    const std::int64_t micro_batches = (input_.batch_size + per_chunk - 1) / per_chunk;
    if (micro_batches * stages <= kMaxScheduleSteps) return;
    Node at = option("chunks");
    others_.report(at.IsDefined() ? at : root_, "options.chunks",
                   "too large: " + std::to_string(micro_batches) + " micro-batches on " + std::to_string(stages) +
                       " stages make " + std::to_string(micro_batches * stages) +
                       " schedule steps; shardplan's limit is " + std::to_string(kMaxScheduleSteps) +
                       " (micro-batches x stages): give fewer chunks");
  }

  // Every byte count the plan adds up (parameters times param_scale; inputs, layer
  // outputs, skips and BatchNorm buffers times the batch, twice for recomputation)
  // must stay below 2^62, so no sum or product in the planner can wrap.
  void check_byte_totals() {
    constexpr std::int64_t kLimit = std::int64_t{1} << 62;
    const std::int64_t batch = input_.batch_size;
    const double scale = std::max(input_.options.param_scale, 1.0);
    auto too_large = [&](const Node& at, const std::string& path, const std::string& what) {
      others_.report(
          at, path,
          "too large: " + what + " exceed 2^62 bytes (" + std::to_string(kLimit) + "), the most a plan adds up");
    };
    Node layers = root_["layers"];
    std::int64_t params = 0;
    for (std::size_t l = 0; l < input_.layers.size(); ++l) {
      auto sum = add_or_overflow(params, input_.layers[l].param_bytes);
      if (!sum || static_cast<double>(*sum) * scale >= static_cast<double>(kLimit)) {
        too_large(layers[l]["param_bytes"], join_key(join_index("layers", l), "param_bytes"),
                  "the parameter bytes of layers 0.." + std::to_string(l) + " times param_scale");
        return;
      }
      params = *sum;
    }
    // Per sample: the model input, every layer output, every skip, counted twice
    // (stored and re-materialised), times the batch.
    auto within = [&](std::int64_t per_sample) {
      auto twice = mul_or_overflow(per_sample, 2);
      return twice && mul_or_overflow(*twice, batch) && *mul_or_overflow(*twice, batch) < kLimit;
    };
    std::int64_t per_sample = input_.input_bytes_per_sample;
    if (!within(per_sample)) {
      too_large(root_["input_bytes_per_sample"], "input_bytes_per_sample", "the input bytes times the batch");
      return;
    }
    for (std::size_t l = 0; l < input_.layers.size(); ++l) {
      auto sum = add_or_overflow(per_sample, input_.layers[l].activation_bytes_per_sample);
      auto bn = mul_or_overflow(input_.layers[l].batch_norm_features, 8);
      if (sum && bn) sum = add_or_overflow(*sum, *bn);
      if (!sum || !bn || !within(*sum)) {
        too_large(layers[l], join_index("layers", l),
                  "the activation bytes of layers 0.." + std::to_string(l) + " times the batch");
        return;
      }
      per_sample = *sum;
    }
    Node skips = root_["skips"];
    for (std::size_t k = 0; k < input_.skips.size(); ++k) {
      auto sum = add_or_overflow(per_sample, input_.skips[k].bytes_per_sample);
      if (!sum || !within(*sum)) {
        too_large(skips[k]["bytes_per_sample"], join_key(join_index("skips", k), "bytes_per_sample"),
                  "the activation and skip bytes times the batch");
        return;
      }
      per_sample = *sum;
    }
  }
};

}  // namespace

PipelineInput parse_pipeline_input(const std::string& file, std::string_view text) {
  Document doc = parse_document(file, text);
  return PipelineReader(doc.file).read(doc.root);
}

PipelineInput read_pipeline_input(const std::string& path) {
  // A JSON file is first read without positions (about three times faster on
  // models of thousands of layers); only a file with problems is read again to
  // say where they are.
  Document fast = read_document(path, Positions::kOptional);
  if (fast.has_positions) return PipelineReader(fast.file).read(fast.root);
  try {
    return PipelineReader(fast.file).read(fast.root);
  } catch (const InputError&) {
    Document doc = read_document(path, Positions::kNeeded);
    return PipelineReader(doc.file).read(doc.root);
  }
}

}  // namespace shardplan::pipeline
