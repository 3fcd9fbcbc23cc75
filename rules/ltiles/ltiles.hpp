// L-Tiles: the L-tile stacking game for 2 players ("Élargir / Empiler"; its real title is
// unknown) — rules: RULES.md in this folder, which quotes the French text sentence by sentence
// and names the tests that check each.
//
// Seat 0 is red and plays lot 1, seat 1 is green and plays lot 2: 20 L tiles of 3 squares each
// (red, green or neutral), listed in inventory.json (our stand-in for the real box, embedded at
// build time). The start domino (a red square at (0,0), a green one at (1,0)) is on the table
// before the first move. On a turn a player places one tile, rotated as they like (never
// mirrored), either
//   - élargir: on the table (level 1), its 3 squares on empty cells, touching a placed tile
//     along at least one square edge; the table is unbounded; or
//   - empiler: on top of placed tiles, its 3 squares resting on 3 squares that are all the
//     visible tops of their cells, all at the same level, belonging to at least 2 different
//     tiles (the domino counts as a tile), with never a red square directly on a green one or a
//     green square directly on a red one. No height limit.
// When all 40 tiles are placed, every zone (4-connected visible squares of one colour, seen from
// above, whatever their levels) scores area × its highest level; neutral squares score for
// nobody. The best zone wins; equal best zones are decided by the next-best zones (a missing
// zone counts 0); if all are equal the game is a draw. Outcome scores: each seat's best zone.
//
// Coordinates: x grows to the right (east), y grows downwards (south), as on a screen; the
// domino is at (0,0) and (1,0). A tile kind is 3 letters R/G/N: its corner square, arm A, arm B.
// Rotation r (0..3) is a number of clockwise quarter turns: arm A points east, south, west,
// north for r = 0, 1, 2, 3 and arm B is always a quarter turn clockwise from arm A, so with the
// corner at (x,y) the squares are
//   r=0: corner (x,y), A (x+1,y), B (x,y+1)      r=1: corner (x,y), A (x,y+1), B (x-1,y)
//   r=2: corner (x,y), A (x-1,y), B (x,y-1)      r=3: corner (x,y), A (x,y-1), B (x+1,y)
// The level is never written: it follows from the cells (1 on empty cells, one above the
// squares underneath when stacking).
//
// Move notation:
//   "<kind>@<x>,<y>,<r>"  place a tile of that kind with its corner at (x,y), rotation r,
//                         e.g. "RRN@-1,0,2", "GRG@3,-2,0". Integers are plain decimal (no "+",
//                         no leading zeros, no "-0"). The kind must be the top of the pile
//                         (standard, ordered), any tile left (open) or a tile in hand (hand).
//   "pile <kind>"         variant "ordered" only, before play: put a tile of that kind next in
//                         one's pile; the first pick is played first. When the tiles left to
//                         order are all of one kind they are filled in automatically.
// A player is never stuck (élargir is always possible on an unbounded table), so there is no
// "pass".
//
// Options:
//   "first"   "random" (default, the text draws the first player) or "0"/"1".
//   "variant" "standard" (default): each lot is shuffled from the seeded generator into a
//                 face-up pile; only each pile's top is visible, to everyone; play the top.
//             "ordered" (variant 1): before play each seat orders its own pile, the first player
//                 first, by "pile" moves; only the owner's view shows the order.
//             "open" (variant 2): no pile, every tile is face up, play any tile left.
//             "hand" (variant 3): shuffled face-up pile; each player holds a face-up hand of 3
//                 drawn from it; the tile played is replaced, in its slot, by the pile's top.
// See RULES.md for every decision taken where the text is silent.
#pragma once

#include "../game.hpp"

namespace plateau::rules::ltiles {

const Game& game();

}  // namespace plateau::rules::ltiles
