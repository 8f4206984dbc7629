#include "kjt/fast_json_reader.h"

#include <charconv>
#include <cstring>

#include "common/utf8.h"

namespace shardplan::kjt {

namespace {

// Thrown inside the parser when the text needs the positioned reader; caught once.
struct GiveUp {};

class FastJsonParser {
 public:
  explicit FastJsonParser(std::string_view text)
      : p_(text.data()), end_(text.data() + text.size()), ascii_(!first_non_ascii(text)) {}

  RawInput parse() {
    RawInput raw;
    expect('{');
    unsigned seen = 0;
    if (!next_is('}')) do {
        std::string_view key = string_content();
        expect(':');
        if (key == "splits") mark(seen, 1u), raw.splits = integer_list();
        else if (key == "feature_layout") mark(seen, 2u), raw.feature_layout = layout();
        else if (key == "stagger") mark(seen, 4u), raw.stagger = integer();
        else if (key == "protocol") mark(seen, 8u), raw.protocol = protocol();
        else if (key == "dtypes") mark(seen, 16u), dtypes(raw);
        else if (key == "inputs") mark(seen, 32u), inputs(raw);
        else throw GiveUp{};
      } while (comma_or('}'));
    skip_space();
    if (p_ != end_) throw GiveUp{};
    return raw;
  }

 private:
  const char* p_;
  const char* end_;
  bool ascii_;  // the whole text is ASCII: no string needs the UTF-8 check

  static bool first_non_ascii(std::string_view text) {
    unsigned char bits = 0;  // no early exit: the loop vectorizes
    for (char c : text) bits |= static_cast<unsigned char>(c);
    return bits >= 0x80;
  }

  static void mark(unsigned& seen, unsigned bit) {
    if (seen & bit) throw GiveUp{};  // duplicate key
    seen |= bit;
  }

  void skip_space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  void expect(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) throw GiveUp{};
    ++p_;
  }
  // Consumes `c` (an empty container's closing bracket) when it comes next.
  bool next_is(char c) {
    skip_space();
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  // After an element: true on ',', false on `close`.
  bool comma_or(char close) {
    skip_space();
    if (p_ == end_) throw GiveUp{};
    if (*p_ == ',') {
      ++p_;
      return true;
    }
    if (*p_ == close) {
      ++p_;
      return false;
    }
    throw GiveUp{};
  }

  // A string without escapes or control characters: its text between the quotes.
  std::string_view string_content() {
    skip_space();
    if (p_ == end_ || *p_ != '"') throw GiveUp{};
    const char* start = ++p_;
    while (p_ < end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c == '\\' || c < 0x20) throw GiveUp{};
      ++p_;
    }
    if (p_ == end_) throw GiveUp{};
    std::string_view content(start, static_cast<std::size_t>(p_++ - start));
    // Bytes past ASCII must be well-formed UTF-8 (the positioned reader says where not).
    if (!ascii_ && first_invalid_utf8(content)) throw GiveUp{};
    return content;
  }

  std::string name() {
    std::string_view text = string_content();
    if (text.empty()) throw GiveUp{};  // the positioned reader rejects empty names
    return std::string(text);
  }

  // A plain JSON integer (no fraction or exponent) that fits in 64 bits.
  std::int64_t integer() {
    skip_space();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    const char* digits = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == digits || (*digits == '0' && p_ - digits > 1)) throw GiveUp{};
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) throw GiveUp{};
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(start, p_, value);
    if (ec != std::errc() || end != p_) throw GiveUp{};
    return value;
  }

  // A value integer's text in the positioned reader's canonical form: JSON already
  // forbids leading zeros and '+', so only "-0" changes (to "0"). `zero` holds it.
  std::string_view integer_text(char (&zero)[2]) {
    skip_space();
    const char* start = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    const char* digits = p_;
    while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == digits || (*digits == '0' && p_ - digits > 1)) throw GiveUp{};
    if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) throw GiveUp{};
    if (p_ - digits >= 19) {  // might not fit in 64 bits: let from_chars decide
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(start, p_, value);
      if (ec != std::errc() || end != p_) throw GiveUp{};
    }
    if (p_ - start == 2 && start[0] == '-' && start[1] == '0') {
      zero[0] = '0';
      return std::string_view(zero, 1);
    }
    return std::string_view(start, static_cast<std::size_t>(p_ - start));
  }

  // The text of a JSON number, as written; one out of a double's range is the
  // positioned reader's to refuse.
  std::string_view finite_number_text() {
    std::string_view text = number_text();
    // Without an exponent only a literal of hundreds of digits leaves a double's range.
    bool exponent = false;
    for (char c : text) exponent |= (c | 0x20) == 'e';
    if (text.size() < 300 && !exponent) return text;
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc()) throw GiveUp{};  // 1e999 and 1e-999 alike, as NodeReader::number
    return text;
  }

  // The text of a JSON number, as written.
  std::string_view number_text() {
    skip_space();
    const char* start = p_;
    auto digits = [&] {
      const char* from = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      return p_ > from;
    };
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ < end_ && *p_ == '0') ++p_;
    else if (!digits()) throw GiveUp{};
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (!digits()) throw GiveUp{};
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digits()) throw GiveUp{};
    }
    return std::string_view(start, static_cast<std::size_t>(p_ - start));
  }

  bool null_literal() {
    skip_space();
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
      p_ += 4;
      return true;
    }
    return false;
  }

  std::vector<std::int64_t> integer_list() {
    std::vector<std::int64_t> out;
    expect('[');
    if (!next_is(']')) do
        out.push_back(integer());
      while (comma_or(']'));
    return out;
  }

  std::vector<std::string> name_list() {
    std::vector<std::string> out;
    expect('[');
    if (!next_is(']')) do
        out.push_back(name());
      while (comma_or(']'));
    return out;
  }

  std::vector<std::vector<std::string>> layout() {
    std::vector<std::vector<std::string>> out;
    expect('[');
    if (!next_is(']')) do
        out.push_back(name_list());
      while (comma_or(']'));
    return out;
  }

  Protocol protocol() {
    std::optional<Protocol> value = parse_name(kProtocolNames, string_content());
    if (!value) throw GiveUp{};
    return *value;
  }

  void dtypes(RawInput& raw) {
    expect('{');
    unsigned seen = 0;
    if (!next_is('}')) do {
        std::string_view key = string_content();
        expect(':');
        if (key == "lengths") mark(seen, 1u), raw.lengths_dtype = name();
        else if (key == "values") mark(seen, 2u), raw.values_dtype = name();
        else if (key == "weights") mark(seen, 4u), raw.weights_dtype = name();
        else throw GiveUp{};
      } while (comma_or('}'));
  }

  // Values: strings keep their quoted text, integers are written back in the
  // positioned reader's canonical form (-0 becomes 0). Tokens stay in the text.
  void values(TokenList& out) {
    expect('[');
    if (next_is(']')) return;
    char buffer[2];
    do {
      skip_space();
      if (p_ == end_) throw GiveUp{};
      if (*p_ == '"') {
        const char* quote = p_;
        std::string_view content = string_content();
        out.push_back_in_place(std::string_view(quote, content.size() + 2));
      } else {
        skip_space();
        const char* start = p_;
        // Float values (spec §9): a number with a fraction or exponent stays as written.
        std::string_view number = number_text();
        if (number.find_first_of(".eE") != std::string_view::npos) {
          double value = 0;
          auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
          if (ec != std::errc() || end != number.data() + number.size()) throw GiveUp{};  // the positioned reader says why
          out.push_back_in_place(number);
          continue;
        }
        p_ = start;
        std::string_view text = integer_text(buffer);
        if (text.data() == start) out.push_back_in_place(text);
        else out.push_back(text);  // "-0" written as "0"
      }
    } while (comma_or(']'));
  }

  void weights(SourceKjt& kjt) {
    if (null_literal()) return;
    kjt.weights.emplace();
    expect('[');
    if (next_is(']')) return;
    do
      kjt.weights->push_back_in_place(finite_number_text());
    while (comma_or(']'));
  }

  SourceKjt source() {
    SourceKjt kjt;
    expect('{');
    unsigned seen = 0;
    if (!next_is('}')) do {
        std::string_view key = string_content();
        expect(':');
        if (key == "rank") mark(seen, 1u), kjt.rank = integer();
        else if (key == "keys") mark(seen, 2u), kjt.keys = name_list();
        else if (key == "lengths") {
          mark(seen, 4u);
          expect('[');
          if (!next_is(']')) do
              kjt.lengths.push_back(integer_list());
            while (comma_or(']'));
        } else if (key == "values") mark(seen, 8u), values(kjt.values);
        else if (key == "weights") mark(seen, 16u), weights(kjt);
        else throw GiveUp{};
      } while (comma_or('}'));
    if ((seen & 15u) != 15u) throw GiveUp{};  // rank, keys, lengths and values are required
    return kjt;
  }

  void inputs(RawInput& raw) {
    expect('[');
    if (!next_is(']')) do
        raw.inputs.push_back(source());
      while (comma_or(']'));
  }
};

}  // namespace

std::optional<RawInput> read_raw_json_fast(std::string_view text) {
  try {
    return FastJsonParser(text).parse();
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace shardplan::kjt
