// Building nlohmann::ordered_json objects field by field, in order.
//
// nlohmann's initializer-list form, Json{{"a", 1}, {"b", 2}}, first builds every
// pair as a two-element array, then checks that all of them are pairs and copies
// them into the object; the plan file and --stats json build tens of thousands of
// small objects that way. json_object("a", 1, "b", 2) appends the same fields in
// the same order, constructing each value once.
#pragma once

#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

namespace shardplan {

namespace json_object_detail {
inline void append(nlohmann::ordered_json::object_t&) {}

template <typename Value, typename... Rest>
void append(nlohmann::ordered_json::object_t& fields, const char* key, Value&& value, Rest&&... rest) {
  // The object's own storage is a vector of (key, value): appending keeps order
  // and skips the duplicate-key search, as every key here is distinct.
  fields.emplace_back(std::piecewise_construct, std::forward_as_tuple(key),
                      std::forward_as_tuple(std::forward<Value>(value)));
  append(fields, std::forward<Rest>(rest)...);
}
}  // namespace json_object_detail

// json_object("key1", value1, "key2", value2, ...): keys must be distinct.
template <typename... KeysAndValues>
nlohmann::ordered_json json_object(KeysAndValues&&... keys_and_values) {
  static_assert(sizeof...(KeysAndValues) % 2 == 0, "json_object takes key, value pairs");
  nlohmann::ordered_json object(nlohmann::ordered_json::value_t::object);
  auto& fields = object.get_ref<nlohmann::ordered_json::object_t&>();
  fields.reserve(sizeof...(KeysAndValues) / 2);
  json_object_detail::append(fields, std::forward<KeysAndValues>(keys_and_values)...);
  return object;
}

}  // namespace shardplan
