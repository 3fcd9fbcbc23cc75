#include "quantik_state.hpp"

namespace plateau::rules::quantik {

json QuantikState::changing_view(std::optional<Seat>) const {
  json cells = array_of(kSize, [this](std::size_t r) {
    return array_of(kSize, [&](std::size_t c) {
      return cell_json(static_cast<int>(r) * kSize + static_cast<int>(c));
    });
  });
  json view = rest_of_view();
  view["cells"] = std::move(cells);
  return view;
}

bool QuantikState::update_view(json& board, std::optional<Seat>, const Shown*,
                               Update& update) const {
  json* cells = member_of(board, "cells", json::value_t::array);
  if (!cells || cells->size() != kSize) return false;
  for (const json& row : *cells)
    if (!row.is_array() || row.size() != kSize) return false;
  for (int i = 0; i < kSize * kSize; ++i) {
    json& node = (*cells)[static_cast<std::size_t>(i / kSize)][static_cast<std::size_t>(i % kSize)];
    if (board_[i].seat < 0) {
      if (!node.is_null()) return false;  // not a board of this game: nothing is ever taken back
      continue;
    }
    if (!node.is_null()) continue;
    node = cell_json(i);
    update.edits.push_back(
        {false, "/cells/" + std::to_string(i / kSize) + "/" + std::to_string(i % kSize)});
  }
  update.rest = rest_of_view();
  return true;
}

json QuantikState::cell_json(int i) const {
  const Cell& cell = board_[i];
  return cell.seat < 0 ? json(nullptr)
                       : object_of("shape", kShapeNames[cell.shape], "seat", cell.seat);
}

json QuantikState::rest_of_view() const {
  json pieces = json::array();
  for (const auto& p : pieces_) {
    json left = json::object();
    for (int s = 0; s < kShapes; ++s) left[std::string(kShapeNames[s])] = p[s];
    pieces.push_back(std::move(left));
  }
  json line = nullptr;
  if (!win_line_.empty()) line = win_line_;
  return object_of("pieces", std::move(pieces), "last", last_.empty() ? json(nullptr) : json(last_),
                   "win_line", std::move(line));
}

}  // namespace plateau::rules::quantik
