// Kwinty (BLOCKS, Steffen-Spiele 2014; Fred Horn) — rules: RULES.md in this folder, which
// quotes the French text sentence by sentence and names the tests that check each.
//
// Two players build one vertical wall together, 20 blocks each; seat 0 plays white, seat 1
// black. A block shows two squares: lying (2 wide × 1 high) or standing (1 × 2). Row 1 is the
// table. Every square must rest on the table or on a square of the wall (no overhang), every
// block after the first touches the wall along an edge, and the wall may never be wider than 9
// squares (the 9 columns float sideways: max x − min x + 1 ≤ 9) nor taller than 9. Two blocks
// of one colour may not touch end to end (two lying blocks side by side in a row, or a standing
// block on a standing block); option "strict": no short side may touch a block of its colour at
// all. Five squares of one's colour in a line (row, column or either diagonal) win at once.
// When neither player can place (at the latest when all 40 blocks are down), the player with
// more lines of exactly four wins; equal counts are a draw. A player who cannot place passes.
//
// Coordinates: the table is unbounded, so the wall is drawn in a fixed frame of 17 columns
// a..q (x = 0..16, left to right) and 9 rows 1..9 (y = 0..8, bottom to top). The first block
// always goes with its lower-left square on i1 (x = 8): only the shape of the wall matters, and
// since every later square lies within 8 columns of column i, the wall never leaves the frame.
//
// Move notation:
//   "L@<cell>"  a lying block whose left square is <cell>; it covers <cell> and the cell right
//               of it, e.g. "L@i1" covers i1 and j1.
//   "S@<cell>"  a standing block whose bottom square is <cell>; it covers <cell> and the cell
//               above it, e.g. "S@k2" covers k2 and k3.
//   "pass"      the only move of a player who cannot place while the game goes on.
// <cell> is a column letter a..q then a row digit 1..9. Nothing else is accepted.
//
// Options: "first" ("random", "0", "1"): who starts; the text draws lots, the host may choose.
// "strict" (bool, default false): the strict reading of rule c. A rematch is started by the
// loser of the last game (rematch_options sets "first"); after a draw the options stay as they
// were.
//
// Decisions where the text and DECISIONS.md are silent (details in RULES.md): colours belong to
// seats, not to whoever starts; a line of five wins whatever its length (6 or more also wins);
// an outcome by lines of four carries the counts as scores, a win by five carries no scores.
#pragma once

#include "../game.hpp"

namespace plateau::rules::kwinty {

const Game& game();

}  // namespace plateau::rules::kwinty
