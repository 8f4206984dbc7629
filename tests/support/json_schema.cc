#include "support/json_schema.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <regex>

namespace shardplan::testing {

using nlohmann::json;

namespace {

// A JSON-Schema subset: type, properties, required, additionalProperties, enum,
// const, items, oneOf, anyOf, $ref to #/$defs, minimum/maximum (exclusive too),
// minItems, maxItems, minLength, pattern. Appends "path: problem" lines to `errors`.
class MiniValidator {
 public:
  explicit MiniValidator(const json& root) : root_(root) {}

  void validate(const json& schema, const json& value, const std::string& path,
                std::vector<std::string>& errors) const {
    if (schema.contains("$ref")) {
      std::string ref = schema["$ref"];
      REQUIRE(ref.rfind("#/$defs/", 0) == 0);
      validate(root_["$defs"][ref.substr(8)], value, path, errors);
    }
    if (schema.contains("type") && !type_matches(schema["type"], value)) {
      errors.push_back(path + ": expected type " + schema["type"].dump() + ", found " + value.dump());
      return;
    }
    if (schema.contains("const") && schema["const"] != value)
      errors.push_back(path + ": expected " + schema["const"].dump() + ", found " + value.dump());
    if (schema.contains("enum")) {
      bool found = false;
      for (const auto& e : schema["enum"]) found = found || e == value;
      if (!found) errors.push_back(path + ": " + value.dump() + " not in enum");
    }
    if (value.is_number()) {
      double v = value.get<double>();
      if (schema.contains("minimum") && v < schema["minimum"].get<double>()) errors.push_back(path + ": below minimum");
      if (schema.contains("exclusiveMinimum") && v <= schema["exclusiveMinimum"].get<double>())
        errors.push_back(path + ": not above exclusiveMinimum");
      if (schema.contains("maximum") && v > schema["maximum"].get<double>()) errors.push_back(path + ": above maximum");
      if (schema.contains("exclusiveMaximum") && v >= schema["exclusiveMaximum"].get<double>())
        errors.push_back(path + ": not below exclusiveMaximum");
    }
    if (value.is_string()) {
      std::string s = value;
      if (schema.contains("minLength") && s.size() < schema["minLength"].get<std::size_t>())
        errors.push_back(path + ": too short");
      if (schema.contains("pattern") && !std::regex_search(s, std::regex(schema["pattern"].get<std::string>())))
        errors.push_back(path + ": " + s + " does not match the pattern");
    }
    if (value.is_array()) {
      if (schema.contains("minItems") && value.size() < schema["minItems"].get<std::size_t>())
        errors.push_back(path + ": too few items");
      if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<std::size_t>())
        errors.push_back(path + ": too many items");
      if (schema.contains("items"))
        for (std::size_t i = 0; i < value.size(); ++i)
          validate(schema["items"], value[i], path + "[" + std::to_string(i) + "]", errors);
    }
    if (value.is_object()) {
      if (schema.contains("required"))
        for (const auto& key : schema["required"])
          if (!value.contains(key.get<std::string>())) errors.push_back(path + ": missing " + key.get<std::string>());
      for (const auto& [key, item] : value.items()) {
        std::string kpath = path + "." + key;
        if (schema.contains("properties") && schema["properties"].contains(key)) {
          validate(schema["properties"][key], item, kpath, errors);
        } else if (schema.contains("additionalProperties")) {
          const json& extra = schema["additionalProperties"];
          if (extra.is_boolean()) {
            if (!extra.get<bool>()) errors.push_back(kpath + ": not allowed");
          } else {
            validate(extra, item, kpath, errors);
          }
        }
      }
    }
    for (const char* combinator : {"oneOf", "anyOf"}) {
      if (!schema.contains(combinator)) continue;
      int matches = 0;
      for (const auto& option : schema[combinator]) {
        std::vector<std::string> sub;
        validate(option, value, path, sub);
        matches += sub.empty() ? 1 : 0;
      }
      bool ok = std::string(combinator) == "oneOf" ? matches == 1 : matches >= 1;
      if (!ok)
        errors.push_back(path + ": " + value.dump() + " matches " + std::to_string(matches) + " of " + combinator);
    }
  }

 private:
  static bool type_matches(const json& type, const json& value) {
    if (type.is_array()) {
      for (const auto& t : type)
        if (type_matches(t, value)) return true;
      return false;
    }
    std::string t = type;
    if (t == "object") return value.is_object();
    if (t == "array") return value.is_array();
    if (t == "string") return value.is_string();
    if (t == "boolean") return value.is_boolean();
    if (t == "null") return value.is_null();
    if (t == "integer")
      return value.is_number_integer() ||
             (value.is_number_float() && value.get<double>() == std::floor(value.get<double>()));
    if (t == "number") return value.is_number();
    return false;
  }
  const json& root_;
};

}  // namespace

std::vector<std::string> schema_errors(const json& schema, const json& value) {
  std::vector<std::string> errors;
  MiniValidator(schema).validate(schema, value, "$", errors);
  return errors;
}

json load_schema(const std::string& name) {
  std::ifstream in(std::string(SHARDPLAN_SOURCE_DIR) + "/schemas/" + name);
  return json::parse(in);
}

}  // namespace shardplan::testing
