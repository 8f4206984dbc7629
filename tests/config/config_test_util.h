// Helpers for the loader tests: input files written to a scratch directory and
// the diagnostics of a failing load as "name:line:col: key: message" lines.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace shardplan::testing {

// Writes `content` to a scratch file called `name` and returns its path.
std::string write_scratch(const std::string& name, const std::string& content);

// The scratch directory's path with a trailing '/', to strip from messages.
std::string scratch_prefix();

// Runs `load`; returns the formatted diagnostics of the InputError it throws with
// the scratch prefix removed (so "m.yaml:3:5: ..."), or {} when it does not throw.
std::vector<std::string> problems_of(const std::function<void()>& load);

}  // namespace shardplan::testing
