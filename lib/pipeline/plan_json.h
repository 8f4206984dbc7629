// Rendering a pipeline plan as the JSON document of docs/formats/pipeline.md (gpipe), extended
// for the 1F1B schedules (docs/pipeline-schedules.md).
#pragma once

#include <string>

#include "pipeline/planner.h"

namespace shardplan::pipeline {

// One JSON document and a newline; keys in the spec's order, byte-identical for the same plan.
std::string render_plan_json(const PipelinePlan& plan, const PipelineInput& input);

}  // namespace shardplan::pipeline
