#include "view.hpp"

namespace plateau::protocol {

using nlohmann::json;

std::string_view status_string(Status s) {
  switch (s) {
    case Status::waiting: return "waiting";
    case Status::playing: return "playing";
    case Status::over: return "over";
  }
  return "waiting";
}

json make_state(const RoomFacts& room, const rules::State& state, std::optional<rules::Seat> viewer) {
  json seats = json::array();
  for (std::size_t i = 0; i < room.seats->size(); ++i) {
    const auto& s = (*room.seats)[i];
    seats.push_back({{"seat", i}, {"name", s.name ? json(*s.name) : json(nullptr)}, {"connected", s.connected}});
  }
  const bool playing = room.status == Status::playing;
  const auto mover = state.to_move();
  json legal = json::array();
  if (playing && viewer && mover == viewer)
    for (auto& m : state.legal_moves()) legal.push_back(std::move(m.text));
  json rematch = json::array();
  if (room.rematch)
    for (std::size_t i = 0; i < room.rematch->size(); ++i)
      if ((*room.rematch)[i]) rematch.push_back(i);
  const auto outcome = state.outcome();
  return json{{"game", room.game},
              {"status", status_string(room.status)},
              {"round", room.round},
              {"seats", std::move(seats)},
              {"you", viewer ? json(*viewer) : json(nullptr)},
              {"to_move", playing && mover ? json(*mover) : json(nullptr)},
              {"legal_moves", std::move(legal)},
              {"outcome", outcome ? rules::to_json(*outcome) : json(nullptr)},
              {"rematch", std::move(rematch)},
              {"board", state.view(viewer)}};
}

json diff(const json& from, const json& to) { return json::diff(from, to); }

std::optional<json> apply_patch(const json& doc, const json& ops) {
  try {
    return doc.patch(ops);
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace plateau::protocol
