#include "planner/perf_estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "planner/constants.h"
#include "planner/kernel_bandwidth.h"
#include "planner/perf_constants.h"

namespace shardplan {

namespace pc = perf_constants;

namespace {

// Sum over features of pooling_factor x num_poolings x batch_size, in feature order
// (each product evaluated left to right, as torchrec does).
double sum_inputs(const WallTimeInputs& in) {
  double sum = 0;
  for (std::size_t i = 0; i < in.input_lengths.size(); ++i)
    sum += in.input_lengths[i] * in.num_poolings[i] * static_cast<double>(in.batch_sizes[i]);
  return sum;
}

// Pooled outputs: one per pooling per sample; sequence outputs: one per lookup.
double sum_outputs(const WallTimeInputs& in, double batch_inputs) {
  if (!in.is_pooled) return batch_inputs;
  double sum = 0;
  for (std::size_t i = 0; i < in.num_poolings.size(); ++i)
    sum += in.num_poolings[i] * static_cast<double>(in.batch_sizes[i]);
  return sum;
}

// Index bytes read; weighted features read a weight beside each index.
double input_read_size(const WallTimeInputs& in, double scaled_inputs) {
  double size = std::ceil(scaled_inputs * in.input_data_type_size);
  if (in.is_weighted) size *= 2;
  return size;
}

double bw(const WallTimeInputs& in, int world_size, int local_world_size, CollectiveType c) {
  return comms_bandwidth(in.intra_host_bw, in.inter_host_bw, world_size, local_world_size, c);
}

// Backward compute shared by every sharding type; the weighted-gradient kernel is
// added on top (torchrec's bwd_compute + bwd_grad_indice_weights_kernel).
double bwd_compute(const WallTimeInputs& in, double fwd_compute) {
  double grad_indice_weights = in.is_weighted ? fwd_compute * pc::kWeightedKernelMultiplier : 0;
  double compute = fwd_compute * in.bwd_compute_multiplier;
  if (in.is_weighted) compute = compute * in.weighted_feature_bwd_compute_multiplier;
  return compute + grad_indice_weights;
}

// torchrec's _get_expected_cache_prefetch_time. No fetches cost exactly 0 (as in
// torchrec for any positive bandwidth) without dividing, so no NaN on a 0 bandwidth.
double prefetch_time(const WallTimeInputs& in, double cache_fetches, std::int64_t emb_dim) {
  if (cache_fetches == 0) return 0;
  return cache_fetches * static_cast<double>(emb_dim) * in.table_data_type_size / in.hbm_to_ddr_mem_bw;
}

// torchrec's _get_tw_sharding_perf (also column_wise and table_column_wise).
Perf tw_perf(const WallTimeInputs& in, std::int64_t emb_dim) {
  const double ws = in.world_size;
  const double dim = static_cast<double>(emb_dim);
  const double batch_inputs = sum_inputs(in);
  const double batch_outputs = sum_outputs(in, batch_inputs);
  const double read = input_read_size(in, batch_inputs * ws);
  // The TBE kernel reads at least 32 columns per row.
  const double lookup =
      batch_inputs * ws * static_cast<double>(std::max(emb_dim, pc::kMinLookupEmbDim)) * in.table_data_type_size;
  const double fwd_output = batch_outputs * ws * dim * in.fwd_a2a_comm_data_type_size;
  const double bwd_output = batch_outputs * ws * dim * in.bwd_a2a_comm_data_type_size;
  double block_penalty = 1;
  if (emb_dim < pc::kFullBlockEmbDim) block_penalty = emb_dim >= 64 ? pc::kHalfBlockPenalty : pc::kQuarterBlockPenalty;
  const double comms_bw = bw(in, in.world_size, in.local_world_size, CollectiveType::kAllToAll);
  Perf perf;
  perf.fwd_comms = fwd_output / comms_bw;
  perf.fwd_compute = (read + lookup + fwd_output) * block_penalty / in.device_bw;
  if (in.is_inference) return perf;  // forward only
  perf.bwd_comms = bwd_output / comms_bw;
  perf.bwd_compute = bwd_compute(in, perf.fwd_compute);
  perf.prefetch_compute = prefetch_time(in, in.expected_cache_fetches, emb_dim);
  return perf;
}

// torchrec's _get_rw_sharding_perf: every rank sees 1/world_size of the lookups.
Perf rw_perf(const WallTimeInputs& in, std::int64_t emb_dim) {
  const double ws = in.world_size;
  const double dim = static_cast<double>(emb_dim);
  const double batch_inputs = sum_inputs(in) / ws;
  const double batch_outputs = sum_outputs(in, batch_inputs);
  const double read = input_read_size(in, batch_inputs * ws);
  const double lookup = batch_inputs * ws * dim * in.table_data_type_size;
  // Pooled outputs go through reduce-scatter, sequence outputs through all-to-all.
  const double fwd_output = in.is_pooled ? batch_outputs * ws * dim * in.fwd_sr_comm_data_type_size
                                         : batch_outputs * ws * dim * in.fwd_a2a_comm_data_type_size;
  const double bwd_output = in.is_pooled ? batch_outputs * ws * dim * in.bwd_sr_comm_data_type_size
                                         : batch_outputs * ws * dim * in.bwd_a2a_comm_data_type_size;
  Perf perf;
  perf.fwd_comms = fwd_output / bw(in, in.world_size, in.local_world_size, CollectiveType::kReduceScatter);
  perf.fwd_compute = (read + lookup + fwd_output) / in.device_bw;
  if (in.is_inference) return perf;  // forward only
  const double bwd_comms = bwd_output / bw(in, in.world_size, in.local_world_size, CollectiveType::kAllGather);
  const double batched_copy = bwd_output * pc::kBatchedCopyPerfFactor / in.device_bw;
  perf.bwd_compute = bwd_compute(in, perf.fwd_compute);
  perf.bwd_comms = bwd_comms + batched_copy;
  perf.prefetch_compute = prefetch_time(in, in.expected_cache_fetches / ws, emb_dim);
  return perf;
}

// torchrec's _get_twrw_sharding_perf (also grid_shard): rows split over one host,
// reduce-scatter within the host then all-to-all between hosts. torchrec does not
// pass is_inference here, so inference still costs the backward pass.
Perf twrw_perf(const WallTimeInputs& in, std::int64_t emb_dim) {
  const double ws = in.world_size;
  const double lws = in.local_world_size;
  const double dim = static_cast<double>(emb_dim);
  const double batch_inputs = sum_inputs(in) / lws;
  const double batch_outputs = sum_outputs(in, batch_inputs);
  const double read = input_read_size(in, batch_inputs * ws);
  const double lookup = batch_inputs * ws * dim * in.table_data_type_size;
  const double fwd_output = batch_outputs * ws * dim * in.fwd_sr_comm_data_type_size;
  const double bwd_output = batch_outputs * ws * dim * in.bwd_sr_comm_data_type_size;
  const bool multi_host = in.world_size > in.local_world_size;
  // The inter-host process group has one rank per host.
  const double hosts = ws / lws;
  const int host_group = static_cast<int>(hosts);
  Perf perf;
  perf.fwd_comms = fwd_output / bw(in, in.local_world_size, in.local_world_size, CollectiveType::kReduceScatter);
  if (multi_host) {
    const double inter = batch_outputs * hosts * dim * in.fwd_a2a_comm_data_type_size;
    perf.fwd_comms += inter / bw(in, host_group, 1, CollectiveType::kAllToAll);
  }
  perf.fwd_compute = (read + lookup + fwd_output) / in.device_bw;
  double bwd_comms = bwd_output / bw(in, in.local_world_size, in.local_world_size, CollectiveType::kAllGather);
  if (multi_host) {
    const double inter = batch_outputs * hosts * dim * in.bwd_a2a_comm_data_type_size;
    bwd_comms += inter / bw(in, host_group, 1, CollectiveType::kAllToAll);
  }
  const double batched_copy = bwd_output * pc::kBatchedCopyPerfFactor / in.device_bw;
  perf.bwd_compute = bwd_compute(in, perf.fwd_compute);
  perf.bwd_comms = bwd_comms + batched_copy;
  perf.prefetch_compute = prefetch_time(in, in.expected_cache_fetches / lws, emb_dim);
  return perf;
}

// torchrec's _get_dp_sharding_perf: local lookups, then an all-reduce of the whole
// table's gradient and the optimizer over it. torchrec ignores is_inference here.
Perf dp_perf(const WallTimeInputs& in, std::int64_t rows, std::int64_t emb_dim) {
  const double dim = static_cast<double>(emb_dim);
  const double batch_inputs = sum_inputs(in);
  const double batch_outputs = sum_outputs(in, batch_inputs);
  const double read = input_read_size(in, batch_inputs);
  const double lookup = batch_inputs * dim * in.table_data_type_size;
  const double output = batch_outputs * dim * in.table_data_type_size;
  // torchrec multiplies integers here (exact), then converts once.
  const double table_size = static_cast<double>(rows * emb_dim * static_cast<std::int64_t>(in.table_data_type_size));
  const double fwd_compute = (read + lookup + output) / in.device_bw;
  const double num_nodes = std::min(static_cast<double>(in.world_size) / in.local_world_size, 2.0);
  const double comms_bw = bw(in, in.world_size, in.local_world_size, CollectiveType::kAllReduce);
  // Ring all-reduce moves 2(n-1)/n of the data (NCCL), n capped at 2 nodes...
  double all_reduce = table_size * (2 * num_nodes - 1) / num_nodes / comms_bw;
  // ...and beyond two hosts the inter-host links double the cost.
  if (in.world_size > 2 * in.local_world_size) all_reduce *= 2;
  const double optimizer = table_size * pc::kDpElementwiseKernelsPerfFactor / in.device_bw;
  Perf perf;
  perf.fwd_compute = fwd_compute;
  perf.bwd_compute = bwd_compute(in, fwd_compute);
  perf.bwd_comms = all_reduce + optimizer;
  return perf;
}

const ModuleConfig* find_module(const ShardingOption& option, const ModelConfig& model) {
  const auto index = static_cast<std::size_t>(option.module_index);
  if (index < model.modules.size() && model.modules[index].path == option.path) return &model.modules[index];
  for (const auto& module : model.modules)
    if (module.path == option.path) return &module;
  return nullptr;
}

}  // namespace

Perf shard_wall_time(const WallTimeInputs& in, std::int64_t rows, std::int64_t cols) {
  switch (in.sharding_type) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      return tw_perf(in, cols);
    case ShardingType::kRowWise:
      return rw_perf(in, cols);
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard:
      return twrw_perf(in, cols);
    case ShardingType::kDataParallel:
      return dp_perf(in, rows, cols);
  }
  throw std::logic_error("unknown sharding type");
}

bool perf_is_weighted(const ShardingOption& option, const EstimatorContext& context) {
  // torchrec reads EmbeddingBagCollection.is_weighted() for pooled modules: the
  // config marks a module weighted when any of its tables is constrained so.
  if (option.module_kind == ModuleKind::kEmbeddingBag) {
    if (const ModuleConfig* module = find_module(option, context.model)) {
      const auto index = static_cast<std::size_t>(module - context.model.modules.data());
      if (context.module_weighted && index < context.module_weighted->size())
        return (*context.module_weighted)[index] != 0;
      for (const auto& table : module->tables) {
        const auto* c = context.constraints(table.name);
        if (c && c->is_weighted) return true;
      }
      return false;
    }
  }
  const auto* c = context.constraints(option.name);
  return c && c->is_weighted;
}

WallTimeInputs wall_time_inputs(const ShardingOption& option, const EstimatorContext& context) {
  const Topology& topology = context.topology;
  const ParameterConstraintsConfig* c = context.constraints(option.name);
  const auto num_inputs = option.input_lengths.size();

  WallTimeInputs in;
  in.sharding_type = option.sharding_type;
  in.input_lengths = option.input_lengths;
  // Empty lists count as "not given" (torchrec tests them for truthiness).
  if (c && c->num_poolings && !c->num_poolings->empty())
    in.num_poolings = *c->num_poolings;
  else
    in.num_poolings.assign(num_inputs, 1.0);
  if (c && c->batch_sizes && !c->batch_sizes->empty())
    in.batch_sizes = *c->batch_sizes;
  else
    in.batch_sizes.assign(num_inputs, option.batch_size);
  if (in.num_poolings.size() != num_inputs || in.batch_sizes.size() != num_inputs)
    throw std::runtime_error("table '" + option.name +
                             "': pooling_factors, num_poolings and batch_sizes must have "
                             "the same length");

  in.world_size = topology.world_size;
  in.local_world_size = topology.local_world_size;
  in.input_data_type_size = kBigintDtypeBytes;
  in.table_data_type_size = option.tensor_element_size;
  in.fwd_a2a_comm_data_type_size = option.tensor_element_size;
  in.bwd_a2a_comm_data_type_size = option.tensor_element_size;
  in.fwd_sr_comm_data_type_size = option.tensor_element_size;
  in.bwd_sr_comm_data_type_size = option.tensor_element_size;
  in.hbm_to_ddr_mem_bw = topology.hbm_to_ddr_mem_bw;
  in.intra_host_bw = topology.intra_host_bw;
  in.inter_host_bw = topology.inter_host_bw;
  in.bwd_compute_multiplier = topology.bwd_compute_multiplier;
  in.weighted_feature_bwd_compute_multiplier = topology.weighted_feature_bwd_compute_multiplier;
  in.is_pooled = option.is_pooled;
  in.is_weighted = perf_is_weighted(option, context);
  in.is_inference = context.planner.is_inference;

  const bool prefetch_pipeline = option.cache_params && option.cache_params->prefetch_pipeline.value_or(false);
  auto device_bw =
      kernel_bw_lookup(topology.compute_device, option.compute_kernel, topology.hbm_mem_bw, topology.ddr_mem_bw,
                       topology.hbm_to_ddr_mem_bw, option.cache_load_factor(), prefetch_pipeline);
  if (!device_bw)
    throw std::runtime_error("no kernel bandwidth exists for compute device " +
                             std::string(to_string(topology.compute_device)) + " and compute kernel " +
                             std::string(to_string(option.compute_kernel)));
  in.device_bw = *device_bw;
  return in;
}

void EmbeddingPerfEstimator::estimate(ShardingOption& option, const EstimatorContext& context) const {
  const WallTimeInputs in = wall_time_inputs(option, context);
  option.is_weighted = in.is_weighted;
  // A shard's perf depends on its size alone: one estimate per run of equal shards.
  option.shards.with_run_values([&](ShardRun& run) { run.perf = shard_wall_time(in, run.size[0], run.size[1]); });
}

}  // namespace shardplan
