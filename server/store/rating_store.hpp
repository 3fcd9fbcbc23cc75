// What the store keeps of ratings (issue 46): each account's Glicko-2 rating per game, and each
// rated game's change per player (the profile's chart, and how a restart finds a rated game
// whose ratings were never written). Written durably like everything else; read at start
// (every rating, and the games still to rate) and by the profile pages (a player's history and
// games, on the archive's reader).
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/store/archive.hpp"
#include "server/store/store.hpp"

namespace plateau::server {

struct RatingRow {
  std::string player;
  std::string game;
  double rating = 1500;
  double deviation = 350;
  double volatility = 0.06;
  int games = 0, wins = 0, draws = 0, losses = 0;
  std::int64_t last_ms = 0;  // when their last rated game of this game ended
};

struct RatingChange {
  std::string room;
  int round = 1;
  std::string player;
  std::string game;
  std::int64_t at_ms = 0;
  double rating = 0;  // after the game
  double deviation = 0;
  double change = 0;  // rating after minus before
};

// A rated round that ended and has no changes stored (the server stopped in between).
struct UnratedGame {
  std::string room;
  int round = 1;
  std::string game;
  std::vector<std::optional<std::string>> players;  // by seat
  nlohmann::json outcome;
  std::int64_t finished_ms = 0;
};

class RatingStore {
 public:
  virtual ~RatingStore() = default;
  // One rated game: the players' new ratings and their changes, in one transaction. A game
  // whose changes are stored already is left as it is (a restart may rate it twice).
  virtual void put_rated_game(const std::vector<RatingRow>& ratings,
                              const std::vector<RatingChange>& changes, Done done) = 0;
  virtual std::expected<std::vector<RatingRow>, std::string> load_ratings() = 0;
  // Rated rounds that ended without their changes, oldest first (at start, before any write).
  virtual std::expected<std::vector<UnratedGame>, std::string> unrated_games() = 0;
  // A player's changes, oldest first, and the finished games they sat in, newest first.
  virtual std::vector<RatingChange> rating_history(const std::string& player) = 0;
  virtual std::vector<GameSummary> games_of(const std::string& player, int limit) = 0;
};

// Keeps nothing (--data none): ratings last as long as the process.
class NullRatingStore : public RatingStore {
 public:
  void put_rated_game(const std::vector<RatingRow>&, const std::vector<RatingChange>&,
                      Done done) override {
    done(true);
  }
  std::expected<std::vector<RatingRow>, std::string> load_ratings() override {
    return std::vector<RatingRow>{};
  }
  std::expected<std::vector<UnratedGame>, std::string> unrated_games() override {
    return std::vector<UnratedGame>{};
  }
  std::vector<RatingChange> rating_history(const std::string&) override { return {}; }
  std::vector<GameSummary> games_of(const std::string&, int) override { return {}; }
};

}  // namespace plateau::server
