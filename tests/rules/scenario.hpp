// Helpers for the games' scenario tests (tests/rules/<game>_test.cpp): playing a worked example
// move by move, asking whether a move is listed, checking that a move is refused cleanly, and
// counting positions (perft).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "rules/game.hpp"

namespace plateau::rules::testing {

// Plays `moves` in turn, each by the seat to move. Use it as ASSERT_TRUE(played(...)) so that a
// refused move stops the scenario there.
inline ::testing::AssertionResult played(State& s, const std::vector<std::string>& moves) {
  for (const auto& m : moves) {
    if (!s.to_move()) return ::testing::AssertionFailure() << "game over before " << m;
    const auto r = s.apply(*s.to_move(), Move{m});
    if (!r) return ::testing::AssertionFailure() << m << ": " << error_code(r.error());
  }
  return ::testing::AssertionSuccess();
}

// The same as a statement: a refused move fails the test and plays nothing after it.
inline void play(State& s, const std::vector<std::string>& moves) { ASSERT_TRUE(played(s, moves)); }

// Whether legal_moves() lists `m`.
inline bool legal(const State& s, const std::string& m) {
  const auto moves = s.legal_moves();
  return std::ranges::find(moves, Move{m}) != moves.end();
}

// A refused move: not listed, refused by apply() with move/illegal, and the position unchanged.
inline void expect_refused(State& s, const std::string& m) {
  EXPECT_FALSE(legal(s, m)) << m << " is listed as legal";
  ASSERT_TRUE(s.to_move().has_value()) << "game over before " << m;
  const auto before = s.view(std::nullopt);
  const auto r = s.apply(*s.to_move(), Move{m});
  ASSERT_FALSE(r.has_value()) << m << " was accepted";
  EXPECT_EQ(r.error(), RuleError::illegal_move) << m;
  EXPECT_EQ(s.view(std::nullopt), before) << m << " changed the state";
}

// The number of move sequences of length `depth` from `s`. The last ply is counted, not played.
inline std::uint64_t perft(const State& s, int depth) {
  if (depth == 0) return 1;
  const auto moves = s.legal_moves();
  if (depth == 1) return moves.size();
  std::uint64_t n = 0;
  for (const auto& m : moves) {
    auto next = s.clone();
    EXPECT_TRUE(next->apply(*s.to_move(), m).has_value()) << m.text;
    n += perft(*next, depth - 1);
  }
  return n;
}

// With no starter chosen, the seed draws one: the same seed twice gives the same starter, and
// over `seeds` seeds every one of the `seats` seats starts some game.
inline void expect_starter_drawn_from_seed(const Game& game, int seats, int seeds = 32) {
  std::set<Seat> starters;
  for (std::uint64_t seed = 0; seed < static_cast<std::uint64_t>(seeds); ++seed) {
    auto a = game.create({}, seed), b = game.create({}, seed);
    ASSERT_TRUE(a.has_value() && b.has_value());
    ASSERT_EQ((*a)->to_move(), (*b)->to_move()) << "the same seed draws the same starter";
    starters.insert(*(*a)->to_move());
  }
  EXPECT_EQ(starters.size(), static_cast<std::size_t>(seats)) << "every seat starts some games";
}

}  // namespace plateau::rules::testing
