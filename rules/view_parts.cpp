#include "view_parts.hpp"

namespace plateau::rules {

using nlohmann::json;

json ViewParts::complete_view(json changing, const json* fixed) {
  if (fixed)
    for (const auto& [key, value] : fixed->items()) changing[key] = value;
  return changing;
}

json* member_of(json& board, std::string_view key, json::value_t type) {
  const auto it = board.find(key);
  return it != board.end() && it->type() == type ? &*it : nullptr;
}

}  // namespace plateau::rules
