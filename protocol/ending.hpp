// A round that ends outside the rules: a player resigns, the players agree a draw, or a
// player's clock runs out. Its
// outcome is the rules' Outcome (winners, scores, a reason for people) with a stable code for
// how it ended, `end`, and the seat that ended it, `seat`:
//   {"winners":[1],"scores":[],"reason":"Ada resigned","end":"resigned","seat":0}
// A round the rules end has no `end` (PROTOCOL.md, "How a round ends").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "rules/game.hpp"

namespace plateau::protocol {

enum class EndKind { resigned, agreed_draw, flagged, abandoned };
std::string_view end_string(EndKind kind);

struct Ending {
  EndKind kind = EndKind::resigned;
  // Who resigned; who accepted the draw; whose time ran out; who was gone too long.
  rules::Seat seat = 0;
  rules::Outcome outcome;
  friend bool operator==(const Ending&, const Ending&) = default;
};
nlohmann::json to_json(const Ending& ending);
// The ending a stored outcome or an uploaded record's result describes, for a game of `seats`
// seats; nullopt when `j` is not one (no `end`, an unknown one, seats out of range, wrong types).
std::optional<Ending> ending_from_json(const nlohmann::json& j, int seats);

// `seat` (shown as `name`) resigns a game of two seats: the other wins.
Ending resignation(rules::Seat seat, const std::string& name);
// The players agree a draw; `seat` accepted the other's offer.
Ending agreed_draw(rules::Seat seat);
// `seat` (shown as `name`) ran out of time in a game of two seats: the other wins.
Ending flagged(rules::Seat seat, const std::string& name);
// `seat` (shown as `name`), to move, was gone too long, and the other claimed the win.
Ending abandoned(rules::Seat seat, const std::string& name);

}  // namespace plateau::protocol
