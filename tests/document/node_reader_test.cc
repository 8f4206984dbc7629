// NodeReader's diagnostic order: model files list problems by position; inputs
// whose spec prescribes a check order (a2a, pipeline, propagate) keep the order
// in which the reader's checks reported them.
#include <catch2/catch.hpp>

#include "document/document.h"
#include "document/node_reader.h"

using namespace shardplan;

namespace {

std::vector<std::string> messages_when_thrown(const NodeReader& reader) {
  try {
    reader.throw_if_any();
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) out.push_back(d.format());
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("node reader: diagnostics by position, or in the order reported", "[config]") {
  Document doc = parse_document("in.yaml", "a: x\nb: y\n");
  for (auto order : {DiagnosticOrder::kPosition, DiagnosticOrder::kReported}) {
    NodeReader reader("in.yaml", order);
    reader.report(doc.root["b"], "b", "second key checked first");
    reader.report(doc.root["a"], "a", "first key checked second");
    auto lines = messages_when_thrown(reader);
    REQUIRE(lines.size() == 2);
    if (order == DiagnosticOrder::kPosition) {
      CHECK(lines[0] == "in.yaml:1:4: a: first key checked second");
      CHECK(lines[1] == "in.yaml:2:4: b: second key checked first");
    } else {
      CHECK(lines[0] == "in.yaml:2:4: b: second key checked first");
      CHECK(lines[1] == "in.yaml:1:4: a: first key checked second");
    }
  }
}
