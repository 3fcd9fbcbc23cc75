// Reading a board that came from outside the rules (Game::from_view: a client's view, sent back
// over the wire): a member, an array of a size, an integer within bounds. Each answers nullptr or
// nullopt for anything else, and none throws, whatever the JSON holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace plateau::rules::read {

// `j` as an int when it is an integer in [lo, hi] (hi >= 0); nullopt for anything else. A board
// parsed from the wire holds its non-negative numbers as unsigned ones, so both kinds are taken.
inline std::optional<int> int_in(const nlohmann::json& j, int lo, int hi) {
  if (!j.is_number_integer()) return std::nullopt;  // unsigned numbers are integers too
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    return std::nullopt;  // too large for int64_t, which would read it as negative
  const auto v = j.get<std::int64_t>();
  return v >= lo && v <= hi ? std::optional<int>(static_cast<int>(v)) : std::nullopt;
}
inline std::optional<int> int_in(const nlohmann::json* j, int lo, int hi) {
  return j ? int_in(*j, lo, hi) : std::nullopt;
}

// `node`'s member `key`, or nullptr when `node` is missing, not an object or has no such member.
inline const nlohmann::json* member(const nlohmann::json* node, std::string_view key) {
  if (!node || !node->is_object()) return nullptr;
  const auto it = node->find(key);
  return it == node->end() ? nullptr : &*it;
}
inline const nlohmann::json* member(const nlohmann::json& node, std::string_view key) {
  return member(&node, key);
}

// `node` as an array of `size` elements (any size when nullopt), or nullptr.
inline const nlohmann::json* array(const nlohmann::json* node,
                                   std::optional<std::size_t> size = std::nullopt) {
  if (!node || !node->is_array() || (size && node->size() != *size)) return nullptr;
  return node;
}

}  // namespace plateau::rules::read
