// On Top (KOSMOS 2008, Günter Burkhardt) — rules: RULES.md in this folder, which quotes the
// French text sentence by sentence and names the tests that check each.
//
// 2–4 players place rhombus tiles (two triangles) on a board of triangles. Each tile carries
// coloured sixths of circles at its corners (1 sixth at each sharp tip, 2 at each wide corner).
// When every cell around an intersection is filled, the colours there are counted: the colours
// in second place put a pawn there, then the majority colour puts its pawn on top and its owner
// scores the tower's height (doubled on the golden border). Colours nobody plays (2 or 3
// players) are neutral: they take part but score nothing.
//
// Board and tiles are data (board.json, tiles.json: our stand-in for the real box, which a club
// can correct), embedded at build time. Colours: seat 0 blue, 1 yellow, 2 red, 3 white; the
// colours of absent seats are neutral. Each player has 20 pawns to place (the 21st is their
// score marker), a neutral colour 21.
//
// Move notation: "<cell>-<cell>", e.g. "c7-c8": the drawn tile's half A goes on the first cell,
// half B on the second, the two being edge neighbours. Cells are named by row letter (a = top)
// and column number (1 = left), as in board.json. "c8-c7" is the same spot turned half a turn;
// the other four turns of a tile are other spots. A tile is given as 6 letters (B, Y, R, W) for
// its sixths: A's tip, A at the first wide corner clockwise from A's tip (call it W1), B at W1,
// B's tip, B at the other wide corner W2, A at W2. There is no "pass": a tile can always be
// placed until the game ends.
//
// A turn: the tile drawn from the seeded generator (shown to all, the pile's order never) is
// placed touching a tile or a black triangle along an edge; every empty cell left with no empty
// edge-neighbour is filled with a black triangle (once the spares are gone it stays empty and
// counts as black: "void"); then every newly completed intersection is scored in reading order
// (top to bottom, then left to right). Colours tied for second place all place their pawn at
// once, before the end is checked. The game ends at once when a player places their last pawn
// (they, or their team, win; several players at once share the win) or a neutral colour places
// its last (most points wins, no penalty); otherwise when no tile can be placed (tiles gone or no
// room): each unused pawn costs 1 point, most points wins, then fewest pawns left, then a shared
// win.
//
// Options: "first" ("random" or a seat): who starts (the text: the youngest player).
// "teams" (bool, 4 players only): partners sit opposite (seats 0+2, 1+3), colours stay
// separate, points are added. "start" ("red", "alternative", "random"): where the black start
// triangles go: the two red cells, the alternative cells listed in board.json, or interior cells
// drawn from the seed, no two sharing an edge. "start_triangles" (2–6): how many; "red" allows
// only 2. Start triangles come out of the 10 black triangles, the rest are spares.
//
// Decisions where the texts are silent are listed in RULES.md.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "../game.hpp"

namespace plateau::rules::on_top {

const Game& game();

// The box's tiles as 6-letter strings (tiles.json), in data order.
const std::vector<std::string>& box_tiles();

// TEST-ONLY construction, for scenario tests that need a known draw. Not reachable from the
// server: the tiles are drawn in the given order (no chance), and pawns and spare black triangles
// may start at other counts. Refuses (bad_option) bad options, a malformed tile or counts out of
// range.
struct TestSetup {
  std::vector<std::string> tiles;           // drawn first to last; each 6 letters of B, Y, R, W
  std::optional<std::array<int, 4>> pawns;  // pawns left to place: blue, yellow, red, white
  std::optional<int> spare_blacks;          // black triangles left beside the board
  // The order in which the code lists the colours tied for second place at an intersection (a
  // permutation of 0 blue, 1 yellow, 2 red, 3 white; default that order). The text calls this
  // order irrelevant: tests vary it to check that nothing depends on it.
  std::optional<std::array<int, 4>> seconds_order;
};
Result<std::unique_ptr<State>> create_for_test(const nlohmann::json& options, std::uint64_t seed,
                                               const TestSetup& setup);

}  // namespace plateau::rules::on_top
