// Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2 system"),
// and the pairwise results Plateau rates games of three or four seats with.
#include "server/ratings/glicko2.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace plateau::server {
namespace {

TEST(Glicko2, GlickmansWorkedExample) {
  // A player rated 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to a 1550
  // (RD 100) and a 1700 (RD 300), with τ = 0.5.
  const Glicko player{1500, 200, 0.06};
  const auto after = glicko_update(
      player, {{{1400, 30, 0.06}, 1}, {{1550, 100, 0.06}, 0}, {{1700, 300, 0.06}, 0}}, 0.5);
  EXPECT_NEAR(after.rating, 1464.06, 0.01);
  EXPECT_NEAR(after.deviation, 151.52, 0.01);
  EXPECT_NEAR(after.volatility, 0.05999, 0.00001);
}

TEST(Glicko2, AnEmptyPeriodOnlyWidensTheDeviationUpToItsCap) {
  const Glicko player{1720, 80, 0.06};
  const auto idle = glicko_update(player, {});
  EXPECT_EQ(idle.rating, 1720);
  EXPECT_GT(idle.deviation, 80);
  // φ' = sqrt(φ² + σ²) on the Glicko-2 scale.
  const double phi = 80 / 173.7178;
  EXPECT_NEAR(idle.deviation, std::sqrt(phi * phi + 0.06 * 0.06) * 173.7178, 1e-9);
  EXPECT_NEAR(glicko_idle(player, 3).deviation, std::sqrt(phi * phi + 3 * 0.06 * 0.06) * 173.7178,
              1e-9);
  EXPECT_EQ(glicko_idle(player, 1e9).deviation, kGlickoMaxDeviation);
  EXPECT_EQ(glicko_idle(player, 0).deviation, 80);
}

TEST(Glicko2, WinnersGoUpLosersDownAndASurpriseMovesMore) {
  const Glicko a{1500, 350, 0.06}, b{1500, 350, 0.06};
  const auto a_won = glicko_update(a, {{b, 1}});
  const auto b_lost = glicko_update(b, {{a, 0}});
  EXPECT_GT(a_won.rating, 1500);
  EXPECT_LT(b_lost.rating, 1500);
  EXPECT_NEAR(a_won.rating - 1500, 1500 - b_lost.rating, 1e-6) << "symmetric";
  EXPECT_LT(a_won.deviation, 350) << "a game makes the rating surer";
  const auto drew = glicko_update(a, {{b, 0.5}});
  EXPECT_NEAR(drew.rating, 1500, 1e-6);
  // Beating someone rated far higher moves more than beating an equal.
  const auto upset = glicko_update(Glicko{1500, 100, 0.06}, {{Glicko{1900, 100, 0.06}, 1}});
  const auto expected = glicko_update(Glicko{1500, 100, 0.06}, {{Glicko{1500, 100, 0.06}, 1}});
  EXPECT_GT(upset.rating - 1500, expected.rating - 1500);
}

TEST(Glicko2, AGameOfThreeOrFourIsAResultAgainstEachOtherPlayerByRank) {
  const std::vector<Glicko> r{
      {1500, 350, 0.06}, {1600, 200, 0.06}, {1400, 100, 0.06}, {1550, 50, 0.06}};
  // Seat 2 first, seats 0 and 3 level second, seat 1 last.
  const auto results = glicko_pairwise(r, {1, 3, 0, 1});
  ASSERT_EQ(results.size(), 4u);
  for (const auto& rs : results) ASSERT_EQ(rs.size(), 3u);
  const auto scores = [&](int seat) {
    std::vector<double> s;
    for (const auto& x : results[static_cast<std::size_t>(seat)]) s.push_back(x.score);
    return s;
  };
  EXPECT_EQ(scores(2), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(scores(1), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(scores(0), (std::vector<double>{1, 0, 0.5}));  // against seats 1, 2, 3
  EXPECT_EQ(results[0][0].opponent.rating, 1600);
  EXPECT_EQ(results[0][2].opponent.deviation, 50);
  EXPECT_GT(glicko_update(r[2], results[2]).rating, 1400);
  EXPECT_LT(glicko_update(r[1], results[1]).rating, 1600);
}

}  // namespace
}  // namespace plateau::server
