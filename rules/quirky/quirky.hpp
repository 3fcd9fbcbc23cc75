// Quirky (Family Games America, 2005) — rules: RULES.md in this folder, which quotes the French
// text sentence by sentence and names the tests that check each.
//
// 2 or 3 players; colours green (seat 0), yellow (seat 1), red (seat 2). With 2 players red is
// neutral: it blocks and scores for nobody. One bag holds 45 markers (15 per colour) and 9 Quirks
// (3 blue, 3 black, 3 purple). The board is data (board.json, embedded at build time): by default
// the 28 points of a triangle of side 7. Each point holds a stack of at most 3 markers.
//
// A turn: the state itself draws a piece from the bag at random (the piece is shown to everyone;
// the bag's counts per kind are public, the order of the draws is not) and the drawer must play it:
//   - a marker goes on an empty point or on a stack of height 1 or 2 whose top is another colour;
//   - a blue Quirk moves any top marker to an adjacent (6-neighbour) empty point;
//   - a black Quirk takes any top marker off the board and puts it back in the bag;
//   - a purple Quirk passes every player's colour to the player on their left (the next seat in
//     turn order); scores stay with the players. With 2 players they swap; neutral stays neutral.
// Quirks then leave the game. Whatever has no choice is done by the state, not asked of the
// player, and logged in the view: a marker that fits nowhere is set aside, a blue or black Quirk
// with nothing to act on does nothing, a purple Quirk acts at once; the turn then passes on.
// So a player is never stuck: whenever the game goes on, the seat to move has a real choice.
//
// Scoring, after every action, by set difference: every equilateral triangle of board points whose
// three tops share a colour (any size, tilted ones included unless the "triangles" option says
// "aligned") and that was not such a triangle before the action scores 3 points for the player
// holding that colour now, whoever made or exposed it. Points are never deducted; a triangle broken
// and exposed again scores again. The game ends when the bag is empty and nothing drawn is pending;
// the highest score wins, equal highest scores share the win.
//
// Move notation (point names come from board.json: a letter for the place in the row from the left,
// a digit for the row from the apex; "a1" is the apex, "a7".."g7" the bottom row):
//   "<point>"          place the drawn marker there                       e.g. "c3"
//   "<from>-<to>"      blue Quirk: move the top marker of <from> to <to>  e.g. "c3-d4"
//   "x<point>"         black Quirk: put the top marker of <point> back    e.g. "xc3"
//
// Options: "first" ("random" or "0".."2"): who draws first (the text says "decide who starts").
// "triangles" ("any" | "aligned"): count tilted triangles too (the text), or only those whose
// sides follow the lattice lines. "purple_quirks" (bool, default true): the text's closing remark
// allows removing the 3 purple Quirks for a less random game.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "../game.hpp"

namespace plateau::rules::quirky {

const Game& game();

// The number of equilateral triangles with corners on the embedded board's points (all of them,
// or the lattice-aligned ones only); 0 when the board data is invalid. For tests and tools.
std::size_t triangle_count(bool aligned_only);

// TEST-ONLY construction, never reachable from the wire: a game whose bag holds exactly `bag`
// (piece names "green", "yellow", "red", "blue", "black", "purple"; any number of each, so a test
// may hold more than the box's 15 of a colour) and is drawn front first instead of at random. A
// marker a black Quirk puts back goes to the back of the bag. The seed still draws the first player
// when "first" is "random". bad_option for bad options or unknown piece names.
Result<std::unique_ptr<State>> create_with_stacked_bag(const nlohmann::json& options,
                                                       std::uint64_t seed,
                                                       const std::vector<std::string>& bag);

}  // namespace plateau::rules::quirky
