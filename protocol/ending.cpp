#include "protocol/ending.hpp"

#include <algorithm>

namespace plateau::protocol {

using nlohmann::json;

std::string_view end_string(EndKind kind) {
  switch (kind) {
    case EndKind::resigned:
      return "resigned";
    case EndKind::agreed_draw:
      return "agreed_draw";
    case EndKind::flagged:
      return "flagged";
    case EndKind::abandoned:
      return "abandoned";
  }
  return "resigned";
}

json to_json(const Ending& ending) {
  json out = rules::to_json(ending.outcome);
  out["end"] = end_string(ending.kind);
  out["seat"] = ending.seat;
  return out;
}

std::optional<Ending> ending_from_json(const json& j, int seats) {
  if (!j.is_object()) return std::nullopt;
  const auto end = j.find("end"), seat = j.find("seat"), winners = j.find("winners"),
             scores = j.find("scores"), reason = j.find("reason");
  if (end == j.end() || !end->is_string() || seat == j.end() || !seat->is_number_integer() ||
      winners == j.end() || !winners->is_array() || scores == j.end() || !scores->is_array() ||
      reason == j.end() || !reason->is_string())
    return std::nullopt;
  const auto in_range = [seats](const json& s) {
    return s.is_number_integer() && s.get<std::int64_t>() >= 0 && s.get<std::int64_t>() < seats;
  };
  if (!in_range(*seat)) return std::nullopt;
  Ending e;
  if (*end == "resigned")
    e.kind = EndKind::resigned;
  else if (*end == "agreed_draw")
    e.kind = EndKind::agreed_draw;
  else if (*end == "flagged")
    e.kind = EndKind::flagged;
  else if (*end == "abandoned")
    e.kind = EndKind::abandoned;
  else
    return std::nullopt;
  e.seat = seat->get<int>();
  for (const auto& w : *winners) {
    if (!in_range(w)) return std::nullopt;
    e.outcome.winners.push_back(w.get<int>());
  }
  for (const auto& s : *scores) {
    if (!s.is_number_integer()) return std::nullopt;
    e.outcome.scores.push_back(s.get<int>());
  }
  e.outcome.reason = reason->get<std::string>();
  // What each ending must say: nobody wins an agreed draw; who resigns or runs out of time
  // never wins, and somebody else does.
  if (e.kind == EndKind::agreed_draw && !e.outcome.winners.empty()) return std::nullopt;
  if (e.kind != EndKind::agreed_draw &&
      (e.outcome.winners.empty() ||
       std::ranges::find(e.outcome.winners, e.seat) != e.outcome.winners.end()))
    return std::nullopt;
  return e;
}

Ending resignation(rules::Seat seat, const std::string& name) {
  return {EndKind::resigned, seat, rules::Outcome{{1 - seat}, {}, name + " resigned"}};
}

Ending flagged(rules::Seat seat, const std::string& name) {
  return {EndKind::flagged, seat, rules::Outcome{{1 - seat}, {}, name + " ran out of time"}};
}

Ending abandoned(rules::Seat seat, const std::string& name) {
  return {EndKind::abandoned, seat, rules::Outcome{{1 - seat}, {}, name + " left the game"}};
}

Ending agreed_draw(rules::Seat seat) {
  return {EndKind::agreed_draw, seat, rules::Outcome{{}, {}, "draw agreed"}};
}

}  // namespace plateau::protocol
