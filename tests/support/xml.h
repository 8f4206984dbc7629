// A small XML reader for tests that check documents we write (the sweep's SVG):
// elements, attributes, text, comments, the XML declaration and the five
// predefined entities plus character references. Not a general XML parser.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardplan::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // the text directly inside, entities decoded

  // Every element below this one (itself excluded), depth first, in document order.
  std::vector<const XmlElement*> descendants() const;
  // The attribute's value, or "" when absent.
  std::string attribute(const std::string& name) const;
};

// Parses `text` as one XML document; throws std::runtime_error("offset N: ...")
// when it is not well-formed (unbalanced tags, unquoted attributes, bad entities,
// a duplicate attribute, text after the root element, ...).
std::unique_ptr<XmlElement> parse_xml(const std::string& text);

}  // namespace shardplan::testing
