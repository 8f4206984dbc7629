// Renders sharding options (the enumerator's output) with the field names of the
// goldens' `options` entries, so our output and torchrec's compare with a few
// lines of script. Schema: schemas/enumerate.schema.json.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/names.h"
#include "planner/types.h"

namespace shardplan {

nlohmann::json perf_to_json(const Perf& perf, bool with_total);
nlohmann::json storage_to_json(const Storage& storage);
nlohmann::json option_to_json(const ShardingOption& option);

// How `enumerate --format` shows the options.
enum class OptionsFormat { kJson, kText };

inline constexpr NameTable<OptionsFormat, 2> kOptionsFormatNames{{
    {OptionsFormat::kJson, "json", "one JSON object (schemas/enumerate.schema.json)"},
    {OptionsFormat::kText, "text", "a readable table, one line per shard"},
}};

// {"schema": "shardplan.enumerate/v1", "num_options": N, "options": [...]}: the
// document (the Python package returns it; explain shows single options). Its
// keys are sorted (nlohmann::json), the order enumerate's output has always had.
nlohmann::json options_to_json(const std::vector<ShardingOption>& options);

// Receives consecutive pieces of a text; together they are the whole text.
using TextPieceSink = std::function<void(std::string_view)>;

// About how many bytes a piece holds (the last one fewer).
inline constexpr std::size_t kOptionsPieceBytes = std::size_t{1} << 20;

// `enumerate`'s JSON output, options_to_json(options).dump(2) + "\n" byte for byte,
// written in pieces without the document: 5 000 tables on 1 024 ranks are
// gigabytes of text, many times the options they show. Every string is checked
// before the first piece goes out, so a name nlohmann refuses (invalid UTF-8)
// throws as the dump did, with nothing written.
void write_options_json(const std::vector<ShardingOption>& options, const TextPieceSink& emit,
                        std::size_t piece_bytes = kOptionsPieceBytes);

// A readable table: one line per shard, grouped by option; in pieces as above.
void write_options_text(const std::vector<ShardingOption>& options, const TextPieceSink& emit,
                        std::size_t piece_bytes = kOptionsPieceBytes);

// The same table as one string.
std::string options_to_text(const std::vector<ShardingOption>& options);

}  // namespace shardplan
