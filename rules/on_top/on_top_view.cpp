#include "on_top_state.hpp"

namespace plateau::rules::on_top {

json OnTopState::changing_view(std::optional<Seat>) const {
  // Nothing here is private: every viewer, spectators included, sees the same table. The pile
  // shows only its size; which tile comes next is not even decided until it is drawn.
  json view = rest_of_view();
  view["cells"] = array_of(cells_.size(), [this](std::size_t i) { return cell_json(i); });
  view["towers"] = array_of(towers_.size(), [this](std::size_t v) { return tower_json(v); });
  return view;
}

// What update_view compares the next position with: numbers rather than the board's nodes.
struct OnTopState::OnTopShown final : Shown {
  std::vector<CellState> cells;
  std::vector<bool> closed;
};

std::shared_ptr<const ViewParts::Shown> OnTopState::shown() const {
  auto out = std::make_shared<OnTopShown>();
  out->cells = cells_;
  out->closed = closed_;
  return out;
}

bool OnTopState::update_view(json& board, std::optional<Seat>, const Shown* shown_base,
                             Update& update) const {
  json* cells = member_of(board, "cells", json::value_t::array);
  json* towers = member_of(board, "towers", json::value_t::array);
  if (!cells || !towers || cells->size() != cells_.size() || towers->size() != towers_.size())
    return false;
  // Only this game's shown() made it.
  const auto* shown = static_cast<const OnTopShown*>(shown_base);
  if (!shown || shown->cells.size() != cells_.size() || shown->closed.size() != closed_.size())
    return update_by_walking(*cells, *towers, update);
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    if (cells_[i] == shown->cells[i]) continue;
    (*cells)[i] = cell_json(i);
    update.edits.push_back({false, "/cells/" + std::to_string(i)});
  }
  for (std::size_t v = 0; v < towers_.size(); ++v) {
    if (closed_[v] == shown->closed[v]) continue;
    (*towers)[v] = tower_json(v);
    update.edits.push_back({false, "/towers/" + std::to_string(v)});
  }
  update.rest = rest_of_view();
  return true;
}

bool OnTopState::update_by_walking(json& cells, json& towers, Update& update) const {
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    json& node = cells[i];
    if (shows_cell(node, i)) continue;
    node = cell_json(i);
    update.edits.push_back({false, "/cells/" + std::to_string(i)});
  }
  for (std::size_t v = 0; v < towers_.size(); ++v) {
    json& node = towers[v];
    if (closed_[v] ? node.is_array() && node.size() == towers_[v].size() : node.is_null()) {
      bool same = true;
      for (std::size_t k = 0; same && closed_[v] && k < towers_[v].size(); ++k)
        same = node[k].is_string() &&
               node[k].get_ref<const std::string&>() == kColourNames[towers_[v][k]];
      if (same) continue;
    }
    node = tower_json(v);
    update.edits.push_back({false, "/towers/" + std::to_string(v)});
  }
  update.rest = rest_of_view();
  return true;
}

json OnTopState::cell_json(std::size_t i) const {
  const auto& cell = cells_[i];
  if (cell.kind == Kind::empty) return nullptr;
  json j{{"kind", kind_name(cell.kind)}};
  if (cell.kind == Kind::tile) {
    json corners = json::array();
    for (int c : cell.corners) corners.push_back(kColourNames[c]);
    j["tile"] = cell.tile;
    j["turn"] = cell.turn;
    j["pair"] = cell.pair;
    j["corners"] = std::move(corners);
  }
  return j;
}

bool OnTopState::shows_cell(const json& node, std::size_t i) const {
  const auto& cell = cells_[i];
  if (cell.kind == Kind::empty) return node.is_null();
  if (!node.is_object() || node.size() != (cell.kind == Kind::tile ? 5u : 1u)) return false;
  const auto kind = node.find("kind");
  if (kind == node.end() || !kind->is_string() ||
      kind->get_ref<const std::string&>() != kind_name(cell.kind))
    return false;
  if (cell.kind != Kind::tile) return true;
  const auto tile = node.find("tile"), turn = node.find("turn"), pair = node.find("pair"),
             corners = node.find("corners");
  if (tile == node.end() || turn == node.end() || pair == node.end() || corners == node.end() ||
      *tile != cell.tile || *turn != cell.turn || *pair != cell.pair || !corners->is_array() ||
      corners->size() != cell.corners.size())
    return false;
  for (std::size_t k = 0; k < cell.corners.size(); ++k) {
    const json& c = (*corners)[k];
    if (!c.is_string() || c.get_ref<const std::string&>() != kColourNames[cell.corners[k]])
      return false;
  }
  return true;
}

json OnTopState::tower_json(std::size_t v) const {
  if (!closed_[v]) return nullptr;
  json tower = json::array();
  for (int c : towers_[v]) tower.push_back(kColourNames[c]);
  return tower;
}

json OnTopState::rest_of_view() const {
  json colours = json::array();
  for (int c = 0; c < kColours; ++c)
    colours.push_back(object_of("colour", kColourNames[c], "seat",
                                c < players_ ? json(c) : json(nullptr), "pawns_left", pawns_[c]));
  json seats = json::array();
  for (Seat s = 0; s < players_; ++s)
    seats.push_back(object_of("colour", kColourNames[s], "team",
                              teams_ ? json(s % 2) : json(nullptr), "score", score_[s], "penalty",
                              penalty_[s]));
  json drawn = nullptr;
  if (drawn_) {
    json sixths = json::array();
    for (int c : tiles_[*drawn_]) sixths.push_back(kColourNames[c]);
    drawn = object_of("tile", *drawn_, "sixths", std::move(sixths));
  }
  return object_of("start_cells", start_cells_, "colours", std::move(colours), "seats",
                   std::move(seats), "drawn", std::move(drawn), "tiles_left", pile_.size(),
                   "black_left", spare_blacks_, "turn", placed_ + 1, "to_move",
                   outcome_ ? json(nullptr) : json(to_move_), "last", last_, "result",
                   outcome_ ? to_json(*outcome_) : json(nullptr));
}

}  // namespace plateau::rules::on_top
