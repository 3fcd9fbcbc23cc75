// Turris's state class and what its rules (turris.cpp) and its view (turris_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "turris.hpp"

#include <algorithm>
#include <array>

#include "../view_parts.hpp"

namespace plateau::rules::turris {

using nlohmann::json;

constexpr int kSide = 3;
constexpr int kLevelCells = kSide * kSide;
// 80 cells and at most 3 incomplete levels keep any tower at or under 11 levels; 16 leaves room
// so that no candidate ever needs a bounds special case beyond this one constant.
constexpr int kMaxLevels = 16;
constexpr int kCells = kLevelCells * kMaxLevels;
constexpr int kBlocksEach = 20;
constexpr int kMaxIncomplete = 3;
constexpr int kCentre = 1 * kSide + 1;  // b2 within a level
constexpr std::array<std::string_view, 2> kColors{"white", "black"};
constexpr int kEmpty = -1;

int cell_index(int x, int y, int z);
int cell_x(int i);
int cell_y(int i);
int cell_z(int i);

std::string column_name(int i);
std::string level_suffix(int i);

// Each cell holds the id of the block filling it, or kEmpty.
using Cells = std::array<int, kCells>;

// A block to place, or one standing: a vertical lists its lower cell first, a horizontal its
// cells in notation order (column letter, then row digit).
struct Shape {
  bool vertical = true;
  std::array<int, 2> cells{};
};

std::string shape_name(const Shape& s);

struct Block {
  Seat seat = 0;
  Shape shape;
  bool alive = true;
};

int level_count(const Cells& cells, int z);

// Levels with at least one filled cell: support makes them 1..height, with no gap.
int tower_height(const Cells& cells);

// One of the five views the scoring reads: a grid of visible squares, rows from the bottom of the
// picture up, three columns left to right as a person facing that side sees them.
struct Square {
  int block = kEmpty;
  Seat seat = -1;
  int depth = 0;  // side faces: 0 = the front row; roof: the level (1-based) of the visible top
};
struct Face {
  std::string_view name;
  std::string_view from;
  std::array<std::string_view, 3> columns;
  std::vector<std::array<Square, kSide>> grid;
  std::vector<std::array<bool, kSide>> best;  // each player's largest area
  std::array<int, 2> score{};
};

class TurrisState final : public TurnState<TurrisState>, public ViewParts {
 public:
  TurrisState(Seat first, bool chain) : TurnState(first), chain_(chain) {
    cells_.fill(kEmpty);
    supply_.fill(kBlocksEach);
  }

  // The position `board` (a view) shows, with `to_move` to move: Game::from_view. Nothing in
  // Turris is hidden, so it is the exact position; nullptr for a board that is not one a game
  // in progress shows. `options` are normalized.
  static std::unique_ptr<State> from_view(const json& options, const json& board, Seat to_move);

  int num_seats() const override { return 2; }
  // Every seat sees the whole board, and no chance is left to come: a bot samples nothing.
  std::unique_ptr<State> determinize(Seat, Rng&) const override { return clone(); }

  std::vector<Move> legal_moves() const override;

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override;

  // A move changes few cells, blocks and squares, and most of the board stays as it was: they
  // are compared as numbers with the position the board shows, and only those that differ touch
  // the board, rather than every node of it being looked up and compared.
  struct TurrisShown;
  std::shared_ptr<const Shown> shown() const override;
  bool update_view(json& board, std::optional<Seat>, const Shown* shown_base,
                   Update& update) const override;

  // Without a Shown: the tower's cells, its blocks and its faces' squares are compared where
  // they are on the board and only those that differ are replaced.
  bool update_by_walking(json* levels, json* blocks, json* faces, Update& update) const;

 private:
  static json id_or_null(int id) { return id == kEmpty ? json(nullptr) : json(id); }

  json level_json(std::size_t z) const;
  json levels_json() const;
  static json faces_json(const std::array<Face, 5>& all);

  static json block_json(const Block& b);
  // Whether `node` is block_json(b), without building it: a block's seat and shape never change.
  static bool shows_block(const json& node, const Block& b);

  static const char* depth_key(const Face& face) { return face.name == "roof" ? "level" : "depth"; }
  static json square_json(const Face& face, std::size_t r, int c);
  // Whether `node` is square_json(face, r, c), without building it.
  static bool shows_square(const json& node, const Face& face, std::size_t r, int c);
  static json row_json(const Face& face, std::size_t r);
  static json face_json(const Face& face);

  // Everything on the board but its levels, blocks and faces.
  json rest_of_view(const std::array<Face, 5>& faces) const;

 protected:
  // The one action a move names, checked alone rather than found among every legal one.
  bool is_legal(const Move& move) const override { return action_of(move.text).has_value(); }

  void do_apply(const Move& move) override;

 private:
  enum class Phase { place, bonus };
  enum class Kind { place, remove, decline, pass };
  struct Action {
    std::string text;
    Kind kind = Kind::place;
    Shape shape;
    int block = kEmpty;
  };
  // Cells freed by a removal, barred to the removed block's owner for their next turn.
  struct Bar {
    Seat seat = 0;
    std::array<int, 2> cells{};
  };

  std::vector<Action> actions() const;

  // The action `text` names if it is one of actions(), found without listing them all.
  std::optional<Action> action_of(std::string_view text) const;

  // Rules a–f and the bar, for a shape from landing_shapes (so already supported).
  bool can_place(const Shape& s, Seat seat, bool honour_bar) const;

  bool can_place_any(Seat seat, bool honour_bar) const;

  // The bonus removal: an opponent block, not the one they placed last, with nothing resting on
  // it, whose removal leaves a tower that obeys every rule.
  bool can_remove(int id, Seat remover) const;

  bool bonus_usable() const;

  void place(const Shape& s);

  void end_turn();

  void finish(std::string why, std::string_view ended);  // ended: "full" or "stuck"

  // The tower's five faces in this position, computed on first use. A copy and a Shown share
  // them: the next position's view is compared with them, and finds them already there rather
  // than computed a second time.
  const std::array<Face, 5>& tower_faces() const;

  Cells cells_{};
  std::vector<Block> blocks_;  // every block ever placed, by id; a removed one stays, not alive
  mutable std::shared_ptr<const std::array<Face, 5>>
      faces_;  // see tower_faces(); reset by do_apply
  std::array<int, 2> supply_{};
  bool chain_;
  Phase phase_ = Phase::place;
  int alive_ = 0;
  std::array<int, 2> last_placed_{kEmpty, kEmpty};
  std::optional<Bar> bar_;
  // The moves of the turn in progress, or of the last one until the next turn's first move.
  Seat last_seat_ = -1;
  std::vector<std::string> last_moves_;
  bool fresh_turn_ = true;
};

}  // namespace plateau::rules::turris
