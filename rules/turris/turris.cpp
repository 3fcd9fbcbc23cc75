#include "rules/json_read.hpp"
#include "turris_state.hpp"

#include <limits>
#include <map>

namespace plateau::rules::turris {

namespace {

using read::int_in;

bool is_centre(int i) { return i % kLevelCells == kCentre; }

bool covers_centre(const Shape& s) { return is_centre(s.cells[0]) || is_centre(s.cells[1]); }

int column_height(const Cells& cells, int x, int y) {
  int z = 0;
  while (z < kMaxLevels && cells[cell_index(x, y, z)] != kEmpty) ++z;
  return z;
}

// Rule e counts the started levels that are not full. A full level has every cell below it
// filled, so the complete levels are always the lowest ones.
int incomplete_levels(const Cells& cells) {
  int started = 0, complete = 0;
  for (int z = 0; z < kMaxLevels; ++z) {
    const int n = level_count(cells, z);
    if (n > 0) ++started;
    if (n == kLevelCells) ++complete;
  }
  return started - complete;
}

// Rule f: a level other than at its centre.
bool level_has_other(const Cells& cells, int z) {
  for (int i = 0; i < kLevelCells; ++i)
    if (i != kCentre && cells[z * kLevelCells + i] != kEmpty) return true;
  return false;
}

// Rule c: a vertical whose lower cell is `lower` touches a block along one of its long sides.
bool touches_long_side(const Cells& cells, int lower) {
  const int x = cell_x(lower), y = cell_y(lower), z = cell_z(lower);
  constexpr std::array<std::pair<int, int>, 4> kSteps{{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
  for (int dz = 0; dz < 2 && z + dz < kMaxLevels; ++dz)
    for (const auto& [dx, dy] : kSteps) {
      const int nx = x + dx, ny = y + dy;
      if (nx < 0 || nx >= kSide || ny < 0 || ny >= kSide) continue;
      if (cells[cell_index(nx, ny, z + dz)] != kEmpty) return true;
    }
  return false;
}

// Every block that could land on the tower as it stands, before the rules are checked: a block
// always lands on top of its column(s), so the level is never a choice. In no particular order:
// candidate_shapes lists them in notation order.
std::vector<Shape> landing_shapes(const Cells& cells) {
  std::array<int, kLevelCells> height{};
  for (int i = 0; i < kLevelCells; ++i) height[i] = column_height(cells, cell_x(i), cell_y(i));
  std::vector<Shape> out;
  for (int x = 0; x < kSide; ++x)
    for (int y = 0; y < kSide; ++y) {
      const int z = height[y * kSide + x];
      if (z + 1 < kMaxLevels) out.push_back({true, {cell_index(x, y, z), cell_index(x, y, z + 1)}});
    }
  for (int x = 0; x < kSide; ++x)
    for (int y = 0; y < kSide; ++y)
      for (const auto& [nx, ny] : {std::pair{x, y + 1}, std::pair{x + 1, y}}) {
        if (nx >= kSide || ny >= kSide) continue;
        const int z = height[y * kSide + x];
        if (z == 0 || z != height[ny * kSide + nx] || z >= kMaxLevels) continue;
        out.push_back({false, {cell_index(x, y, z), cell_index(nx, ny, z)}});
      }
  return out;
}

// landing_shapes in notation order, as the legal moves list them.
std::vector<Shape> candidate_shapes(const Cells& cells) {
  std::vector<Shape> out = landing_shapes(cells);
  // Sorted by name, each name made once (not once per comparison).
  std::vector<std::pair<std::pair<bool, std::string>, Shape>> keyed;
  keyed.reserve(out.size());
  for (const Shape& s : out) keyed.push_back({{!s.vertical, shape_name(s)}, s});
  std::ranges::sort(keyed, {}, [](const auto& k) -> const auto& { return k.first; });
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = keyed[i].second;
  return out;
}

// Fills `face.best` and `face.score`: each player's largest 4-connected area of visible squares.
// On a tie the area found first (bottom row first, left to right) is the one highlighted.
void score_face(Face& face) {
  const int rows = static_cast<int>(face.grid.size());
  face.best.assign(rows, {false, false, false});
  for (Seat seat = 0; seat < 2; ++seat) {
    std::vector<int> seen(rows * kSide, 0);
    std::vector<int> best_area;
    for (int start = 0; start < rows * kSide; ++start) {
      if (seen[start] || face.grid[start / kSide][start % kSide].seat != seat) continue;
      std::vector<int> area{start};
      seen[start] = 1;
      for (std::size_t k = 0; k < area.size(); ++k) {
        const int r = area[k] / kSide, c = area[k] % kSide;
        for (const auto& [nr, nc] :
             {std::pair{r + 1, c}, std::pair{r - 1, c}, std::pair{r, c + 1}, std::pair{r, c - 1}}) {
          if (nr < 0 || nr >= rows || nc < 0 || nc >= kSide) continue;
          const int n = nr * kSide + nc;
          if (seen[n] || face.grid[nr][nc].seat != seat) continue;
          seen[n] = 1;
          area.push_back(n);
        }
      }
      if (area.size() > best_area.size()) best_area = std::move(area);
    }
    face.score[seat] = static_cast<int>(best_area.size());
    for (int n : best_area) face.best[n / kSide][n % kSide] = true;
  }
}

// The five views in the order A (row-1 side), B (column-c side), C (row-3 side), D (column-a
// side), roof. Going A→B→C→D walks round the tower with it on one's left: each face's right edge
// is the next face's left edge.
std::array<Face, 5> faces_of(const Cells& cells, const std::vector<Block>& blocks) {
  // (position left to right, depth) → column (x, y), per side face.
  using Map = std::pair<int, int> (*)(int, int);
  constexpr std::array<Map, 4> kMaps{
      [](int i, int d) { return std::pair{i, d}; },
      [](int i, int d) { return std::pair{2 - d, i}; },
      [](int i, int d) { return std::pair{2 - i, 2 - d}; },
      [](int i, int d) { return std::pair{d, 2 - i}; },
  };
  std::array<Face, 5> faces{
      Face{"A", "row 1", {"a", "b", "c"}, {}, {}, {}},
      Face{"B", "column c", {"1", "2", "3"}, {}, {}, {}},
      Face{"C", "row 3", {"c", "b", "a"}, {}, {}, {}},
      Face{"D", "column a", {"3", "2", "1"}, {}, {}, {}},
      Face{"roof", "above", {"a", "b", "c"}, {}, {}, {}},
  };
  const int height = tower_height(cells);
  auto square_at = [&](int cell, int depth) {
    const int id = cells[cell];
    return Square{id, blocks[id].seat, depth};
  };
  for (int f = 0; f < 4; ++f) {
    for (int z = 0; z < height; ++z) {
      std::array<Square, kSide> row{};
      for (int i = 0; i < kSide; ++i)
        for (int d = 0; d < kSide; ++d) {
          const auto [x, y] = kMaps[f](i, d);
          const int cell = cell_index(x, y, z);
          if (cells[cell] == kEmpty) continue;
          row[i] = square_at(cell, d);
          break;
        }
      faces[f].grid.push_back(row);
    }
  }
  for (int y = 0; y < kSide; ++y) {
    std::array<Square, kSide> row{};
    for (int x = 0; x < kSide; ++x) {
      const int h = column_height(cells, x, y);
      if (h > 0) row[x] = square_at(cell_index(x, y, h - 1), h);
    }
    faces[4].grid.push_back(row);
  }
  for (auto& face : faces) score_face(face);
  return faces;
}

}  // namespace

int cell_index(int x, int y, int z) { return z * kLevelCells + y * kSide + x; }

int cell_x(int i) { return i % kSide; }

int cell_y(int i) { return (i / kSide) % kSide; }

int cell_z(int i) { return i / kLevelCells; }

std::string column_name(int i) {
  return std::string{static_cast<char>('a' + cell_x(i)), static_cast<char>('1' + cell_y(i))};
}

std::string level_suffix(int i) { return "/" + std::to_string(cell_z(i) + 1); }

std::string shape_name(const Shape& s) {
  if (s.vertical) return "v@" + column_name(s.cells[0]) + level_suffix(s.cells[0]);
  return "h@" + column_name(s.cells[0]) + "-" + column_name(s.cells[1]) + level_suffix(s.cells[0]);
}

int level_count(const Cells& cells, int z) {
  int n = 0;
  for (int i = 0; i < kLevelCells; ++i) n += cells[z * kLevelCells + i] != kEmpty;
  return n;
}

int tower_height(const Cells& cells) {
  int h = 0;
  while (h < kMaxLevels && level_count(cells, h) > 0) ++h;
  return h;
}

std::vector<Move> TurrisState::legal_moves() const {
  std::vector<Move> moves;
  for (auto& a : actions()) moves.push_back(Move{std::move(a.text)});
  return moves;
}

void TurrisState::do_apply(const Move& move) {
  const Action action = *action_of(move.text);  // precondition: legal
  faces_.reset();                               // of the position before
  if (fresh_turn_) {
    last_moves_.clear();
    last_seat_ = to_move_;
    fresh_turn_ = false;
  }
  last_moves_.push_back(action.text);
  switch (action.kind) {
    case Kind::pass:
    case Kind::decline:
      end_turn();
      break;
    case Kind::place: {
      place(action.shape);
      // The game ends when the last of the 40 blocks is placed (« Le jeu se termine lorsque
      // tous les pions ont été posés »), so that block earns no bonus. A player's last block
      // while the opponent still has blocks keeps its bonus.
      const bool all_placed = supply_[0] == 0 && supply_[1] == 0;
      const bool earns =
          covers_centre(action.shape) && (phase_ == Phase::place || chain_) && !all_placed;
      // A bonus with no possible use is no choice at all, so it is skipped.
      if (earns && bonus_usable())
        phase_ = Phase::bonus;
      else
        end_turn();
      break;
    }
    case Kind::remove: {
      Block& b = blocks_[action.block];
      b.alive = false;
      for (int c : b.shape.cells) cells_[c] = kEmpty;
      --alive_;
      ++supply_[b.seat];
      bar_ = Bar{b.seat, b.shape.cells};
      end_turn();
      break;
    }
  }
}

std::vector<TurrisState::Action> TurrisState::actions() const {
  std::vector<Action> out;
  if (outcome_) return out;
  for (const Shape& s : candidate_shapes(cells_))
    if (can_place(s, to_move_, true)) out.push_back({shape_name(s), Kind::place, s, kEmpty});
  if (phase_ == Phase::place) {
    if (out.empty()) out.push_back({"pass", Kind::pass, {}, kEmpty});
    return out;
  }
  for (int id = 0; id < static_cast<int>(blocks_.size()); ++id)
    if (can_remove(id, to_move_))
      out.push_back({"remove:" + shape_name(blocks_[id].shape), Kind::remove, {}, id});
  out.push_back({"bonus:none", Kind::decline, {}, kEmpty});
  return out;
}

std::optional<TurrisState::Action> TurrisState::action_of(std::string_view text) const {
  if (outcome_) return std::nullopt;
  if (text == "pass") {
    if (phase_ != Phase::place || can_place_any(to_move_, true)) return std::nullopt;
    return Action{"pass", Kind::pass, {}, kEmpty};
  }
  if (text == "bonus:none") {
    if (phase_ != Phase::bonus) return std::nullopt;
    return Action{"bonus:none", Kind::decline, {}, kEmpty};
  }
  if (text.starts_with("remove:")) {
    if (phase_ != Phase::bonus) return std::nullopt;
    const std::string_view name = text.substr(7);
    for (int id = 0; id < static_cast<int>(blocks_.size()); ++id)
      if (blocks_[id].alive && shape_name(blocks_[id].shape) == name) {
        if (!can_remove(id, to_move_)) return std::nullopt;
        return Action{std::string(text), Kind::remove, {}, id};
      }
    return std::nullopt;
  }
  for (const Shape& s : landing_shapes(cells_))
    if (shape_name(s) == text) {
      if (!can_place(s, to_move_, true)) return std::nullopt;
      return Action{std::string(text), Kind::place, s, kEmpty};
    }
  return std::nullopt;
}

bool TurrisState::can_place(const Shape& s, Seat seat, bool honour_bar) const {
  if (supply_[seat] == 0) return false;
  if (honour_bar && bar_ && bar_->seat == seat)
    for (int c : s.cells)
      if (std::ranges::find(bar_->cells, c) != bar_->cells.end()) return false;
  if (s.vertical) {
    // Rule a is implied by rule c; both spare the game's first block.
    if (alive_ > 0 && !touches_long_side(cells_, s.cells[0])) return false;
  } else {
    // Rule d (landing_shapes already keeps horizontals off the base and over filled cells).
    const int under0 = cells_[s.cells[0] - kLevelCells], under1 = cells_[s.cells[1] - kLevelCells];
    if (under0 == kEmpty || under1 == kEmpty || under0 == under1) return false;
  }
  for (int c : s.cells)
    if (is_centre(c) && !level_has_other(cells_, cell_z(c))) return false;  // rule f
  Cells after = cells_;
  for (int c : s.cells) after[c] = static_cast<int>(blocks_.size());
  return incomplete_levels(after) <= kMaxIncomplete;  // rule e
}

bool TurrisState::can_place_any(Seat seat, bool honour_bar) const {
  if (supply_[seat] == 0) return false;
  for (const Shape& s : landing_shapes(cells_))
    if (can_place(s, seat, honour_bar)) return true;
  return false;
}

bool TurrisState::can_remove(int id, Seat remover) const {
  const Block& b = blocks_[id];
  if (!b.alive || b.seat == remover || id == last_placed_[b.seat]) return false;
  for (int c : b.shape.cells) {
    const int above = c + kLevelCells;
    if (above < kCells && cells_[above] != kEmpty && cells_[above] != id) return false;
  }
  Cells after = cells_;
  for (int c : b.shape.cells) after[c] = kEmpty;
  if (incomplete_levels(after) > kMaxIncomplete) return false;  // the text's own restriction
  // Rule f as a property of the standing tower: no level holds its centre alone.
  for (int z = 0; z < kMaxLevels; ++z)
    if (after[z * kLevelCells + kCentre] != kEmpty && !level_has_other(after, z)) return false;
  // Rule c likewise: every vertical still touches a block along a long side. The exception is
  // the game's first block's, at its placement: a removal leaving a lone block is refused.
  for (int other = 0; other < static_cast<int>(blocks_.size()); ++other) {
    const Block& v = blocks_[other];
    if (other == id || !v.alive || !v.shape.vertical) continue;
    if (!touches_long_side(after, v.shape.cells[0])) return false;
  }
  return true;
}

bool TurrisState::bonus_usable() const {
  if (can_place_any(to_move_, true)) return true;
  for (int id = 0; id < static_cast<int>(blocks_.size()); ++id)
    if (can_remove(id, to_move_)) return true;
  return false;
}

void TurrisState::place(const Shape& s) {
  const int id = static_cast<int>(blocks_.size());
  blocks_.push_back(Block{to_move_, s, true});
  for (int c : s.cells) cells_[c] = id;
  ++alive_;
  --supply_[to_move_];
  last_placed_[to_move_] = id;
}

void TurrisState::end_turn() {
  const Seat mover = to_move_;
  phase_ = Phase::place;
  fresh_turn_ = true;
  if (bar_ && bar_->seat == mover) bar_.reset();  // the barred turn is over
  Seat next;
  if (supply_[1 - mover] > 0)
    next = 1 - mover;
  else if (supply_[mover] > 0)
    next = mover;  // the opponent has no block left: skipped
  else
    return finish("all blocks are placed", "full");
  if (bar_ && bar_->seat != next) bar_.reset();  // the barred player was skipped
  // A player who cannot place passes, but if neither could (a bar aside, which lasts a turn)
  // nothing could ever change again.
  if (!can_place_any(0, false) && !can_place_any(1, false))
    return finish("neither player can place a block", "stuck");
  to_move_ = next;
}

void TurrisState::finish(std::string why, std::string_view ended) {
  std::array<int, 2> total{};
  for (const Face& face : tower_faces()) {
    total[0] += face.score[0];
    total[1] += face.score[1];
  }
  std::vector<Seat> winners;
  if (total[0] != total[1]) winners.push_back(total[0] > total[1] ? 0 : 1);
  const std::string tally = std::string(kColors[0]) + " " + std::to_string(total[0]) + ", " +
                            std::string(kColors[1]) + " " + std::to_string(total[1]);
  const std::string verdict =
      winners.empty() ? "a draw" : std::string(kColors[winners[0]]) + " wins";
  outcome_ = Outcome{winners,
                     {total[0], total[1]},
                     why + "; the four faces and the roof score " + tally + ": " + verdict,
                     "turris.faces",
                     {{"ended", ended}, {"white", total[0]}, {"black", total[1]}}};
}

const std::array<Face, 5>& TurrisState::tower_faces() const {
  if (!faces_) faces_ = std::make_shared<const std::array<Face, 5>>(faces_of(cells_, blocks_));
  return *faces_;
}

namespace {

// Every block the game can name, by the name it writes: verticals from level 1, horizontals
// from level 2 (none lies on the base), each made as landing_shapes makes it. A name not here
// is not a block of this game, or not one written in order.
const std::map<std::string, Shape, std::less<>>& shapes_by_name() {
  static const auto all = [] {
    std::map<std::string, Shape, std::less<>> out;
    for (int z = 0; z < kMaxLevels; ++z)
      for (int x = 0; x < kSide; ++x)
        for (int y = 0; y < kSide; ++y) {
          if (z + 1 < kMaxLevels) {
            const Shape v{true, {cell_index(x, y, z), cell_index(x, y, z + 1)}};
            out.emplace(shape_name(v), v);
          }
          if (z == 0) continue;
          for (const auto& [nx, ny] : {std::pair{x, y + 1}, std::pair{x + 1, y}})
            if (nx < kSide && ny < kSide) {
              const Shape h{false, {cell_index(x, y, z), cell_index(nx, ny, z)}};
              out.emplace(shape_name(h), h);
            }
        }
    return out;
  }();
  return all;
}

// A cell as the view names it ("b2/3"), or nullopt.
std::optional<int> cell_named(const json& name) {
  if (!name.is_string()) return std::nullopt;
  for (int i = 0; i < kCells; ++i)
    if (name == column_name(i) + level_suffix(i)) return i;
  return std::nullopt;
}

// Whether a tower could stand in a game: what every placement keeps true and every removal is
// refused for breaking (can_remove), read as properties of the standing tower: support, rule d
// (a horizontal on two different blocks), e, f (no level holds its centre alone) and c (every
// vertical touches along a long side, but for the game's first block while it stands alone).
bool tower_stands(const Cells& cells, const std::vector<Block>& blocks, int alive) {
  for (int i = kLevelCells; i < kCells; ++i)
    if (cells[i] != kEmpty && cells[i - kLevelCells] == kEmpty) return false;
  if (incomplete_levels(cells) > kMaxIncomplete) return false;
  for (int z = 0; z < kMaxLevels; ++z)
    if (cells[z * kLevelCells + kCentre] != kEmpty && !level_has_other(cells, z)) return false;
  for (const Block& b : blocks) {
    if (!b.alive) continue;
    const auto [lower, other] = b.shape.cells;
    if (b.shape.vertical ? alive > 1 && !touches_long_side(cells, lower)
                         : cells[lower - kLevelCells] == cells[other - kLevelCells])
      return false;
  }
  return true;
}

}  // namespace

// Nothing in Turris is hidden, but a removed block shows only as null, so the game cannot be
// replayed from its board: the position is set from the board instead. What a removed block was
// matters to nothing that follows (only standing blocks are drawn, scored, removed or touched),
// so it is kept as a placeholder. The rest is checked as far as the rules say what a position
// may be (the tower stands, the turn order holds, the game is not over), and the view of the
// result must be the board given, to the letter: everything the board derives (levels, supply,
// protected blocks, faces, scores) then agrees with the blocks it lists.
std::unique_ptr<State> TurrisState::from_view(const json& options, const json& board,
                                              Seat to_move) {
  if (!board.is_object() || to_move < 0 || to_move > 1) return nullptr;
  const auto blocks = board.find("blocks"), phase = board.find("phase"),
             barred = board.find("barred"), last = board.find("last");
  if (blocks == board.end() || phase == board.end() || barred == board.end() ||
      last == board.end() || !blocks->is_array() ||
      blocks->size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return nullptr;
  auto state = std::make_unique<TurrisState>(to_move, options.value("chain_bonus", true));
  TurrisState& s = *state;
  for (const json& node : *blocks) {
    const int id = static_cast<int>(s.blocks_.size());
    if (node.is_null()) {
      s.blocks_.push_back(Block{0, Shape{}, false});
      continue;
    }
    if (!node.is_object()) return nullptr;
    const auto seat_node = node.find("seat"), name = node.find("name");
    if (seat_node == node.end() || name == node.end() || !name->is_string()) return nullptr;
    const auto seat = int_in(*seat_node, 0, 1);
    const auto shape = shapes_by_name().find(name->get_ref<const std::string&>());
    if (!seat || shape == shapes_by_name().end()) return nullptr;
    for (const int c : shape->second.cells) {
      if (s.cells_[c] != kEmpty) return nullptr;
      s.cells_[c] = id;
    }
    s.blocks_.push_back(Block{*seat, shape->second, true});
    ++s.alive_;
    if (--s.supply_[*seat] < 0) return nullptr;
    // A seat's last placed block is never removed (the opponent may not, and one's own are
    // never removed), so it is the seat's standing block placed last.
    s.last_placed_[*seat] = id;
  }
  if (!tower_stands(s.cells_, s.blocks_, s.alive_)) return nullptr;

  if (*phase == "bonus")
    s.phase_ = Phase::bonus;
  else if (*phase != "place")
    return nullptr;  // "over" too: nobody is to move in a finished game
  // Within a turn (a bonus) its moves so far; otherwise the last turn's, until the next begins.
  s.fresh_turn_ = s.phase_ == Phase::place;

  if (!last->is_null()) {
    if (!last->is_object()) return nullptr;
    const auto seat_node = last->find("seat"), moves = last->find("moves");
    if (seat_node == last->end() || moves == last->end() || !moves->is_array() || moves->empty())
      return nullptr;
    const auto seat = int_in(*seat_node, 0, 1);
    if (!seat) return nullptr;
    s.last_seat_ = *seat;
    for (const json& m : *moves) {
      if (!m.is_string()) return nullptr;
      s.last_moves_.push_back(m.get<std::string>());
    }
  }
  if (!barred->is_null()) {
    // Freed cells, barred to the seat whose block was removed for the turn that follows (the
    // turn in progress: the bonus sees it too).
    if (!barred->is_object()) return nullptr;
    const auto seat_node = barred->find("seat"), cells = barred->find("cells");
    if (seat_node == barred->end() || cells == barred->end() || !cells->is_array() ||
        cells->size() != 2)
      return nullptr;
    const auto c0 = cell_named((*cells)[0]), c1 = cell_named((*cells)[1]);
    if (int_in(*seat_node, 0, 1) != to_move || !c0 || !c1 || *c0 == *c1 ||
        s.cells_[*c0] != kEmpty || s.cells_[*c1] != kEmpty)
      return nullptr;
    s.bar_ = Bar{to_move, {*c0, *c1}};
  }

  // The first move always places a block (the empty base has room), and turns alternate unless
  // a seat with no block left is skipped (end_turn), which the supply shows.
  if ((s.last_seat_ < 0) != s.blocks_.empty()) return nullptr;
  if (s.phase_ == Phase::bonus) {
    if (s.last_seat_ != to_move || !s.bonus_usable()) return nullptr;
  } else {
    if (s.supply_[to_move] == 0) return nullptr;
    if (s.last_seat_ >= 0 &&
        to_move != (s.supply_[1 - s.last_seat_] > 0 ? 1 - s.last_seat_ : s.last_seat_))
      return nullptr;
    if (!s.can_place_any(0, false) && !s.can_place_any(1, false)) return nullptr;  // over
  }
  if (const auto first = options.find("first"); s.blocks_.empty() && first != options.end() &&
                                                first->is_string() && *first != "random" &&
                                                *first != std::to_string(to_move))
    return nullptr;

  if (state->view(to_move) != board) return nullptr;
  return state;
}

namespace {

class TurrisGame final : public Game {
 public:
  TurrisGame()
      : Game({.id = "turris",
              .name = "Turris",
              .min_seats = 2,
              .max_seats = 2,
              .options = {first_player_option(2),
                          bool_option("chain_bonus", true,
                                      "a bonus placement on a centre earns a further bonus")},
              .takeback = true}) {}

  // Every seat sees the whole position: nothing is drawn from `rng`.
  std::unique_ptr<State> from_view(const Seen& seen, Rng&) const override {
    const auto options = normalize_options(seen.options);
    if (!options || seen.viewer < 0 || seen.viewer > 1) return nullptr;
    return TurrisState::from_view(*options, seen.board, seen.to_move);
  }

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    Rng rng(seed);
    const auto first = pick_first_player(options, 2, rng);
    if (!first) return std::unexpected(first.error());
    return std::make_unique<TurrisState>(*first, options.at("chain_bonus").get<bool>());
  }
};

}  // namespace

const Game& game() {
  static const TurrisGame instance;
  return instance;
}

}  // namespace plateau::rules::turris
