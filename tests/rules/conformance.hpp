// The conformance suite: properties every registered game must have (DESIGN.md §5, ring 1).
//
// Instantiate it for a game and a set of options with
//   INSTANTIATE_TEST_SUITE_P(Name, Conformance, ::testing::Values(ConformanceCase{...}),
//                            conformance_case_name);
// conformance_test.cpp runs it over every registered game and player count; a game's own test
// adds its variants.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "rules/game.hpp"

namespace plateau::rules::testing {

struct ConformanceCase {
  const Game* game;
  nlohmann::json options;
  std::string label;  // letters, digits and underscores: part of the test name
  int playouts = 20;  // random games played to the end
};

// Every player count of every registered game, default options.
std::vector<ConformanceCase> registered_cases();
std::string conformance_case_name(const ::testing::TestParamInfo<ConformanceCase>& info);

class Conformance : public ::testing::TestWithParam<ConformanceCase> {};

// Plays one random game with moves drawn from `seed`, calling `each` on the state before every
// move; returns the move list. Bounded: fails the test past 100,000 moves.
std::vector<Move> random_playout(State& state, std::uint64_t seed,
                                 const std::function<void(const State&)>& each = {});

}  // namespace plateau::rules::testing
