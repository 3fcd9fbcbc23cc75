// Turris (Steffen-Spiele 2014, Steffen Mühlhäuser) — rules: RULES.md in this folder, which quotes
// the French text sentence by sentence and names the tests that check each.
//
// Two players, 20 blocks each (1×1×2), build one tower on a fixed 3×3 footprint. Seat 0 is white,
// seat 1 black. Cells are named <column><row>/<level>: column a–c, row 1–3, level 1 = on the base
// (e.g. "b2/3"). Construction rules, as DECISIONS.md reads them:
//   a  the game's first block goes anywhere; every later block touches the tower;
//   b  a block is vertical (one column, two levels) or horizontal (two neighbouring cells of one
//      level); every cell is supported: no cavity, no bridge, no horizontal on the base;
//   c  a vertical touches another block along a long side (any side cell on either of its two
//      levels is filled), except the game's first block;
//   d  a horizontal rests on two different blocks;
//   e  at most 3 incomplete levels at once (levels 1..H where H is the height, minus the
//      complete ones), checked after the placement;
//   f  a level's centre (b2) may be filled only if that level already holds a block in another
//      cell; a vertical in the centre column needs this on both of its levels.
// Bonus: a placement covering a centre cell earns one optional bonus: place another own block, or
// remove an opponent block (never the one they placed last) and give it back. The bonus placement
// earns a further bonus if it covers a centre too (option). A removable block has nothing resting
// on it and leaves a tower that obeys every rule (rule e, and rules c and f read as properties of
// the standing tower); the two freed cells are barred to the opponent for their whole next turn.
// The game ends when all blocks are placed (so the 40th block earns no bonus); a player with no
// block left is skipped. A player who cannot place passes. Scoring: the four side faces and the
// roof, each player's largest 4-connected visible area per face, 1 point a square; the higher total
// wins, equal totals draw.
//
// Move notation (every step of a turn is a move of the same seat):
//   "v@b2/3"       vertical block in column b2, its lower cell on level 3 (it fills b2/3 and b2/4)
//   "h@a1-b1/3"    horizontal block on level 3 over cells a1 and b1; the two cells are written in
//                  order (column letter, then row digit), so "h@b1-a1/3" is not a move
//   "remove:v@c1/1", "remove:h@a1-b1/3"   bonus: remove the opponent block so named (a block is
//                  named as it would be placed)
//   "bonus:none"   decline the bonus
//   "pass"         the only move of a player who cannot place
// A bonus placement is written like any placement. The level in a placement is always the one the
// block lands on (the column's height + 1): it is there to make logs readable, not a choice.
//
// Options: "first" ("random", "0", "1"): who starts, drawn at random by default as in the text;
// "chain_bonus" (default true): a bonus placement covering a centre earns another bonus.
#pragma once

#include "../game.hpp"

namespace plateau::rules::turris {

const Game& game();

}  // namespace plateau::rules::turris
