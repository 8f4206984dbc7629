#include "common/error.h"

namespace shardplan {

std::string Diagnostic::format() const {
  std::string out;
  if (!pos.file.empty()) {
    out += pos.file;
    if (pos.line > 0) {
      // Appended piece by piece: GCC 12 at -O3 misreads `":" + std::to_string(n)`
      // as an overlapping memcpy (-Wrestrict false positive).
      out += ':';
      out += std::to_string(pos.line);
      if (pos.col > 0) {
        out += ':';
        out += std::to_string(pos.col);
      }
    }
    out += ": ";
  }
  if (!key_path.empty()) out += key_path + ": ";
  out += message;
  return out;
}

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    if (!out.empty()) out += "\n";
    out += d.format();
  }
  return out;
}
}  // namespace

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

InputError::InputError(SourcePos pos, std::string key_path, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(pos), std::move(key_path), std::move(message)}}) {}

std::string InputError::format() const { return join_diagnostics(diagnostics_); }

}  // namespace shardplan
