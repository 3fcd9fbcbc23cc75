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

// Where a game's search at a level departs from Tuning's defaults: one row per game and level
// that the arena measured to play better so (README, "The bots' figures").
struct TuningSpec {
  std::string_view game;  // its id
  Level level;
  Tuning tuning;
};

inline constexpr std::array<TuningSpec, 1> kTunings{{
    // Widening below the root too: 2-seat Quirky at the real times, 30 games on each of seeds
    // 94 and 95 (the same deals for both searches), 67.5% against normal (38 wins, 5 draws)
    // where the default search scored 56.7%. At normal's 12,000 iterations a move it gains
    // nothing (46.7% of 60 games at equal iterations): it pays in a deeper tree. With 3 seats,
    // ahead of normal in 52.5% of pairs over 30 games against 48.3% (no worse).
    {"quirky", Level::hard, {.widen_below_root = true}},
}};

const LevelSpec& spec(Level level);
// The search's tuning for `game` at `level`: its row in kTunings, else Tuning's defaults.
Tuning tuning_for(std::string_view game, Level level);
std::optional<Level> level_named(std::string_view name);

// The move the seat to move plays at `level` in a game of `game` (its id). `easy` plays at
// random among the moves that do not lose at once (after which the game is lost, or an
// opponent can win with one move), in a sample of what its seat may know, as the others do.
// `hard` Quantik plays perfectly (quantik_solver.hpp). A search thinks for the level's time,
// or for `cap` when that is shorter (a server's limit on think time), tuned as tuning_for says.
std::expected<rules::Move, SearchError> choose(
    std::string_view game, const rules::State& position, Level level, std::uint64_t seed,
    const Now& now = steady_now(),
    std::chrono::microseconds cap = std::chrono::microseconds::max());

}  // namespace plateau::bots
