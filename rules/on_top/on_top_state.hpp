// On Top's state class and what its rules (on_top.cpp) and its view (on_top_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "on_top.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "../view_parts.hpp"

namespace plateau::rules::on_top {

using nlohmann::json;

constexpr int kColours = 4;
constexpr std::array<std::string_view, kColours> kColourNames{"blue", "yellow", "red", "white"};
constexpr std::string_view kColourLetters = "BYRW";
constexpr int kPawnsPerColour = 21;
// A player's first pawn is their marker on the score track, so they have one fewer to place.
constexpr int kMarkerPawns = 1;
constexpr int kBlackTriangles = 10;
constexpr int kSixths = 6;
constexpr int kMinStart = 2;
constexpr int kMaxStart = 6;
constexpr int kNone = -1;

using Tile = std::array<int, kSixths>;  // a colour index per sixth, in the notation's order

struct Point {
  int x = 0, y = 0;
  friend bool operator==(const Point&, const Point&) = default;
};

struct CellGeo {
  std::string name;
  bool up = false;
  std::array<Point, 3> points;        // clockwise on screen (y grows downwards)
  std::array<int, 3> intersection{};  // the intersection at each point
  std::vector<int> neighbours;        // cells sharing an edge, ascending
};

struct Intersection {
  Point at;
  std::vector<std::pair<int, int>> around;  // (cell, corner of that cell), cells ascending
  bool golden = false;
};

struct Board {
  std::vector<CellGeo> cells;
  std::vector<Intersection> intersections;  // reading order: by y, then x
  std::map<std::string, int, std::less<>> by_name;
  std::vector<int> red_start, alternative_start;
  int track_spaces = 0;
  std::shared_ptr<const json> fixed;  // {"geometry": ...}: the part of every view no move changes
};

const Board& board();

enum class Kind : std::uint8_t { empty, start, black, hole, tile };  // hole: empty, counts as black

std::string_view kind_name(Kind k);

struct CellState {
  Kind kind = Kind::empty;
  int tile = kNone;  // the tile's id (its index in the box) when kind == tile
  int turn = 0;      // which placement (1, 2, ...) put it there
  int pair = kNone;  // the tile's other cell
  std::array<int, 3> corners{kNone, kNone, kNone};  // colour at each of the cell's points
  friend bool operator==(const CellState&, const CellState&) = default;
};

struct Setup {
  int players = 2;
  bool teams = false;
  Seat first = 0;
  std::vector<int> start_cells;
  int spare_blacks = 0;
  std::vector<Tile> tiles;
  bool fixed_order = false;  // test-only: draw tiles in order instead of at random
  std::array<int, kColours> pawns{};
  std::array<int, kColours> seconds_order{0, 1, 2, 3};  // test-only: see TestSetup
};

class OnTopState final : public TurnState<OnTopState>, public ViewParts {
 public:
  OnTopState(Setup setup, Rng rng)
      : TurnState(setup.first),
        players_(setup.players),
        teams_(setup.teams),
        fixed_order_(setup.fixed_order),
        tiles_(std::move(setup.tiles)),
        start_cells_(std::move(setup.start_cells)),
        cells_(board().cells.size()),
        towers_(board().intersections.size()),
        closed_(board().intersections.size(), false),
        pawns_(setup.pawns),
        seconds_order_(setup.seconds_order),
        score_(setup.players, 0),
        penalty_(setup.players, 0),
        spare_blacks_(setup.spare_blacks),
        rng_(rng) {
    for (int c : start_cells_) cells_[c].kind = Kind::start;
    pile_.resize(tiles_.size());
    std::iota(pile_.begin(), pile_.end(), 0);
    begin_turn();
  }

  // The position `board` shows (Game::from_view; on_top_from_view.cpp), with the order of the
  // tiles still face down taken from `rng`: which tiles those are follows from the board, so
  // only their order is left to sample. `setup` holds the players, teams, the box's tiles and
  // the pawns each colour starts with; the rest is read from `board`. nullptr when `board` is
  // not one this game shows with `options` (normalized), or when it shows a game that is over:
  // no seat is to move in it.
  static std::unique_ptr<OnTopState> from_view(Setup setup, const json& options, const json& board,
                                               Seat to_move, Rng& rng);

  int num_seats() const override { return players_; }
  // Every seat sees the board, and which tiles are left follows from it; what is hidden is the
  // order they will be drawn in. A sample draws them afresh.
  std::unique_ptr<State> determinize(Seat, Rng& rng) const override;

  std::vector<Move> legal_moves() const override;
  std::vector<int> scores() const override { return outcome_scores(); }
  std::string drawn() const override { return drawn_ ? std::to_string(*drawn_) : std::string(); }

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  std::shared_ptr<const json> fixed_view() const override { return board().fixed; }
  json changing_view(std::optional<Seat>) const override;

  // A move fills a cell or two and may close towers, and a tower once closed never changes:
  // cells and closed flags are compared as numbers with the position the board shows, and only
  // those that differ touch the board, rather than every cell of it being looked up and compared.
  struct OnTopShown;
  std::shared_ptr<const Shown> shown() const override;
  bool update_view(json& board, std::optional<Seat>, const Shown* shown_base,
                   Update& update) const override;
  // Without a Shown: cells and towers are compared where they are on the board and only those
  // that differ are replaced.
  bool update_by_walking(json& cells, json& towers, Update& update) const;

 private:
  json cell_json(std::size_t i) const;
  // Whether `node` is cell_json(i), without building it.
  bool shows_cell(const json& node, std::size_t i) const;
  json tower_json(std::size_t v) const;

  // Everything on the board but its cells and towers.
  json rest_of_view() const;

 protected:
  bool is_legal(const Move& move) const override;

  void do_apply(const Move& move) override;

 private:
  static std::optional<std::pair<int, int>> parse_move(std::string_view text);

  bool filled(int cell) const { return cells_[cell].kind != Kind::empty; }

  // Both cells empty and edge neighbours, and one of them touching a tile or a black triangle
  // (start, filled hole or a hole left empty) along an edge.
  bool can_place(int a, int b) const;

  bool any_placement() const;

  void begin_turn();

  // Half A on `a`, half B on `b` (see the notation in the header).
  void place(int a, int b, int tile);

  // Every empty cell left without an empty edge-neighbour is a hole: a black triangle goes in
  // while spares last, after that it stays empty and counts as black. Filling one hole cannot
  // make another, so one pass in cell order is enough.
  json fill_holes();

  void score_completed(json& scored);

  json score_intersection(int v);

  // Whether cells a and b, a tile's two halves as the view shows them, hold its sixths as
  // place() lays them (half A on either cell).
  bool shows_placed_tile(int a, int b);

  json seat_json(int colour) const { return colour < players_ ? json(colour) : json(nullptr); }

  // Ends the game if any of `placed` (colours that have just each put down a pawn, together, in
  // colour order) has none left. Players who placed their last pawn win at once, sharing the win
  // when there are several (with teams: their teams win, both sharing it if both are there);
  // this outranks a neutral colour running out in the same placement, which otherwise ends the
  // game on points.
  void check_ran_out(const std::vector<int>& placed);

  // "blue", "blue and yellow", "blue, yellow and red".
  static std::string colour_list(const std::vector<int>& colours);

  std::vector<int> outcome_scores() const;

  // Most points wins, then fewest pawns left, then a shared win; a team counts as one.
  // `ended` is the reason's code ("tiles_out", "no_room", "neutrals_out"); `neutrals` the
  // neutral colours whose pawns ran out.
  void finish_by_points(const std::string& why, std::string_view ended, bool penalty,
                        const std::vector<int>& neutrals = {});

  int players_;
  bool teams_;
  bool fixed_order_;
  std::vector<Tile> tiles_;
  std::vector<int> start_cells_;
  std::vector<CellState> cells_;
  std::vector<std::vector<int>> towers_;  // colours, bottom to top
  std::vector<bool> closed_;              // scored already (a tie leaves it closed and empty)
  std::array<int, kColours> pawns_;
  std::array<int, kColours> seconds_order_;
  std::vector<int> score_;    // marker positions per seat
  std::vector<int> penalty_;  // unused pawns taken off at the end
  int spare_blacks_;
  Rng rng_;
  std::vector<int> pile_;  // ids of the tiles not drawn yet, in id order: no order to leak
  std::optional<int> drawn_;
  int placed_ = 0;
  json last_ = nullptr;
};

}  // namespace plateau::rules::on_top
