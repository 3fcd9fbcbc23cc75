// A bot's move at a level: the one table of level names and think times, and the move each
// level plays. `easy` is weak on purpose; `normal` and `hard` search (mcts.hpp) for longer.
#pragma once

#include <array>
#include <chrono>
#include <optional>
#include <string_view>

#include "bots/mcts.hpp"

namespace plateau::bots {

enum class Level { easy, normal, hard };

struct LevelSpec {
  Level level;
  std::string_view name;  // as the protocol and the lobby say it
  Budget think;           // none for easy: it does not search
};

inline constexpr std::array<LevelSpec, 3> kLevels{{
    {Level::easy, "easy", {}},
    {Level::normal, "normal", {0, std::chrono::milliseconds(300)}},
    {Level::hard, "hard", {0, std::chrono::seconds(2)}},
}};

const LevelSpec& spec(Level level);
std::optional<Level> level_named(std::string_view name);

// The move the seat to move plays at `level` in a game of `game` (its id). `easy` plays at
// random among the moves that do not lose at once (after which the game is lost, or an
// opponent can win with one move), in a sample of what its seat may know, as the others do.
// `hard` Quantik plays perfectly (quantik_solver.hpp). A search thinks for the level's time,
// or for `cap` when that is shorter (a server's limit on think time).
std::expected<rules::Move, SearchError> choose(
    std::string_view game, const rules::State& position, Level level, std::uint64_t seed,
    const Now& now = steady_now(),
    std::chrono::microseconds cap = std::chrono::microseconds::max());

}  // namespace plateau::bots
