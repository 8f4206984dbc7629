// The memory model (docs/formats/pipeline.md): parameters, deferred BatchNorm buffers and the
// activations a device keeps while it runs its task order.
#pragma once

#include <cstdint>
#include <vector>

#include "pipeline/microbatch.h"
#include "pipeline/schedule.h"
#include "pipeline/types.h"

namespace shardplan::pipeline {

struct StageMemory {
  std::int64_t parameters = 0;
  std::int64_t deferred_bn_buffers = 0;
  std::int64_t activations = 0;
  std::int64_t peak = 0;
};

// Sums over contiguous layer ranges [begin, end) in O(1) (O(skips) for inputs).
class LayerRanges {
 public:
  explicit LayerRanges(const PipelineInput& input);  // keeps a reference to `input`
  // P_j and A_j: parameter bytes and summed layer outputs per sample.
  std::int64_t param_bytes(int begin, int end) const { return params_[end] - params_[begin]; }
  std::int64_t activation_bytes(int begin, int end) const { return activations_[end] - activations_[begin]; }
  // 2 float32 buffers per BatchNorm feature when deferred_batch_norm is on, else 0.
  std::int64_t deferred_bn_bytes(int begin, int end) const { return bn_[end] - bn_[begin]; }
  // in_j: the previous layer's output (or the model input) plus skips popped in
  // the range and stashed before it. O(log^2 skips).
  std::int64_t input_bytes(int begin, int end) const;
  // out_j: the last layer's output.
  std::int64_t output_bytes(int end) const;

 private:
  const PipelineInput& input_;
  std::vector<std::int64_t> params_, activations_, bn_;
  // Skips sorted by stash layer (their stash layers here); a Fenwick tree over that
  // order whose node k holds its skips' pop layers sorted, with prefix sums of bytes.
  std::vector<int> sorted_stash_;
  std::vector<std::vector<int>> node_pops_;
  std::vector<std::vector<std::int64_t>> node_bytes_;
};

// The activation bytes one stage keeps over its task order, as a function of its
// input bytes `in` and summed layer outputs `A` per sample: the largest of a few
// linear forms alpha*in + beta*A, one per step of the walk (dominated ones dropped).
class ActivationProfile {
 public:
  ActivationProfile(const std::vector<Task>& order, const MicroBatches& micro);
  std::int64_t peak(std::int64_t in, std::int64_t activations) const;

 private:
  std::vector<std::pair<std::int64_t, std::int64_t>> points_;
};

// The peak activation bytes of a device running `order`, whose stage s has input
// bytes in[s] and layer outputs A[s] per sample: after a forward of micro-batch i
// the stage keeps in*b_i (checkpointed) or (in+A)*b_i; a checkpointed backward
// first re-materialises A*b_i; each full backward frees its micro-batch. Split
// backwards: a checkpointed I re-materialises A*b_i and keeps it; the W frees
// everything (the weight gradient needs every layer's input).
std::int64_t activation_peak(const std::vector<Task>& order, const MicroBatches& micro,
                             const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& activations);

// floor(param_scale * P) + BatchNorm buffers + activations.
StageMemory stage_memory(std::int64_t param_bytes, double param_scale, std::int64_t bn_bytes,
                         std::int64_t activation_peak_bytes);

}  // namespace shardplan::pipeline
