// Splitting the mini-batch into micro-batches exactly as Pipe does (torch.chunk),
// and which of them are checkpointed (docs/formats/pipeline.md).
#pragma once

#include <string>
#include <vector>

#include "pipeline/types.h"

namespace shardplan::pipeline {

struct MicroBatches {
  std::vector<int> sizes;             // b_i, in order
  std::vector<bool> checkpointed;     // i < checkpoint_stop
  std::vector<std::string> warnings;  // docs/formats/pipeline.md (deferred BatchNorm)
};

// torch.chunk(batch, chunks): c = ceil(B / chunks) samples each, m = ceil(B / c)
// micro-batches, the last one smaller; checkpoint_stop comes from `chunks`, not m.
MicroBatches split_micro_batches(int batch_size, const PipelineOptions& options);

}  // namespace shardplan::pipeline
