#include "bots/bot.hpp"

#include "bots/quantik_solver.hpp"

#include <algorithm>
#include <vector>

namespace plateau::bots {

using rules::Move;
using rules::Seat;
using rules::State;

const LevelSpec& spec(Level level) { return *std::ranges::find(kLevels, level, &LevelSpec::level); }

Tuning tuning_for(std::string_view game, Level level) {
  for (const auto& row : kTunings)
    if (row.game == game && row.level == level) return row.tuning;
  return {};
}

std::optional<Level> level_named(std::string_view name) {
  const auto it = std::ranges::find(kLevels, name, &LevelSpec::name);
  if (it == kLevels.end()) return std::nullopt;
  return it->level;
}

namespace {

// Whether playing `move` in `sample` loses at once for `me`: the game ends with nothing for
// them, or the next seat (another's) has a move that ends it so.
bool loses_at_once(const State& sample, Seat me, const Move& move) {
  auto after = sample.clone();
  (void)after->apply(me, move);
  const int seats = after->num_seats();
  if (const auto end = after->outcome()) return result_for(*end, me, seats) == 0.0;
  const Seat next = *after->to_move();
  if (next == me) return false;
  for (const auto& reply : after->legal_moves()) {
    auto then = after->clone();
    (void)then->apply(next, reply);
    if (const auto end = then->outcome(); end && result_for(*end, me, seats) == 0.0) return true;
  }
  return false;
}

}  // namespace

std::expected<Move, SearchError> choose(std::string_view game, const State& position, Level level,
                                        std::uint64_t seed, const Now& now,
                                        std::chrono::microseconds cap) {
  if (game == "quantik" && level == Level::hard) {
    const auto p = quantik::position_of(position);
    if (!p) return std::unexpected(SearchError::game_over);
    quantik::Solver solver;
    if (auto move = solver.best_move(*p)) return *std::move(move);
    return std::unexpected(SearchError::game_over);
  }
  if (level != Level::easy) {
    Budget think = spec(level).think;
    think.time = std::min(think.time, cap);
    auto choice = search(position, think, seed, now, tuning_for(game, level));
    if (!choice) return std::unexpected(choice.error());
    return choice->move;
  }
  const auto me = position.to_move();
  if (!me) return std::unexpected(SearchError::game_over);
  rules::Rng rng(seed);
  const auto sample = position.determinize(*me, rng);
  if (!sample) return std::unexpected(SearchError::cannot_determinize);
  auto moves = position.legal_moves();
  std::vector<Move> safe;
  for (const auto& m : moves)
    if (!loses_at_once(*sample, *me, m)) safe.push_back(m);
  const auto& from = safe.empty() ? moves : safe;
  return from[rng.below(from.size())];
}

}  // namespace plateau::bots
