#include "pipeline/memory.h"

#include <algorithm>
#include <cmath>

namespace shardplan::pipeline {

LayerRanges::LayerRanges(const PipelineInput& input) : input_(input) {
  params_.assign(1, 0);
  activations_.assign(1, 0);
  bn_.assign(1, 0);
  for (const auto& layer : input.layers) {
    params_.push_back(params_.back() + layer.param_bytes);
    activations_.push_back(activations_.back() + layer.activation_bytes_per_sample);
    // DeferredBatchNorm adds float32 `sum` and `sum_squares` buffers per feature.
    std::int64_t bn = input.options.deferred_batch_norm ? 2 * layer.batch_norm_features * 4 : 0;
    bn_.push_back(bn_.back() + bn);
  }
  std::vector<const Skip*> skips;
  for (const auto& skip : input.skips) skips.push_back(&skip);
  std::stable_sort(skips.begin(), skips.end(),
                   [](const Skip* a, const Skip* b) { return a->stash_layer < b->stash_layer; });
  const std::size_t count = skips.size();
  std::vector<std::vector<std::pair<int, std::int64_t>>> nodes(count + 1);
  for (std::size_t position = 1; position <= count; ++position) {
    sorted_stash_.push_back(skips[position - 1]->stash_layer);
    for (std::size_t node = position; node <= count; node += node & (~node + 1))
      nodes[node].emplace_back(skips[position - 1]->pop_layer, skips[position - 1]->bytes_per_sample);
  }
  node_pops_.resize(count + 1);
  node_bytes_.resize(count + 1);
  for (std::size_t node = 1; node <= count; ++node) {
    std::sort(nodes[node].begin(), nodes[node].end());
    node_bytes_[node].push_back(0);
    for (const auto& [pop, bytes] : nodes[node]) {
      node_pops_[node].push_back(pop);
      node_bytes_[node].push_back(node_bytes_[node].back() + bytes);
    }
  }
}

std::int64_t LayerRanges::input_bytes(int begin, int end) const {
  std::int64_t bytes =
      begin == 0 ? input_.input_bytes_per_sample : input_.layers[begin - 1].activation_bytes_per_sample;
  // Skips stashed before `begin` are the first k in stash order; of those, sum the
  // bytes of the ones popped in [begin, end).
  const std::size_t k = static_cast<std::size_t>(std::lower_bound(sorted_stash_.begin(), sorted_stash_.end(), begin) -
                                                 sorted_stash_.begin());
  for (std::size_t node = k; node > 0; node -= node & (~node + 1)) {
    const auto& pops = node_pops_[node];
    const auto& prefix = node_bytes_[node];
    auto lo = std::lower_bound(pops.begin(), pops.end(), begin) - pops.begin();
    auto hi = std::lower_bound(pops.begin(), pops.end(), end) - pops.begin();
    bytes += prefix[hi] - prefix[lo];
  }
  return bytes;
}

std::int64_t LayerRanges::output_bytes(int end) const { return input_.layers[end - 1].activation_bytes_per_sample; }

ActivationProfile::ActivationProfile(const std::vector<Task>& order, const MicroBatches& micro) {
  std::int64_t alpha = 0, beta = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> points{{0, 0}};
  for (const auto& t : order) {
    const std::int64_t b = micro.sizes[t.micro_batch];
    const bool checkpointed = micro.checkpointed[t.micro_batch];
    switch (t.kind) {
      case TaskKind::kForward:
        alpha += b;
        if (!checkpointed) beta += b;
        points.emplace_back(alpha, beta);
        break;
      case TaskKind::kBackward:
        if (checkpointed) points.emplace_back(alpha, beta + b);
        alpha -= b;
        if (!checkpointed) beta -= b;
        break;
      case TaskKind::kBackwardInput:
        // Recomputed outputs stay until the W that needs them.
        if (checkpointed) {
          beta += b;
          points.emplace_back(alpha, beta);
        }
        break;
      case TaskKind::kBackwardWeight:
        alpha -= b;
        beta -= b;
        break;
    }
  }
  // Keep the Pareto front: in and A are never negative, so a point no larger in
  // both coordinates than another never gives the maximum alone.
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second > b.second; });
  std::int64_t best_beta = -1;
  for (const auto& p : points)
    if (p.second > best_beta) {
      points_.push_back(p);
      best_beta = p.second;
    }
}

std::int64_t ActivationProfile::peak(std::int64_t in, std::int64_t activations) const {
  std::int64_t best = 0;
  for (const auto& [alpha, beta] : points_) best = std::max(best, alpha * in + beta * activations);
  return best;
}

std::int64_t activation_peak(const std::vector<Task>& order, const MicroBatches& micro,
                             const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& activations) {
  std::int64_t current = 0, peak = 0;
  for (const auto& t : order) {
    const std::int64_t b = micro.sizes[t.micro_batch];
    const bool checkpointed = micro.checkpointed[t.micro_batch];
    const std::int64_t kept = checkpointed ? in[t.stage] * b : (in[t.stage] + activations[t.stage]) * b;
    switch (t.kind) {
      case TaskKind::kForward:
        current += kept;
        peak = std::max(peak, current);
        break;
      case TaskKind::kBackward:
        if (checkpointed) peak = std::max(peak, current + activations[t.stage] * b);
        current -= kept;
        break;
      case TaskKind::kBackwardInput:
        if (checkpointed) {
          current += activations[t.stage] * b;
          peak = std::max(peak, current);
        }
        break;
      case TaskKind::kBackwardWeight:
        current -= (in[t.stage] + activations[t.stage]) * b;
        break;
    }
  }
  return peak;
}

StageMemory stage_memory(std::int64_t param_bytes, double param_scale, std::int64_t bn_bytes,
                         std::int64_t activation_peak_bytes) {
  StageMemory memory;
  memory.parameters = static_cast<std::int64_t>(std::floor(param_scale * static_cast<double>(param_bytes)));
  memory.deferred_bn_buffers = bn_bytes;
  memory.activations = activation_peak_bytes;
  memory.peak = memory.parameters + memory.deferred_bn_buffers + memory.activations;
  return memory;
}

}  // namespace shardplan::pipeline
