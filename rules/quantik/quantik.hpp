// Quantik (Gigamic, Nouri Khalifa) — rules: RULES.md in this folder, which quotes the French
// text sentence by sentence and names the tests that check each.
//
// Two players, 8 pieces each (2 spheres, 2 cylinders, 2 cubes, 2 cones) on a 4×4 board made of
// four 2×2 regions. A piece goes on an empty cell unless the *opponent* already has the same
// shape in that cell's row, column or region (one's own shape is no obstacle). Completing a
// row, column or region with four different shapes, whoever owns them, wins at once; the move
// must itself be legal. A player with no legal move on their turn loses: there are no draws.
//
// Move notation: "<shape>@<cell>", shape one of sphere, cylinder, cube, cone; cell a1..d4 with
// the column letter a–d (left to right) and the row digit 1–4 (top to bottom), e.g. "cube@c3".
//
// Options: "first" ("random" or "0"/"1"): who starts; the text draws at random, the host may
// choose. A rematch draws again unless the host fixed the starter.
#pragma once

#include "../game.hpp"

namespace plateau::rules::quantik {

const Game& game();

}  // namespace plateau::rules::quantik
