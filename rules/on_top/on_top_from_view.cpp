// A position read back from a view (Game::from_view), for a bot that plays as an ordinary client
// and knows only the board its seat is shown. Nothing in On Top is private: the view holds every
// cell, tower, pawn count and score and the tile in hand, and each placed tile shows its id, so
// which tiles are still face down follows from it; only their order is hidden, and it is drawn
// afresh, as determinize() does. The board comes from the wire: every member is checked for
// presence, type and range, and what it shows must add up (tiles, black triangles, pawns, towers
// and scores), so a board this game never shows gives nullptr, never a throw.
#include <climits>

#include "on_top_state.hpp"
#include "rules/json_read.hpp"

namespace plateau::rules::on_top {

namespace {

using read::array;
using read::int_in;
using read::member;

// `node` as a colour name, or nullopt.
std::optional<int> colour(const json* node) {
  if (!node || !node->is_string()) return std::nullopt;
  const auto at = std::ranges::find(kColourNames, node->get_ref<const std::string&>());
  if (at == kColourNames.end()) return std::nullopt;
  return static_cast<int>(at - kColourNames.begin());
}

// `node` as a filled cell's kind (what kind_name spells), or nullopt.
std::optional<Kind> filled_kind(const json* node) {
  if (!node || !node->is_string()) return std::nullopt;
  for (const Kind k : {Kind::start, Kind::black, Kind::hole, Kind::tile})
    if (kind_name(k) == node->get_ref<const std::string&>()) return k;
  return std::nullopt;
}

// Whether `cells` (ascending) are where the options put the start triangles: the board's red
// or alternative cells, or cells the seed may draw (interior ones, no two sharing an edge).
bool start_fits(const json& options, const std::vector<int>& cells) {
  const Board& b = board();
  const auto start = options.at("start").get<std::string>();
  const auto count = static_cast<std::size_t>(options.at("start_triangles").get<int>());
  if (cells.size() != count) return false;
  std::vector<int> expected;
  if (start == "red") {
    expected = b.red_start;
  } else if (start == "alternative") {
    if (count > b.alternative_start.size()) return false;
    expected.assign(b.alternative_start.begin(), b.alternative_start.begin() + count);
  } else {
    return std::ranges::all_of(cells, [&](int c) {
      const auto& near = b.cells[c].neighbours;
      return near.size() == 3 && std::ranges::none_of(near, [&](int n) {
               return std::ranges::binary_search(cells, n);
             });
    });
  }
  std::ranges::sort(expected);
  return expected == cells;
}

}  // namespace

bool OnTopState::shows_placed_tile(int a, int b) {
  const CellState shown_a = cells_[a], shown_b = cells_[b];
  const int placed = placed_;
  placed_ = shown_a.turn;  // place() stamps each half with the placement's number
  bool shows = false;
  for (const auto& [first, second] : {std::pair{a, b}, std::pair{b, a}}) {
    place(first, second, shown_a.tile);
    shows = shows || (cells_[a] == shown_a && cells_[b] == shown_b);
  }
  cells_[a] = shown_a;
  cells_[b] = shown_b;
  placed_ = placed;
  return shows;
}

std::unique_ptr<OnTopState> OnTopState::from_view(Setup setup, const json& options,
                                                  const json& board_view, Seat to_move, Rng& rng) {
  const Board& geo = board();
  const int players = setup.players;
  const int cell_count = static_cast<int>(geo.cells.size());
  const int tile_count = static_cast<int>(setup.tiles.size());
  if (!board_view.is_object() || to_move < 0 || to_move >= players || tile_count == 0)
    return nullptr;
  const json* root = &board_view;

  // The start triangles, in board order as the state keeps them, where the options put them.
  const json* starts = array(member(root, "start_cells"));
  if (!starts) return nullptr;
  std::vector<int> start_cells;
  for (const json& node : *starts) {
    const auto c = int_in(&node, 0, cell_count - 1);
    if (!c || (!start_cells.empty() && *c <= start_cells.back())) return nullptr;
    start_cells.push_back(*c);
  }
  if (!start_fits(options, start_cells)) return nullptr;
  const int starts_used = static_cast<int>(start_cells.size());
  setup.start_cells = start_cells;
  setup.spare_blacks = kBlackTriangles - starts_used;
  // The constructor's first draw is replaced below by the tile the view shows in hand; the
  // draws to come are `rng`'s.
  auto state = std::make_unique<OnTopState>(std::move(setup), Rng(0));
  state->rng_ = Rng(rng.next());
  const std::array<int, kColours> pawns_at_start = state->pawns_;

  // A finished game shows a result and no seat to move: nothing to rebuild for a bot.
  const json* result = member(root, "result");
  const auto turn = int_in(member(root, "turn"), 1, tile_count);
  const auto drawn = int_in(member(member(root, "drawn"), "tile"), 0, tile_count - 1);
  const auto black_left = int_in(member(root, "black_left"), 0, kBlackTriangles - starts_used);
  if (!result || !result->is_null() || !turn || !drawn || !black_left ||
      int_in(member(root, "to_move"), 0, players - 1) != to_move)
    return nullptr;
  state->to_move_ = to_move;
  state->placed_ = *turn - 1;
  state->drawn_ = *drawn;
  state->spare_blacks_ = *black_left;
  // Seats take turns from the first one: with a first seat chosen, the count of placements
  // says who is to move.
  const auto first = options.at("first").get<std::string>();
  if (first != "random" && (std::stoi(first) + state->placed_) % players != to_move) return nullptr;

  const json* colours = array(member(root, "colours"), kColours);
  const json* seats = array(member(root, "seats"), static_cast<std::size_t>(players));
  if (!colours || !seats) return nullptr;
  for (int c = 0; c < kColours; ++c) {
    const auto left = int_in(member(&(*colours)[c], "pawns_left"), 0, pawns_at_start[c]);
    if (!left) return nullptr;
    state->pawns_[c] = *left;
  }
  for (Seat s = 0; s < players; ++s) {
    const auto score =
        int_in(member(&(*seats)[static_cast<std::size_t>(s)], "score"), 0, INT_MAX / 2);
    if (!score) return nullptr;
    state->score_[s] = *score;
  }

  // The cells: start triangles stay where they were put, black triangles come out of the box's
  // ten, and each tile shows its id, when it was placed and its other half.
  const json* cells = array(member(root, "cells"), geo.cells.size());
  if (!cells) return nullptr;
  int blacks = 0;
  bool holes_left_empty = false;
  for (int i = 0; i < cell_count; ++i) {
    const json& node = (*cells)[static_cast<std::size_t>(i)];
    const bool is_start = std::ranges::binary_search(start_cells, i);
    CellState& cell = state->cells_[i];
    if (node.is_null()) {
      if (is_start) return nullptr;
      cell = CellState{};
      continue;
    }
    const auto kind = filled_kind(member(&node, "kind"));
    if (!kind || is_start != (*kind == Kind::start)) return nullptr;
    cell = CellState{*kind};
    blacks += *kind == Kind::black ? 1 : 0;
    holes_left_empty = holes_left_empty || *kind == Kind::hole;
    if (*kind != Kind::tile) continue;
    const auto tile = int_in(member(&node, "tile"), 0, tile_count - 1);
    const auto placed_at = int_in(member(&node, "turn"), 1, state->placed_);
    const auto pair = int_in(member(&node, "pair"), 0, cell_count - 1);
    const json* corners = array(member(&node, "corners"), 3);
    if (!tile || !placed_at || !pair || !corners ||
        std::ranges::find(geo.cells[i].neighbours, *pair) == geo.cells[i].neighbours.end())
      return nullptr;
    cell.tile = *tile;
    cell.turn = *placed_at;
    cell.pair = *pair;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto c = colour(&(*corners)[k]);
      if (!c) return nullptr;
      cell.corners[k] = *c;
    }
  }
  // Every black triangle is a start one, on the board or a spare; holes stay empty only once
  // the spares are gone; and after a placement no empty cell is left without an empty
  // neighbour (it would be a hole; before the first, random start triangles may enclose one).
  if (blacks + *black_left + starts_used != kBlackTriangles || (holes_left_empty && *black_left))
    return nullptr;
  for (int i = 0; i < cell_count && state->placed_ > 0; ++i)
    if (!state->filled(i) &&
        std::ranges::all_of(geo.cells[i].neighbours, [&](int n) { return state->filled(n); }))
      return nullptr;

  // Each tile lies on two cells that name each other, once, laid as place() lays it; one tile
  // per placement; the tile in hand is on none of them, and the rest are face down.
  std::vector<bool> on_board(static_cast<std::size_t>(tile_count), false);
  std::vector<int> tile_of_turn(static_cast<std::size_t>(state->placed_) + 1, kNone);
  for (int i = 0; i < cell_count; ++i) {
    const CellState& half = state->cells_[i];
    if (half.kind != Kind::tile) continue;
    const CellState& other = state->cells_[half.pair];
    if (other.kind != Kind::tile || other.pair != i || other.tile != half.tile ||
        other.turn != half.turn)
      return nullptr;
    if (half.pair < i) continue;  // counted from its first half
    if (on_board[half.tile] || tile_of_turn[half.turn] != kNone ||
        !state->shows_placed_tile(i, half.pair))
      return nullptr;
    on_board[half.tile] = true;
    tile_of_turn[half.turn] = half.tile;
  }
  if (std::ranges::count(tile_of_turn, kNone) != 1 || on_board[*drawn]) return nullptr;
  state->pile_.clear();
  for (int t = 0; t < tile_count; ++t)
    if (!on_board[t] && t != *drawn) state->pile_.push_back(t);

  // The towers: one on each intersection whose cells are all filled (scored, maybe empty),
  // none elsewhere.
  const json* towers = array(member(root, "towers"), geo.intersections.size());
  if (!towers) return nullptr;
  for (std::size_t v = 0; v < geo.intersections.size(); ++v) {
    const json& node = (*towers)[v];
    const bool complete = std::ranges::all_of(
        geo.intersections[v].around, [&](const auto& ck) { return state->filled(ck.first); });
    if (node.is_null() == complete) return nullptr;
    state->closed_[v] = complete;
    state->towers_[v].clear();
    if (!complete) continue;
    const json* pawns = array(&node);
    if (!pawns || pawns->size() > static_cast<std::size_t>(kColours)) return nullptr;
    for (const json& pawn : *pawns) {
      const auto c = colour(&pawn);
      if (!c) return nullptr;
      state->towers_[v].push_back(*c);
    }
  }
  // Scoring the complete intersections afresh, with pawns enough that none runs out (the game
  // goes on), must build the same towers and give the same scores; the pawns the towers hold
  // are the ones gone from the colours' supplies.
  OnTopState scratch(*state);
  scratch.towers_.assign(geo.intersections.size(), {});
  scratch.score_.assign(static_cast<std::size_t>(players), 0);
  scratch.pawns_.fill(kPawnsPerColour * static_cast<int>(geo.intersections.size()));
  for (std::size_t v = 0; v < geo.intersections.size(); ++v)
    if (state->closed_[v]) scratch.score_intersection(static_cast<int>(v));
  if (scratch.towers_ != state->towers_ || scratch.score_ != state->score_) return nullptr;
  std::array<int, kColours> in_towers{};
  for (const auto& tower : state->towers_)
    for (int c : tower) ++in_towers[c];
  for (int c = 0; c < kColours; ++c)
    if (state->pawns_[c] + in_towers[c] != pawns_at_start[c]) return nullptr;

  // The last placement, as the view recorded it: by the seat before the one to move, of the
  // tile of the last placement.
  const json* last = member(root, "last");
  if (!last || last->is_null() != (state->placed_ == 0)) return nullptr;
  if (state->placed_ > 0 &&
      (!last->is_object() ||
       int_in(member(last, "seat"), 0, players - 1) != (to_move + players - 1) % players ||
       int_in(member(last, "tile"), 0, tile_count - 1) != tile_of_turn[state->placed_]))
    return nullptr;
  state->last_ = *last;

  // A tile in hand can always be placed (else the game would be over); all that is derived
  // (geometry, pile size, teams, the names of colours and kinds) must come out as shown.
  if (!state->any_placement() || state->view(to_move) != board_view) return nullptr;
  return state;
}

}  // namespace plateau::rules::on_top
