// Tournament pairings and standings (issue 48): hand-worked rounds and tables, and simulated
// events checked for the rules every round must keep (no repeats, fair byes, balanced seats).
#include "server/tournaments/pairing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace plateau::server::tournaments {

// Readable failures: "[a b | c d] bye e".
void PrintTo(const Round& r, std::ostream* os) {
  *os << "[";
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    if (i > 0) *os << " |";
    for (const auto& p : r.tables[i].seats) *os << " " << p;
  }
  *os << " ]";
  for (const auto& p : r.byes) *os << " bye " << p;
}

namespace {

using Players = std::vector<std::string>;

Players named(int n) {
  Players out;
  for (int i = 0; i < n; ++i) out.push_back("p" + std::to_string(i));
  return out;
}

// A two-seat game: `first` moves first and scores `first_points` (1, 0.5 or 0).
GameResult game(int round, const std::string& first, const std::string& second,
                double first_points) {
  return {round, {first, second}, {first_points, 1 - first_points}};
}

Table table(std::vector<std::string> seats) { return Table{std::move(seats)}; }

std::set<std::string> pair_of(const Table& t) { return {t.seats.begin(), t.seats.end()}; }

// --- points_from_ranks ---------------------------------------------------------------------

TEST(PointsFromRanks, TwoSeatsAreWinDrawLoss) {
  EXPECT_EQ(points_from_ranks({0, 1}), (std::vector<double>{1, 0}));
  EXPECT_EQ(points_from_ranks({1, 0}), (std::vector<double>{0, 1}));
  EXPECT_EQ(points_from_ranks({0, 0}), (std::vector<double>{0.5, 0.5}));
}

TEST(PointsFromRanks, ThreeAndFourSeatsScoreAgainstEachOtherPlayer) {
  // Three seats, all apart: 2, 1, 0.
  EXPECT_EQ(points_from_ranks({0, 1, 2}), (std::vector<double>{2, 1, 0}));
  // Seats 1 and 2 level second: seat 0 beats both (2); each beats nobody and draws the other.
  EXPECT_EQ(points_from_ranks({0, 1, 1}), (std::vector<double>{2, 0.5, 0.5}));
  // Seats 0 and 2 level first: ½ against each other + 1 against seat 1.
  EXPECT_EQ(points_from_ranks({0, 1, 0}), (std::vector<double>{1.5, 0, 1.5}));
  // Four seats: seat 2 first (3), seats 0 and 3 level second (1 + ½ each), seat 1 last (0).
  EXPECT_EQ(points_from_ranks({1, 3, 0, 1}), (std::vector<double>{1.5, 0, 3, 1.5}));
  // All four level: ½ against each of three.
  EXPECT_EQ(points_from_ranks({0, 0, 0, 0}), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
}

// --- round-robin ---------------------------------------------------------------------------

void check_round_robin(int n, bool twice) {
  SCOPED_TRACE("players " + std::to_string(n) + (twice ? " twice" : " once"));
  const auto players = named(n);
  const auto rounds = round_robin(players, twice);
  const int cycle = n % 2 == 0 ? n - 1 : n;
  ASSERT_EQ(rounds.size(), static_cast<std::size_t>(twice ? 2 * cycle : cycle));
  std::map<std::set<std::string>, int> meetings;
  std::map<std::pair<std::string, std::string>, int> ordered;  // (first, second)
  std::map<std::string, int> first, played, byes;
  for (const auto& round : rounds) {
    std::set<std::string> busy;
    for (const auto& t : round.tables) {
      ASSERT_EQ(t.seats.size(), 2u);
      for (const auto& p : t.seats) EXPECT_TRUE(busy.insert(p).second) << p << " twice a round";
      ++meetings[pair_of(t)];
      ++ordered[{t.seats[0], t.seats[1]}];
      ++first[t.seats[0]];
      ++played[t.seats[0]];
      ++played[t.seats[1]];
    }
    EXPECT_EQ(round.byes.size(), static_cast<std::size_t>(n % 2));
    for (const auto& p : round.byes) {
      EXPECT_TRUE(busy.insert(p).second) << p << " has a bye and a game";
      ++byes[p];
    }
    EXPECT_EQ(busy.size(), static_cast<std::size_t>(n)) << "everyone plays or has the bye";
  }
  EXPECT_EQ(meetings.size(), static_cast<std::size_t>(n * (n - 1) / 2));
  for (const auto& [pair, times] : meetings) EXPECT_EQ(times, twice ? 2 : 1);
  if (twice)  // the second meeting has the seats the other way round
    for (const auto& [seats, times] : ordered) {
      EXPECT_EQ(times, 1);
      EXPECT_EQ(ordered.count({seats.second, seats.first}), 1u);
    }
  for (const auto& p : players) {
    const int g = played[p];
    EXPECT_EQ(g, twice ? 2 * (n - 1) : n - 1);
    EXPECT_GE(first[p], g / 2) << p;
    EXPECT_LE(first[p], (g + 1) / 2) << p;
    EXPECT_EQ(byes[p], n % 2 == 1 ? (twice ? 2 : 1) : 0) << p;
  }
}

TEST(RoundRobin, EveryPairOnceOrTwiceWithBalancedSeats) {
  for (int n : {4, 5, 6, 7})
    for (bool twice : {false, true}) check_round_robin(n, twice);
}

TEST(RoundRobin, FourPlayersByTheCircleMethod) {
  // n = 4: player 3 stays; round r pairs {r, 3} and {r+1, r-1} (mod 3).
  const auto rounds = round_robin({"a", "b", "c", "d"}, false);
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0], (Round{{table({"a", "d"}), table({"b", "c"})}, {}}));
  EXPECT_EQ(rounds[1], (Round{{table({"d", "b"}), table({"c", "a"})}, {}}));
  EXPECT_EQ(rounds[2], (Round{{table({"c", "d"}), table({"a", "b"})}, {}}));
  EXPECT_TRUE(round_robin({"solo"}, false).empty());
}

TEST(RoundRobin, ThreePlayersEachSitOutOnce) {
  // The phantom (index 3) stays; whoever meets it has the bye.
  const auto rounds = round_robin({"a", "b", "c"}, false);
  ASSERT_EQ(rounds.size(), 3u);
  EXPECT_EQ(rounds[0], (Round{{table({"b", "c"})}, {"a"}}));
  EXPECT_EQ(rounds[1], (Round{{table({"c", "a"})}, {"b"}}));
  EXPECT_EQ(rounds[2], (Round{{table({"a", "b"})}, {"c"}}));
}

// --- Swiss ---------------------------------------------------------------------------------

TEST(Swiss, FirstRoundIsTopHalfAgainstBottomHalf) {
  // Seeds 1-6: 1 v 4, 2 v 5, 3 v 6; all level on seats, so the higher seed moves first.
  const Players p{"s1", "s2", "s3", "s4", "s5", "s6"};
  const auto round = swiss_round(p, {}, {});
  ASSERT_TRUE(round);
  EXPECT_EQ(*round, (Round{{table({"s1", "s4"}), table({"s2", "s5"}), table({"s3", "s6"})}, {}}));
  // Odd: the lowest seed sits out, the rest pair top half against bottom half.
  const auto odd = swiss_round({"s1", "s2", "s3", "s4", "s5"}, {}, {});
  ASSERT_TRUE(odd);
  EXPECT_EQ(*odd, (Round{{table({"s1", "s3"}), table({"s2", "s4"})}, {"s5"}}));
}

TEST(Swiss, SixPlayersThreeRoundsByHand) {
  const Players p{"A", "B", "C", "D", "E", "F"};
  std::vector<GameResult> games;
  // Round 1: A v D, B v E, C v F (the higher seed first).
  auto r1 = swiss_round(p, games, {});
  ASSERT_TRUE(r1);
  EXPECT_EQ(*r1, (Round{{table({"A", "D"}), table({"B", "E"}), table({"C", "F"})}, {}}));
  games.push_back(game(1, "A", "D", 1));    // A wins
  games.push_back(game(1, "B", "E", 0));    // E wins
  games.push_back(game(1, "C", "F", 0.5));  // drawn
  // Ranked: A 1, E 1, C ½, F ½, B 0, D 0 (seed breaks ties). Groups {A,E} {C,F} {B,D}.
  // A v E pairs; C and F have met, so both float into {B,D}: C (higher) takes the highest, B;
  // F takes D. Seats: E has moved first less than A; B and C once each, both last game, so the
  // higher ranked C; F and D never, so the higher ranked F.
  auto r2 = swiss_round(p, games, {});
  ASSERT_TRUE(r2);
  EXPECT_EQ(*r2, (Round{{table({"E", "A"}), table({"C", "B"}), table({"F", "D"})}, {}}));
  games.push_back(game(2, "E", "A", 1));    // E wins
  games.push_back(game(2, "C", "B", 0.5));  // drawn
  games.push_back(game(2, "F", "D", 0));    // D wins
  // Ranked: E 2; A 1, C 1, D 1; B ½, F ½. E floats into {A,C,D}; E has met A; E v C would
  // leave A and D, who met in round 1: so E v D, and A v C. B v F at the bottom. Seats: D has
  // never moved first (E once); A once, C twice; B and F once each, F last game, so B.
  auto r3 = swiss_round(p, games, {});
  ASSERT_TRUE(r3);
  EXPECT_EQ(*r3, (Round{{table({"D", "E"}), table({"A", "C"}), table({"B", "F"})}, {}}));
}

TEST(Swiss, BacktracksWhereGreedyTopDownFails) {
  // Six players, all drawn twice, so one score group in seed order 0..5. Met: 0-1 2-3 4-5 and
  // 0-3 1-4 2-5. Greedy top down: 0 prefers 3 (met), takes 4; 1 takes 5; 2 is left with 3,
  // met. The only first choices that work for 0 with 1 v 5 fail too: 1 must then go down to 2
  // (1-3 leaves 2-5, met), leaving 3 v 5. So: 0 v 4, 1 v 2, 3 v 5.
  const Players p = named(6);
  const std::vector<GameResult> games{game(1, "p0", "p1", 0.5), game(1, "p2", "p3", 0.5),
                                      game(1, "p4", "p5", 0.5), game(2, "p3", "p0", 0.5),
                                      game(2, "p4", "p1", 0.5), game(2, "p5", "p2", 0.5)};
  const auto round = swiss_round(p, games, {});
  ASSERT_TRUE(round);
  // Seats: everyone moved first once. p0, p1, p2 did not move first last game; p3, p4, p5 did.
  EXPECT_EQ(*round, (Round{{table({"p0", "p4"}), table({"p1", "p2"}), table({"p3", "p5"})}, {}}));
}

TEST(Swiss, SeatBalanceGivesWayToNoRepeats) {
  // a and b moved first in both their games (and won them); c and d moved second in both. The
  // only pairing without repeats is a v b, c v d, and one of a and b must move first a third
  // time: the higher ranked, a (both moved first twice, and last game).
  const std::vector<GameResult> games{game(1, "a", "c", 1), game(1, "b", "d", 1),
                                      game(2, "a", "d", 1), game(2, "b", "c", 1)};
  const auto round = swiss_round({"a", "b", "c", "d"}, games, {});
  ASSERT_TRUE(round);
  EXPECT_EQ(*round, (Round{{table({"a", "b"}), table({"c", "d"})}, {}}));
}

TEST(Swiss, AMetPartnerGivesWayToTheNextInDutchOrder) {
  // Round 1: a v c and b v d, a and b first, all drawn: one group of four, in seed order.
  // a's first choice, c (1 v 3), is a repeat; next is d. Then b v c. d and c move first (they
  // moved first fewer times).
  const std::vector<GameResult> games{game(1, "a", "c", 0.5), game(1, "b", "d", 0.5)};
  const auto round = swiss_round({"a", "b", "c", "d"}, games, {});
  ASSERT_TRUE(round);
  EXPECT_EQ(*round, (Round{{table({"d", "a"}), table({"c", "b"})}, {}}));
}

TEST(Swiss, NothingWhenEveryPairingRepeats) {
  // Four players after a full round-robin: everyone has met everyone.
  const Players p{"a", "b", "c", "d"};
  std::vector<GameResult> games;
  int r = 0;
  for (const auto& round : round_robin(p, false)) {
    ++r;
    for (const auto& t : round.tables) games.push_back(game(r, t.seats[0], t.seats[1], 1));
  }
  EXPECT_EQ(swiss_round(p, games, {}), std::nullopt);
  // Three players who have all met: whoever sits out, the other two have met.
  const std::vector<GameResult> three{game(1, "a", "b", 1), game(2, "b", "c", 1),
                                      game(3, "c", "a", 1)};
  EXPECT_EQ(swiss_round({"a", "b", "c"}, three, {}), std::nullopt);
}

TEST(Swiss, TheByeSkipsAPlayerWhoseByeWouldLeaveARepeat) {
  // c joined late: a beat b in round 1, c has no game and no bye. Ranked a 1, b 0, c 0 (seed).
  // c (lowest, no bye) would sit out, but a and b have met; so b, the next lowest, sits out.
  // Seats: c has never moved first, a once.
  const std::vector<GameResult> games{game(1, "a", "b", 1)};
  const auto round = swiss_round({"a", "b", "c"}, games, {});
  ASSERT_TRUE(round);
  EXPECT_EQ(*round, (Round{{table({"c", "a"})}, {"b"}}));
}

// A Swiss event simulated round by round: the lower seed index always wins. Checks every
// round: no repeats, nobody twice in a round, the bye to the lowest-ranked player without one,
// and at the end nobody moved first more than ⌈g/2⌉ + 1 of their g games.
void simulate_swiss(int n, int rounds) {
  SCOPED_TRACE("players " + std::to_string(n));
  const Players p = named(n);
  std::map<std::string, int> seed;
  for (int i = 0; i < n; ++i) seed[p[i]] = i;
  std::vector<GameResult> games;
  std::vector<Bye> byes;
  std::set<std::set<std::string>> met;
  for (int r = 1; r <= rounds; ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    // Who should get the bye: the lowest ranked (score, then seed) with the fewest byes.
    std::map<std::string, double> score;
    std::map<std::string, int> had;
    for (const auto& g : games)
      for (std::size_t s = 0; s < 2; ++s) score[g.seats[s]] += g.points[s];
    for (const auto& b : byes) {
      score[b.player] += b.points;
      ++had[b.player];
    }
    Players ranked = p;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](const auto& a, const auto& b) { return score[a] > score[b]; });
    std::string expected_bye;
    int fewest = 1 << 30;
    for (const auto& q : ranked)
      if (had[q] <= fewest) {
        fewest = had[q];
        expected_bye = q;
      }

    const auto round = swiss_round(p, games, byes);
    ASSERT_TRUE(round);
    std::set<std::string> busy;
    for (const auto& t : round->tables) {
      ASSERT_EQ(t.seats.size(), 2u);
      for (const auto& q : t.seats) EXPECT_TRUE(busy.insert(q).second);
      EXPECT_TRUE(met.insert(pair_of(t)).second) << t.seats[0] << " and " << t.seats[1] << " again";
      games.push_back(game(r, t.seats[0], t.seats[1], seed[t.seats[0]] < seed[t.seats[1]] ? 1 : 0));
    }
    ASSERT_EQ(round->byes.size(), static_cast<std::size_t>(n % 2));
    for (const auto& b : round->byes) {
      EXPECT_EQ(b, expected_bye);
      EXPECT_TRUE(busy.insert(b).second);
      byes.push_back({r, b, 1});
    }
    EXPECT_EQ(busy.size(), static_cast<std::size_t>(n));
  }
  std::map<std::string, int> first, played, had;
  for (const auto& g : games) {
    ++first[g.seats[0]];
    ++played[g.seats[0]];
    ++played[g.seats[1]];
  }
  for (const auto& b : byes) ++had[b.player];
  for (const auto& q : p) {
    EXPECT_LE(first[q], (played[q] + 1) / 2 + 1) << q;
    EXPECT_LE(had[q], 1) << q << " had two byes";
  }
}

TEST(Swiss, SimulatedEventsNeverRepeatAndShareByesAndSeats) {
  simulate_swiss(6, 5);
  simulate_swiss(9, 5);
  simulate_swiss(7, 5);
}

TEST(Swiss, SixtyFourPlayersSevenRounds) { simulate_swiss(64, 7); }

TEST(Swiss, AHundredAndOnePlayersNineRounds) { simulate_swiss(101, 9); }

// --- seated by score -----------------------------------------------------------------------

TEST(Seated, FillsTablesByScoreAndSwapsAwayRepeats) {
  // Round 1 (3 seats, 7 players): A C G finish in that order, B D E too; F had the bye (1).
  const Players p{"A", "B", "C", "D", "E", "F", "G"};
  const std::vector<GameResult> games{{1, {"A", "C", "G"}, points_from_ranks({0, 1, 2})},
                                      {1, {"B", "D", "E"}, points_from_ranks({0, 1, 2})}};
  const std::vector<Bye> byes{{1, "F", 1}};
  // Scores A 2, B 2, C 1, D 1, F 1, E 0, G 0: ranked A B C D F E G. 7 % 3 = 1 bye: G (lowest
  // with no bye). Tables from the top: A B C | D F E, repeats A-C and D-E (2). No split of
  // these six avoids every repeat (B, D and E have all met; two share a table). Swaps that
  // lower it to 1: C<>D, C<>E, C<>F, A<>E, A<>F; the closest in rank is C<>D:
  // A B D | C F E (B-D repeats). Seats: D never moved first, A and B did once (then by rank);
  // C, F, E never did (by rank).
  const auto round = seated_by_score(p, games, byes, 3);
  EXPECT_EQ(round, (Round{{table({"D", "A", "B"}), table({"C", "F", "E"})}, {"G"}}));
}

TEST(Seated, ByesGoToTheFewestByesThenTheLowestRanked) {
  // Six players at tables of four: two byes. Nobody has played; p4 has had a bye already, so
  // the two lowest without one sit out: p5 and p3.
  const Players p = named(6);
  const std::vector<Bye> byes{{1, "p4", 0}};
  const auto round = seated_by_score(p, {}, byes, 4);
  EXPECT_EQ(round, (Round{{table({"p0", "p1", "p2", "p4"})}, {"p5", "p3"}}));
  // Eight players, four seats: two full tables, no byes, in rank (= seed) order.
  const auto full = seated_by_score(named(8), {}, {}, 4);
  EXPECT_EQ(full, (Round{{table({"p0", "p1", "p2", "p3"}), table({"p4", "p5", "p6", "p7"})}, {}}));
}

// --- standings -----------------------------------------------------------------------------

TEST(Standings, SwissByScoreThenBuchholzThenSonnebornBerger) {
  // The six-player event above, with round 3: E beats D, A beats C, F and B draw.
  const Players p{"A", "B", "C", "D", "E", "F"};
  const std::vector<GameResult> games{
      game(1, "A", "D", 1), game(1, "B", "E", 0),   game(1, "C", "F", 0.5),
      game(2, "E", "A", 1), game(2, "C", "B", 0.5), game(2, "F", "D", 0),
      game(3, "D", "E", 0), game(3, "A", "C", 1),   game(3, "B", "F", 0.5)};
  // Scores: A 2, B 1, C 1, D 1, E 3, F 1.
  // Buchholz (opponents' scores): A: D1+E3+C1 = 5; B: E3+C1+F1 = 5; C: F1+B1+A2 = 4;
  //   D: A2+F1+E3 = 6; E: B1+A2+D1 = 4; F: C1+D1+B1 = 3.
  // Sonneborn-Berger: A: 1·D1 + 0·E3 + 1·C1 = 2; B: 0·E3 + ½·C1 + ½·F1 = 1;
  //   C: ½·F1 + ½·B1 + 0·A2 = 1; D: 0·A2 + 1·F1 + 0·E3 = 1; E: 1·B1 + 1·A2 + 1·D1 = 4;
  //   F: ½·C1 + 0·D1 + ½·B1 = 1.
  // Order: E 3; A 2; then the 1s by Buchholz: D 6, B 5, C 4, F 3.
  const auto table = standings(Format::swiss, p, games, {});
  ASSERT_EQ(table.size(), 6u);
  const std::vector<Standing> expected{
      {"E", 3, 4, 4, 0, 3, 3, 0, 0, 1}, {"A", 2, 5, 2, 0, 3, 2, 0, 1, 2},
      {"D", 1, 6, 1, 1, 3, 1, 0, 2, 3}, {"B", 1, 5, 1, 1, 3, 0, 2, 1, 4},
      {"C", 1, 4, 1, 1, 3, 0, 2, 1, 5}, {"F", 1, 3, 1, 1, 3, 0, 2, 1, 6}};
  // head_to_head among the 1s: B drew C and F (½ + ½); C drew F and B; F drew C and B, lost to
  // D; D beat F (1).
  ASSERT_EQ(table.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].player);
    EXPECT_EQ(table[i].player, expected[i].player);
    EXPECT_DOUBLE_EQ(table[i].score, expected[i].score);
    EXPECT_DOUBLE_EQ(table[i].buchholz, expected[i].buchholz);
    EXPECT_DOUBLE_EQ(table[i].sonneborn_berger, expected[i].sonneborn_berger);
    EXPECT_DOUBLE_EQ(table[i].head_to_head, expected[i].head_to_head);
    EXPECT_EQ(table[i].games, expected[i].games);
    EXPECT_EQ(table[i].wins, expected[i].wins);
    EXPECT_EQ(table[i].draws, expected[i].draws);
    EXPECT_EQ(table[i].losses, expected[i].losses);
    EXPECT_EQ(table[i].rank, expected[i].rank);
  }
}

TEST(Standings, SonnebornBergerBreaksAnEqualBuchholz) {
  // Four players, two rounds: a beats c, b draws d; d draws a, b beats c; c then has a bye
  // worth 1 (byes count in the score, add nothing to Buchholz).
  // Scores: a 1½, b 1½, c 1, d 1. Buchholz a: c1 + d1 = 2; b: d1 + c1 = 2.
  // SB a: 1·c1 + ½·d1 = 1½; b: ½·d1 + 1·c1 = 1½. Level on everything: same rank, a (seed) first.
  const Players p{"a", "b", "c", "d"};
  const std::vector<GameResult> games{game(1, "a", "c", 1), game(1, "b", "d", 0.5),
                                      game(2, "d", "a", 0.5), game(2, "b", "c", 1)};
  const auto level = standings(Format::swiss, p, games, {{3, "c", 1}});
  ASSERT_EQ(level.size(), 4u);
  EXPECT_EQ(level[0].player, "a");
  EXPECT_EQ(level[1].player, "b");
  EXPECT_EQ(level[0].rank, 1);
  EXPECT_EQ(level[1].rank, 1);
  EXPECT_EQ(level[2].rank, 3);
  EXPECT_DOUBLE_EQ(level[0].buchholz, 2);
  EXPECT_DOUBLE_EQ(level[0].sonneborn_berger, 1.5);
  EXPECT_DOUBLE_EQ(level[1].sonneborn_berger, 1.5);
  // R1 a beats c, b draws d; R2 c beats d, a draws b. Scores a 1½, b 1, c 1, d ½.
  // b and c level on 1: Buchholz b: d½ + a1½ = 2; c: a1½ + d½ = 2. SB b: ½·½ + ½·1½ = 1;
  // c: 0·1½ + 1·½ = ½. So b above c on Sonneborn-Berger.
  const std::vector<GameResult> split{game(1, "a", "c", 1), game(1, "b", "d", 0.5),
                                      game(2, "c", "d", 1), game(2, "a", "b", 0.5)};
  const auto s = standings(Format::swiss, p, split, {});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].player, "a");
  EXPECT_EQ(s[1].player, "b");
  EXPECT_EQ(s[2].player, "c");
  EXPECT_DOUBLE_EQ(s[1].buchholz, 2);
  EXPECT_DOUBLE_EQ(s[2].buchholz, 2);
  EXPECT_DOUBLE_EQ(s[1].sonneborn_berger, 1);
  EXPECT_DOUBLE_EQ(s[2].sonneborn_berger, 0.5);
  EXPECT_EQ(s[1].rank, 2);
  EXPECT_EQ(s[2].rank, 3);
}

TEST(Standings, RoundRobinHeadToHeadBeforeSonnebornBerger) {
  // a beats b and d, loses to c; b beats c and d; d beats c.
  // Scores: a 2, b 2, c 1, d 1. a beat b: a above b. d beat c: d above c, although c's SB
  // (beat a: 1·2 = 2) is above d's (beat c: 1·1 = 1).
  const Players p{"a", "b", "c", "d"};
  const std::vector<GameResult> games{game(1, "a", "b", 1), game(1, "c", "d", 0),
                                      game(2, "c", "a", 1), game(2, "b", "d", 1),
                                      game(3, "a", "d", 1), game(3, "b", "c", 1)};
  const auto rr = standings(Format::round_robin, p, games, {});
  ASSERT_EQ(rr.size(), 4u);
  std::vector<std::string> order;
  for (const auto& s : rr) order.push_back(s.player);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "d", "c"}));
  EXPECT_DOUBLE_EQ(rr[0].head_to_head, 1);  // a against b
  EXPECT_DOUBLE_EQ(rr[1].head_to_head, 0);
  EXPECT_DOUBLE_EQ(rr[2].head_to_head, 1);  // d against c
  EXPECT_DOUBLE_EQ(rr[3].head_to_head, 0);
  EXPECT_DOUBLE_EQ(rr[0].sonneborn_berger, 3);  // b 2 + d 1
  EXPECT_DOUBLE_EQ(rr[1].sonneborn_berger, 2);  // c 1 + d 1
  EXPECT_DOUBLE_EQ(rr[2].sonneborn_berger, 1);  // c 1
  EXPECT_DOUBLE_EQ(rr[3].sonneborn_berger, 2);  // a 2
  EXPECT_EQ((std::vector<int>{rr[0].rank, rr[1].rank, rr[2].rank, rr[3].rank}),
            (std::vector<int>{1, 2, 3, 4}));
  // As a Swiss the same games order c above d (Buchholz c: a2+d1+b2 = 5, d: c1+b2+a2 = 5; SB
  // c 2 above d 1).
  const auto sw = standings(Format::swiss, p, games, {});
  EXPECT_EQ(sw[2].player, "c");
  EXPECT_EQ(sw[3].player, "d");
}

TEST(Standings, EqualOnEverythingSharesARank) {
  // Four players, three rounds: A beats C, B draws D; A draws B, D beats C; A draws D, B beats
  // C. A, B and D each 2 with Buchholz 4 (2 + 2 + 0) and SB 2 (½·2 + ½·2 + 1·0): all rank 1,
  // in seed order; C rank 4 (competition ranking).
  const Players p{"A", "B", "C", "D"};
  const std::vector<GameResult> games{game(1, "A", "C", 1),   game(1, "B", "D", 0.5),
                                      game(2, "A", "B", 0.5), game(2, "D", "C", 1),
                                      game(3, "A", "D", 0.5), game(3, "B", "C", 1)};
  for (Format f : {Format::swiss, Format::round_robin}) {
    const auto s = standings(f, p, games, {});
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].player, "A");
    EXPECT_EQ(s[1].player, "B");
    EXPECT_EQ(s[2].player, "D");
    EXPECT_EQ(s[3].player, "C");
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(s[i].rank, 1);
      EXPECT_DOUBLE_EQ(s[i].score, 2);
      EXPECT_DOUBLE_EQ(s[i].buchholz, 4);
      EXPECT_DOUBLE_EQ(s[i].sonneborn_berger, 2);
      EXPECT_DOUBLE_EQ(s[i].head_to_head, 1);  // two draws among the three
    }
    EXPECT_EQ(s[3].rank, 4);
    EXPECT_EQ(s[3].losses, 3);
  }
}

TEST(Standings, ThreeSeatsUsePairwisePoints) {
  // G1 (round 1): A, B, C finish A first, B and C level: 2, ½, ½; D has a bye worth 1.
  // G2 (round 2): D, C, A finish in that order: 2, 1, 0; B has a bye worth 1.
  // Scores: A 2, B 1½, C 1½, D 3.
  // Buchholz: A: B1½ + C1½ + D3 + C1½ = 7½; B: A2 + C1½ = 3½; C: A2 + B1½ + D3 + A2 = 8½;
  //   D: C1½ + A2 = 3½.
  // SB (pairwise): A: 1·B1½ + 1·C1½ + 0·D + 0·C = 3; B: 0·A + ½·C1½ = ¾;
  //   C: 0·A + ½·B1½ + 0·D + 1·A2 = 2¾; D: 1·C1½ + 1·A2 = 3½.
  // Order: D 3, A 2, C (Buchholz 8½), B (3½).
  const Players p{"A", "B", "C", "D"};
  const std::vector<GameResult> games{{1, {"A", "B", "C"}, points_from_ranks({0, 1, 1})},
                                      {2, {"D", "C", "A"}, points_from_ranks({0, 1, 2})}};
  const std::vector<Bye> byes{{1, "D", 1}, {2, "B", 1}};
  const auto s = standings(Format::seated, p, games, byes);
  ASSERT_EQ(s.size(), 4u);
  const std::vector<Standing> expected{{"D", 3, 3.5, 3.5, 0, 1, 1, 0, 0, 1},
                                       {"A", 2, 7.5, 3, 0, 2, 1, 0, 1, 2},
                                       {"C", 1.5, 8.5, 2.75, 0.5, 2, 0, 0, 2, 3},
                                       {"B", 1.5, 3.5, 0.75, 0.5, 1, 0, 0, 1, 4}};
  // head_to_head: B and C (level on 1½) drew each other in G1 (½ each).
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].player);
    EXPECT_EQ(s[i], expected[i]);
  }
  // Sharing first place at a table is a draw.
  const auto shared = standings(Format::seated, {"x", "y", "z"},
                                {{1, {"x", "y", "z"}, points_from_ranks({0, 0, 1})}}, {});
  EXPECT_EQ(shared[0].draws, 1);
  EXPECT_EQ(shared[1].draws, 1);
  EXPECT_EQ(shared[2].losses, 1);
}

}  // namespace
}  // namespace plateau::server::tournaments
