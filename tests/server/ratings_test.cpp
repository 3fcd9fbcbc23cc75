// Ratings over Glicko-2: the ranks a finished round gives its seats, each rated game's changes,
// the days without games, and the leaderboard.
#include "server/ratings/ratings.hpp"

#include <gtest/gtest.h>

namespace plateau::server {
namespace {

using nlohmann::json;

class MemoryRatingStore final : public RatingStore {
 public:
  std::vector<std::vector<RatingRow>> games;
  std::vector<RatingChange> changes;
  void put_rated_game(const std::vector<RatingRow>& r, const std::vector<RatingChange>& c,
                      Done done) override {
    games.push_back(r);
    changes.insert(changes.end(), c.begin(), c.end());
    done(true);
  }
  std::expected<std::vector<RatingRow>, std::string> load_ratings() override { return {}; }
  std::expected<std::vector<UnratedGame>, std::string> unrated_games() override { return {}; }
  std::vector<RatingChange> rating_history(const std::string&) override { return {}; }
  std::vector<GameSummary> games_of(const std::string&, int) override { return {}; }
};

TEST(Ranks, WinnersThenScoresThenThoseWhoLeftTheFirstToLeaveLast) {
  EXPECT_EQ(ranks_from_outcome(json{{"winners", {1}}, {"scores", json::array()}}, 2),
            (std::vector<int>{1, 0}));
  EXPECT_EQ(ranks_from_outcome(json{{"winners", json::array()}, {"scores", json::array()}}, 2),
            (std::vector<int>{0, 0}))
      << "a draw";
  EXPECT_EQ(ranks_from_outcome(json{{"winners", {2}}, {"scores", {10, 14, 15, 10}}}, 4),
            (std::vector<int>{2, 1, 0, 2}));
  // Shared winners (On Top's teams) rank first together.
  EXPECT_EQ(ranks_from_outcome(json{{"winners", {0, 2}}, {"scores", json::array()}}, 4),
            (std::vector<int>{0, 2, 0, 2}));
  // Seat 0 left first, seat 3 later: both below the stayers, seat 0 last, whatever their scores.
  const json left{{"winners", {1}},
                  {"scores", {30, 12, 9, 25}},
                  {"left", {{{"seat", 0}, {"at", 4}}, {{"seat", 3}, {"at", 9}}}}};
  EXPECT_EQ(ranks_from_outcome(left, 4), (std::vector<int>{3, 0, 1, 2}));
  // Nonsense in a stored outcome ranks everyone level rather than failing.
  EXPECT_EQ(ranks_from_outcome(json{{"winners", {7, "x"}}, {"scores", "?"}}, 3),
            (std::vector<int>{0, 0, 0}));
}

TEST(Ratings, AGameMovesBothPlayersAndIsStoredWithItsChanges) {
  MemoryRatingStore store;
  Ratings ratings(store);
  const auto changes = ratings.rate("quantik", "r1", 1, {"ada", "bob"},
                                    json{{"winners", {1}}, {"scores", json::array()}}, 1000);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_LT(changes[0].change, 0);
  EXPECT_GT(changes[1].change, 0);
  EXPECT_NEAR(changes[0].change, -changes[1].change, 1e-6);
  const auto ada = ratings.of("ada", "quantik"), bob = ratings.of("bob", "quantik");
  EXPECT_EQ(ada.games, 1);
  EXPECT_EQ(ada.losses, 1);
  EXPECT_EQ(bob.wins, 1);
  EXPECT_EQ(bob.last_ms, 1000);
  EXPECT_LT(bob.deviation, 350);
  EXPECT_EQ(ratings.of("ada", "kwinty").games, 0) << "a rating per game";
  ASSERT_EQ(store.games.size(), 1u);
  EXPECT_EQ(store.games[0][1].rating, bob.rating);
  ASSERT_EQ(store.changes.size(), 2u);
  EXPECT_EQ(store.changes[1].player, "bob");
  EXPECT_EQ(store.changes[1].room, "r1");
  // A draw.
  ratings.rate("quantik", "r2", 1, {"ada", "bob"},
               json{{"winners", json::array()}, {"scores", json::array()}}, 2000);
  EXPECT_EQ(ratings.of("ada", "quantik").draws, 1);
  EXPECT_EQ(ratings.of("ada", "quantik").games, 2);
}

TEST(Ratings, DaysWithoutAGameWidenTheDeviationBeforeTheNext) {
  MemoryRatingStore store;
  Ratings a(store), b(store);
  const json won{{"winners", {0}}, {"scores", json::array()}};
  for (Ratings* r : {&a, &b}) r->rate("turris", "r1", 1, {"ada", "bob"}, won, 0);
  // The same next game, the next day or a year later: after a year Ada was less sure, so the
  // same win moves her more.
  const auto soon = a.rate("turris", "r2", 1, {"ada", "bob"}, won, 3'600'000);
  const auto late = b.rate("turris", "r2", 1, {"ada", "bob"}, won, 365LL * 24 * 3'600'000);
  EXPECT_GT(late[0].change, soon[0].change);
}

TEST(Ratings, TheLeaderboardHasActivePlayersWithEnoughGamesBestFirst) {
  MemoryRatingStore store;
  Ratings ratings(store);
  const json first{{"winners", {0}}, {"scores", json::array()}};
  for (int i = 0; i < 3; ++i)
    ratings.rate("kwinty", "r" + std::to_string(i), 1, {"ada", "bob"}, first, 1000 + i);
  ratings.rate("kwinty", "x", 1, {"cy", "dee"}, first, 10);  // one game each, long ago
  const auto board = ratings.leaderboard("kwinty", 3, 500, 10);
  ASSERT_EQ(board.size(), 2u);
  EXPECT_EQ(board[0].player, "ada");
  EXPECT_EQ(board[1].player, "bob");
  EXPECT_EQ(ratings.leaderboard("kwinty", 1, 0, 10).size(), 4u);
  EXPECT_EQ(ratings.leaderboard("kwinty", 1, 500, 10).size(), 2u) << "inactive left out";
  EXPECT_EQ(ratings.leaderboard("kwinty", 1, 0, 1).size(), 1u);
  EXPECT_TRUE(ratings.leaderboard("quantik", 1, 0, 10).empty());
  const auto all = ratings.all_of("ada");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].game, "kwinty");
}

TEST(Ratings, AGameOfFourRatesEachAgainstEachOther) {
  MemoryRatingStore store;
  Ratings ratings(store);
  const auto changes = ratings.rate("on_top", "r", 1, {"a", "b", "c", "d"},
                                    json{{"winners", {2}}, {"scores", {5, 9, 12, 1}}}, 1);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_GT(changes[2].change, changes[1].change);
  EXPECT_GT(changes[1].change, 0) << "second of four beat two players and lost to one";
  EXPECT_LT(changes[0].change, 0);
  EXPECT_LT(changes[3].change, changes[0].change);
  EXPECT_EQ(ratings.of("c", "on_top").wins, 1);
  EXPECT_EQ(ratings.of("b", "on_top").losses, 1);
}

}  // namespace
}  // namespace plateau::server
