// Tournaments (issue 48), the pure core: who plays whom each round (round-robin, Swiss, and tables
// of three or four seated by score) and the standings with their tie-breaks. No I/O, no clock, no
// randomness: equal input gives equal output. The tournament engine stores games and byes and
// calls these.
//
// Definitions used throughout:
//  - A player's score: the points of all their games plus the points of all their byes.
//  - Ranked: by score (higher first), then seed (the order of `players_by_seed`, best first).
//  - Pairwise points of player a against player b in one game (for Sonneborn-Berger and
//    head-to-head): 1 if a earned more points than b in that game, ½ if equal, 0 if fewer. With
//    the usual 1 / ½ / 0 of two seats that is exactly the game's points.
//  - Opponents met: every other player at the table of a game, once per game (two games against
//    the same player count twice).
//  - Moved first: sat in seat 0.
// Games and byes naming a player not in `players_by_seed` are ignored.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace plateau::server::tournaments {

// One finished game of a tournament, as the engine records it.
struct GameResult {
  int round = 0;                   // 1-based
  std::vector<std::string> seats;  // player ids in seat order (seat 0 moves first)
  std::vector<double> points;      // tournament points each seat earned in this game
  friend bool operator==(const GameResult&, const GameResult&) = default;
};
// A bye (no game this round), worth `points`.
struct Bye {
  int round = 0;
  std::string player;
  double points = 0;
  friend bool operator==(const Bye&, const Bye&) = default;
};

// Points of one game from its ranks (0 = best; equal ranks tie): each player scores, against
// every other player at the table, 1 for ranking better, 1/2 for the same rank, 0 for worse.
// For two seats that is 1 / 1/2 / 0; a game of n seats hands out n(n-1)/2 points in all. (The
// same method the ratings use for 3-4 seats.)
std::vector<double> points_from_ranks(const std::vector<int>& ranks);

struct Table {
  std::vector<std::string> seats;  // seat order; seats[0] moves first
  friend bool operator==(const Table&, const Table&) = default;
};
struct Round {
  std::vector<Table> tables;
  std::vector<std::string> byes;
  friend bool operator==(const Round&, const Round&) = default;
};

// ROUND-ROBIN for 2 seats: every pair meets once (twice = a second cycle with seats swapped),
// by the circle method; with an odd count one player sits out each round (a bye). Returns every
// round in order.
//
// The circle method as done here: with n players (one phantom added when odd; whoever meets it
// has the bye), the last player stays put and the others turn; in round r (0-based) the pairs
// are {r, last} and {(r+k) mod (n-1), (r-k) mod (n-1)} for k = 1 .. n/2-1 (indices into
// `players`). Seats: the stationary player moves first in odd rounds, its partner in even ones;
// in the other pairs (r+k) moves first when k is odd, (r-k) when k is even. Every player then
// moves first ⌊g/2⌋ or ⌈g/2⌉ of their g games. With `twice`, the second cycle repeats the first
// round by round with the seats of every table swapped.
std::vector<Round> round_robin(const std::vector<std::string>& players, bool twice);

// SWISS for 2 seats: the next round, given players in seed order (best seed first), the games
// and byes so far.
//  - Players are ranked by score (games + byes), then seed.
//  - Bye (odd count): the lowest-ranked player with the fewest byes so far (so nobody has two
//    while someone has none) for whom the others can still be paired without repeats; worth
//    `bye_points` to the engine (only reported here, in Round::byes).
//  - Pairing, never a repeat: score groups are paired top-down. A group's bracket is the players
//    floated down from above (first) and the group's own players, in rank order. The bracket
//    pairs as many of its players as it can (fewest floaters) such that everyone floated down
//    and everyone below can still be paired; those left unpaired float to the next group.
//    Within a bracket the highest unpaired player is paired first. A floater prefers the highest
//    resident of the bracket; a resident at position i of the bracket's residents (of size m,
//    those not taken by floaters) prefers position i + m/2, then the positions below that in
//    order, then those between i and i + m/2 from the bottom up (the "Dutch" top half against
//    bottom half: round 1 of 6 is seed 1 v 4, 2 v 5, 3 v 6). The first pairing in that order
//    wins. The search backtracks, and before each step asks whether everyone not yet paired can
//    still be paired at all (a perfect matching, Edmonds' blossom algorithm, polynomial), so it
//    never follows a choice into a dead end. It is bounded: 2000 steps for each number of
//    floaters tried in a bracket. A bracket that runs out (no ordinary event makes one) pairs
//    each player in turn with the first partner that keeps the rest pairable, floating it when
//    there is none: still no repeats, but then not necessarily the fewest floaters.
//  - Seats in the pairing: first the pairing above is sought with, in addition, no pair where
//    the player who would move first (by the rule below) has already moved first two more times
//    than second; if there is none, without that condition (no repeats matter more).
//  - Seats: in each pair the player who moved first fewer times moves first; on a tie the one
//    who did not move first in their last game (no game yet counts as not having moved first);
//    then the higher ranked.
//  - Tables are listed in the rank order of their higher-ranked player.
//  - Returns std::nullopt when no pairing without repeats exists (the engine then ends the
//    event early and says so).
std::optional<Round> swiss_round(const std::vector<std::string>& players_by_seed,
                                 const std::vector<GameResult>& games, const std::vector<Bye>& byes,
                                 double bye_points = 1.0);

// 3 or 4 SEATS: tables seated by score.
//  - Players are ranked (score, then seed).
//  - Byes: when the count is not a multiple of `seats`, count % seats players get a bye: those
//    with the fewest byes so far, lowest-ranked first among equals.
//  - The rest fill tables of `seats` from the top in rank order.
//  - Repeats: the repeat meetings of a table are, over each pair of its players, the number of
//    games they have already played together. Then, for each pair of neighbouring tables from
//    the top down (t and t+1), the single swap of one player of t with one of t+1 that lowers
//    the two tables' repeat meetings the most is made, again and again while one lowers it
//    (among equal gains, the swap of players closest in rank, then the higher table's lower
//    player); passes over all neighbouring pairs repeat until a pass swaps nobody. Each swap
//    lowers the total, so it ends. Repeats are reduced, not necessarily removed.
//  - Seat order in a table: fewest times first-to-move first, then rank.
//  - Tables are listed top down, byes in the order they were given (as above).
// `seats` must be at least 2 (otherwise: an empty round).
Round seated_by_score(const std::vector<std::string>& players_by_seed,
                      const std::vector<GameResult>& games, const std::vector<Bye>& byes,
                      int seats);

enum class Format { round_robin, swiss, seated };  // seated = 3-4 seats by score

struct Standing {
  std::string player;
  double score = 0;     // games + byes
  double buchholz = 0;  // sum of the final scores of every opponent met, per game; byes add 0
  // Sum over games, over each opponent at the table, of the pairwise points against that
  // opponent in that game × that opponent's final score.
  double sonneborn_berger = 0;
  // Pairwise points, summed over games, against the opponents whose final score equals this
  // player's (0 when nobody else has that score).
  double head_to_head = 0;
  // 2 seats: per game, more points than the opponent = win, equal = draw, fewer = loss.
  // 3-4 seats: the most points at the table alone = win, shared most = draw, otherwise loss.
  int games = 0, wins = 0, draws = 0, losses = 0;
  int rank = 0;  // 1-based; equal on every tie-break of the format (all but seed) = same rank
  friend bool operator==(const Standing&, const Standing&) = default;
};

// Standings of every player in `players_by_seed`, best first. Order: swiss and seated: score,
// Buchholz, Sonneborn-Berger, then seed; round-robin: score, head-to-head, Sonneborn-Berger, then
// seed. Players equal on everything but seed share a rank (competition ranking: 1, 2, 2, 4).
std::vector<Standing> standings(Format format, const std::vector<std::string>& players_by_seed,
                                const std::vector<GameResult>& games, const std::vector<Bye>& byes);

}  // namespace plateau::server::tournaments
