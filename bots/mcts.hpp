// A Monte Carlo tree search player over the rules contract, for any game and any number of
// seats, that plays only on what its seat may know.
//
// The search is information-set MCTS with one tree for the searching seat (Cowling, Powley and
// Whitehouse's SO-ISMCTS): each iteration starts from a fresh State::determinize(seat) of the
// real position, a sample of what the seat cannot see, walks the tree along moves legal in that
// sample (UCT, counting how often each move was available rather than how often its parent was
// visited), adds one node, plays the rest at random, and credits every seat with its share of
// the result in [0, 1]: a sole winner 1, shared winners 1/k each, a draw 1/seats each. In a
// game where every seat sees everything, determinize() is a copy and this is plain UCT.
//
// Pure but for the clock it is handed: no I/O, no global random numbers (its own Rng, from a
// seed), so a search with an iteration budget is reproducible move for move.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "rules/game.hpp"

namespace plateau::bots {

// When to stop: after `iterations` (0: no bound) or once `time` has passed (0: no bound). At
// least one must be set. The search always makes at least one iteration.
struct Budget {
  std::size_t iterations = 0;
  std::chrono::microseconds time{0};
};

// How the search weighs what it finds. The defaults are the shipped bots'; the arena varies
// them to measure a change before it goes into the level table.
struct Tuning {
  // UCT's exploration constant for results in [0, 1].
  double exploration = 0.7;
  // How much of a playout's value is its score rather than its result, in games that score: a
  // playout lost by less is worth more, which steers the search where random play wins nearly
  // everything (or nothing) whatever is played now. A sole win (the highest score) is worth 1,
  // a loss at most score_share: by where its score lies between the lowest and the highest.
  // Measured on 3-seat Quirky against random play (300 games each, normal at 30 ms): 0 86.3%,
  // 0.2 88.3%, 0.5 89.0%, 0.8 86.3% first places; differences near the noise (about 2%).
  double score_share = 0.5;
  // Where that share comes from: 0, where a seat's score lies between the lowest and the
  // highest (in a game of two, the result again); above 0, its lead over the best of the others
  // in points, through 0.5 + 0.5 tanh(lead / margin_scale), so a playout won by more is worth
  // more and a lead of a few points counts for less than a rout.
  double margin_scale = 0;
  // Progressive widening in a game that scores: a node starts with the widen_from moves that
  // gain the most at once and opens one more as its visits grow, to widen_from + sqrt(visits).
  // L-Tiles offers hundreds of placements and a normal bot makes a few hundred iterations:
  // spread over all of them, each would be tried once or not at all.
  double widen_from = 4;
  // Whether the widening applies below the root too (to every seat's moves, ranked on the
  // sample in which the node is first expanded), or only to the searching seat's first move.
  bool widen_below_root = false;
  // Plies of random play after the tree before a playout is valued from the scores as they
  // stand (the leader as if it had won); 0: to the end of the game.
  int playout_plies = 0;
  // Whether the tree tells apart the same move made with different draws (State::drawn()):
  // the opponents' replies to a move, each with the piece or tile it drew.
  bool split_drawn = false;
};

struct Choice {
  rules::Move move;
  std::size_t iterations = 0;  // made
  double value = 0;            // the chosen move's mean result for the searching seat, in [0, 1]
};

// What the search reads the time from: a steady clock, or a fake one in tests.
using Now = std::function<std::chrono::steady_clock::time_point()>;
Now steady_now();

enum class SearchError {
  game_over,          // nobody is to move
  cannot_determinize  // the game gives no State::determinize: a bot would see hidden things
};
std::string_view to_string(SearchError e);

// The move the seat to move in `position` plays, after a search within `budget`.
std::expected<Choice, SearchError> search(const rules::State& position, Budget budget,
                                          std::uint64_t seed, const Now& now = steady_now(),
                                          const Tuning& tuning = {});

// The share of a finished game's result that goes to `seat`, in [0, 1] (as above).
double result_for(const rules::Outcome& outcome, rules::Seat seat, int seats);

// What a finished playout is worth to each of `seats` seats, in [0, 1]: its share of the
// result, blended in a game that scores with its score's place or lead (Tuning::score_share,
// Tuning::margin_scale). `values` is resized to `seats`.
void playout_values(const rules::Outcome& outcome, int seats, const Tuning& tuning,
                    std::vector<double>& values);

}  // namespace plateau::bots
