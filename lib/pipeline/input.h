// Reading a pipeline input file (YAML or JSON) with the checks of docs/formats/pipeline.md in
// their order and with Pipe's exception kinds in the messages.
#pragma once

#include <string>
#include <string_view>

#include "pipeline/types.h"

namespace shardplan::pipeline {

// Reads and validates `path`. Throws InputError (exit 2) listing every failing
// check: first the spec's checks 1-8 in order (each "Kind: message"), then any
// other malformed option.
PipelineInput read_pipeline_input(const std::string& path);

// The same for `text`, as if it were the content of `file`.
PipelineInput parse_pipeline_input(const std::string& file, std::string_view text);

}  // namespace shardplan::pipeline
