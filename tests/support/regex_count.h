// How many times a pattern matches in a text (the report tests count bars and boxes).
#pragma once

#include <iterator>
#include <regex>
#include <string>

namespace shardplan::testing {

inline int count_matches(const std::string& text, const std::regex& pattern) {
  return static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
}

}  // namespace shardplan::testing
