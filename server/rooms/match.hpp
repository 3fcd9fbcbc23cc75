// The game a room plays: the rules' position, the moves of this round, the round's secret,
// the spectators' delayed copy, and the next round after a rematch. It knows nothing of seats,
// connections or versions.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/ending.hpp"
#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server/rooms/fairness.hpp"
#include "server/rooms/reaper.hpp"
#include "server/store/store.hpp"

namespace plateau::server {

class Match {
 public:
  // Round 1 of `game` with `options`. Refused as the rules refuse the options.
  static std::expected<Match, rules::RuleError> start(const rules::Game& game,
                                                      nlohmann::json options, RoundSecret secret,
                                                      int spectator_delay);
  // The match of a stored room: each stored round replayed through the rules. Refused, with a
  // reason, when the log and the rules disagree.
  static std::expected<Match, std::string> restore(const rules::Game& game,
                                                   const StoredRoom& stored);

  const rules::Game& game() const { return *game_; }
  const nlohmann::json& options() const { return *options_; }
  // The same, shared with the views: a new object each round, so a view compares it cheaply.
  const std::shared_ptr<const nlohmann::json>& shared_options() const { return options_; }
  const RoundSecret& secret() const { return secret_; }
  int round() const { return round_; }
  const rules::State& state() const { return *state_; }
  // What the spectators see: the game some moves late, or null when they see it as it is.
  const rules::State* delayed() const { return spectator_state_.get(); }
  // This round's (seat, move).
  const std::vector<std::pair<int, std::string>>& moves() const { return moves_; }
  // What a state shows of the round's secret: sealed while it is played, revealed once over.
  const std::shared_ptr<const protocol::Fairness>& fairness(bool over) const {
    return over ? revealed_ : sealed_;
  }
  // Whether this round is over: by the rules, or by an ending (a resignation, a draw agreed).
  bool over() const { return ending_ || state_->is_over(); }
  // How the round ended, nullopt while it is played.
  std::optional<rules::Outcome> outcome() const;
  // The outcome of a round ended outside the rules, or ended by them after someone left, as
  // the state shows it; null otherwise.
  const std::shared_ptr<const nlohmann::json>& ended() const { return ended_; }
  // Ends the round as `ending` says. False (nothing changed) unless it is in play.
  bool end(const protocol::Ending& ending);
  // A player leaves the round in play, a game of three or four seats going on without them
  // (ending.hpp): true when that left one player, who has then won (the round is over).
  bool leave(const protocol::Departure& departure);
  // Who left this round, in order; and whether `seat` did.
  const std::vector<protocol::Departure>& departed() const { return departed_; }
  bool has_left(int seat) const;

  // Changes whenever a board may have changed (a move, a new round).
  std::uint64_t generation() const { return generation_; }
  // Changes whenever the position goes back (a takeback): a board shown before may not be
  // brought up to date in place, only built afresh.
  std::uint64_t line() const { return line_; }

  // `seat` plays `move`: refused as the rules refuse it (or as over once ended), else recorded.
  rules::Result<> play(int seat, const std::string& move);
  // The round goes back to its first `to` moves, replayed from its seed (a takeback agreed).
  // False (nothing changed) unless it is in play with more moves than that.
  bool take_back(std::size_t to);
  // The next round after a rematch, with options the rules derive from the last outcome and a
  // fresh secret from `random`. Refused (the match unchanged) when the rules refuse them.
  rules::Result<> next_round(const std::function<std::uint64_t()>& random);

  // Positions the match is done with are freed on `reaper`'s thread (here without one).
  void free_with(Reaper* reaper) { reaper_ = reaper; }

 private:
  Match(const rules::Game& game, nlohmann::json options, RoundSecret secret, int spectator_delay,
        std::unique_ptr<rules::State> state);
  void seal_round();
  // ended_ as the ending, the rules and who left say.
  void set_ended();
  void advance_spectator_state();
  // The spectators' delayed copy, replayed afresh from the moves.
  void replay_spectator_state();
  void retire(std::unique_ptr<rules::State> state);

  const rules::Game* game_;
  std::shared_ptr<const nlohmann::json> options_;
  RoundSecret secret_;  // this round's seed and the salt of its commitment
  // What the round shows of its secret while it is played, and once it is over.
  std::shared_ptr<const protocol::Fairness> sealed_, revealed_;
  int spectator_delay_;
  std::unique_ptr<rules::State> state_;
  std::unique_ptr<rules::State> spectator_state_;  // lags by spectator_delay_ moves
  std::vector<std::pair<int, std::string>> moves_;
  std::optional<protocol::Ending> ending_;     // this round's, if it ended outside the rules
  std::vector<protocol::Departure> departed_;  // who left this round, in order
  // The outcome as the state shows it when the rules do not say it all: an ending's, or the
  // rules' once some left.
  std::shared_ptr<const nlohmann::json> ended_;
  int round_ = 1;
  std::uint64_t generation_ = 1;
  std::uint64_t line_ = 1;
  Reaper* reaper_ = nullptr;
};

}  // namespace plateau::server
