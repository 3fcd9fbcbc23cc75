// Rebuilding a position from its record: the game, its options and seed, and the moves in order.
// The one replay of the server: a rebuilt room and a game record's step-by-step frames go
// through it, so they cannot disagree on what a log means.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "rules/game.hpp"

namespace plateau::rules {

struct Played {
  Seat seat = 0;
  std::string_view move;
};

// Why a replay stopped.
struct ReplayError {
  // The move the rules refused (counted from 0); nullopt when the options were refused, or when
  // the caller's visitor stopped the replay (then `stopped`).
  std::optional<std::size_t> move;
  RuleError error = RuleError::illegal_move;
  bool stopped = false;
};

// Creates the game with `options` and `seed` and applies `moves` in order. `visit`, when given,
// sees the position once created and after each move; returning false stops the replay there.
std::expected<std::unique_ptr<State>, ReplayError> replay(
    const Game& game, const nlohmann::json& options, std::uint64_t seed,
    std::span<const Played> moves, const std::function<bool(const State&)>& visit = {});

}  // namespace plateau::rules
