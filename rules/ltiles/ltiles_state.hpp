// L-Tiles's state class and what its rules (ltiles.cpp) and its view (ltiles_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "ltiles.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

#include "../view_parts.hpp"

namespace plateau::rules::ltiles {

using nlohmann::json;

constexpr int kSeats = 2;
constexpr int kHandSize = 3;
constexpr std::array<char, kSeats> kSeatLetter{'R', 'G'};
constexpr std::array<std::string_view, kSeats> kSeatColour{"red", "green"};

enum class Variant { standard, ordered, open, hand };
constexpr std::array<std::string_view, 4> kVariantNames{"standard", "ordered", "open", "hand"};

// ---------------------------------------------------------------------------------------------
// The inventory (data, embedded at build time).

struct Inventory {
  std::string domino;  // colour at (0,0), then at (1,0)
  // Per lot (seat), its kinds in data order with their counts.
  std::array<std::vector<std::pair<std::string, int>>, kSeats> lots;
  int per_lot = 0;
};

const Inventory& inventory();

// ---------------------------------------------------------------------------------------------
// Geometry.

struct Pos {
  int x = 0;
  int y = 0;
  friend auto operator<=>(const Pos&, const Pos&) = default;
};

constexpr std::array<Pos, 4> kDirs{Pos{1, 0}, Pos{0, 1}, Pos{-1, 0}, Pos{0, -1}};  // E S W N

// Corner, arm A, arm B of a tile with its corner at `at` and `rot` clockwise quarter turns.
std::array<Pos, 3> footprint(Pos at, int rot);

struct Placement {
  std::string kind;
  Pos at;
  int rot = 0;
};

std::string placement_text(const std::string& kind, Pos at, int rot);

// ---------------------------------------------------------------------------------------------
// The state.

struct Square {
  char colour = 'N';
  int tile = 0;  // index into tiles_
};

struct PlacedTile {
  Seat seat = -1;  // -1: the start domino
  std::string kind;
  Pos at;
  int rot = 0;
  int level = 1;
  std::vector<Pos> cells;
};

struct Zone {
  int score = 0;
  int area = 0;
  int height = 0;
  std::vector<Pos> cells;  // sorted
};

// Which seat leads and at which rank (0 = best zone) the comparison was decided.
struct Verdict {
  std::optional<Seat> winner;
  int rank = -1;  // -1: every zone ties
};

enum class Phase { setup, play };

class LTilesState final : public TurnState<LTilesState>, public ViewParts {
 public:
  LTilesState(Variant variant, Seat first, Rng rng)
      : TurnState(first), variant_(variant), first_(first), rng_(rng) {
    const Inventory& inv = inventory();
    // The start domino is tile 0, placed before anything else.
    tiles_.push_back(PlacedTile{-1, inv.domino, Pos{0, 0}, 0, 1, {Pos{0, 0}, Pos{1, 0}}});
    board_[Pos{0, 0}].push_back(Square{inv.domino[0], 0});
    board_[Pos{1, 0}].push_back(Square{inv.domino[1], 0});
    total_ = kSeats * inv.per_lot;
    for (int seat = 0; seat < kSeats; ++seat) {
      std::vector<std::string> lot;
      for (const auto& [kind, count] : inv.lots[seat]) {
        left_[seat][kind] = count;
        lot.insert(lot.end(), count, kind);
      }
      switch (variant_) {
        case Variant::standard:
        case Variant::hand:
          // Lot 1, then lot 2, from the generator in the state: the seed fixes both piles.
          rng_.shuffle(lot);
          pile_[seat] = std::move(lot);
          break;
        case Variant::ordered:
          to_order_[seat] = left_[seat];
          break;
        case Variant::open:
          break;
      }
      if (variant_ == Variant::hand) {
        for (auto& slot : hand_[seat]) slot = draw(seat);
      }
    }
    if (variant_ == Variant::ordered) {
      phase_ = Phase::setup;
      for (int seat = 0; seat < kSeats; ++seat) auto_order(seat);
      // A lot of one single kind needs no ordering at all.
      if (to_order_count(first_) == 0) finish_ordering(first_);
    }
  }

  int num_seats() const override { return kSeats; }
  // Hidden from `viewer`: the order of every pile below its top (the shuffled piles, and the
  // other seat's ordered one), and the kinds the other seat has picked so far while ordering.
  // A sample shuffles those again, keeping every top, size and count a viewer sees.
  std::unique_ptr<State> determinize(Seat viewer, Rng& rng) const override;

  // Game::from_view for a game of `variant` whose first player is `first` when the host chose
  // it: the position `seen.board` shows its viewer, with what the viewer cannot see drawn from
  // `rng` (by determinize). nullptr when the board is not one this game shows
  // (ltiles_from_view.cpp).
  static std::unique_ptr<State> from_view(Variant variant, std::optional<Seat> first,
                                          const Seen& seen, Rng& rng);

  std::vector<Move> legal_moves() const override;
  // Each seat's best zone as the table stands (the outcome's scores, once it is over).
  std::vector<int> scores() const override;
  // The placements counted, not written: one string instead of hundreds (the bots' playouts).
  Move random_move(Rng& rng) const override;

  // Only an ordered pile's owner sees its order; every other variant shows all viewers the same.
  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return variant_ == Variant::ordered; }
  json changing_view(std::optional<Seat> viewer) const override;

  // Tiles are only ever added, and a tile changes only the squares it covers: a board some
  // tiles back gets those tiles and squares in place, and the small rest anew.
  bool update_view(json& board, std::optional<Seat> viewer, const Shown*,
                   Update& update) const override;

 private:
  static json square_json(const std::vector<Square>& column);

  static json tile_json(const PlacedTile& t);

  // Everything on the board but its squares and tiles.
  json rest_of_view(std::optional<Seat> viewer) const;

 protected:
  bool is_legal(const Move& move) const override;

  void do_apply(const Move& move) override;

 private:
  int height(Pos p) const;

  // Élargir: three empty cells, one of them edge-adjacent to a placed square. (Listing the spots
  // answers the same question for every cell at once: spread_spots.)
  bool can_spread(Pos at, int rot) const;

  // The table's columns on a dense window around it, `margin` cells wider on every side; none
  // outside. Listing the spots asks for thousands of cells a move: too many for the map.
  struct ColumnGrid {
    int x0 = 0, y0 = 0, w = 0, h = 0;
    std::vector<const std::vector<Square>*> cells;
    bool inside(Pos p) const { return p.x >= x0 && p.y >= y0 && p.x < x0 + w && p.y < y0 + h; }
    std::size_t index(Pos p) const { return static_cast<std::size_t>((p.y - y0) * w + (p.x - x0)); }
    const std::vector<Square>* column(Pos p) const { return inside(p) ? cells[index(p)] : nullptr; }
    int operator()(Pos p) const {  // the height, as height() gives it
      const auto* c = column(p);
      return c ? static_cast<int>(c->size()) : 0;
    }
  };
  ColumnGrid column_grid(int margin) const;

  // The placements open to the seat to move: the spots where any tile spreads, and each
  // playable kind with the spots where it stacks, both in (corner, rotation) order. A kind's
  // legal moves are the two lists merged (a spread covers empty cells where a stack covers
  // placed ones, so no spot is in both). Precondition: the tiles are being placed.
  struct Placements {
    std::vector<std::pair<Pos, int>> spread;
    std::vector<std::pair<std::string, std::vector<std::pair<Pos, int>>>> stack;  // by kind
  };
  Placements placements() const;

  // Empiler: three tops at one level, from at least two tiles, never red on green or green on
  // red. `column_of` gives a cell's squares (nullptr when none): the map's or a ColumnGrid's.
  template <class ColumnOf>
  static bool stacks(const std::string& kind, Pos at, int rot, const ColumnOf& column_of) {
    const auto cells = footprint(at, rot);
    std::array<const Square*, 3> under{};
    std::size_t level = 0;
    for (int i = 0; i < 3; ++i) {
      const std::vector<Square>* column = column_of.column(cells[i]);
      if (!column) return false;  // a gap: nothing under this square
      if (i == 0) level = column->size();
      if (column->size() != level) return false;  // resting on squares at two levels
      under[i] = &column->back();
    }
    if (under[0]->tile == under[1]->tile && under[1]->tile == under[2]->tile) return false;
    for (int i = 0; i < 3; ++i) {
      const char top = kind[i], low = under[i]->colour;
      if ((top == 'R' && low == 'G') || (top == 'G' && low == 'R')) return false;
    }
    return true;
  }
  const std::vector<Square>* column(Pos p) const;
  bool can_stack(const std::string& kind, Pos at, int rot) const {
    return stacks(kind, at, rot, *this);
  }

  // Every élargir spot (corner, rotation), in (corner, rotation) order; the same for every kind.
  // A spot has a square on an empty cell beside a placed one, so its corner is within 2 of a
  // placed cell: inside `grid`, whose margin must be 2 or more. A cell outside the grid is empty
  // and beside nothing.
  std::vector<std::pair<Pos, int>> spread_spots(const ColumnGrid& grid) const;

  // The kinds `seat` may play now, each once, in a fixed order.
  std::vector<std::string> playable_kinds(Seat seat) const;

  std::optional<std::string> draw(Seat seat);

  void take_tile(Seat seat, const std::string& kind);

  // Lays `p` on the table for `seat` as the newest tile, a level above the cells it covers.
  void put_tile(Seat seat, const Placement& p);

  int to_order_count(Seat seat) const;

  // Once the tiles left to order are all of one kind there is no choice left: fill them in.
  void auto_order(Seat seat);

  // The seat's pile is complete: the other seat orders next, or play starts with the first player.
  void finish_ordering(Seat seat);

  // Zones: 4-connected visible squares of one colour, red for seat 0 and green for seat 1,
  // sorted best first (score, then area, then the position of their first square).
  std::array<std::vector<Zone>, kSeats> all_zones() const;

  // Best zone against best zone, then the next-best, and so on; a missing zone counts 0.
  static Verdict compare(const std::array<std::vector<Zone>, kSeats>& zones);

  void finish();

  json pile_view(Seat seat, std::optional<Seat> viewer) const;

  Variant variant_;
  Seat first_;
  Phase phase_ = Phase::play;
  Rng rng_;  // all chance: the first player and the shuffles, drawn at creation
  int total_ = 0;
  std::map<Pos, std::vector<Square>> board_;           // each cell's squares, bottom first
  std::vector<PlacedTile> tiles_;                      // 0 is the start domino
  int last_tile_ = 0;                                  // 0: no tile placed yet
  std::array<std::vector<std::string>, kSeats> pile_;  // back = top
  std::array<std::array<std::optional<std::string>, kHandSize>, kSeats> hand_;
  std::array<std::map<std::string, int>, kSeats> left_;      // unplayed tiles by kind (public)
  std::array<std::map<std::string, int>, kSeats> to_order_;  // ordered: still to put in the pile
  std::array<std::vector<std::string>, kSeats> order_;       // ordered: picks so far, first first
  std::array<bool, kSeats> ordered_{};
};

}  // namespace plateau::rules::ltiles
