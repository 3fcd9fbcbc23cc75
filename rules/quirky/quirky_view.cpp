#include "quirky_state.hpp"

namespace plateau::rules::quirky {

json QuirkyState::changing_view(std::optional<Seat>) const {
  // Nothing in Quirky is private to a seat, so every viewer sees the same thing; what must stay
  // hidden (the Rng, hence the order of the coming draws) is simply never written here.
  json view = rest_of_view();
  view["points"] = array_of(stacks_.size(), [this](std::size_t p) {
    const Point& point = board_->points[p];
    return object_of("id", point.id, "x", point.x, "y", point.y, "stack", stack_json(p));
  });
  view["log"] = array_of(log_.size(), [this](std::size_t i) { return log_json(log_[i]); });
  return view;
}

bool QuirkyState::update_view(json& board, std::optional<Seat>, const Shown*,
                              Update& update) const {
  json* points = member_of(board, "points", json::value_t::array);
  json* log = member_of(board, "log", json::value_t::array);
  if (!points || !log || points->size() != stacks_.size() || log->size() > log_.size())
    return false;
  for (std::size_t p = 0; p < stacks_.size(); ++p) {
    json& point = (*points)[p];
    if (!point.is_object() || !point.contains("stack"))
      return false;  // checked before any change below
  }
  for (std::size_t p = 0; p < stacks_.size(); ++p) {
    json& stack = (*points)[p]["stack"];
    if (shows_stack(stack, p)) continue;
    stack = stack_json(p);
    update.edits.push_back({false, "/points/" + std::to_string(p) + "/stack"});
  }
  update.append(*log, log_.size(), "/log", [this](std::size_t i) { return log_json(log_[i]); });
  update.rest = rest_of_view();
  return true;
}

json QuirkyState::stack_json(std::size_t p) const {
  json stack = json::array();
  for (int h = 0; h < stacks_[p].height; ++h) stack.push_back(kPieceNames[stacks_[p].pieces[h]]);
  return stack;
}

bool QuirkyState::shows_stack(const json& node, std::size_t p) const {
  if (!node.is_array() || node.size() != static_cast<std::size_t>(stacks_[p].height)) return false;
  for (int h = 0; h < stacks_[p].height; ++h) {
    const json& piece = node[static_cast<std::size_t>(h)];
    if (!piece.is_string() ||
        piece.get_ref<const std::string&>() != kPieceNames[stacks_[p].pieces[h]])
      return false;
  }
  return true;
}

json QuirkyState::rest_of_view() const {
  json seats = json::array();
  for (Seat s = 0; s < seats_; ++s)
    seats.push_back(object_of("colour", kPieceNames[colour_of_[s]], "score", score_[s]));
  json bag = json::object();
  for (int k = 0; k < kKinds; ++k) bag[std::string(kPieceNames[k])] = bag_[k];
  json set_aside = json::object();
  for (int c = 0; c < kColours; ++c) set_aside[std::string(kPieceNames[c])] = set_aside_[c];
  const int neutral = holder_free_colour();
  return object_of("seats", std::move(seats), "neutral",
                   neutral == kNoColour ? json(nullptr) : json(kPieceNames[neutral]), "drawn",
                   drawn_json(), "bag", std::move(bag), "set_aside", std::move(set_aside),
                   "triangles", aligned_only_ ? "aligned" : "any", "last", last_json());
}

json QuirkyState::drawn_json() const {
  if (outcome_ || drawn_ == kNoColour) return nullptr;
  // The choices open to the drawer, so a table can highlight them without knowing the rules.
  json points = json::array();
  json moves = json::object();
  for (const Action& action : actions()) {
    if (action.kind == Action::Kind::place) {
      points.push_back(board_->points[action.to].id);
    } else if (action.kind == Action::Kind::take) {
      points.push_back(board_->points[action.from].id);
    } else {
      const std::string& from = board_->points[action.from].id;
      if (!moves.contains(from)) {
        points.push_back(from);
        moves[from] = json::array();
      }
      moves[from].push_back(board_->points[action.to].id);
    }
  }
  return object_of("piece", kPieceNames[drawn_], "seat", to_move_, "points", std::move(points),
                   "moves", std::move(moves));
}

json QuirkyState::last_json() const {
  if (!last_) return nullptr;
  json scored = json::array();
  for (const auto& s : last_->scored) {
    json corners = json::array();
    for (int p : board_->triangles[s.triangle].corners) corners.push_back(board_->points[p].id);
    scored.push_back(object_of("points", std::move(corners), "colour", kPieceNames[s.colour],
                               "seat", s.seat == kNoSeat ? json(nullptr) : json(s.seat), "gain",
                               s.gain));
  }
  return object_of("seat", last_->seat, "piece", kPieceNames[last_->piece], "move", last_->move,
                   "scored", std::move(scored));
}

json QuirkyState::log_json(const LogEntry& e) {
  return object_of("seat", e.seat, "piece", kPieceNames[e.piece], "event", e.event, "move",
                   e.move.empty() ? json(nullptr) : json(e.move), "gain", e.gain, "returned",
                   e.returned == kNoColour ? json(nullptr) : json(kPieceNames[e.returned]));
}

}  // namespace plateau::rules::quirky
