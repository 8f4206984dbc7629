// torchgpipe's verify_skippables for the `skips` of an input (docs/formats/pipeline.md, check 5).
#pragma once

#include <string>
#include <vector>

namespace shardplan::pipeline {

// One `skips` entry by layer names.
struct SkipDeclaration {
  std::string name, stash, pop;
};

// The messages verify_skippables collects, walking the layers in order: per layer
// the names it both stashes and pops, then its stashes ("redeclared ... as
// stashable"), then its pops ("redeclared ... as poppable", "declared ... as
// poppable but it was not stashed") -- names in `skips` order, a layer declaring
// a name twice declaring it once -- then "no module declared ... as poppable but
// stashed" for names never popped, in `skips` order. Identical messages once.
std::vector<std::string> unmatched_skips(const std::vector<std::string>& layers,
                                         const std::vector<SkipDeclaration>& skips);

}  // namespace shardplan::pipeline
