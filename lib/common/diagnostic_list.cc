#include "common/diagnostic_list.h"

namespace shardplan {

void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diagnostics, std::size_t max_printed) {
  for (std::size_t i = 0; i < diagnostics.size() && i < max_printed; ++i)
    out << "error: " << diagnostics[i].format() << "\n";
  if (diagnostics.size() > max_printed) out << "error: ... and " << diagnostics.size() - max_printed << " more\n";
}

}  // namespace shardplan
