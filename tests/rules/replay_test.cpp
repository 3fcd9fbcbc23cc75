// rules::replay: the one way a record becomes a position (rules/replay.hpp).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rules/game.hpp"
#include "rules/replay.hpp"

using namespace plateau::rules;

namespace {

const Game& quantik() { return *find_game("quantik"); }
const nlohmann::json kFirst0{{"first", "0"}};

}  // namespace

TEST(Replay, AppliesEveryMoveInOrder) {
  const std::vector<Played> moves{
      {0, "sphere@a1"}, {1, "cylinder@b1"}, {0, "cube@c1"}, {1, "cone@d1"}};
  auto state = replay(quantik(), kFirst0, 7, moves);
  ASSERT_TRUE(state.has_value());
  EXPECT_TRUE((*state)->is_over()) << "four different shapes in row 1";
  auto direct = *quantik().create(kFirst0, 7);
  for (const auto& m : moves) ASSERT_TRUE(direct->apply(m.seat, Move{std::string(m.move)}));
  EXPECT_EQ((*state)->view(std::nullopt), direct->view(std::nullopt));
}

TEST(Replay, NamesTheRefusedMoveAndWhy) {
  const std::vector<Played> moves{{0, "sphere@a1"}, {0, "cube@b2"}};
  const auto state = replay(quantik(), kFirst0, 7, moves);
  ASSERT_FALSE(state.has_value());
  EXPECT_EQ(state.error().move, 1u);
  EXPECT_EQ(state.error().error, RuleError::not_your_turn);
  EXPECT_FALSE(state.error().stopped);
}

TEST(Replay, RefusedOptionsAreNoMove) {
  const auto state = replay(quantik(), {{"first", "9"}}, 7, {});
  ASSERT_FALSE(state.has_value());
  EXPECT_FALSE(state.error().move.has_value());
  EXPECT_EQ(state.error().error, RuleError::bad_option);
}

TEST(Replay, VisitsEachPositionAndMayStop) {
  const std::vector<Played> moves{{0, "sphere@a1"}, {1, "cylinder@b1"}, {0, "cube@c1"}};
  int seen = 0;
  EXPECT_TRUE(replay(quantik(), kFirst0, 7, moves, [&](const State&) { return ++seen > 0; }));
  EXPECT_EQ(seen, 4) << "the start and after each of the three moves";
  seen = 0;
  const auto stopped =
      replay(quantik(), kFirst0, 7, moves, [&](const State&) { return ++seen < 2; });
  ASSERT_FALSE(stopped.has_value());
  EXPECT_TRUE(stopped.error().stopped);
  EXPECT_EQ(stopped.error().move, 0u) << "stopped after the first move";
  EXPECT_EQ(seen, 2);
}
