#include "conformance.hpp"

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(Registered, Conformance, ::testing::ValuesIn(registered_cases()),
                         conformance_case_name);

TEST(Registry, EveryGameIsFoundByItsIdAndDescribesItself) {
  ASSERT_FALSE(all_games().empty());
  for (const Game* g : all_games()) {
    EXPECT_EQ(find_game(g->id()), g);
    const auto d = g->describe();
    EXPECT_EQ(d["id"], g->id());
    EXPECT_EQ(d["seats"], nlohmann::json::array({g->min_seats(), g->max_seats()}));
    EXPECT_EQ(d["options"][0]["name"], "players");
  }
  EXPECT_EQ(find_game("chess"), nullptr);
}

TEST(Options, UnknownWrongTypeAndOutOfRangeAreRefused) {
  const Game& g = *find_game("quantik");
  EXPECT_EQ(g.normalize_options({{"colour", "red"}}).error(), RuleError::bad_option);
  EXPECT_EQ(g.normalize_options({{"players", "two"}}).error(), RuleError::bad_option);
  EXPECT_EQ(g.normalize_options({{"players", 3}}).error(), RuleError::bad_option);
  EXPECT_EQ(g.normalize_options({{"first", "7"}}).error(), RuleError::bad_option);
  EXPECT_EQ(g.normalize_options(nlohmann::json::array()).error(), RuleError::bad_option);
  const auto ok = g.normalize_options(nullptr);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ((*ok)["players"], 2);
  EXPECT_EQ((*ok)["first"], "random");
}

TEST(Rng, IsDeterministicAndUnbiasedEnough) {
  Rng a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(Rng(42).next(), c.next());
  std::array<int, 6> counts{};
  Rng r(1);
  for (int i = 0; i < 60000; ++i) ++counts[r.below(6)];
  for (int n : counts) {
    EXPECT_GT(n, 9400);
    EXPECT_LT(n, 10600);
  }
  std::vector<int> v{1, 2, 3, 4, 5, 6, 7, 8};
  Rng s(5);
  s.shuffle(v);
  std::vector<int> sorted = v;
  std::ranges::sort(sorted);
  EXPECT_EQ(sorted, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
}

}  // namespace plateau::rules::testing
