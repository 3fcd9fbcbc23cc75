#include "bots/quantik_solver.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace plateau::bots::quantik {

namespace {

constexpr std::array<std::string_view, 4> kShapes{"sphere", "cylinder", "cube", "cone"};

struct Tables {
  std::array<std::uint16_t, 12> lines{};          // 4 rows, 4 columns, 4 regions
  std::array<std::array<int, 3>, 16> lines_of{};  // the row, column and region of each cell
  std::array<std::uint16_t, 16> zone{};           // every cell sharing a line with the cell
  std::array<std::array<int, 16>, 128> perm{};    // the board's symmetries, as cell maps

  Tables() {
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) {
        const int cell = r * 4 + c, region = (r / 2) * 2 + c / 2;
        lines[r] |= 1u << cell;
        lines[4 + c] |= 1u << cell;
        lines[8 + region] |= 1u << cell;
        lines_of[cell] = {r, 4 + c, 8 + region};
      }
    for (int cell = 0; cell < 16; ++cell)
      for (int l : lines_of[cell]) zone[cell] |= lines[l];
    // Rows: swap the first two, swap the last two, swap the bands (8 maps); columns alike;
    // then transposed or not.
    auto map_of = [](int code) {
      std::array<int, 4> m{0, 1, 2, 3};
      if (code & 1) std::swap(m[0], m[1]);
      if (code & 2) std::swap(m[2], m[3]);
      if (code & 4) std::swap(m[0], m[2]), std::swap(m[1], m[3]);
      return m;
    };
    int n = 0;
    for (int t = 0; t < 2; ++t)
      for (int rows = 0; rows < 8; ++rows)
        for (int cols = 0; cols < 8; ++cols, ++n) {
          const auto rm = map_of(rows), cm = map_of(cols);
          for (int cell = 0; cell < 16; ++cell) {
            int r = rm[cell / 4], c = cm[cell % 4];
            if (t) std::swap(r, c);
            perm[n][cell] = r * 4 + c;
          }
        }
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

std::uint16_t occupied(const Position& p) {
  std::uint16_t o = 0;
  for (int s = 0; s < 4; ++s) o |= p.mine[s] | p.theirs[s];
  return o;
}

int left(std::uint16_t placed) { return 2 - __builtin_popcount(placed); }

// Whether a piece of `shape` on `cell` completes a line of four different shapes.
bool completes(const Position& p, std::uint16_t occ, int cell, int shape) {
  const auto& t = tables();
  const std::uint16_t bit = 1u << cell, after = occ | bit;
  for (int l : t.lines_of[cell]) {
    const std::uint16_t line = t.lines[l];
    if ((after & line) != line) continue;
    bool all = true;
    for (int s = 0; s < 4 && all; ++s) {
      const std::uint16_t of_shape = p.mine[s] | p.theirs[s] | (s == shape ? bit : 0);
      all = (of_shape & line) != 0;
    }
    if (all) return true;
  }
  return false;
}

// Whether the seat to move may put `shape` on `cell`.
bool may_place(const Position& p, std::uint16_t occ, int cell, int shape) {
  return left(p.mine[shape]) > 0 && !(occ >> cell & 1) && !(p.theirs[shape] & tables().zone[cell]);
}

// Whether the seat to move wins with its next piece.
bool wins_at_once(const Position& p, std::uint16_t occ) {
  for (int s = 0; s < 4; ++s)
    for (int cell = 0; cell < 16; ++cell)
      if (may_place(p, occ, cell, s) && completes(p, occ, cell, s)) return true;
  return false;
}

}  // namespace

Position play(const Position& p, int cell, int shape) {
  Position q;
  for (int s = 0; s < 4; ++s) {
    q.mine[s] = p.theirs[s];
    q.theirs[s] = p.mine[s];
  }
  q.theirs[shape] |= static_cast<std::uint16_t>(1u << cell);
  return q;
}

std::vector<std::pair<int, int>> placements(const Position& p) {
  std::vector<std::pair<int, int>> out;
  const std::uint16_t occ = occupied(p);
  for (int s = 0; s < 4; ++s)
    for (int cell = 0; cell < 16; ++cell)
      if (may_place(p, occ, cell, s)) out.emplace_back(cell, s);
  return out;
}

namespace {

rules::Move move_text(int cell, int shape) {
  std::string text(kShapes[static_cast<std::size_t>(shape)]);
  text += '@';
  text += static_cast<char>('a' + cell % 4);
  text += static_cast<char>('1' + cell / 4);
  return rules::Move{text};
}

}  // namespace

int Position::pieces() const {
  int n = 0;
  for (int s = 0; s < 4; ++s) n += __builtin_popcount(mine[s]) + __builtin_popcount(theirs[s]);
  return n;
}

std::optional<Position> position_of(const rules::State& state) {
  const auto mover = state.to_move();
  if (!mover || state.num_seats() != 2) return std::nullopt;
  const auto view = state.view(std::nullopt);
  const auto cells = view.find("cells");
  if (cells == view.end() || !cells->is_array() || cells->size() != 4) return std::nullopt;
  Position p;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const auto& cell = (*cells)[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      if (cell.is_null()) continue;
      const auto shape = std::ranges::find(kShapes, cell.value("shape", "")) - kShapes.begin();
      if (shape >= 4) return std::nullopt;
      auto& masks = cell.value("seat", -1) == *mover ? p.mine : p.theirs;
      masks[shape] |= static_cast<std::uint16_t>(1u << (r * 4 + c));
    }
  return p;
}

std::uint64_t canonical_key(const Position& p) {
  std::array<std::uint8_t, 16> cell{};  // 0 empty, 1 + seat * 4 + shape (seat 0: the mover)
  for (int s = 0; s < 4; ++s)
    for (int c = 0; c < 16; ++c) {
      if (p.mine[s] >> c & 1) cell[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(1 + s);
      if (p.theirs[s] >> c & 1)
        cell[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(5 + s);
    }
  std::uint64_t best = ~std::uint64_t{0};
  for (const auto& perm : tables().perm) {
    // Shapes renamed in the order this scan meets them: the least key over every scan is the
    // same for every position equivalent to this one.
    std::array<int, 4> name{-1, -1, -1, -1};
    int next = 0;
    std::uint64_t key = 0;
    for (int i = 0; i < 16; ++i) {
      const int v = cell[static_cast<std::size_t>(perm[static_cast<std::size_t>(i)])];
      if (!v) continue;
      const int seat = (v - 1) / 4, shape = (v - 1) % 4;
      if (name[static_cast<std::size_t>(shape)] < 0) name[static_cast<std::size_t>(shape)] = next++;
      key |= static_cast<std::uint64_t>(1 + seat * 4 + name[static_cast<std::size_t>(shape)])
             << (4 * i);
    }
    best = std::min(best, key);
  }
  return best;
}

Position from_key(std::uint64_t key) {
  Position p;
  for (int cell = 0; cell < 16; ++cell) {
    const int v = static_cast<int>(key >> (4 * cell) & 0xf);
    if (!v) continue;
    auto& masks = v <= 4 ? p.mine : p.theirs;
    masks[(v - 1) % 4] |= static_cast<std::uint16_t>(1u << cell);
  }
  return p;
}

bool Solver::wins(const Position& p) {
  if (use_book_ && p.pieces() <= kBookPieces) {
    const auto& b = book();
    if (const auto it = b.find(canonical_key(p)); it != b.end()) return it->second;
  }
  return search(p);
}

bool Solver::search(const Position& p) {
  const std::uint16_t occ = occupied(p);
  if (wins_at_once(p, occ)) return true;
  const auto key = canonical_key(p);
  if (const auto it = proved_.find(key); it != proved_.end()) return it->second;
  bool win = false;
  for (int s = 0; s < 4 && !win; ++s)
    for (int cell = 0; cell < 16 && !win; ++cell) {
      if (!may_place(p, occ, cell, s)) continue;
      const Position q = play(p, cell, s);
      // A move after which the opponent wins at once is lost: not searched.
      if (wins_at_once(q, occupied(q))) continue;
      win = !wins(q);
    }
  proved_.emplace(key, win);
  return win;
}

std::optional<rules::Move> Solver::best_move(const Position& p) {
  const std::uint16_t occ = occupied(p);
  std::optional<rules::Move> fallback, safe;
  for (int s = 0; s < 4; ++s)
    for (int cell = 0; cell < 16; ++cell) {
      if (!may_place(p, occ, cell, s)) continue;
      if (completes(p, occ, cell, s)) return move_text(cell, s);
      if (!fallback) fallback = move_text(cell, s);
      const Position q = play(p, cell, s);
      const std::uint16_t q_occ = occupied(q);
      if (wins_at_once(q, q_occ)) continue;
      if (!safe) safe = move_text(cell, s);
      if (!wins(q)) return move_text(cell, s);
    }
  return safe ? safe : fallback;
}

const std::unordered_map<std::uint64_t, bool>& Solver::book() {
  static const std::unordered_map<std::uint64_t, bool> entries = [] {
    // (canonical key, whether the seat to move wins), written by make_quantik_book. The first
    // entry is the empty board: the first player loses.
    static constexpr std::pair<std::uint64_t, bool> kBook[] = {
#include "bots/quantik_book.inc"
    };
    return std::unordered_map<std::uint64_t, bool>(std::begin(kBook), std::end(kBook));
  }();
  return entries;
}

}  // namespace plateau::bots::quantik
