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

namespace {

// An outcome's code and args as stored beside its reason; endings stored before codes existed
// have none, and keep only their text.
void read_code(const json& j, rules::Outcome& o) {
  const auto code = j.find("code"), args = j.find("args");
  if (code == j.end() || !code->is_string() || args == j.end() || !args->is_object()) return;
  o.code = code->get<std::string>();
  o.args = *args;
}

std::optional<EndKind> end_kind(const json& j) {
  if (!j.is_string()) return std::nullopt;
  for (const auto kind :
       {EndKind::resigned, EndKind::agreed_draw, EndKind::flagged, EndKind::abandoned})
    if (j.get_ref<const std::string&>() == end_string(kind)) return kind;
  return std::nullopt;
}

std::string leaving_reason(EndKind kind, const std::string& name) {
  switch (kind) {
    case EndKind::flagged:
      return name + " ran out of time";
    case EndKind::abandoned:
      return name + " left the game";
    default:
      return name + " resigned";
  }
}

std::string reasons_of(const std::vector<Departure>& left) {
  std::string out;
  for (const auto& d : left) out += (out.empty() ? "" : "; ") + d.reason;
  return out;
}

bool has_left(const std::vector<Departure>& left, rules::Seat seat) {
  return std::ranges::any_of(left, [seat](const Departure& d) { return d.seat == seat; });
}

}  // namespace

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
  const auto kind = end_kind(*end);
  if (!kind) return std::nullopt;
  e.kind = *kind;
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
  read_code(j, e.outcome);
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
  return {EndKind::resigned, seat,
          rules::Outcome{{1 - seat},
                         {},
                         leaving_reason(EndKind::resigned, name),
                         "ended.resigned",
                         {{"seat", seat}}}};
}

Ending flagged(rules::Seat seat, const std::string& name) {
  return {EndKind::flagged, seat,
          rules::Outcome{{1 - seat},
                         {},
                         leaving_reason(EndKind::flagged, name),
                         "ended.flagged",
                         {{"seat", seat}}}};
}

Ending abandoned(rules::Seat seat, const std::string& name) {
  return {EndKind::abandoned, seat,
          rules::Outcome{{1 - seat},
                         {},
                         leaving_reason(EndKind::abandoned, name),
                         "ended.abandoned",
                         {{"seat", seat}}}};
}

Ending agreed_draw(rules::Seat seat) {
  return {EndKind::agreed_draw, seat, rules::Outcome{{}, {}, "draw agreed", "ended.draw_agreed"}};
}

Departure departure(EndKind kind, rules::Seat seat, const std::string& name, std::size_t at,
                    const std::vector<int>& scores) {
  Departure d{kind, seat, at, std::nullopt, leaving_reason(kind, name)};
  if (static_cast<std::size_t>(seat) < scores.size())
    d.score = scores[static_cast<std::size_t>(seat)];
  return d;
}

json to_json(const Departure& d) {
  return json{{"seat", d.seat},
              {"end", end_string(d.kind)},
              {"at", d.at},
              {"score", d.score ? json(*d.score) : json(nullptr)},
              {"reason", d.reason}};
}

json to_json(const std::vector<Departure>& ds) {
  json out = json::array();
  for (const auto& d : ds) out.push_back(to_json(d));
  return out;
}

std::optional<std::vector<Departure>> departures_from_json(const json& j, int seats) {
  std::vector<Departure> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return std::nullopt;
  for (const auto& e : j) {
    if (!e.is_object()) return std::nullopt;
    const auto seat = e.find("seat"), end = e.find("end"), at = e.find("at"),
               score = e.find("score"), reason = e.find("reason");
    if (seat == e.end() || !seat->is_number_integer() || at == e.end() ||
        !at->is_number_unsigned() || score == e.end() ||
        !(score->is_null() || score->is_number_integer()) || reason == e.end() ||
        !reason->is_string() || end == e.end())
      return std::nullopt;
    const auto kind = end_kind(*end);
    const auto s = seat->get<std::int64_t>();
    if (!kind || *kind == EndKind::agreed_draw || s < 0 || s >= seats ||
        has_left(out, static_cast<rules::Seat>(s)))
      return std::nullopt;
    out.push_back({*kind, static_cast<rules::Seat>(s), at->get<std::size_t>(),
                   score->is_null() ? std::nullopt : std::optional<int>(score->get<int>()),
                   reason->get<std::string>()});
  }
  return out;
}

rules::Outcome after_departures(rules::Outcome outcome, const std::vector<Departure>& left) {
  if (left.empty()) return outcome;
  for (const auto& d : left)
    if (d.score && static_cast<std::size_t>(d.seat) < outcome.scores.size())
      outcome.scores[static_cast<std::size_t>(d.seat)] = *d.score;
  std::erase_if(outcome.winners, [&](rules::Seat s) { return has_left(left, s); });
  if (outcome.winners.empty()) {
    // The winners all left: the best of those who stayed wins (all of them without scores).
    const auto& scores = outcome.scores;
    std::optional<int> best;
    for (std::size_t s = 0; s < scores.size(); ++s)
      if (!has_left(left, static_cast<rules::Seat>(s)))
        best = std::max(best.value_or(scores[s]), scores[s]);
    for (std::size_t s = 0; s < scores.size(); ++s)
      if (!has_left(left, static_cast<rules::Seat>(s)) && scores[s] == best)
        outcome.winners.push_back(static_cast<rules::Seat>(s));
  }
  outcome.reason += "; " + reasons_of(left);
  return outcome;
}

Ending last_one_standing(rules::Seat stayer, const std::vector<Departure>& left,
                         std::vector<int> scores) {
  for (const auto& d : left)
    if (d.score && static_cast<std::size_t>(d.seat) < scores.size())
      scores[static_cast<std::size_t>(d.seat)] = *d.score;
  const Departure& last = left.back();
  return {last.kind, last.seat,
          rules::Outcome{{stayer},
                         std::move(scores),
                         reasons_of(left) + ": nobody else is left",
                         "ended.last_standing",
                         {{"seat", stayer}}}};
}

json outcome_json(const rules::Outcome& outcome, const std::vector<Departure>& left) {
  json out = rules::to_json(outcome);
  if (!left.empty()) out["left"] = to_json(left);
  return out;
}

json outcome_json(const Ending& ending, const std::vector<Departure>& left) {
  json out = to_json(ending);
  if (!left.empty()) out["left"] = to_json(left);
  return out;
}

}  // namespace plateau::protocol
