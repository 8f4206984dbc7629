#include "support/xml.h"

#include <cctype>

namespace shardplan::testing {

std::vector<const XmlElement*> XmlElement::descendants() const {
  std::vector<const XmlElement*> out;
  for (const auto& child : children) {
    out.push_back(child.get());
    for (const XmlElement* below : child->descendants()) out.push_back(below);
  }
  return out;
}

std::string XmlElement::attribute(const std::string& key) const {
  auto it = attributes.find(key);
  return it == attributes.end() ? "" : it->second;
}

namespace {

class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  std::unique_ptr<XmlElement> document() {
    skip_space();
    if (starts("<?xml")) skip_past("?>");
    skip_misc();
    if (!starts("<")) fail("expected the root element");
    auto root = element();
    skip_misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("offset " + std::to_string(i_) + ": " + what);
  }
  bool starts(const char* prefix) const { return s_.compare(i_, std::char_traits<char>::length(prefix), prefix) == 0; }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_past(const char* end) {
    const std::size_t at = s_.find(end, i_);
    if (at == std::string::npos) fail(std::string("missing ") + end);
    i_ = at + std::char_traits<char>::length(end);
  }
  void skip_misc() {
    for (skip_space(); starts("<!--"); skip_space()) skip_past("-->");
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
  }
  std::string name() {
    const std::size_t start = i_;
    while (i_ < s_.size() && name_char(s_[i_])) ++i_;
    if (i_ == start) fail("expected a name");
    return s_.substr(start, i_ - start);
  }
  std::string decoded(const std::string& raw) const {
    std::string out;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '<') fail("'<' in text or an attribute");
      if (raw[k] != '&') {
        out += raw[k];
        continue;
      }
      const std::size_t semi = raw.find(';', k);
      if (semi == std::string::npos) fail("an unterminated entity");
      const std::string entity = raw.substr(k + 1, semi - k - 1);
      if (entity == "amp")
        out += '&';
      else if (entity == "lt")
        out += '<';
      else if (entity == "gt")
        out += '>';
      else if (entity == "quot")
        out += '"';
      else if (entity == "apos")
        out += '\'';
      else if (entity.size() > 1 && entity[0] == '#')
        out += '?';  // a character reference
      else
        fail("unknown entity &" + entity + ";");
      k = semi;
    }
    return out;
  }
  std::unique_ptr<XmlElement> element() {
    ++i_;  // '<'
    auto e = std::make_unique<XmlElement>();
    e->name = name();
    while (true) {
      skip_space();
      if (i_ >= s_.size()) fail("unterminated start tag");
      if (starts("/>")) {
        i_ += 2;
        return e;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      const std::string key = name();
      skip_space();
      if (i_ >= s_.size() || s_[i_] != '=') fail("expected '=' after attribute " + key);
      ++i_;
      skip_space();
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) fail("unquoted attribute " + key);
      const char quote = s_[i_++];
      const std::size_t end = s_.find(quote, i_);
      if (end == std::string::npos) fail("unterminated attribute " + key);
      if (!e->attributes.emplace(key, decoded(s_.substr(i_, end - i_))).second) fail("duplicate attribute " + key);
      i_ = end + 1;
    }
    while (true) {
      const std::size_t lt = s_.find('<', i_);
      if (lt == std::string::npos) fail("missing </" + e->name + ">");
      e->text += decoded(s_.substr(i_, lt - i_));
      i_ = lt;
      if (starts("<!--")) {
        skip_past("-->");
      } else if (starts("</")) {
        i_ += 2;
        if (name() != e->name) fail("mismatched end tag for <" + e->name + ">");
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '>') fail("unterminated end tag");
        ++i_;
        return e;
      } else {
        e->children.push_back(element());
      }
    }
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

std::unique_ptr<XmlElement> parse_xml(const std::string& text) { return Reader(text).document(); }

}  // namespace shardplan::testing
