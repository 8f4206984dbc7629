#include "propagation/mlir_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "propagation/op_shapes.h"

namespace shardplan::propagation {

namespace {

constexpr std::size_t kNoSite = MlirShardingSite::kNone;

// A character cursor over the module text with MLIR's lexical rules.
class MlirCursor {
 public:
  MlirCursor(const std::string& path, const std::string& text) : path_(path), text_(text) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::size_t at() const { return at_; }
  void seek(std::size_t at) { at_ = at; }
  const std::string& text() const { return text_; }

  SourcePos pos(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    return SourcePos{path_, static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
  }
  std::string line_col(std::size_t offset) const {
    SourcePos p = pos(offset);
    return std::to_string(p.line) + ":" + std::to_string(p.col);
  }
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw InputError(pos(offset), "", message);
  }
  // "expected X, found Y" at the current position.
  [[noreturn]] void expected(const std::string& what) {
    skip_space();
    fail(at_, "expected " + what + ", found " + found());
  }
  std::string found() const {
    if (at_ >= text_.size()) return "the end of the file";
    std::size_t end = at_;
    while (end < text_.size() && end - at_ < 24 && !std::isspace(static_cast<unsigned char>(text_[end]))) ++end;
    if (end == at_) end = at_ + 1;
    return "'" + text_.substr(at_, end - at_) + "'";
  }

  void skip_space() {
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++at_;
      } else if (c == '/' && at_ + 1 < text_.size() && text_[at_ + 1] == '/') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else {
        break;
      }
    }
  }
  bool done() {
    skip_space();
    return at_ >= text_.size();
  }
  char peek() {
    skip_space();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  bool eat(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  void expect(char c, const char* what) {
    if (!eat(c)) expected(what);
  }
  bool eat_arrow() {
    skip_space();
    if (text_.compare(at_, 2, "->") != 0) return false;
    at_ += 2;
    return true;
  }
  static bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '-';
  }
  // A bare identifier (`stablehlo.add`, `dims`, `x`), or "" when there is none here.
  std::string ident() {
    skip_space();
    if (at_ >= text_.size() || !ident_start(text_[at_])) return "";
    std::size_t start = at_;
    while (at_ < text_.size() && ident_char(text_[at_]) &&
           !(text_[at_] == '-' && at_ + 1 < text_.size() && text_[at_ + 1] == '>'))
      ++at_;
    return text_.substr(start, at_ - start);
  }
  // The identifier here, without moving.
  std::string peek_ident() {
    std::size_t save = at_;
    std::string word = ident();
    at_ = save;
    return word;
  }
  // `%name` (SSA value), `@name` (symbol) or `#name` (alias), with its sigil.
  std::string sigil_name(char sigil) {
    skip_space();
    if (at_ >= text_.size() || text_[at_] != sigil) return "";
    std::size_t start = at_++;
    if (at_ < text_.size() && text_[at_] == '"' && sigil == '@') {
      string_literal();
      return text_.substr(start, at_ - start);
    }
    while (at_ < text_.size() && (ident_char(text_[at_]) || text_[at_] == '#') &&
           !(text_[at_] == '-' && at_ + 1 < text_.size() && text_[at_ + 1] == '>'))
      ++at_;
    if (at_ == start + 1) fail(start, std::string("expected a name after '") + sigil + "'");
    return text_.substr(start, at_ - start);
  }
  std::string string_literal() {
    skip_space();
    std::size_t start = at_;
    if (!eat('"')) expected("a string");
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      if (text_[at_] == '\\' && at_ + 1 < text_.size()) ++at_;
      if (text_[at_] == '\n') fail(start, "unterminated string");
      out += text_[at_++];
    }
    if (at_ >= text_.size()) fail(start, "unterminated string");
    ++at_;
    return out;
  }
  std::optional<std::int64_t> integer() {
    skip_space();
    std::int64_t value = 0;
    const char* begin = text_.data() + at_;
    auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value);
    if (end == begin) return std::nullopt;
    if (ec != std::errc()) fail(at_, "integer " + found() + " is too large");
    at_ = static_cast<std::size_t>(end - text_.data());
    return value;
  }
  // From an opening bracket to its match (strings and `->` skipped); returns the range
  // including both brackets.
  std::pair<std::size_t, std::size_t> balanced() {
    skip_space();
    std::size_t start = at_;
    std::vector<char> closers;
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (c == '"') {
        string_literal();
        continue;
      }
      if (c == '-' && at_ + 1 < text_.size() && text_[at_ + 1] == '>') {
        at_ += 2;
        continue;
      }
      ++at_;
      if (c == '(')
        closers.push_back(')');
      else if (c == '[')
        closers.push_back(']');
      else if (c == '{')
        closers.push_back('}');
      else if (c == '<')
        closers.push_back('>');
      else if (c == ')' || c == ']' || c == '}' || c == '>') {
        if (closers.empty() || closers.back() != c) fail(at_ - 1, std::string("unbalanced '") + c + "'");
        closers.pop_back();
      }
      if (closers.empty()) return {start, at_};
    }
    fail(start, "unterminated bracket");
  }

 private:
  const std::string& path_;
  const std::string& text_;
  std::size_t at_ = 0;
  std::vector<std::size_t> line_starts_;
};

// A written sharding attribute's range in the text.
struct MlirRange {
  std::size_t begin = kNoSite, end = kNoSite;
  bool present() const { return begin != kNoSite; }
};

struct MlirValueRef {
  std::string name;
  std::size_t at = 0;
};

struct MlirParsedOp {
  std::size_t at = 0;  // the op name
  std::string result;  // "" for return
  std::string name;
  std::vector<MlirValueRef> operands;
  std::map<std::string, std::vector<std::int64_t>> lists;  // dims = [..]; `[a] x [b]` as a, -1, b
  std::map<std::string, std::int64_t> numbers;
  std::string callee;
  std::size_t callee_at = 0;
  std::vector<Shape> operand_types;
  Shape result_type;
  bool has_result_type = false;
  MlirRange sharding;  // `sdy.sharding = ...` value in the attr dict
  MlirRange inline_sharding;
  std::size_t dict_close = kNoSite;
  bool dict_empty = false;
  std::size_t colon = kNoSite;  // where the type signature starts
  std::string loc;              // the loc(...) text, "" when none
};

struct MlirParsedValue {  // a function argument or result
  std::string name;
  std::size_t at = 0;
  Shape shape;
  MlirRange sharding;
  std::size_t dict_close = kNoSite;
  bool dict_empty = false;
  std::size_t insert = kNoSite;
  std::size_t type_begin = kNoSite, type_end = kNoSite;
  bool bare_result = false;
  std::string loc;
};

struct MlirParsedFunc {
  std::string name;
  std::size_t at = 0;
  bool is_public = true;
  std::vector<MlirParsedValue> args, results;
  std::vector<MlirParsedOp> ops;  // the return op last
};

// The StableHLO ops that map onto an op kind.
const std::map<std::string, OpKind>& mlir_op_kinds() {
  static const std::map<std::string, OpKind> kinds{
      {"stablehlo.negate", OpKind::kNegate},
      {"stablehlo.abs", OpKind::kAbs},
      {"stablehlo.exponential", OpKind::kExp},
      {"stablehlo.log", OpKind::kLog},
      {"stablehlo.sqrt", OpKind::kSqrt},
      {"stablehlo.rsqrt", OpKind::kRsqrt},
      {"stablehlo.tanh", OpKind::kTanh},
      {"stablehlo.sine", OpKind::kSine},
      {"stablehlo.cosine", OpKind::kCosine},
      {"stablehlo.logistic", OpKind::kLogistic},
      {"stablehlo.convert", OpKind::kConvert},
      {"stablehlo.add", OpKind::kAdd},
      {"stablehlo.subtract", OpKind::kSubtract},
      {"stablehlo.multiply", OpKind::kMultiply},
      {"stablehlo.divide", OpKind::kDivide},
      {"stablehlo.maximum", OpKind::kMaximum},
      {"stablehlo.minimum", OpKind::kMinimum},
      {"stablehlo.power", OpKind::kPower},
      {"stablehlo.dot_general", OpKind::kDotGeneral},
      {"stablehlo.dot", OpKind::kMatmul},
      {"stablehlo.reduce", OpKind::kReduce},
      {"stablehlo.transpose", OpKind::kTranspose},
      {"stablehlo.broadcast_in_dim", OpKind::kBroadcastInDim},
      {"stablehlo.reshape", OpKind::kReshape},
      {"stablehlo.concatenate", OpKind::kConcatenate},
  };
  return kinds;
}

class MlirModuleReader {
 public:
  MlirModuleReader(const std::string& path, const std::string& text) : c_(path, text) {}

  Program read(const OptionOverrides& overrides, std::shared_ptr<MlirSource> source) {
    source_ = source;
    parse_top();
    if (!has_mesh_) c_.fail(0, "no `sdy.mesh` in the module: shardings need a mesh");
    const MlirParsedFunc* main = find_main();
    // Shardy's propagation runs over every function of the module in module order; a
    // call has no sharding rule, so nothing flows through it, and a called function's
    // body is propagated on its own, its arguments inputs like main's.
    std::map<std::string, std::vector<int>> returned;
    for (const std::string& name : order_) {
      const MlirParsedFunc& f = functions_.at(name);
      returned[name] = build_function(f, &f == main);
    }
    // main's results are the program's outputs 0..n-1; other functions' results follow
    // (each returned value is used by its function's return).
    auto add_outputs = [&](const MlirParsedFunc& f) {
      const std::vector<int>& results = returned.at(f.name);
      for (std::size_t i = 0; i < results.size(); ++i) {
        Output output;
        output.tensor = results[i];
        const MlirParsedValue& r = f.results[i];
        if (r.sharding.present())
          output.sharding = read_sharding(r.sharding, MlirShardingSite::Form::kTensor, r.shape.size(),
                                          f.name + " result " + std::to_string(i));
        program_.outputs.push_back(std::move(output));
        source_->output_sites.push_back(site_of(r, MlirShardingSite::Form::kTensor));
      }
    };
    add_outputs(*main);
    for (const std::string& name : order_)
      if (name != main->name) add_outputs(functions_.at(name));
    apply_options(overrides);
    if (mesh_name_.empty()) {  // no sharding anywhere: the first mesh
      mesh_name_ = first_mesh_name_;
      mesh_ = meshes_.at(mesh_name_);
    }
    program_.mesh = mesh_;
    source_->mesh_name = mesh_name_;
    program_.mlir = source_;
    return std::move(program_);
  }

 private:
  // ---- parsing ---------------------------------------------------------------------

  void parse_top() {
    while (!c_.done()) {
      std::size_t at = c_.at();
      if (c_.peek() == '#') {
        parse_alias();
        continue;
      }
      std::string word = c_.ident();
      if (word == "module") {
        c_.sigil_name('@');
        if (c_.peek_ident() == "attributes") {
          c_.ident();
          if (c_.peek() != '{') c_.expected("'{' after 'attributes'");
          c_.balanced();
        }
        c_.expect('{', "'{' opening the module");
        while (c_.peek() != '}') {
          if (c_.done()) c_.expected("'}' closing the module");
          parse_module_item();
        }
        c_.expect('}', "'}'");
        skip_loc();
      } else if (word == "sdy.mesh" || word == "func.func") {
        c_.seek(at);
        parse_module_item();
      } else {
        c_.seek(at);
        c_.expected("'module', 'sdy.mesh', 'func.func' or a '#loc' alias");
      }
    }
  }

  void parse_alias() {
    std::string name = c_.sigil_name('#');
    c_.expect('=', "'=' after the alias name");
    std::size_t at = c_.at();
    if (c_.peek_ident() == "loc") {
      c_.ident();
      auto range = c_.balanced();
      aliases_[name] = c_.text().substr(range.first + 1, range.second - range.first - 2);
      return;
    }
    c_.skip_space();
    c_.fail(at, "unsupported alias " + name + ": only location aliases (`#loc = loc(...)`) are read");
  }

  void parse_module_item() {
    std::size_t at = c_.at();
    std::string word = c_.ident();
    if (word == "sdy.mesh") return parse_mesh(at);
    if (word == "func.func") return parse_func(at);
    c_.seek(at);
    c_.skip_space();
    std::string what = word.empty() ? c_.found() : "'" + word + "'";
    c_.fail(c_.at(), "unsupported module item " + what + ": expected 'sdy.mesh' or 'func.func'");
  }

  void parse_mesh(std::size_t at) {
    std::string name = c_.sigil_name('@');
    if (name.empty()) c_.expected("the mesh name (@mesh)");
    c_.expect('=', "'='");
    c_.expect('<', "'<' opening the mesh");
    c_.expect('[', "'[' opening the mesh axes");
    Mesh mesh;
    if (!c_.eat(']')) {
      while (true) {
        std::size_t axis_at = c_.at();
        std::string axis = c_.string_literal();
        c_.expect('=', "'=' after the axis name");
        auto size = c_.integer();
        if (!size) c_.expected("the axis size");
        if (*size < 1) c_.fail(axis_at, "mesh " + name + ": axis '" + axis + "' has size " + std::to_string(*size));
        if (mesh.find(axis) >= 0) c_.fail(axis_at, "mesh " + name + ": axis '" + axis + "' declared twice");
        mesh.axes.push_back(MeshAxis{axis, *size});
        if (c_.eat(']')) break;
        c_.expect(',', "',' or ']'");
      }
    }
    if (c_.eat(',')) {  // device_ids=[...]
      std::string key = c_.ident();
      if (key != "device_ids") c_.expected("'device_ids'");
      c_.expect('=', "'='");
      if (c_.peek() != '[') c_.expected("'['");
      c_.balanced();
    }
    c_.expect('>', "'>' closing the mesh");
    skip_loc();
    if (has_mesh_) {
      if (meshes_.count(name)) c_.fail(at, "mesh " + name + " declared twice");
    }
    meshes_[name] = mesh;
    if (!has_mesh_) {
      has_mesh_ = true;
      first_mesh_name_ = name;
    }
  }

  // `loc(...)`: returns its inside, "" when there is none.
  std::string parse_loc() {
    if (c_.peek_ident() != "loc") return "";
    c_.ident();
    if (c_.peek() != '(') c_.expected("'(' after 'loc'");
    auto range = c_.balanced();
    return c_.text().substr(range.first + 1, range.second - range.first - 2);
  }
  void skip_loc() { parse_loc(); }

  Shape parse_tensor_type() {
    c_.skip_space();
    std::size_t at = c_.at();
    std::string word = c_.ident();
    if (word != "tensor") {
      c_.seek(at);
      if (word.empty() && c_.peek() == '!') {
        c_.fail(at, "unsupported type " + c_.found() + ": only ranked tensors are read");
      }
      c_.expected("a tensor type");
    }
    if (c_.peek() != '<') c_.expected("'<' after 'tensor'");
    auto range = c_.balanced();
    std::string inside = c_.text().substr(range.first + 1, range.second - range.first - 2);
    Shape shape;
    std::size_t i = 0;
    while (true) {
      std::size_t start = i;
      while (i < inside.size() && std::isdigit(static_cast<unsigned char>(inside[i]))) ++i;
      if (i < inside.size() && inside[i] == '?')
        c_.fail(at, "dynamic dimensions are not supported: tensor<" + inside + ">");
      if (i == start || i >= inside.size() || inside[i] != 'x') {
        i = start;
        break;
      }
      std::int64_t d = 0;
      auto [end, ec] = std::from_chars(inside.data() + start, inside.data() + i, d);
      if (ec != std::errc()) c_.fail(at, "dimension " + inside.substr(start, i - start) + " is too large");
      shape.push_back(d);
      ++i;  // the 'x'
    }
    if (i >= inside.size() || !(std::isalpha(static_cast<unsigned char>(inside[i])) || inside[i] == '!'))
      c_.fail(at, "cannot read the tensor type tensor<" + inside + ">");
    if (inside.find(',') != std::string::npos)
      c_.fail(at, "tensor encodings are not supported: tensor<" + inside + ">");
    return shape;
  }

  // `{key = value, ...}`: keeps the range of `sdy.sharding`'s value and where `}` is.
  void parse_attr_dict(MlirRange& sharding, std::size_t& dict_close, bool& dict_empty) {
    c_.expect('{', "'{'");
    dict_empty = true;
    while (!c_.eat('}')) {
      if (c_.done()) c_.expected("'}'");
      dict_empty = false;
      std::string key;
      if (c_.peek() == '"')
        key = c_.string_literal();
      else
        key = c_.ident();
      if (key.empty()) c_.expected("an attribute name");
      if (c_.eat('=')) {
        c_.skip_space();
        std::size_t begin = c_.at();
        skip_attr_value();
        if (key == "sdy.sharding") sharding = MlirRange{begin, c_.at()};
      }
      if (c_.peek() == '}') {
        dict_close = c_.at();
        continue;
      }
      c_.expect(',', "',' or '}' in the attribute dictionary");
    }
    if (dict_close == kNoSite || dict_empty) dict_close = c_.at() - 1;
  }

  // One attribute value: up to the next ',' or '}' outside brackets.
  void skip_attr_value() {
    c_.skip_space();
    std::size_t start = c_.at();
    while (true) {
      char ch = c_.peek();
      if (ch == '\0') c_.expected("an attribute value");
      if (ch == ',' || ch == '}') break;
      if (ch == '(' || ch == '[' || ch == '{' || ch == '<') {
        c_.balanced();
      } else if (ch == '"') {
        c_.string_literal();
      } else if (ch == ')' || ch == ']' || ch == '>') {
        c_.fail(c_.at(), std::string("unbalanced '") + ch + "'");
      } else {
        c_.seek(c_.at() + 1);
      }
    }
    if (c_.at() == start) c_.expected("an attribute value");
  }

  void parse_func(std::size_t at) {
    MlirParsedFunc f;
    f.at = at;
    std::string word = c_.peek_ident();
    if (word == "public" || word == "private" || word == "nested") {
      c_.ident();
      f.is_public = word == "public";
    }
    f.name = c_.sigil_name('@');
    if (f.name.empty()) c_.expected("the function name (@name)");
    c_.expect('(', "'(' opening the arguments");
    if (!c_.eat(')')) {
      while (true) {
        MlirParsedValue arg;
        c_.skip_space();
        arg.at = c_.at();
        arg.name = c_.sigil_name('%');
        if (arg.name.empty()) c_.expected("an argument (%name)");
        c_.expect(':', "':' after the argument name");
        arg.shape = parse_tensor_type();
        arg.insert = c_.at();
        if (c_.peek() == '{') parse_attr_dict(arg.sharding, arg.dict_close, arg.dict_empty);
        arg.loc = parse_loc();
        f.args.push_back(std::move(arg));
        if (c_.eat(')')) break;
        c_.expect(',', "',' or ')' after an argument");
      }
    }
    if (c_.eat_arrow()) {
      if (c_.eat('(')) {
        if (!c_.eat(')')) {
          while (true) {
            MlirParsedValue r;
            c_.skip_space();
            r.at = c_.at();
            r.shape = parse_tensor_type();
            r.insert = c_.at();
            if (c_.peek() == '{') parse_attr_dict(r.sharding, r.dict_close, r.dict_empty);
            f.results.push_back(std::move(r));
            if (c_.eat(')')) break;
            c_.expect(',', "',' or ')' after a result type");
          }
        }
      } else {
        MlirParsedValue r;
        c_.skip_space();
        r.at = c_.at();
        r.type_begin = c_.at();
        r.shape = parse_tensor_type();
        r.type_end = c_.at();
        r.insert = c_.at();
        r.bare_result = true;
        f.results.push_back(std::move(r));
      }
    }
    if (c_.peek_ident() == "attributes") {
      c_.ident();
      if (c_.peek() != '{') c_.expected("'{' after 'attributes'");
      c_.balanced();
    }
    c_.expect('{', "'{' opening the function body");
    while (true) {
      if (c_.done()) c_.expected("'}' closing the function body");
      if (c_.peek() == '}') break;
      MlirParsedOp op = parse_op();
      bool is_return = op.result.empty();
      f.ops.push_back(std::move(op));
      if (is_return) break;
    }
    c_.expect('}', "'}' closing the function body (nothing may follow its return)");
    skip_loc();
    if (functions_.count(f.name)) c_.fail(at, "function " + f.name + " defined twice");
    order_.push_back(f.name);
    functions_.emplace(f.name, std::move(f));
  }

  std::vector<std::int64_t> int_list() {
    std::vector<std::int64_t> out;
    c_.expect('[', "'['");
    if (c_.eat(']')) return out;
    while (true) {
      auto v = c_.integer();
      if (!v) c_.expected("an integer");
      out.push_back(*v);
      if (c_.eat(']')) return out;
      c_.expect(',', "',' or ']'");
    }
  }

  MlirParsedOp parse_op() {
    MlirParsedOp op;
    c_.skip_space();
    std::size_t start = c_.at();
    if (c_.peek() == '%') {
      op.result = c_.sigil_name('%');
      if (c_.peek() == ':') c_.fail(start, "ops with more than one result are not supported");
      c_.expect('=', "'=' after the result name");
    }
    c_.skip_space();
    op.at = c_.at();
    if (c_.peek() == '"') {
      std::string name = c_.string_literal();
      c_.fail(op.at, "unsupported op '" + name +
                         "' (generic form): only the ops of `propagate` in their printed form are read");
    }
    op.name = c_.ident();
    if (op.name.empty()) c_.expected("an op name");
    if (op.name == "call") op.name = "func.call";
    if (op.name == "return") op.name = "func.return";
    if (op.result.empty() && op.name != "func.return")
      c_.fail(op.at, "unsupported op '" + op.name + "' at " + c_.line_col(op.at) + " (an op without a result)");
    if (!op.result.empty() && op.name == "func.return") c_.fail(op.at, "'return' has no result");
    bool known = mlir_op_kinds().count(op.name) || op.name == "func.call" || op.name == "func.return" ||
                 op.name == "sdy.sharding_constraint" || op.name == "stablehlo.constant";
    if (!known) {
      std::string hint;
      if (op.name == "stablehlo.while" || op.name == "stablehlo.case" || op.name == "stablehlo.if")
        hint = " (control flow is not supported)";
      c_.fail(op.at, "unsupported op '" + op.name + "' at " + c_.line_col(op.at) + hint);
    }
    if (op.name == "func.return") {
      while (c_.peek() == '%') {
        c_.skip_space();
        std::size_t at = c_.at();
        op.operands.push_back({c_.sigil_name('%'), at});
        if (!c_.eat(',')) break;
      }
      if (c_.eat(':')) {
        for (std::size_t i = 0; i < op.operands.size(); ++i) {
          if (i) c_.expect(',', "','");
          op.operand_types.push_back(parse_tensor_type());
        }
      }
      op.loc = parse_loc();
      return op;
    }
    // Operands, keyword attributes and the attr dict, up to the type signature.
    while (true) {
      char ch = c_.peek();
      std::size_t here = c_.at();
      if (ch == ':') break;
      if (ch == '\0') c_.expected("':' and the op's type");
      if (ch == '%') {
        op.operands.push_back({c_.sigil_name('%'), here});
      } else if (ch == ',') {
        c_.eat(',');
      } else if (ch == '{') {
        parse_attr_dict(op.sharding, op.dict_close, op.dict_empty);
      } else if (ch == '<' && op.name == "sdy.sharding_constraint") {
        auto range = c_.balanced();
        op.inline_sharding = MlirRange{range.first, range.second};
      } else if (ch == '@' && op.name == "func.call") {
        op.callee_at = here;
        op.callee = c_.sigil_name('@');
        c_.expect('(', "'(' after the callee");
        if (!c_.eat(')')) {
          while (true) {
            c_.skip_space();
            std::size_t at = c_.at();
            std::string v = c_.sigil_name('%');
            if (v.empty()) c_.expected("an operand (%name)");
            op.operands.push_back({v, at});
            if (c_.eat(')')) break;
            c_.expect(',', "',' or ')'");
          }
        }
      } else if (ch == '(' && op.name == "stablehlo.reduce") {
        c_.eat('(');
        while (!c_.eat(')')) {
          c_.skip_space();
          std::size_t at = c_.at();
          std::string v = c_.sigil_name('%');
          if (v.empty()) c_.expected("an operand (%name)");
          op.operands.push_back({v, at});
          std::string word = c_.ident();
          if (word != "init") c_.expected("'init'");
          c_.expect(':', "':' after 'init'");
          c_.skip_space();
          at = c_.at();
          v = c_.sigil_name('%');
          if (v.empty()) c_.expected("the init value (%name)");
          op.operands.push_back({v, at});
          c_.eat(',');
        }
      } else if (CMlirIdentStart(ch)) {
        std::string word = c_.ident();
        if (word == "applies") {
          if (c_.ident().empty()) c_.expected("the reduction op after 'applies'");
        } else if (word == "across") {
          // `across dimensions = [..]` follows
        } else if (op.name == "stablehlo.constant" && c_.peek() == '<') {
          c_.balanced();  // dense<...> and friends
        } else if (c_.eat('=')) {
          char v = c_.peek();
          if (v == '[') {
            std::size_t list_at = c_.at();
            c_.seek(list_at + 1);
            char first = c_.peek();
            c_.seek(list_at);
            if (first == ']' || first == '-' || std::isdigit(static_cast<unsigned char>(first))) {
              std::vector<std::int64_t> list = int_list();
              if (c_.peek_ident() == "x") {
                c_.ident();
                std::vector<std::int64_t> rhs = int_list();
                list.push_back(-1);
                list.insert(list.end(), rhs.begin(), rhs.end());
              }
              op.lists[word] = list;
            } else {
              c_.balanced();
            }
          } else if (v == '-' || std::isdigit(static_cast<unsigned char>(v))) {
            auto n = c_.integer();
            if (!n) c_.expected("an integer");
            op.numbers[word] = *n;
          } else if (v == '<' || v == '(' || v == '{' || v == '"') {
            if (v == '"')
              c_.string_literal();
            else
              c_.balanced();
          } else {
            c_.ident();
          }
        } else {
          c_.seek(here);
          c_.skip_space();
          c_.fail(c_.at(), "unexpected '" + word + "' in '" + op.name + "'");
        }
      } else {
        c_.expected("an operand, an attribute or ':' in '" + op.name + "'");
      }
    }
    c_.skip_space();
    op.colon = c_.at();
    c_.expect(':', "':'");
    if (c_.eat('(')) {
      if (!c_.eat(')')) {
        while (true) {
          op.operand_types.push_back(parse_tensor_type());
          if (c_.eat(')')) break;
          c_.expect(',', "',' or ')' in the operand types");
        }
      }
      if (!c_.eat_arrow()) c_.expected("'->' and the result type");
      if (c_.eat('(')) {
        op.result_type = parse_tensor_type();
        if (!c_.eat(')')) c_.fail(op.at, "ops with more than one result are not supported");
      } else {
        op.result_type = parse_tensor_type();
      }
    } else {
      op.result_type = parse_tensor_type();
      op.operand_types.assign(op.operands.size(), op.result_type);
    }
    op.has_result_type = true;
    if (op.name == "stablehlo.reduce" && c_.peek_ident() == "reducer") {
      c_.ident();
      if (c_.peek() != '(') c_.expected("'(' after 'reducer'");
      c_.balanced();
      if (c_.peek() != '{') c_.expected("'{' opening the reducer body");
      c_.balanced();
    }
    op.loc = parse_loc();
    return op;
  }

  static bool CMlirIdentStart(char ch) { return MlirCursor::ident_start(ch); }

  // ---- building the program --------------------------------------------------------

  const MlirParsedFunc* find_main() {
    auto it = functions_.find("@main");
    if (it != functions_.end()) return &it->second;
    const MlirParsedFunc* only = nullptr;
    for (const std::string& name : order_) {
      const MlirParsedFunc& f = functions_.at(name);
      if (!f.is_public) continue;
      if (only) c_.fail(f.at, "two public functions (" + only->name + ", " + f.name + ") and none called @main");
      only = &f;
    }
    if (!only) c_.fail(0, "no public function (@main) in the module");
    return only;
  }

  // The name a location gives, or "" (file locations and unknown ones give none).
  std::string loc_name(const std::string& loc, int depth = 0) {
    if (loc.empty() || depth > 16) return "";
    std::size_t i = 0;
    while (i < loc.size() && std::isspace(static_cast<unsigned char>(loc[i]))) ++i;
    if (i >= loc.size()) return "";
    if (loc[i] == '#') {
      std::size_t end = i + 1;
      while (end < loc.size() && MlirCursor::ident_char(loc[end])) ++end;
      auto it = aliases_.find(loc.substr(i, end - i));
      return it == aliases_.end() ? "" : loc_name(it->second, depth + 1);
    }
    if (loc[i] == '"') {
      std::size_t end = loc.find('"', i + 1);
      if (end == std::string::npos) return "";
      std::size_t next = end + 1;
      while (next < loc.size() && std::isspace(static_cast<unsigned char>(loc[next]))) ++next;
      if (next < loc.size() && loc[next] == ':') return "";  // "file":line:col
      return loc.substr(i + 1, end - i - 1);
    }
    if (loc.compare(i, 9, "callsite(") == 0) return loc_name(loc.substr(i + 9), depth + 1);
    if (loc.compare(i, 6, "fused[") == 0) return loc_name(loc.substr(i + 6), depth + 1);
    if (loc.compare(i, 6, "fused<") == 0) {
      std::size_t open = loc.find('[', i);
      return open == std::string::npos ? "" : loc_name(loc.substr(open + 1), depth + 1);
    }
    return "";
  }

  TensorSharding read_sharding(const MlirRange& range, MlirShardingSite::Form form, std::size_t rank,
                               const std::string& who) {
    std::string raw = c_.text().substr(range.begin, range.end - range.begin);
    std::string inner;
    auto strip = [&](const std::string& prefix) {
      if (raw.compare(0, prefix.size(), prefix) != 0 || raw.back() != '>') return false;
      inner = raw.substr(prefix.size(), raw.size() - prefix.size() - 1);
      return true;
    };
    bool ok = false;
    if (form == MlirShardingSite::Form::kPerValue) {
      if (strip("#sdy.sharding_per_value<")) {
        std::size_t a = inner.find('<'), b = inner.rfind('>');
        std::size_t lb = inner.find('['), rb = inner.rfind(']');
        if (a != std::string::npos && b != std::string::npos && lb < a && rb > b &&
            inner.find('<', a + 1) == std::string::npos) {
          inner = inner.substr(a + 1, b - a - 1);
          ok = true;
        } else if (a != std::string::npos && inner.find("<@", a + 1) != std::string::npos) {
          c_.fail(range.begin, who + ": a sharding for more than one result");
        }
      }
    } else if (form == MlirShardingSite::Form::kTensor) {
      ok = strip("#sdy.sharding<");
    } else {
      ok = strip("<");
    }
    if (!ok) c_.fail(range.begin, who + ": expected a Shardy sharding (#sdy.sharding<@mesh, [...]>), found " + raw);
    // `@mesh, [dims], replicated={...}`
    std::size_t i = 0;
    while (i < inner.size() && std::isspace(static_cast<unsigned char>(inner[i]))) ++i;
    if (i >= inner.size() || inner[i] != '@')
      c_.fail(range.begin, who + ": expected a mesh name (@mesh) in the sharding, found " + raw);
    std::size_t comma = inner.find(',', i);
    if (comma == std::string::npos) c_.fail(range.begin, who + ": expected ', [' after the mesh name in " + raw);
    std::string mesh = inner.substr(i, comma - i);
    while (!mesh.empty() && std::isspace(static_cast<unsigned char>(mesh.back()))) mesh.pop_back();
    if (mesh_name_.empty() && meshes_.count(mesh)) {  // the first sharding picks the module's mesh
      mesh_name_ = mesh;
      mesh_ = meshes_.at(mesh);
    }
    if (mesh != mesh_name_) {
      if (meshes_.count(mesh) && !mesh_name_.empty())
        c_.fail(range.begin, who + ": sharding on mesh " + mesh + ", but the module's shardings use " + mesh_name_ +
                                 " (one mesh per module)");
      c_.fail(range.begin, who + ": unknown mesh " + mesh);
    }
    std::string body = inner.substr(comma + 1);
    auto written = parse_sharding_text(body);
    if (!written) c_.fail(range.begin, who + ": cannot parse sharding " + raw);
    if (written->dims.size() != rank)
      c_.fail(range.begin, who + ": sharding has " + std::to_string(written->dims.size()) + " dimensions but rank is " +
                               std::to_string(rank));
    std::vector<std::string> problems;
    auto resolved = resolve_sharding(*written, mesh_, problems);
    if (!resolved) {
      std::vector<Diagnostic> diagnostics;
      for (const std::string& p : problems) diagnostics.push_back(Diagnostic{c_.pos(range.begin), "", who + ": " + p});
      throw InputError(std::move(diagnostics));
    }
    return *resolved;
  }

  MlirShardingSite site_of(const MlirParsedValue& v, MlirShardingSite::Form form) const {
    MlirShardingSite site;
    site.form = form;
    if (v.sharding.present()) {
      site.value_begin = v.sharding.begin;
      site.value_end = v.sharding.end;
    } else if (v.dict_close != kNoSite) {
      site.dict_close = v.dict_close;
      site.dict_empty = v.dict_empty;
    } else {
      site.insert = v.insert;
      if (v.bare_result) {
        site.type_begin = v.type_begin;
        site.type_end = v.type_end;
      }
    }
    return site;
  }

  MlirShardingSite site_of(const MlirParsedOp& op) const {
    MlirShardingSite site;
    if (op.inline_sharding.present()) {
      site.form = MlirShardingSite::Form::kInline;
      site.value_begin = op.inline_sharding.begin;
      site.value_end = op.inline_sharding.end;
    } else if (op.sharding.present()) {
      site.value_begin = op.sharding.begin;
      site.value_end = op.sharding.end;
    } else if (op.dict_close != kNoSite) {
      site.dict_close = op.dict_close;
      site.dict_empty = op.dict_empty;
    } else {
      site.insert = op.colon;
    }
    return site;
  }

  int add_tensor(const std::string& preferred, const std::string& fallback, Shape shape,
                 std::optional<TensorSharding> sharding, int defined_by) {
    std::string name = preferred;
    if (name.empty() || names_.count(name)) name = fallback;
    for (int k = 2; names_.count(name); ++k) name = fallback + "#" + std::to_string(k);
    names_.insert(name);
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.sharding_written = sharding.has_value();
    t.sharding = sharding ? *sharding : open_sharding(t.shape.size());
    t.defined_by = defined_by;
    program_.tensors.push_back(std::move(t));
    source_->tensor_sites.emplace_back();
    return static_cast<int>(program_.tensors.size()) - 1;
  }

  // Adds `f`'s arguments (input tensors) and body to the program; returns the tensors
  // its return uses. Values outside main are named `function/%ssa`.
  std::vector<int> build_function(const MlirParsedFunc& f, bool is_main) {
    std::string prefix = is_main ? "" : f.name.substr(1) + "/";
    std::unordered_map<std::string, int> values;
    for (std::size_t i = 0; i < f.args.size(); ++i) {
      const MlirParsedValue& a = f.args[i];
      if (values.count(a.name)) c_.fail(a.at, "argument " + a.name + " declared twice");
      std::optional<TensorSharding> s;
      if (a.sharding.present())
        s = read_sharding(a.sharding, MlirShardingSite::Form::kTensor, a.shape.size(), "argument " + a.name);
      int t = add_tensor(is_main ? loc_name(a.loc) : "", prefix + a.name, a.shape, s, -1);
      source_->tensor_sites[t].push_back(site_of(a, MlirShardingSite::Form::kTensor));
      values[a.name] = t;
    }
    auto operand = [&](const MlirValueRef& v) -> int {
      auto it = values.find(v.name);
      if (it != values.end()) return it->second;
      c_.fail(v.at, "unknown value " + v.name);
    };
    auto define = [&](const MlirParsedOp& op, int t) {
      if (values.count(op.result)) c_.fail(op.at, "value " + op.result + " defined twice");
      values[op.result] = t;
    };
    std::vector<int> returned;
    for (const MlirParsedOp& op : f.ops) {
      std::string where = "'" + op.name + "'";
      if (op.name == "func.return") {
        if (op.operands.size() != f.results.size())
          c_.fail(op.at, f.name + " returns " + std::to_string(op.operands.size()) + " values but declares " +
                             std::to_string(f.results.size()) + " results");
        for (std::size_t i = 0; i < op.operands.size(); ++i) {
          int t = operand(op.operands[i]);
          if (program_.tensors[t].shape != f.results[i].shape)
            c_.fail(op.operands[i].at, "returned value " + op.operands[i].name + " has shape " +
                                           shape_text(program_.tensors[t].shape) + " but the result type has " +
                                           shape_text(f.results[i].shape));
          returned.push_back(t);
        }
        break;
      }
      if (op.name == "stablehlo.constant") {
        // No sharding rule and no operands: its value is an input that users may shard.
        if (!op.operands.empty()) c_.fail(op.at, "'stablehlo.constant' takes no operands");
        std::optional<TensorSharding> sharding;
        if (op.sharding.present())
          sharding = read_sharding(op.sharding, MlirShardingSite::Form::kPerValue, op.result_type.size(), where);
        int t = add_tensor(loc_name(op.loc), prefix + op.result, op.result_type, sharding, -1);
        source_->tensor_sites[t].push_back(site_of(op));
        define(op, t);
        continue;
      }
      std::vector<int> in;
      for (const MlirValueRef& v : op.operands) in.push_back(operand(v));
      if (op.operand_types.size() != in.size())
        c_.fail(op.colon, where + " has " + std::to_string(in.size()) + " operands but its type lists " +
                              std::to_string(op.operand_types.size()));
      for (std::size_t i = 0; i < in.size(); ++i)
        if (program_.tensors[in[i]].shape != op.operand_types[i])
          c_.fail(op.operands[i].at, "operand " + op.operands[i].name + " has shape " +
                                         shape_text(program_.tensors[in[i]].shape) + " but " + where + "'s type says " +
                                         shape_text(op.operand_types[i]));
      if (op.name == "func.call") {
        auto callee = functions_.find(op.callee);
        if (callee == functions_.end()) c_.fail(op.callee_at, "unknown function " + op.callee);
        const MlirParsedFunc& g = callee->second;
        if (g.args.size() != in.size())
          c_.fail(op.callee_at, op.callee + " takes " + std::to_string(g.args.size()) + " arguments, the call passes " +
                                    std::to_string(in.size()));
        for (std::size_t i = 0; i < in.size(); ++i)
          if (g.args[i].shape != program_.tensors[in[i]].shape)
            c_.fail(op.operands[i].at,
                    "argument " + std::to_string(i) + " of " + op.callee + " has shape " + shape_text(g.args[i].shape));
        if (g.results.size() != 1)
          c_.fail(op.at, "calls of functions with " + std::to_string(g.results.size()) +
                             " results are not supported (one result)");
        if (g.results[0].shape != op.result_type)
          c_.fail(op.colon, "the call's result type does not match " + op.callee + "'s");
      }
      Op o;
      int k = static_cast<int>(program_.ops.size());
      o.name = loc_name(op.loc);
      std::string fallback = prefix + op.result;
      if (o.name.empty() || op_names_.count(o.name)) o.name = fallback;
      op_names_.insert(o.name);
      o.operands = in;
      std::optional<TensorSharding> sharding;
      if (op.name == "func.call") {
        o.kind = OpKind::kCall;  // no sharding rule: propagation stops at the call
        if (op.sharding.present())
          sharding = read_sharding(op.sharding, MlirShardingSite::Form::kPerValue, op.result_type.size(), where);
      } else if (op.name == "sdy.sharding_constraint") {
        o.kind = OpKind::kCopy;
        if (!op.inline_sharding.present())
          c_.fail(op.at, "'sdy.sharding_constraint' needs its sharding <@mesh, [...]>");
        sharding = read_sharding(op.inline_sharding, MlirShardingSite::Form::kInline, op.result_type.size(),
                                 "sharding_constraint " + op.result);
      } else {
        o.kind = mlir_op_kinds().at(op.name);
        if (op.sharding.present())
          sharding = read_sharding(op.sharding, MlirShardingSite::Form::kPerValue, op.result_type.size(), where);
        if (o.kind == OpKind::kReduce) {
          if (in.size() != 2)
            c_.fail(op.at, "'stablehlo.reduce' with " + std::to_string(in.size() / 2) +
                               " inputs is not supported (one input and its init value)");
          if (!program_.tensors[in[1]].shape.empty()) c_.fail(op.operands[1].at, "the init value must be a scalar");
          o.operands.pop_back();  // the init value is implicit in the reduce rule
        }
      }
      read_op_attributes(op, o);
      o.results.assign(1, -1);  // the result tensor is added once the op checks out
      std::string problem = o.kind == OpKind::kCall ? "" : check_arity(o);
      if (problem.empty() && o.kind != OpKind::kCall) {
        std::vector<Shape> shapes;
        for (int t : o.operands) shapes.push_back(program_.tensors[t].shape);
        std::optional<Shape> inferred;
        problem = infer_result_shape(o, shapes, &op.result_type, inferred);
        if (problem.empty() && *inferred != op.result_type)
          problem = "the result type " + shape_text(op.result_type) + " should be " + shape_text(*inferred);
      }
      if (!problem.empty()) c_.fail(op.at, where + ": " + problem);
      int t = add_tensor(loc_name(op.loc), fallback, op.result_type, sharding, k);
      o.results = {t};
      source_->tensor_sites[t].push_back(site_of(op));
      program_.ops.push_back(std::move(o));
      define(op, t);
    }
    if (returned.size() != f.results.size()) c_.fail(f.at, f.name + " has no return");
    return returned;
  }

  void read_op_attributes(const MlirParsedOp& op, Op& o) {
    auto list = [&](const char* key, bool required) -> std::vector<std::int64_t> {
      auto it = op.lists.find(key);
      if (it == op.lists.end()) {
        if (required) c_.fail(op.at, "'" + op.name + "' needs `" + key + " = [...]`");
        return {};
      }
      return it->second;
    };
    auto pair = [&](const char* key, std::vector<std::int64_t>& lhs, std::vector<std::int64_t>& rhs) {
      auto it = op.lists.find(key);
      if (it == op.lists.end()) return;
      auto sep = std::find(it->second.begin(), it->second.end(), -1);
      if (sep == it->second.end()) c_.fail(op.at, "'" + op.name + "': `" + key + "` must read `[..] x [..]`");
      lhs.assign(it->second.begin(), sep);
      rhs.assign(sep + 1, it->second.end());
    };
    switch (o.kind) {
      case OpKind::kDotGeneral:
        pair("batching_dims", o.lhs_batching_dims, o.rhs_batching_dims);
        pair("contracting_dims", o.lhs_contracting_dims, o.rhs_contracting_dims);
        break;
      case OpKind::kReduce:
        o.dimensions = list("dimensions", true);
        break;
      case OpKind::kTranspose:
        o.permutation = list("dims", true);
        break;
      case OpKind::kBroadcastInDim:
        o.broadcast_dimensions = list("dims", true);
        break;
      case OpKind::kConcatenate: {
        auto it = op.numbers.find("dim");
        if (it == op.numbers.end()) c_.fail(op.at, "'stablehlo.concatenate' needs `dim = N`");
        o.dimension = it->second;
        if (o.dimension < 0)
          c_.fail(op.at, "'stablehlo.concatenate': dim " + std::to_string(o.dimension) + " is negative");
        break;
      }
      default:
        break;
    }
    for (const auto& [key, values] : op.lists)
      for (std::int64_t v : values)
        if (v < -1 || (v == -1 && key != "batching_dims" && key != "contracting_dims"))
          c_.fail(op.at, "'" + op.name + "': `" + key + "` has a negative entry");
  }

  template <typename Enum, std::size_t N>
  void choose(const std::optional<std::string>& cli, const NameTable<Enum, N>& table, const std::string& what,
              Enum& out) {
    if (!cli) return;
    auto value = parse_name(table, *cli);
    if (!value) throw InputError(SourcePos{}, "", "unknown " + what + " '" + *cli + "'");
    out = *value;
  }

  void apply_options(const OptionOverrides& cli) {
    Options& o = program_.options;
    if (cli.conservative_propagation) o.conservative_propagation = *cli.conservative_propagation;
    if (cli.keep_sharding_rules) o.keep_sharding_rules = *cli.keep_sharding_rules;
    if (cli.no_op_priority_propagation) o.no_op_priority_propagation = *cli.no_op_priority_propagation;
    if (cli.module_dump_directory) o.module_dump_directory = *cli.module_dump_directory;
    if (cli.output) o.output = *cli.output;
    choose(cli.factor_propagation, kFactorPropagationNames, "factor propagation", o.factor_propagation);
    choose(cli.format, kOutputFormatNames, "format", o.format);
    choose(cli.strategy, kStrategyNames, "strategy", o.strategy);
  }

  MlirCursor c_;
  std::shared_ptr<MlirSource> source_;
  Program program_;
  bool has_mesh_ = false;
  std::string first_mesh_name_;
  Mesh mesh_;
  std::string mesh_name_;
  std::map<std::string, Mesh> meshes_;
  std::map<std::string, std::string> aliases_;
  std::map<std::string, MlirParsedFunc> functions_;
  std::vector<std::string> order_;
  std::set<std::string> names_, op_names_;
};

}  // namespace

bool looks_like_mlir(const std::string& path, std::string_view text) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".mlir") == 0) return true;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      break;
    }
  }
  std::string_view rest = text.substr(i);
  for (std::string_view start : {"module", "func.func", "sdy.mesh", "#loc"})
    if (rest.substr(0, start.size()) == start) return true;
  return false;
}

Program read_mlir_program(const std::string& path, std::string text, const OptionOverrides& overrides) {
  constexpr std::size_t kMaxMlirBytes = std::size_t{64} << 20;  // the limit every input file has
  if (text.size() > kMaxMlirBytes)
    throw InputError(SourcePos{path, 0, 0}, "", "the file is larger than the 64 MiB input limit");
  auto source = std::make_shared<MlirSource>();
  source->text = std::move(text);
  MlirModuleReader reader(path, source->text);
  return reader.read(overrides, source);
}

}  // namespace shardplan::propagation
