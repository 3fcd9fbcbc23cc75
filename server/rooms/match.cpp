#include "server/rooms/match.hpp"

#include <algorithm>

#include "protocol/rule_errors.hpp"
#include "rules/replay.hpp"

namespace plateau::server {

using nlohmann::json;

namespace {

std::vector<rules::Played> played(const std::vector<std::pair<int, std::string>>& moves) {
  std::vector<rules::Played> out;
  out.reserve(moves.size());
  for (const auto& [seat, text] : moves) out.push_back({seat, text});
  return out;
}

}  // namespace

Match::Match(const rules::Game& game, json options, RoundSecret secret, int spectator_delay,
             std::unique_ptr<rules::State> state)
    : game_(&game),
      options_(std::make_shared<const json>(std::move(options))),
      secret_(std::move(secret)),
      spectator_delay_(spectator_delay),
      state_(std::move(state)) {
  seal_round();
  if (spectator_delay_ > 0) spectator_state_ = state_->clone();
}

std::expected<Match, rules::RuleError> Match::start(const rules::Game& game, json options,
                                                    RoundSecret secret, int spectator_delay) {
  auto created = game.create(options, secret.seed);
  if (!created) return std::unexpected(created.error());
  return Match(game, std::move(options), std::move(secret), spectator_delay, std::move(*created));
}

std::expected<Match, std::string> Match::restore(const rules::Game& game,
                                                 const StoredRoom& stored) {
  auto match = start(game, stored.room.options, RoundSecret{stored.room.seed, stored.room.salt},
                     stored.room.spectator_delay);
  if (!match) return std::unexpected("its options are refused by the rules");
  for (std::size_t i = 0; i < stored.rounds.size(); ++i) {
    const auto& r = stored.rounds[i];
    if (r.round != static_cast<int>(i) + 1)
      return std::unexpected("round numbers are not consecutive");
    const auto where = "round " + std::to_string(r.round);
    auto state = rules::replay(game, r.options, r.seed, played(r.moves));
    if (!state && !state.error().move) return std::unexpected(where + ": options refused");
    if (!state) {
      const auto n = *state.error().move;
      const auto& [seat, text] = r.moves[n];
      return std::unexpected(
          where + ", move " + std::to_string(n) + " (" + text + " by seat " + std::to_string(seat) +
          "): " + std::string(protocol::code_string(protocol::code_for(state.error().error))));
    }
    const auto departed = protocol::departures_from_json(r.departed, (*state)->num_seats());
    if (!departed) return std::unexpected(where + ": who left it is not stored as it should be");
    // A round the rules did not end may have ended by resignation or agreement, or by everyone
    // but one leaving: its stored outcome says how.
    std::optional<protocol::Ending> ending;
    if (!r.outcome.is_null() && !(*state)->is_over()) {
      ending = protocol::ending_from_json(r.outcome, (*state)->num_seats());
      if (!ending)
        return std::unexpected(where + ": an outcome is stored for a game the rules say goes on");
    }
    if (!r.outcome.is_null() && (*state)->outcome() &&
        protocol::outcome_json(protocol::after_departures(*(*state)->outcome(), *departed),
                               *departed) != r.outcome)
      return std::unexpected(where + ": the replayed outcome differs from the stored one");
    match->state_ = std::move(*state);
    match->ending_ = std::move(ending);
    match->departed_ = *departed;
    match->set_ended();
    match->options_ = std::make_shared<const json>(r.options);
    match->secret_ = RoundSecret{r.seed, r.salt};
    match->seal_round();
    match->round_ = r.round;
    match->moves_ = r.moves;
  }
  match->replay_spectator_state();
  return std::move(*match);
}

void Match::replay_spectator_state() {
  if (spectator_delay_ <= 0) return;
  // The spectators see every move but the last `delay` (all of them once the game is over).
  const auto shown =
      over() ? moves_.size()
             : moves_.size() - std::min(moves_.size(), static_cast<std::size_t>(spectator_delay_));
  const auto all = played(moves_);
  retire(std::exchange(
      spectator_state_,
      rules::replay(*game_, *options_, secret_.seed, std::span(all).first(shown)).value()));
}

bool Match::take_back(std::size_t to) {
  if (over() || to >= moves_.size()) return false;
  moves_.resize(to);
  auto state = rules::replay(*game_, *options_, secret_.seed, played(moves_));
  if (!state) return false;  // the moves kept were all played once: never
  retire(std::exchange(state_, std::move(*state)));
  ++generation_;
  ++line_;
  replay_spectator_state();
  return true;
}

std::optional<rules::Outcome> Match::outcome() const {
  if (ending_) return ending_->outcome;
  auto outcome = state_->outcome();
  if (outcome) return protocol::after_departures(std::move(*outcome), departed_);
  return outcome;
}

void Match::set_ended() {
  if (ending_)
    ended_ = std::make_shared<const json>(protocol::outcome_json(*ending_, departed_));
  else if (const auto outcome = state_->outcome(); outcome && !departed_.empty())
    ended_ = std::make_shared<const json>(
        protocol::outcome_json(protocol::after_departures(*outcome, departed_), departed_));
  else
    ended_.reset();
}

bool Match::end(const protocol::Ending& ending) {
  if (over()) return false;
  ending_ = ending;
  set_ended();
  ++generation_;
  // Over: the spectators see the game as it is, as when the rules end it.
  if (spectator_state_) retire(std::exchange(spectator_state_, state_->clone()));
  return true;
}

bool Match::has_left(int seat) const {
  return std::ranges::any_of(departed_,
                             [seat](const protocol::Departure& d) { return d.seat == seat; });
}

bool Match::leave(const protocol::Departure& departure) {
  if (over() || has_left(departure.seat)) return false;
  departed_.push_back(departure);
  const int seats = state_->num_seats();
  if (seats - static_cast<int>(departed_.size()) > 1) return false;
  int stayer = 0;
  while (has_left(stayer)) ++stayer;
  return end(protocol::last_one_standing(stayer, departed_, state_->scores()));
}

rules::Result<> Match::play(int seat, const std::string& move) {
  if (ending_) return std::unexpected(rules::RuleError::game_over);
  const auto ok = state_->apply(seat, rules::Move{move});
  if (!ok) return ok;
  moves_.emplace_back(seat, move);
  ++generation_;
  advance_spectator_state();
  if (!departed_.empty() && state_->is_over()) set_ended();
  return {};
}

rules::Result<> Match::next_round(const std::function<std::uint64_t()>& random) {
  auto options = game_->rematch_options(*options_, *outcome());
  // A fresh seed from the CSPRNG: nothing revealed about the round just ended (its seed is
  // now public) tells anything about this one.
  auto secret = fresh_round_secret(random);
  auto created = game_->create(options, secret.seed);
  if (!created) return std::unexpected(created.error());
  ++round_;
  options_ = std::make_shared<const json>(std::move(options));
  secret_ = std::move(secret);
  seal_round();
  retire(std::exchange(state_, std::move(*created)));
  ++generation_;
  moves_.clear();
  ending_.reset();
  departed_.clear();
  ended_.reset();
  if (spectator_state_) retire(std::exchange(spectator_state_, state_->clone()));
  return {};
}

void Match::seal_round() {
  sealed_ = fairness_of(secret_, false);
  revealed_ = fairness_of(secret_, true);
}

void Match::advance_spectator_state() {
  if (!spectator_state_) return;
  if (state_->is_over()) {
    spectator_state_ = state_->clone();  // the game is over: nothing is left to protect
    return;
  }
  const auto delay = static_cast<std::size_t>(spectator_delay_);
  if (moves_.size() > delay) {
    const auto& [seat, text] = moves_[moves_.size() - 1 - delay];
    (void)spectator_state_->apply(seat, rules::Move{text});
  }
}

void Match::retire(std::unique_ptr<rules::State> state) {
  if (reaper_ && state) reaper_->retire(std::shared_ptr<const rules::State>(std::move(state)));
}

}  // namespace plateau::server
