// Ratings per account and game (issue 46): Glicko-2 (glicko2.hpp) over rated games, kept in
// memory for the lobby (a leaderboard is read from here) and written durably per game. A plain
// class on the event loop.
//
// Who is rated: the accounts at a rated table, which only accounts may create and sit at (no
// guest, no bot). A game of three or four seats ranks its players (the rules' winners first;
// then by score where the game scores; a player who left ranks below all who stayed, the first
// to leave lowest) and rates each against each other player.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/ratings/glicko2.hpp"
#include "server/store/rating_store.hpp"

namespace plateau::server {

// The ranks of a finished round's seats (0 first; equal ranks tie) from its outcome as stored
// ({"winners", "scores", "left"}): winners first, then the others by score (or level when the
// game has none), then those who left, the first to leave last.
std::vector<int> ranks_from_outcome(const nlohmann::json& outcome, int seats);

class Ratings {
 public:
  explicit Ratings(RatingStore& store) : store_(store) {}
  void restore(const std::vector<RatingRow>& rows);
  // The player's ratings as stored now (`rows`, all theirs): a game of theirs this server rated
  // but could not store is forgotten (a cluster reads them again before each rated game).
  void reload(const std::string& player, const std::vector<RatingRow>& rows);

  // A rated round ended: `players` by seat (each an account), `outcome` as stored, at `at_ms`.
  // Updates the ratings at once and writes them; returns each seat's change (by seat).
  std::vector<RatingChange> rate(
      const std::string& game, const std::string& room, int round,
      const std::vector<std::string>& players, const nlohmann::json& outcome, std::int64_t at_ms,
      Done done = [](bool) {});

  // The player's rating of a game; the starting one (1500, 350) if they have none.
  RatingRow of(const std::string& player, const std::string& game) const;
  // Every game's rating of the player.
  std::vector<RatingRow> all_of(const std::string& player) const;
  // The best ratings of `game` among players with at least `min_games` rated games, the last
  // ended at or after `active_since_ms`, best first, at most `limit`.
  std::vector<RatingRow> leaderboard(const std::string& game, int min_games,
                                     std::int64_t active_since_ms, std::size_t limit) const;

 private:
  RatingStore& store_;
  std::map<std::pair<std::string, std::string>, RatingRow> rows_;  // (player, game)
};

}  // namespace plateau::server
