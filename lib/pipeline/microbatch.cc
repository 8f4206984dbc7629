#include "pipeline/microbatch.h"

namespace shardplan::pipeline {

namespace {
// Pipe's checkpoint_stop: micro-batches with a smaller index are checkpointed.
int checkpoint_stop(const PipelineOptions& options) {
  switch (options.checkpoint) {
    case CheckpointMode::kAlways:
      return options.chunks;
    case CheckpointMode::kExceptLast:
      return options.chunks - 1;
    case CheckpointMode::kNever:
      break;
  }
  return 0;
}
}  // namespace

MicroBatches split_micro_batches(int batch_size, const PipelineOptions& options) {
  MicroBatches out;
  const int chunks = options.chunks;
  const int per_chunk = (batch_size + chunks - 1) / chunks;
  const int count = (batch_size + per_chunk - 1) / per_chunk;
  const int stop = checkpoint_stop(options);
  for (int i = 0; i < count; ++i) {
    out.sizes.push_back(i < count - 1 ? per_chunk : batch_size - per_chunk * (count - 1));
    out.checkpointed.push_back(i < stop);
  }
  if (count < chunks) {
    std::string warning = "batch_size " + std::to_string(batch_size) + " with chunks " + std::to_string(chunks) +
                          " yields " + std::to_string(count) + " micro-batches";
    // checkpoint_stop = chunks - 1 >= m here, so even the last micro-batch is checkpointed.
    if (options.checkpoint == CheckpointMode::kExceptLast) warning += "; all of them are checkpointed";
    out.warnings.push_back(warning);
    if (options.deferred_batch_norm)
      out.warnings.push_back("deferred_batch_norm: statistics are committed every " + std::to_string(chunks) +
                             " micro-batches but a step has " + std::to_string(count));
  }
  return out;
}

}  // namespace shardplan::pipeline
