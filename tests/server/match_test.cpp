// Match: the position, the round's moves, the spectators' delayed copy, rematch rounds and
// rebuilding from the store (server/rooms/match.hpp).
#include <gtest/gtest.h>

#include "rules/game.hpp"
#include "server/rooms/match.hpp"

using namespace plateau;
using namespace plateau::server;
using nlohmann::json;

namespace {

const rules::Game& quantik() { return *rules::find_game("quantik"); }
const json kFirst0{{"first", "0"}};
const RoundSecret kSecret{7, std::string(32, 'a')};
// Moves that end a Quantik game: four different shapes in row 1.
const std::vector<std::pair<int, std::string>> kEnding{
    {0, "sphere@a1"}, {1, "cylinder@b1"}, {0, "cube@c1"}, {1, "cone@d1"}};

Match started(int delay = 0) { return Match::start(quantik(), kFirst0, kSecret, delay).value(); }

StoredRoom stored(std::vector<RoundRecord> rounds) {
  StoredRoom s;
  s.room = RoomRecord{"r", "quantik", kFirst0, kSecret.seed, false, 0, 0, kSecret.salt};
  s.rounds = std::move(rounds);
  return s;
}

}  // namespace

TEST(Match, OptionsTheRulesRefuseMakeNoMatch) {
  const auto refused = Match::start(quantik(), {{"first", "9"}}, kSecret, 0);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error(), rules::RuleError::bad_option);
}

TEST(Match, AMoveIsRecordedOnlyWhenTheRulesTakeIt) {
  auto m = started();
  const auto before = m.generation();
  EXPECT_EQ(m.play(1, "sphere@a1").error(), rules::RuleError::not_your_turn);
  EXPECT_EQ(m.generation(), before) << "a refused move changes nothing";
  EXPECT_TRUE(m.moves().empty());
  ASSERT_TRUE(m.play(0, "sphere@a1"));
  EXPECT_GT(m.generation(), before);
  EXPECT_EQ(m.moves(), (std::vector<std::pair<int, std::string>>{{0, "sphere@a1"}}));
  EXPECT_EQ(m.state().to_move(), 1);
}

TEST(Match, SpectatorsSeeTheGameLateUntilItEnds) {
  auto m = started(2);
  ASSERT_NE(m.delayed(), nullptr);
  for (std::size_t i = 0; i < 3; ++i) ASSERT_TRUE(m.play(kEnding[i].first, kEnding[i].second));
  auto one = *quantik().create(kFirst0, kSecret.seed);
  ASSERT_TRUE(one->apply(0, rules::Move{"sphere@a1"}));
  EXPECT_EQ(m.delayed()->view(std::nullopt), one->view(std::nullopt))
      << "three moves made, one shown";
  ASSERT_TRUE(m.play(kEnding[3].first, kEnding[3].second));
  EXPECT_TRUE(m.delayed()->is_over()) << "once over, nothing is left to hide";
  EXPECT_EQ(started(0).delayed(), nullptr);
}

TEST(Match, TheSecretIsRevealedOnlyAsTheRoundEnds) {
  const auto m = started();
  ASSERT_NE(m.fairness(false), nullptr);
  EXPECT_TRUE(m.fairness(false)->seed.empty());
  EXPECT_EQ(m.fairness(true)->seed, "7");
  EXPECT_EQ(m.fairness(false)->commitment, m.fairness(true)->commitment);
}

TEST(Match, ARematchStartsTheNextRoundWithAFreshSecret) {
  auto m = started(1);
  for (const auto& [seat, move] : kEnding) ASSERT_TRUE(m.play(seat, move));
  const auto generation = m.generation();
  ASSERT_TRUE(m.next_round([] { return std::uint64_t{12345}; }));
  EXPECT_EQ(m.round(), 2);
  EXPECT_TRUE(m.moves().empty());
  EXPECT_FALSE(m.state().is_over());
  EXPECT_FALSE(m.delayed()->is_over());
  EXPECT_NE(m.secret().seed, kSecret.seed);
  EXPECT_GT(m.generation(), generation);
}

TEST(Match, RestoreReplaysEveryRound) {
  RoundRecord one{1, kFirst0, kSecret.seed, kSecret.salt, kEnding, nullptr, 0, nullptr};
  RoundRecord two{2, {{"first", "1"}}, 99, kSecret.salt, {{1, "sphere@a1"}}, nullptr, 0, nullptr};
  const auto m = Match::restore(quantik(), stored({one, two}));
  ASSERT_TRUE(m.has_value()) << m.error();
  EXPECT_EQ(m->round(), 2);
  EXPECT_EQ(m->secret().seed, 99u);
  EXPECT_EQ(m->moves().size(), 1u);
  EXPECT_EQ(m->state().to_move(), 0);
}

TEST(Match, RestoreSaysWhereTheLogAndTheRulesDisagree) {
  RoundRecord bad{1,       kFirst0, kSecret.seed, kSecret.salt, {{0, "sphere@a1"}, {0, "cube@b2"}},
                  nullptr, 0,       nullptr};
  auto m = Match::restore(quantik(), stored({bad}));
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error(), "round 1, move 1 (cube@b2 by seat 0): move/not_your_turn");
  bad.round = 2;
  m = Match::restore(quantik(), stored({bad}));
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error(), "round numbers are not consecutive");
  RoundRecord lied{
      1, kFirst0, kSecret.seed, kSecret.salt, kEnding, json{{"winners", json::array()}},
      0, nullptr};
  m = Match::restore(quantik(), stored({lied}));
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error(), "round 1: the replayed outcome differs from the stored one");
}
