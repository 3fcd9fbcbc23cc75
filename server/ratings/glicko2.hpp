// Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013), the rating lichess uses: a
// rating, its deviation (how sure it is) and its volatility (how erratic the player is). Pure:
// numbers in, numbers out.
//
// Plateau's use of it (README, "Ratings"): every rated game is a rating period of its own for its
// players; before it, a player's deviation grows as if one empty period had passed for each full
// day since their last rated game (capped at the starting 350); a game of three or four seats
// counts, for each player, as one result against each other player (1 ahead of them, ½ level, 0
// behind), all in that one period.
#pragma once

#include <vector>

namespace plateau::server {

struct Glicko {
  double rating = 1500;
  double deviation = 350;
  double volatility = 0.06;
};

struct GlickoResult {
  Glicko opponent;
  double score;  // 1 a win, 0.5 a draw, 0 a loss
};

// The system's constant τ, which bounds how fast volatility moves (Glickman suggests 0.3 to 1.2).
inline constexpr double kGlickoTau = 0.5;
inline constexpr double kGlickoMaxDeviation = 350;

// The player's rating after one period with these results (none: only the deviation grows).
Glicko glicko_update(const Glicko& player, const std::vector<GlickoResult>& results,
                     double tau = kGlickoTau);

// The deviation after `periods` empty rating periods, at most kGlickoMaxDeviation.
Glicko glicko_idle(const Glicko& player, double periods);

// The results of one finished game for each seat, from the ranks (0 first; equal ranks tie): a
// result against every other seat. `ratings` and `ranks` are by seat.
std::vector<std::vector<GlickoResult>> glicko_pairwise(const std::vector<Glicko>& ratings,
                                                       const std::vector<int>& ranks);

}  // namespace plateau::server
