#include "kwinty_state.hpp"

namespace plateau::rules::kwinty {

namespace {

json cell_json(Cell c) { return list_of(c.x, c.y); }

json line_json(const Line& line) {
  json out = json::array();
  for (const Cell& c : line) out.push_back(cell_json(c));
  return out;
}

}  // namespace

json KwintyState::changing_view(std::optional<Seat>) const {
  // Nothing in Kwinty is hidden: every viewer sees the same wall.
  json view = rest_of_view();
  view["blocks"] =
      array_of(blocks_.size(), [this](std::size_t i) { return block_json(blocks_[i]); });
  return view;
}

bool KwintyState::update_view(json& board, std::optional<Seat>, const Shown*,
                              Update& update) const {
  json* blocks = member_of(board, "blocks", json::value_t::array);
  if (!blocks || blocks->size() > blocks_.size()) return false;
  update.append(*blocks, blocks_.size(), "/blocks",
                [this](std::size_t i) { return block_json(blocks_[i]); });
  update.rest = rest_of_view();
  return true;
}

json KwintyState::block_json(const Block& b) {
  return object_of("seat", b.seat, "move", placement_text({b.lying, b.x, b.y}), "x", b.x, "y", b.y,
                   "w", b.lying ? 2 : 1, "h", b.lying ? 1 : 2);
}

json KwintyState::rest_of_view() const {
  const auto fours = lines_of_four();
  json fours_json = json::array();
  for (const auto& lines : fours) {
    json per_seat = json::array();
    for (const Line& l : lines) per_seat.push_back(line_json(l));
    fours_json.push_back(std::move(per_seat));
  }
  json wins = json::array();
  for (const Line& l : win_lines_) wins.push_back(line_json(l));
  // The columns a square of the next block may occupy so that the wall stays 9 columns wide.
  const json x_range = blocks_.empty()
                           ? list_of(kFirstColumn, kFirstColumn + 1)
                           : list_of(max_x_ - (kMaxExtent - 1), min_x_ + (kMaxExtent - 1));
  return object_of("columns", kColumns, "rows", kRows, "max_extent", kMaxExtent, "colours",
                   kColours, "strict", strict_, "first", first_, "blocks_left", left_, "extent",
                   blocks_.empty() ? json(nullptr) : list_of(min_x_, max_x_), "x_range", x_range,
                   "fours", std::move(fours_json), "fours_count",
                   list_of(fours[0].size(), fours[1].size()), "win_lines", std::move(wins), "last",
                   last_.empty() ? json(nullptr) : object_of("seat", last_seat_, "move", last_));
}

}  // namespace plateau::rules::kwinty
