#include "common/names.h"

#include <algorithm>

namespace shardplan {

namespace {
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (const auto& candidate : candidates) {
    std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  // A suggestion further away than about a third of the word is noise, not help.
  std::size_t limit = std::max<std::size_t>(2, name.size() / 3 + 1);
  if (best_distance > limit) return "";
  return best;
}

std::string unknown_name_message(std::string_view what, std::string_view text, const std::vector<std::string>& known,
                                 std::string_view list_label) {
  std::string message = "unknown " + std::string(what) + " '" + std::string(text) + "'";
  const std::string suggestion = closest_name(text, known);
  if (!suggestion.empty()) return message + ", did you mean '" + suggestion + "'?";
  std::string list;
  for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
  return message + " (" + std::string(list_label) + ": " + list + ")";
}

}  // namespace shardplan
