#include "config/limits.h"

namespace shardplan {

bool is_reservation_fraction(double value) { return value >= 0 && value <= 1; }

template <class Node>
void check_table_elements(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& table_node,
                          const std::string& path, const TableConfig& table) {
  // Both factors are within their own limits here, so the product fits in 64 bits.
  if (table.num_embeddings <= 0 || table.embedding_dim <= 0) return;
  const std::int64_t elements = table.num_embeddings * table.embedding_dim;
  if (elements <= kMaxTableElements) return;
  reader.report(table_node, path,
                "num_embeddings x embedding_dim = " + std::to_string(elements) + " elements, expected at most " +
                    std::to_string(kMaxTableElements) + " (shardplan's limit)");
}

template <class Node>
void check_model_size(BasicNodeReader<Node>& reader, const ModelConfig& model, const std::string& path) {
  std::int64_t tables = 0;
  std::int64_t elements = 0;
  for (std::size_t m = 0; m < model.modules.size(); ++m) {
    for (std::size_t t = 0; t < model.modules[m].tables.size(); ++t) {
      const TableConfig& table = model.modules[m].tables[t];
      if (++tables == kMaxTables + 1)
        reader.report(table.pos, join_index(join_key(join_index(join_key(path, "modules"), m), "tables"), t),
                      "more than " + std::to_string(kMaxTables) + " tables in the model (shardplan's limit)");
      if (table.num_embeddings <= 0 || table.embedding_dim <= 0) continue;
      const std::int64_t table_elements = table.num_embeddings * table.embedding_dim;
      if (table_elements > kMaxTableElements || elements > kMaxModelElements) continue;  // reported already
      elements += table_elements;
      if (elements > kMaxModelElements)
        reader.report(table.pos, join_index(join_key(join_index(join_key(path, "modules"), m), "tables"), t),
                      "the model's tables up to this one hold " + std::to_string(elements) +
                          " elements (num_embeddings x embedding_dim), expected at most " +
                          std::to_string(kMaxModelElements) + " in all (shardplan's limit)");
    }
  }
}

template void check_table_elements(NodeReader&, const YAML::Node&, const std::string&, const TableConfig&);
template void check_table_elements(JsonNodeReader&, const JsonNode&, const std::string&, const TableConfig&);
template void check_model_size(NodeReader&, const ModelConfig&, const std::string&);
template void check_model_size(JsonNodeReader&, const ModelConfig&, const std::string&);

}  // namespace shardplan
