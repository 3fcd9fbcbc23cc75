#include "turris_state.hpp"

namespace plateau::rules::turris {

namespace {

std::string cell_name(int i) { return column_name(i) + level_suffix(i); }

int complete_levels(const Cells& cells) {
  int z = 0;
  while (z < kMaxLevels && level_count(cells, z) == kLevelCells) ++z;
  return z;
}

}  // namespace

json TurrisState::changing_view(std::optional<Seat>) const {
  // Nothing in Turris is hidden: every viewer sees the same board.
  const auto& all = tower_faces();
  json view = rest_of_view(all);
  view["levels"] = levels_json();
  view["blocks"] =
      array_of(blocks_.size(), [this](std::size_t i) { return block_json(blocks_[i]); });
  view["faces"] = faces_json(all);
  return view;
}

// What update_view compares the next position with: numbers rather than the board's nodes.
struct TurrisState::TurrisShown final : Shown {
  Cells cells{};
  std::vector<bool> alive;  // by block id
  std::shared_ptr<const std::array<Face, 5>> faces;
};

std::shared_ptr<const ViewParts::Shown> TurrisState::shown() const {
  auto out = std::make_shared<TurrisShown>();
  out->cells = cells_;
  out->alive.reserve(blocks_.size());
  for (const Block& b : blocks_) out->alive.push_back(b.alive);
  tower_faces();
  out->faces = faces_;
  return out;
}

bool TurrisState::update_view(json& board, std::optional<Seat>, const Shown* shown_base,
                              Update& update) const {
  json* levels = member_of(board, "levels", json::value_t::array);
  json* blocks = member_of(board, "blocks", json::value_t::array);
  json* faces = member_of(board, "faces", json::value_t::object);
  if (!levels || !blocks || !faces) return false;
  // Only this game's shown() made it.
  const auto* shown = static_cast<const TurrisShown*>(shown_base);
  if (!shown || shown->alive.size() > blocks_.size() || blocks->size() != shown->alive.size() ||
      levels->size() != static_cast<std::size_t>(tower_height(shown->cells)))
    return update_by_walking(levels, blocks, faces, update);
  const auto &all = tower_faces(), &before = *shown->faces;
  update.rest = rest_of_view(all);
  const auto height = static_cast<std::size_t>(tower_height(cells_));
  if (levels->size() > height) {
    update.rest["levels"] = levels_json();
  } else {
    for (int i = 0; i < static_cast<int>(levels->size()) * kLevelCells; ++i) {
      if (cells_[i] == shown->cells[i]) continue;
      const auto z = static_cast<std::size_t>(cell_z(i)), y = static_cast<std::size_t>(cell_y(i)),
                 x = static_cast<std::size_t>(cell_x(i));
      (*levels)[z][y][x] = id_or_null(cells_[i]);
      update.edits.push_back({false, "/levels/" + std::to_string(z) + "/" + std::to_string(y) +
                                         "/" + std::to_string(x)});
    }
    update.append(*levels, height, "/levels", [this](std::size_t z) { return level_json(z); });
  }
  for (std::size_t i = 0; i < shown->alive.size(); ++i) {
    if (blocks_[i].alive == shown->alive[i]) continue;  // its seat and shape never change
    (*blocks)[i] = block_json(blocks_[i]);
    update.edits.push_back({false, "/blocks/" + std::to_string(i)});
  }
  update.append(*blocks, blocks_.size(), "/blocks",
                [this](std::size_t i) { return block_json(blocks_[i]); });
  for (std::size_t f = 0; f < all.size(); ++f)
    if (all[f].grid.size() < before[f].grid.size()) {  // shrank: rebuilt whole, diffed
      update.rest["faces"] = faces_json(all);
      return true;
    }
  for (std::size_t f = 0; f < all.size(); ++f) {
    const Face &face = all[f], &was = before[f];
    json* node = nullptr;  // looked up the first time something on this face changed
    const std::string at = "/faces/" + std::string(face.name);
    const auto face_node = [&]() -> json& {
      if (!node) node = &(*faces)[std::string(face.name)];
      return *node;
    };
    if (face.score != was.score) {
      face_node()["score"] = face.score;
      update.edits.push_back({false, at + "/score"});
    }
    for (std::size_t r = 0; r < was.grid.size(); ++r)
      for (int c = 0; c < kSide; ++c) {
        const auto k = static_cast<std::size_t>(c);
        const Square &now = face.grid[r][k], &then = was.grid[r][k];
        if (now.block == then.block && now.seat == then.seat && now.depth == then.depth &&
            face.best[r][k] == was.best[r][k])
          continue;
        face_node()["grid"][r][k] = square_json(face, r, c);
        update.edits.push_back(
            {false, at + "/grid/" + std::to_string(r) + "/" + std::to_string(c)});
      }
    if (face.grid.size() > was.grid.size())
      update.append(face_node()["grid"], face.grid.size(), at + "/grid",
                    [&face](std::size_t r) { return row_json(face, r); });
  }
  return true;
}

bool TurrisState::update_by_walking(json* levels, json* blocks, json* faces, Update& update) const {
  if (blocks->size() > blocks_.size()) return false;
  const auto& all = tower_faces();
  update.rest = rest_of_view(all);
  const auto height = static_cast<std::size_t>(tower_height(cells_));
  if (levels->size() > height) {
    update.rest["levels"] = levels_json();  // a level went: the room diffs them
  } else {
    for (std::size_t z = 0; z < levels->size(); ++z)
      for (int y = 0; y < kSide; ++y)
        for (int x = 0; x < kSide; ++x) {
          json& node = (*levels)[z][static_cast<std::size_t>(y)][static_cast<std::size_t>(x)];
          const json now = id_or_null(cells_[cell_index(x, y, static_cast<int>(z))]);
          if (node == now) continue;
          node = now;
          update.edits.push_back({false, "/levels/" + std::to_string(z) + "/" + std::to_string(y) +
                                             "/" + std::to_string(x)});
        }
    update.append(*levels, height, "/levels", [this](std::size_t z) { return level_json(z); });
  }
  for (std::size_t i = 0; i < blocks->size(); ++i) {
    json& node = (*blocks)[i];
    if (shows_block(node, blocks_[i])) continue;
    node = block_json(blocks_[i]);
    update.edits.push_back({false, "/blocks/" + std::to_string(i)});
  }
  update.append(*blocks, blocks_.size(), "/blocks",
                [this](std::size_t i) { return block_json(blocks_[i]); });
  // Each face's name, side and column names never change; its grid only grows or shrinks by
  // whole rows, at its top.
  bool faces_fit = faces->size() == all.size();
  for (const Face& face : all) {
    const auto it = faces->find(std::string(face.name));
    faces_fit = faces_fit && it != faces->end() && it->is_object() && it->contains("grid") &&
                (*it)["grid"].is_array() && (*it)["grid"].size() <= face.grid.size();
  }
  if (!faces_fit) {  // a face shrank: rebuilt whole, diffed by the room
    update.rest["faces"] = faces_json(all);
    return true;
  }
  for (const Face& face : all) {
    json& node = (*faces)[std::string(face.name)];
    const std::string at = "/faces/" + std::string(face.name);
    if (json now = face.score; node["score"] != now) {
      node["score"] = std::move(now);
      update.edits.push_back({false, at + "/score"});
    }
    json& grid = node["grid"];
    for (std::size_t r = 0; r < grid.size(); ++r)
      for (int c = 0; c < kSide; ++c) {
        json& square = grid[r][static_cast<std::size_t>(c)];
        if (shows_square(square, face, r, c)) continue;
        square = square_json(face, r, c);
        update.edits.push_back(
            {false, at + "/grid/" + std::to_string(r) + "/" + std::to_string(c)});
      }
    update.append(grid, face.grid.size(), at + "/grid",
                  [&face](std::size_t r) { return row_json(face, r); });
  }
  return true;
}

json TurrisState::level_json(std::size_t z) const {
  return array_of(kSide, [&](std::size_t y) {
    return array_of(kSide, [&](std::size_t x) {
      return id_or_null(
          cells_[cell_index(static_cast<int>(x), static_cast<int>(y), static_cast<int>(z))]);
    });
  });
}

json TurrisState::levels_json() const {
  return array_of(static_cast<std::size_t>(tower_height(cells_)),
                  [this](std::size_t z) { return level_json(z); });
}

json TurrisState::faces_json(const std::array<Face, 5>& all) {
  json faces = json::object();
  for (const Face& face : all) faces[std::string(face.name)] = face_json(face);
  return faces;
}

json TurrisState::block_json(const Block& b) {
  if (!b.alive) return nullptr;
  return object_of("seat", b.seat, "name", shape_name(b.shape), "cells",
                   list_of(cell_name(b.shape.cells[0]), cell_name(b.shape.cells[1])));
}

bool TurrisState::shows_block(const json& node, const Block& b) {
  if (!b.alive) return node.is_null();
  if (!node.is_object()) return false;
  const auto seat = node.find("seat"), name = node.find("name");
  return seat != node.end() && name != node.end() && *seat == b.seat && name->is_string() &&
         name->get_ref<const std::string&>() == shape_name(b.shape);
}

json TurrisState::square_json(const Face& face, std::size_t r, int c) {
  const Square& sq = face.grid[r][static_cast<std::size_t>(c)];
  if (sq.block == kEmpty) return nullptr;
  return object_of("seat", sq.seat, "block", sq.block, depth_key(face), sq.depth, "best",
                   face.best[r][static_cast<std::size_t>(c)]);
}

bool TurrisState::shows_square(const json& node, const Face& face, std::size_t r, int c) {
  const Square& sq = face.grid[r][static_cast<std::size_t>(c)];
  if (sq.block == kEmpty) return node.is_null();
  if (!node.is_object() || node.size() != 4) return false;
  const auto seat = node.find("seat"), block = node.find("block"),
             depth = node.find(depth_key(face)), best = node.find("best");
  return seat != node.end() && block != node.end() && depth != node.end() && best != node.end() &&
         *seat == sq.seat && *block == sq.block && *depth == sq.depth &&
         *best == face.best[r][static_cast<std::size_t>(c)];
}

json TurrisState::row_json(const Face& face, std::size_t r) {
  return array_of(kSide, [&](std::size_t c) { return square_json(face, r, static_cast<int>(c)); });
}

json TurrisState::face_json(const Face& face) {
  json grid = array_of(face.grid.size(), [&](std::size_t r) { return row_json(face, r); });
  return object_of("from", face.from, "columns", face.columns, "grid", std::move(grid), "score",
                   face.score);
}

json TurrisState::rest_of_view(const std::array<Face, 5>& faces) const {
  std::array<int, 2> total{};
  for (const Face& face : faces) {
    total[0] += face.score[0];
    total[1] += face.score[1];
  }
  return object_of(
      "colors", kColors, "supply", supply_, "phase",
      outcome_                 ? "over"
      : phase_ == Phase::bonus ? "bonus"
                               : "place",
      "height", tower_height(cells_), "complete", complete_levels(cells_), "protected",
      list_of(id_or_null(last_placed_[0]), id_or_null(last_placed_[1])), "barred",
      bar_ ? object_of("seat", bar_->seat, "cells",
                       list_of(cell_name(bar_->cells[0]), cell_name(bar_->cells[1])))
           : json(nullptr),
      "last", last_seat_ < 0 ? json(nullptr) : object_of("seat", last_seat_, "moves", last_moves_),
      "score", total);
}

}  // namespace plateau::rules::turris
