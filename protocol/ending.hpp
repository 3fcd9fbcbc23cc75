// A round that ends outside the rules: a player resigns, the players agree a draw, or a
// player's clock runs out. Its
// outcome is the rules' Outcome (winners, scores, a reason for people) with a stable code for
// how it ended, `end`, and the seat that ended it, `seat`:
//   {"winners":[1],"scores":[],"reason":"Ada resigned","end":"resigned","seat":0}
// A round the rules end has no `end` (PROTOCOL.md, "How a round ends").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A player of a game of three or four seats leaves the round while the others play on: they
// resigned, ran out of time, or were gone too long and dropped. An easy bot plays their seat
// from there, so that the game's turns go on as its rules say; the player keeps the score
// they had when they left and ranks below everyone who stayed, the first to leave lowest.
//   {"seat":2,"end":"flagged","at":31,"score":14,"reason":"Cy ran out of time"}
// `at` is the moves of the round made before they left; `score` is null in a game without.
struct Departure {
  EndKind kind = EndKind::resigned;  // never agreed_draw
  rules::Seat seat = 0;
  std::size_t at = 0;
  std::optional<int> score{};
  std::string reason{};
  friend bool operator==(const Departure&, const Departure&) = default;
};
// `seat`, shown as `name`, leaves after `at` moves with `scores` as they stand (empty: none).
Departure departure(EndKind kind, rules::Seat seat, const std::string& name, std::size_t at,
                    const std::vector<int>& scores);
nlohmann::json to_json(const Departure& d);
// The departures a stored or uploaded list holds, each valid for a game of `seats` seats with
// no seat twice; nullopt when one is not (or `j` is not an array). Null reads as none.
std::optional<std::vector<Departure>> departures_from_json(const nlohmann::json& j, int seats);
nlohmann::json to_json(const std::vector<Departure>& ds);

// The outcome of a round the rules ended after `left` left: the winners are the rules' winners
// who stayed, or, if none did, those who stayed with the best score (the games of three or four
// seats all score); each leaver's score is the one they left with; the reason says who left.
rules::Outcome after_departures(rules::Outcome outcome, const std::vector<Departure>& left);
// The round ends because only `stayer` is left: they win, with `scores` as they stand (the
// leavers' as they left them). Its kind and seat are the last departure's.
Ending last_one_standing(rules::Seat stayer, const std::vector<Departure>& left,
                         std::vector<int> scores);
// An outcome as the state shows it, with who left, in order, as "left" when anyone did.
nlohmann::json outcome_json(const rules::Outcome& outcome, const std::vector<Departure>& left);
nlohmann::json outcome_json(const Ending& ending, const std::vector<Departure>& left);

}  // namespace plateau::protocol
