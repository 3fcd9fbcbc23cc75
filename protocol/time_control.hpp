// A table's time control, chosen at `create` (issue 44): none (casual), live Fischer (a base
// time and an increment per move), or correspondence (days per move, the clock restarting at
// every move). Its wire form, {"kind":"live","base_ms":180000,"increment_ms":2000} or
// {"kind":"correspondence","days":3}, is the same in `create`, the state and the store.
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include <nlohmann/json.hpp>

namespace plateau::protocol {

struct TimeControl {
  enum class Kind { none, live, correspondence };
  Kind kind = Kind::none;
  std::int64_t base_ms = 0;       // live: each seat's time at the start
  std::int64_t increment_ms = 0;  // live: added to a seat's time after each of its moves
  int days = 0;                   // correspondence: the time for each move

  bool timed() const { return kind != Kind::none; }
  // What a seat has for each move in a correspondence game.
  std::int64_t per_move_ms() const { return std::int64_t{days} * 86'400'000; }
  friend bool operator==(const TimeControl&, const TimeControl&) = default;
};

// The bounds a time control must keep.
inline constexpr std::int64_t kMinBaseMs = 1'000, kMaxBaseMs = 4 * 3'600'000;
inline constexpr std::int64_t kMaxIncrementMs = 180'000;
inline constexpr int kMinDays = 1, kMaxDays = 14;

// null for none.
nlohmann::json to_json(const TimeControl& tc);
// From the wire (or the store): null or absent is none; anything else must be one of the two
// forms, in bounds. The error says what is wrong, for people.
std::expected<TimeControl, std::string> time_control_from_json(const nlohmann::json& j);

}  // namespace plateau::protocol
