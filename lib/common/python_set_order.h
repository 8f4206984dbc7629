// torchrec filters sharding types and compute kernels with list(set(a) & set(b)),
// so its option order follows CPython's set layout. The goldens were made under
// PYTHONHASHSEED=0 on CPython >= 3.11 (SipHash-1-3 string hashes); reproducing
// that layout gives torchrec's exact enumeration order, which later stages'
// tie-breaks depend on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardplan {

// CPython's hash() of an ASCII/UTF-8 str under PYTHONHASHSEED=0 (SipHash-1-3 with
// a zero key; -1 becomes -2).
std::uint64_t python_str_hash(const std::string& text);

// list(set(a) & set(b)) as CPython >= 3.11 orders it under PYTHONHASHSEED=0.
std::vector<std::string> python_set_intersection(const std::vector<std::string>& a, const std::vector<std::string>& b);

// python_set_intersection with its answers remembered: every table of a model
// asks the same few questions (its constraint's kernels against the sharder's),
// and building the sets costs more than finding a known answer. Owned by its
// caller, used by one thread at a time.
class SetIntersectionMemo {
 public:
  const std::vector<std::string>& intersection(const std::vector<std::string>& a, const std::vector<std::string>& b);

 private:
  struct Answered {
    std::vector<std::string> a, b, answer;
  };
  // A short list compared in place: copying each question to look it up in a map
  // cost as much as the answer.
  std::vector<Answered> answered_;
};

}  // namespace shardplan
