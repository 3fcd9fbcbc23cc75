#include "ltiles_state.hpp"

namespace plateau::rules::ltiles {

namespace {

std::string key_of(Pos p) { return std::to_string(p.x) + "," + std::to_string(p.y); }

}  // namespace

json LTilesState::changing_view(std::optional<Seat> viewer) const {
  json view = rest_of_view(viewer);
  json squares = json::object();
  for (const auto& [pos, column] : board_) squares[key_of(pos)] = square_json(column);
  view["squares"] = std::move(squares);
  view["tiles"] = array_of(tiles_.size(), [this](std::size_t i) { return tile_json(tiles_[i]); });
  return view;
}

bool LTilesState::update_view(json& board, std::optional<Seat> viewer, const Shown*,
                              Update& update) const {
  const json* placed = member_of(board, "placed", json::value_t::number_integer);
  json* tiles = member_of(board, "tiles", json::value_t::array);
  json* squares = member_of(board, "squares", json::value_t::object);
  if (!placed || !tiles || !squares) return false;
  const std::size_t shown = tiles->size();  // the start domino included
  if (shown == 0 || shown > tiles_.size() || placed->get<std::size_t>() != shown - 1) return false;
  std::vector<Pos> covered;
  for (std::size_t i = shown; i < tiles_.size(); ++i)
    for (const Pos& p : tiles_[i].cells)
      if (std::ranges::find(covered, p) == covered.end()) covered.push_back(p);
  update.append(*tiles, tiles_.size(), "/tiles",
                [this](std::size_t i) { return tile_json(tiles_[i]); });
  for (const Pos& p : covered) {
    const std::string key = key_of(p);
    const bool added = !squares->contains(key);
    (*squares)[key] = square_json(board_.at(p));
    update.edits.push_back({added, "/squares/" + key});
  }
  update.rest = rest_of_view(viewer);
  return true;
}

json LTilesState::square_json(const std::vector<Square>& column) {
  const Square& top = column.back();
  return object_of("level", static_cast<int>(column.size()), "colour", std::string(1, top.colour),
                   "tile", top.tile);
}

json LTilesState::tile_json(const PlacedTile& t) {
  json cells = json::array();
  for (std::size_t i = 0; i < t.cells.size(); ++i)
    cells.push_back(list_of(t.cells[i].x, t.cells[i].y, std::string(1, t.kind[i])));
  return object_of("seat", t.seat < 0 ? json(nullptr) : json(t.seat), "kind", t.kind, "at",
                   list_of(t.at.x, t.at.y), "rot", t.rot, "level", t.level, "cells",
                   std::move(cells));
}

json LTilesState::rest_of_view(std::optional<Seat> viewer) const {
  int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  for (const auto& [pos, column] : board_) {
    min_x = std::min(min_x, pos.x);
    min_y = std::min(min_y, pos.y);
    max_x = std::max(max_x, pos.x);
    max_y = std::max(max_y, pos.y);
  }
  json piles = json::array();
  for (int seat = 0; seat < kSeats; ++seat) piles.push_back(pile_view(seat, viewer));

  const auto zones = all_zones();
  json scores = json::array();
  for (int seat = 0; seat < kSeats; ++seat) {
    json list = json::array();
    for (const Zone& z : zones[seat]) list.push_back(list_of(z.score, z.area, z.height));
    json best_cells = json::array();
    if (!zones[seat].empty())
      for (const Pos& p : zones[seat].front().cells) best_cells.push_back(list_of(p.x, p.y));
    scores.push_back(object_of("best", zones[seat].empty() ? 0 : zones[seat].front().score, "zones",
                               std::move(list), "best_cells", std::move(best_cells)));
  }
  const Verdict verdict = compare(zones);

  json last = nullptr;
  if (last_tile_ > 0) {
    const PlacedTile& t = tiles_[last_tile_];
    last =
        object_of("seat", t.seat, "move", placement_text(t.kind, t.at, t.rot), "tile", last_tile_);
  }
  return object_of("variant", kVariantNames[static_cast<int>(variant_)], "colours",
                   list_of(kSeatColour[0], kSeatColour[1]), "phase",
                   outcome_ ? "over" : (phase_ == Phase::setup ? "setup" : "play"), "placed",
                   static_cast<int>(tiles_.size()) - 1, "total", total_, "extent",
                   list_of(min_x, min_y, max_x, max_y), "piles", std::move(piles), "scores",
                   std::move(scores), "leader",
                   verdict.winner ? json(*verdict.winner) : json(nullptr), "last", std::move(last));
}

json LTilesState::pile_view(Seat seat, std::optional<Seat> viewer) const {
  json left = json::object();
  for (const auto& [kind, count] : left_[seat]) left[kind] = count;
  json top = nullptr;
  if (phase_ == Phase::play && !pile_[seat].empty() && variant_ != Variant::open)
    top = pile_[seat].back();
  int size = 0;
  switch (variant_) {
    case Variant::standard:
    case Variant::hand:
      size = static_cast<int>(pile_[seat].size());
      break;
    case Variant::ordered:
      size = phase_ == Phase::setup ? static_cast<int>(order_[seat].size())
                                    : static_cast<int>(pile_[seat].size());
      break;
    case Variant::open:
      for (const auto& [kind, count] : left_[seat]) size += count;
      break;
  }
  json hand = nullptr;
  if (variant_ == Variant::hand) {
    hand = json::array();
    for (const auto& slot : hand_[seat]) hand.push_back(slot ? json(*slot) : json(nullptr));
  }
  // Only the owner of an ordered pile knows its order (they chose it); nobody else does.
  json order = nullptr;
  if (variant_ == Variant::ordered && viewer == seat) {
    order = json::array();
    if (phase_ == Phase::setup && !ordered_[seat]) {
      for (const auto& kind : order_[seat]) order.push_back(kind);
    } else {
      for (auto it = pile_[seat].rbegin(); it != pile_[seat].rend(); ++it) order.push_back(*it);
    }
  }
  return object_of("colour", kSeatColour[seat], "size", size, "top", std::move(top), "hand",
                   std::move(hand), "left", std::move(left), "order", std::move(order));
}

}  // namespace plateau::rules::ltiles
