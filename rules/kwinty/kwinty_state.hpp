// Kwinty's state class and what its rules (kwinty.cpp) and its view (kwinty_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "kwinty.hpp"

#include <algorithm>
#include <array>

#include "../view_parts.hpp"

namespace plateau::rules::kwinty {

using nlohmann::json;

constexpr int kColumns = 17;     // the frame: a..q; see the header for why 17 is enough
constexpr int kRows = 9;         // the wall may not be taller than 9 squares
constexpr int kMaxExtent = 9;    // nor wider than 9 squares
constexpr int kFirstColumn = 8;  // column i: where the first block's lower-left square goes
constexpr int kBlocksEach = 20;
constexpr int kWinLength = 5;
constexpr int kFourLength = 4;
constexpr std::array<std::string_view, 2> kColours{"white", "black"};

struct Cell {
  int x = 0, y = 0;
  friend bool operator==(const Cell&, const Cell&) = default;
};
using Line = std::vector<Cell>;

// The four directions a line can run in, each counted once (a line read backwards is the same).
struct Direction {
  int dx, dy;
  std::string_view name;  // in the English reason
  std::string_view code;  // in the reason's args
};
constexpr std::array<Direction, 4> kDirections{{{1, 0, "horizontally", "horizontal"},
                                                {0, 1, "vertically", "vertical"},
                                                {1, 1, "on the rising diagonal", "rising"},
                                                {1, -1, "on the falling diagonal", "falling"}}};
constexpr std::array<Cell, 4> kNeighbours{{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};

struct Block {
  Seat seat = 0;
  bool lying = true;
  int x = 0, y = 0;  // the lower-left square
  Cell second() const { return lying ? Cell{x + 1, y} : Cell{x, y + 1}; }
};

struct Placement {
  bool lying;
  int x, y;
};

bool in_frame(Cell c);

std::string cell_name(Cell c);

std::string placement_text(const Placement& p);

class KwintyState final : public TurnState<KwintyState>, public ViewParts {
 public:
  KwintyState(Seat first, bool strict) : TurnState(first), first_(first), strict_(strict) {
    grid_.fill(-1);
  }

  int num_seats() const override { return 2; }
  // Every seat sees the whole board, and no chance is left to come: a bot samples nothing.
  std::unique_ptr<State> determinize(Seat, Rng&) const override { return clone(); }

  std::vector<Move> legal_moves() const override;

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override;

  // Blocks are only ever added to the wall: a board some moves back gets the new ones appended,
  // and the rest anew.
  bool update_view(json& board, std::optional<Seat>, const Shown*, Update& update) const override;

 private:
  static json block_json(const Block& b);

  // Everything on the board but its blocks.
  json rest_of_view() const;

 protected:
  bool is_legal(const Move& move) const override;

  void do_apply(const Move& move) override;

 private:
  int block_at(Cell c) const { return in_frame(c) ? grid_[c.y * kColumns + c.x] : -1; }
  Seat owner(Cell c) const;

  // Calls `f` on each placement open to `seat` until it returns true; returns whether it did.
  template <class F>
  bool for_each_placement(Seat seat, F&& f) const {
    if (left_[seat] == 0) return false;
    for (int y = 0; y < kRows; ++y)
      for (int x = 0; x < kColumns; ++x)
        for (const bool lying : {true, false}) {
          const Placement p{lying, x, y};
          if (can_place(seat, p) && f(p)) return true;
        }
    return false;
  }

  bool can_place_anything(Seat seat) const;

  bool can_place(Seat seat, const Placement& p) const;

  void place(Seat seat, const Placement& p);

  // The maximal run of `c`'s colour through `c` along `d`, from its lower-left end.
  Line run_through(Cell c, const Direction& d) const;

  // For each seat, every maximal run of exactly four squares of its colour, in any direction.
  std::array<std::vector<Line>, 2> lines_of_four() const;

  void score_lines_of_four();

  std::array<int, kColumns * kRows> grid_{};  // index into blocks_, or -1
  std::vector<Block> blocks_;                 // in the order placed
  std::array<int, 2> left_{kBlocksEach, kBlocksEach};
  int min_x_ = 0, max_x_ = 0;  // the wall's extent, once a block is down
  Seat first_;
  bool strict_;
  std::string last_;
  Seat last_seat_ = -1;
  std::vector<Line> win_lines_;
  int win_length_ = 0;             // the first winning line: its length and direction
  std::size_t win_direction_ = 0;  // (an index in kDirections)
};

}  // namespace plateau::rules::kwinty
