#include "config/document.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/depthguard.h>

#include "common/error.h"
#include "config/document_bounds.h"
#include "config/json_tree.h"
#include "config/limits.h"

namespace shardplan {

namespace {

bool is_json_file(const std::string& file) {
  return file.size() >= 5 && file.compare(file.size() - 5, 5, ".json") == 0;
}

// Refuses flow nesting ([ and {) deeper than kMaxNestingDepth; quoted strings and
// comments are skipped so brackets inside them do not count.
void check_nesting(const std::string& file, std::string_view text) {
  int depth = 0;
  char quote = 0;
  bool comment = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (comment) {
      if (c == '\n') comment = false;
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == '\'' && quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;  // '' is a quote
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      // In YAML a quote only opens a string at the start of a scalar; a stray one
      // inside a plain word (don't) does not, so only count it after a separator.
      if (c == '"' || i == 0 || std::string_view(" \t\n[{,:").find(text[i - 1]) != std::string_view::npos)
        quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\n' || text[i - 1] == '\t')) {
      comment = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNestingDepth)
        throw InputError(position_in_text(file, text, i), "",
                         "nesting deeper than " + std::to_string(kMaxNestingDepth) + " levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

[[noreturn]] void throw_too_large(const std::string& file, std::uintmax_t bytes) {
  throw InputError(SourcePos{file, 0, 0}, "",
                   "the file has " + std::to_string(bytes) + " bytes; expected at most " +
                       std::to_string(kMaxInputFileBytes) + " (shardplan's limit)");
}

}  // namespace

SourcePos position_in_text(const std::string& file, std::string_view text, std::size_t offset) {
  SourcePos pos{file, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.col = 1;
    } else {
      ++pos.col;
    }
  }
  return pos;
}


Document parse_document(const std::string& file, std::string_view text, Positions positions) {
  if (text.size() > static_cast<std::size_t>(kMaxInputFileBytes)) throw_too_large(file, text.size());
  check_nesting(file, text);
  if (is_json_file(file)) check_json_bounds(file, text);
  else check_yaml_bounds(file, text);
  Document doc{file, {}, true};
  if (is_json_file(file)) {
    std::optional<JsonSyntaxError> error;
    if (positions == Positions::kOptional) {
      error = build_json_tree(text, doc.root);
      doc.has_positions = false;
    } else {
      error = check_json(text);
    }
    if (error) throw InputError(position_in_text(file, text, error->offset), "", "invalid JSON: " + error->message);
  }
  if (doc.has_positions) {
    try {
      doc.root = YAML::Load(std::string(text));
    } catch (const YAML::DeepRecursion& e) {
      throw InputError(SourcePos{file, e.mark.line + 1, e.mark.column + 1}, "",
                       "invalid YAML: nesting too deep (" + std::to_string(e.depth()) + " levels)");
    } catch (const YAML::Exception& e) {
      SourcePos pos{file, 0, 0};
      if (!e.mark.is_null()) pos = SourcePos{file, e.mark.line + 1, e.mark.column + 1};
      throw InputError(pos, "", std::string(is_json_file(file) ? "invalid JSON: " : "invalid YAML: ") + e.msg);
    }
  }
  if (!doc.root.IsDefined() || doc.root.IsNull())
    throw InputError(SourcePos{file, 0, 0}, "", "the file is empty; expected a mapping of keys");
  return doc;
}

Document read_document(const std::string& path, Positions positions) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(SourcePos{path, 0, 0}, "", "is a directory, expected an input file");
  if (auto bytes = std::filesystem::file_size(path, ec); !ec && bytes > static_cast<std::uintmax_t>(kMaxInputFileBytes))
    throw_too_large(path, bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePos{path, 0, 0}, "", "cannot open the file (missing or not readable)");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(SourcePos{path, 0, 0}, "", "cannot read the file");
  return parse_document(path, buffer.str(), positions);
}

}  // namespace shardplan
