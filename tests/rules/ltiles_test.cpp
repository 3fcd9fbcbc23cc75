// L-Tiles scenarios: every sentence of ltiles.fr.md, the L-tile part of DECISIONS.md and the
// rules points of issue 6, plus the conformance suite for every variant.
//
// Positions are built by playing moves. Most placement scenarios use the "open" variant
// (variant 2), where the player picks any tile left, so that a test can choose its tiles; the
// placement rules are the same in every variant. Seat 0 is red, seat 1 green.
//
// Footprints used below (corner, arm A, arm B; y grows downwards):
//   r=0: (x,y) (x+1,y) (x,y+1)    r=1: (x,y) (x,y+1) (x-1,y)
//   r=2: (x,y) (x-1,y) (x,y-1)    r=3: (x,y) (x,y-1) (x+1,y)
// The start domino is red at (0,0) and green at (1,0).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "conformance.hpp"
#include "rules/ltiles/ltiles.hpp"
#include "scenario.hpp"

namespace plateau::rules::ltiles {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;

const std::vector<std::string> kRedKinds{"RRR", "NRR", "RNR", "RRN", "RNN",
                                         "NRN", "NNR", "GRR", "RGR", "RRG"};
const std::vector<std::string> kGreenKinds{"GGG", "NGG", "GNG", "GGN", "GNN",
                                           "NGN", "NNG", "RGG", "GRG", "GGR"};

std::unique_ptr<State> start(const std::string& variant = "standard", const char* first = "0",
                             std::uint64_t seed = 1) {
  auto s = game().create({{"variant", variant}, {"first", first}}, seed);
  EXPECT_TRUE(s.has_value());
  return s ? std::move(*s) : nullptr;
}

std::unique_ptr<State> open_game() { return start("open"); }

json square(const State& s, int x, int y) {
  const auto v = s.view(std::nullopt);
  const std::string key = std::to_string(x) + "," + std::to_string(y);
  return v["squares"].contains(key) ? v["squares"][key] : json(nullptr);
}

json sq(int level, const char* colour, int tile) {
  return json{{"level", level}, {"colour", colour}, {"tile", tile}};
}

std::string top(const State& s, Seat seat) {
  const auto t = s.view(std::nullopt)["piles"][seat]["top"];
  return t.is_string() ? t.get<std::string>() : "";
}

// The kinds of `kinds` that may be played at `spot` ("@x,y,r") now.
std::set<std::string> kinds_legal_at(const State& s, const std::vector<std::string>& kinds,
                                     const std::string& spot) {
  std::set<std::string> out;
  for (const auto& k : kinds)
    if (legal(s, k + spot)) out.insert(k);
  return out;
}

// ----------------------------------------------------------------------------------------------
// The game, its components and the set-up.

TEST(LTiles, TheGameIsCalledLTilesForTwoPlayers) {
  EXPECT_EQ(game().id(), "ltiles");
  EXPECT_EQ(game().name(), "L-Tiles");
  EXPECT_EQ(game().min_seats(), 2);
  EXPECT_EQ(game().max_seats(), 2);
  const auto d = game().describe();
  ASSERT_EQ(d["options"].size(), 3u);
  EXPECT_EQ(d["options"][1]["name"], "first");
  EXPECT_EQ(d["options"][2]["name"], "variant");
  EXPECT_EQ(d["options"][2]["default"], "standard");
  EXPECT_EQ(d["options"][2]["choices"], json({"standard", "ordered", "open", "hand"}));
}

TEST(LTiles, AnUnknownVariantOrStarterIsRefused) {
  EXPECT_EQ(game().create({{"variant", "mirror"}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"variant", 2}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"first", "2"}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"players", 3}}, 1).error(), RuleError::bad_option);
  EXPECT_TRUE(game().create({}, 1).has_value());
}

TEST(LTiles, RedPlaysLotOneAndGreenLotTwoTwentyTilesEach) {
  auto s = start();
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["colours"], json({"red", "green"}));
  EXPECT_EQ(v["piles"][0]["colour"], "red");
  EXPECT_EQ(v["piles"][1]["colour"], "green");
  EXPECT_EQ(v["total"], 40);
  EXPECT_EQ(v["placed"], 0);
  // The default inventory of DECISIONS.md (our stand-in): per lot 6 all-own; 4 own+neutral with
  // two own squares (NRR ×2, RNR, RRN: the neutral square at the corner or an end) and 3 with one
  // (RNN, NRN, NNR); 7 with two own squares and one opponent square (GRR ×3, RGR ×2, RRG ×2).
  // 6 + 4 + 3 + 7 = 20. Green mirrors red.
  const json red{{"RRR", 6}, {"NRR", 2}, {"RNR", 1}, {"RRN", 1}, {"RNN", 1},
                 {"NRN", 1}, {"NNR", 1}, {"GRR", 3}, {"RGR", 2}, {"RRG", 2}};
  const json green{{"GGG", 6}, {"NGG", 2}, {"GNG", 1}, {"GGN", 1}, {"GNN", 1},
                   {"NGN", 1}, {"NNG", 1}, {"RGG", 3}, {"GRG", 2}, {"GGR", 2}};
  EXPECT_EQ(v["piles"][0]["left"], red);
  EXPECT_EQ(v["piles"][1]["left"], green);
  EXPECT_EQ(v["piles"][0]["size"], 20);
  EXPECT_EQ(v["piles"][1]["size"], 20);
}

TEST(LTiles, TheStartDominoIsOnTheTableBeforeTheFirstMove) {
  auto s = start();
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["squares"], json({{"0,0", sq(1, "R", 0)}, {"1,0", sq(1, "G", 0)}}));
  EXPECT_EQ(v["tiles"].size(), 1u);
  EXPECT_EQ(v["tiles"][0], json({{"seat", nullptr},
                                 {"kind", "RG"},
                                 {"at", {0, 0}},
                                 {"rot", 0},
                                 {"level", 1},
                                 {"cells", {{0, 0, "R"}, {1, 0, "G"}}}}));
  EXPECT_EQ(v["extent"], json({0, 0, 1, 0}));
  EXPECT_EQ(v["phase"], "play");
  EXPECT_EQ(v["last"], nullptr);
}

TEST(LTiles, TheFirstPlayerIsDrawnFromTheSeedUnlessTheHostChooses) {
  expect_starter_drawn_from_seed(game(), 2);
  EXPECT_EQ(start("standard", "0")->to_move(), 0);
  EXPECT_EQ(start("standard", "1")->to_move(), 1);
}

// ----------------------------------------------------------------------------------------------
// The piles (standard game).

TEST(LTiles, APlayerMustPlayTheTopTileOfTheirPile) {
  auto s = start();
  const std::string red_top = top(*s, 0);
  ASSERT_EQ(red_top.size(), 3u);
  const auto moves = s->legal_moves();
  ASSERT_FALSE(moves.empty());
  for (const auto& m : moves) EXPECT_EQ(m.text.substr(0, 4), red_top + "@") << m.text;
  // Another kind at a spot open to the top tile is refused.
  ASSERT_TRUE(legal(*s, red_top + "@0,1,0"));
  const std::string other = red_top == "RNR" ? "RRN" : "RNR";
  expect_refused(*s, other + "@0,1,0");
  expect_refused(*s, "GGG@0,1,0");  // not even the opponent's tile
}

TEST(LTiles, OnlyTheTopTileOfEachPileIsVisibleAndToEveryoneAlike) {
  auto s = start();
  const auto spectator = s->view(std::nullopt);
  EXPECT_EQ(s->view(0), spectator) << "the owner sees no more than anyone else";
  EXPECT_EQ(s->view(1), spectator);
  for (int seat = 0; seat < 2; ++seat) {
    const auto& p = spectator["piles"][seat];
    EXPECT_TRUE(p["top"].is_string());
    EXPECT_EQ(p["hand"], nullptr);
    EXPECT_EQ(p["order"], nullptr);
    EXPECT_EQ(p.size(), 6u) << "colour, size, top, hand, left, order: nothing else";
  }
}

TEST(LTiles, ThePileShrinksAndItsNextTileShowsAfterAMove) {
  auto s = start();
  const std::string first_top = top(*s, 0);
  const int count_before = s->view(std::nullopt)["piles"][0]["left"][first_top];
  play(*s, {first_top + "@0,1,0"});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["piles"][0]["size"], 19);
  EXPECT_EQ(v["piles"][0]["left"][first_top], count_before - 1);
  EXPECT_TRUE(v["piles"][0]["top"].is_string());
  EXPECT_EQ(v["last"], json({{"seat", 0}, {"move", first_top + "@0,1,0"}, {"tile", 1}}));
  EXPECT_EQ(v["placed"], 1);
}

TEST(LTiles, EachLotIsShuffledFromTheSeedIntoTheOrderItIsPlayed) {
  // Plays every game with the first legal move and records the tiles as they come off the piles.
  auto drawn = [](std::uint64_t seed) {
    auto s = start("standard", "0", seed);
    std::array<std::vector<std::string>, 2> tops;
    while (!s->is_over()) {
      const Seat seat = *s->to_move();
      tops[seat].push_back(top(*s, seat));
      const auto r = s->apply(seat, s->legal_moves().front());
      EXPECT_TRUE(r.has_value());
    }
    return tops;
  };
  const auto a = drawn(5);
  EXPECT_EQ(a, drawn(5)) << "the same seed deals the same piles";
  EXPECT_NE(a, drawn(6)) << "another seed deals other piles";
  // Every tile of the lot comes off the pile exactly once.
  std::map<std::string, int> red;
  for (const auto& k : a[0]) ++red[k];
  EXPECT_EQ(red, (std::map<std::string, int>{{"RRR", 6},
                                             {"NRR", 2},
                                             {"RNR", 1},
                                             {"RRN", 1},
                                             {"RNN", 1},
                                             {"NRN", 1},
                                             {"NNR", 1},
                                             {"GRR", 3},
                                             {"RGR", 2},
                                             {"RRG", 2}}));
  EXPECT_EQ(a[1].size(), 20u);
}

// The property of issue 6: hidden tiles never appear in a view or a patch. Two games dealt from
// different seeds differ below the tops of their piles; played with the same moves, everything
// their views show apart from the visible tops (and hands) must be identical, for every viewer, at
// every step. Patches are diffs between successive views of one viewer, so they cannot show more.
json without_visible_tiles(json v) {
  for (auto& p : v["piles"]) {
    p.erase("top");
    p.erase("hand");
  }
  return v;
}

void expect_hidden_tiles_never_show(const std::string& variant) {
  int compared = 0;
  for (std::uint64_t other = 2; other < 40; ++other) {
    auto a = start(variant, "0", 1), b = start(variant, "0", other);
    while (!a->is_over()) {
      for (const auto viewer :
           {std::optional<Seat>{}, std::optional<Seat>{0}, std::optional<Seat>{1}})
        ASSERT_EQ(without_visible_tiles(a->view(viewer)), without_visible_tiles(b->view(viewer)))
            << "seeds 1 and " << other << " look different beyond their visible tiles";
      ++compared;
      // Go on while the same move is open to both games (the same tile is visible in both).
      const Move m = a->legal_moves().front();
      if (!b->apply(*b->to_move(), m).has_value()) break;
      ASSERT_TRUE(a->apply(*a->to_move(), m).has_value());
    }
  }
  EXPECT_GT(compared, 38) << "every pair is compared at least once";
}

TEST(LTiles, HiddenTilesNeverAppearInAViewOrAPatch) { expect_hidden_tiles_never_show("standard"); }

TEST(LTiles, HiddenTilesNeverAppearInAViewOrAPatchWithHands) {
  expect_hidden_tiles_never_show("hand");
}

// ----------------------------------------------------------------------------------------------
// Élargir.

TEST(LTiles, AtTheStartTheTopTileFits36PlacesAroundTheDomino) {
  // Each L fills 3 cells of a 2×2 box. Boxes holding one domino square with the L on the other
  // three: 4. Boxes clear of the domino that the L can touch: 8 boxes reach one cell next to the
  // domino (3 Ls each avoid missing it) and 2 boxes, above and below, reach two (all 4 Ls):
  // 4 + 8×3 + 2×4 = 36, whatever the tile.
  auto s = start();
  EXPECT_EQ(s->legal_moves().size(), 36u);
  // With every kind open to red (variant 2): 10 kinds × 36 = 360.
  EXPECT_EQ(open_game()->legal_moves().size(), 360u);
}

TEST(LTiles, ElargirPutsATileOnTheTableTouchingAPlacedTileByAnEdge) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0"});  // (0,1) is under the domino's red square
  EXPECT_EQ(square(*s, 0, 1), sq(1, "R", 1));
  EXPECT_EQ(square(*s, 1, 1), sq(1, "R", 1));
  EXPECT_EQ(square(*s, 0, 2), sq(1, "R", 1));
  EXPECT_EQ(s->view(std::nullopt)["tiles"][1],
            json({{"seat", 0},
                  {"kind", "RRR"},
                  {"at", {0, 1}},
                  {"rot", 0},
                  {"level", 1},
                  {"cells", {{0, 1, "R"}, {1, 1, "R"}, {0, 2, "R"}}}}));
  EXPECT_EQ(s->to_move(), 1);
}

TEST(LTiles, ElargirTouchingOnlyByACornerIsRefused) {
  auto s = open_game();
  // (2,1) meets the domino's (1,0) at a corner only; no square of the tile shares an edge.
  expect_refused(*s, "RRR@2,1,0");
  expect_refused(*s, "RRR@-1,-1,2");  // (-1,-1) (-2,-1) (-1,-2): corner of (0,0) only
  EXPECT_TRUE(legal(*s, "RRR@2,0,0")) << "one row up, (2,0) shares an edge with (1,0)";
}

TEST(LTiles, ElargirAwayFromTheTableIsRefused) {
  auto s = open_game();
  expect_refused(*s, "RRR@10,10,0");
  expect_refused(*s, "GGG@5,0,1");
}

TEST(LTiles, ElargirOverAPlacedSquareIsRefused) {
  auto s = open_game();
  expect_refused(*s, "RRR@1,0,0");   // (1,0) is the domino, (2,0) and (1,1) are empty
  expect_refused(*s, "RRR@-1,0,0");  // (0,0) is the domino
}

TEST(LTiles, TheColoursOfTouchingSidesDoNotMatter) {
  auto s = open_game();
  play(*s, {"RRR@2,0,0"});   // red (2,0) against the domino's green (1,0)
  play(*s, {"GGG@-1,0,1"});  // green (-1,0) against the domino's red (0,0)
  EXPECT_EQ(square(*s, 2, 0), sq(1, "R", 1));
  EXPECT_EQ(square(*s, -1, 0), sq(1, "G", 2));
}

TEST(LTiles, TheTableIsUnbounded) {
  auto s = open_game();
  // Red grows a row to the right, green a row to the left, 8 tiles each (the 6 all-own tiles,
  // then the 2 with a neutral corner), 2 squares further each time.
  for (int i = 0; i < 8; ++i) {
    play(*s, {(i < 6 ? "RRR@" : "NRR@") + std::to_string(2 + 2 * i) + ",0,0"});
    play(*s, {(i < 6 ? "GGG@" : "NGG@") + std::to_string(-1 - 2 * i) + ",0,2"});
  }
  EXPECT_EQ(square(*s, 17, 0), sq(1, "R", 15));   // 2 + 2×7 + 1
  EXPECT_EQ(square(*s, -16, 0), sq(1, "G", 16));  // -1 - 2×7 - 1
  // Extent [min x, min y, max x, max y]: red's last tile reaches (16,1), green's (-15,-1).
  EXPECT_EQ(s->view(std::nullopt)["extent"], json({-16, -1, 17, 1}));
}

TEST(LTiles, ATileMayBeTurnedFourWaysButNeverMirrored) {
  // RGR: the corner red, arm A green, arm B red. Arm B is always a quarter turn clockwise from A.
  const std::vector<std::pair<std::string, std::vector<std::tuple<int, int, const char*>>>> cases{
      {"RGR@0,1,0", {{0, 1, "R"}, {1, 1, "G"}, {0, 2, "R"}}},   // A east, B south
      {"RGR@0,1,1", {{0, 1, "R"}, {0, 2, "G"}, {-1, 1, "R"}}},  // A south, B west
      {"RGR@1,2,2", {{1, 2, "R"}, {0, 2, "G"}, {1, 1, "R"}}},   // A west, B north
      {"RGR@0,2,3", {{0, 2, "R"}, {0, 1, "G"}, {1, 2, "R"}}},   // A north, B east
  };
  for (const auto& [move, cells] : cases) {
    auto s = open_game();
    play(*s, {move});
    for (const auto& [x, y, colour] : cells)
      EXPECT_EQ(square(*s, x, y)["colour"], colour) << move << " at " << x << "," << y;
  }
  // RRN and RNR are mirror images: on the same three cells they put different colours, and no
  // rotation of RNR gives RRN's picture: RNR's red arm is always clockwise of its neutral one.
  auto a = open_game(), b = open_game();
  play(*a, {"RRN@0,1,0"});
  play(*b, {"RNR@0,1,0"});
  EXPECT_EQ(square(*a, 1, 1)["colour"], "R");
  EXPECT_EQ(square(*a, 0, 2)["colour"], "N");
  EXPECT_EQ(square(*b, 1, 1)["colour"], "N");
  EXPECT_EQ(square(*b, 0, 2)["colour"], "R");
}

// ----------------------------------------------------------------------------------------------
// Empiler.

TEST(LTiles, EmpilerRestsOnThreeSquaresOfAtLeastTwoTilesOneLevelUp) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0", "GGG@2,0,0"});
  // Corner (0,1) and arm B (1,1) on tile 1, arm A (0,0) on the domino: two tiles.
  play(*s, {"RRR@0,1,3"});
  EXPECT_EQ(square(*s, 0, 1), sq(2, "R", 3));
  EXPECT_EQ(square(*s, 0, 0), sq(2, "R", 3));
  EXPECT_EQ(square(*s, 1, 1), sq(2, "R", 3));
  EXPECT_EQ(square(*s, 0, 2), sq(1, "R", 1)) << "the uncovered square stays at level 1";
  EXPECT_EQ(s->view(std::nullopt)["tiles"][3]["level"], 2);
}

TEST(LTiles, TheStartDominoCountsAsATileToStackOn) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0"});
  // Corner (1,0) and arm B (0,0) on the domino, arm A (1,1) on tile 1.
  play(*s, {"GNN@1,0,1"});
  EXPECT_EQ(square(*s, 1, 0), sq(2, "G", 2));
  EXPECT_EQ(square(*s, 1, 1), sq(2, "N", 2));
  EXPECT_EQ(square(*s, 0, 0), sq(2, "N", 2));
}

TEST(LTiles, EmpilerOnASingleTileIsRefused) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0", "GGG@2,0,0"});
  // Exactly tile 1's three squares, all red and all at level 1: one tile only.
  expect_refused(*s, "RRR@0,1,0");
  EXPECT_TRUE(legal(*s, "RRR@0,1,3")) << "shifted onto the domino it spans two tiles";
}

TEST(LTiles, EmpilerWithAGapUnderASquareIsRefused) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0", "GGG@2,0,0"});
  // (0,0) domino and (0,1) tile 1 are at level 1, but (-1,0) is empty.
  expect_refused(*s, "RRR@0,0,1");
  play(*s, {"RRR@-1,0,1", "GGG@4,0,0"});  // fills (-1,0), (-1,1), (-2,0)
  play(*s, {"RRR@0,0,1"});
  EXPECT_EQ(square(*s, -1, 0), sq(2, "R", 5));
}

TEST(LTiles, EmpilerOnSquaresAtDifferentLevelsIsRefused) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0", "GNN@1,0,1"});  // (0,0), (1,0), (1,1) now at level 2
  // (0,1) at level 1 under the corner, (0,0) and (1,1) at level 2 under the arms.
  expect_refused(*s, "RRR@0,1,3");
  expect_refused(*s, "NNR@0,1,3");
}

TEST(LTiles, RedGoesOnRedOrNeutralButNeverDirectlyOnGreen) {
  auto s = open_game();
  play(*s, {"NRN@0,1,0", "GGG@2,0,0"});
  // Spot "@0,0,0": the corner on the domino's red (0,0), arm A on its green (1,0), arm B on the
  // neutral (0,1). Allowed: corner not G, arm A not R, arm B anything.
  EXPECT_EQ(kinds_legal_at(*s, kRedKinds, "@0,0,0"),
            (std::set<std::string>{"RNR", "RNN", "NNR", "RGR"}));
  expect_refused(*s, "RRR@0,0,0");  // red on green at (1,0)
  play(*s, {"RGR@0,0,0"});          // green on green, red on red, red on neutral
  EXPECT_EQ(square(*s, 1, 0), sq(2, "G", 3));
  EXPECT_EQ(square(*s, 0, 1), sq(2, "R", 3));
}

TEST(LTiles, GreenGoesOnGreenOrNeutralButNeverDirectlyOnRed) {
  auto s = open_game();
  play(*s, {"NNR@0,1,0"});
  // Spot "@1,0,1": the corner on green (1,0), arm A on neutral (1,1), arm B on red (0,0).
  // Allowed: corner not R, arm A anything, arm B not G.
  EXPECT_EQ(kinds_legal_at(*s, kGreenKinds, "@1,0,1"),
            (std::set<std::string>{"GGN", "GNN", "NGN", "GGR"}));
  expect_refused(*s, "GGG@1,0,1");  // green on red at (0,0)
  expect_refused(*s, "RGG@1,0,1");  // red on green at (1,0)
  play(*s, {"NGN@1,0,1"});          // neutral on green, green on neutral, neutral on red
  EXPECT_EQ(square(*s, 1, 1), sq(2, "G", 2));
}

// ----------------------------------------------------------------------------------------------
// Scoring, live in the view.

TEST(LTiles, AZoneScoresItsAreaTimesItsHighestLevelAcrossLevels) {
  auto s = open_game();
  play(*s, {"RRR@0,1,0", "GGG@2,0,0"});
  auto v = s->view(std::nullopt);
  // Red: (0,0) (0,1) (1,1) (0,2), all at level 1: 4 × 1 = 4. Green: (1,0) (2,0) (3,0) (2,1): 4.
  EXPECT_EQ(v["scores"][0]["zones"], json({{4, 4, 1}}));
  EXPECT_EQ(v["scores"][1]["zones"], json({{4, 4, 1}}));
  EXPECT_EQ(v["leader"], nullptr);
  play(*s, {"RRR@0,1,3"});  // (0,1) (0,0) (1,1) up to level 2; (0,2) stays at level 1
  v = s->view(std::nullopt);
  // One zone over two levels: 4 squares × highest level 2 = 8.
  EXPECT_EQ(v["scores"][0], json({{"best", 8},
                                  {"zones", {{8, 4, 2}}},
                                  {"best_cells", {{0, 0}, {0, 1}, {0, 2}, {1, 1}}}}));
  EXPECT_EQ(v["scores"][1]["best"], 4);
  EXPECT_EQ(v["leader"], 0);
  EXPECT_EQ(s->scores(), (std::vector<int>{8, 4})) << "the best zones, as the bots read them";
}

TEST(LTiles, NeutralSquaresScoreForNobodyAndSplitZones) {
  auto s = open_game();
  // Neutral corner at (-1,0) between the domino's red (0,0) and the new red (-2,0); the other red
  // arm (-1,-1) touches both only at corners.
  play(*s, {"NRR@-1,0,2"});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(square(*s, -1, 0)["colour"], "N");
  EXPECT_EQ(v["scores"][0]["zones"], json({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}));
  EXPECT_EQ(v["scores"][1]["zones"], json({{1, 1, 1}}));
}

TEST(LTiles, ASquareScoresForItsColourWhoeverPlacedIt) {
  auto s = open_game();
  play(*s, {"GRR@2,0,0"});  // red's tile: its green corner (2,0) joins the domino's green (1,0)
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["scores"][1]["zones"], json({{2, 2, 1}}));
  EXPECT_EQ(v["scores"][1]["best_cells"], json({{1, 0}, {2, 0}}));
  // Red: the domino's (0,0), and the arms (3,0) and (2,1), which only meet at a corner.
  EXPECT_EQ(v["scores"][0]["zones"], json({{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}));
  EXPECT_EQ(v["leader"], 1) << "green's best zone, 2, beats red's 1";
}

TEST(LTiles, EqualBestZonesAreDecidedByTheNextBestAMissingZoneCountingZero) {
  auto s = open_game();
  EXPECT_EQ(s->view(std::nullopt)["leader"], nullptr) << "1 against 1, nothing else: a tie";
  play(*s, {"NRR@-1,0,2"});
  // Red 1, 1, 1 against green 1: the best zones tie and red's second zone beats none (0).
  EXPECT_EQ(s->view(std::nullopt)["leader"], 0);
}

// ----------------------------------------------------------------------------------------------
// Whole games, played in variant 2 so that the tiles can be chosen.
//
// Red builds a tower of its 20 tiles on the 2×3 block x -3..-1, y 0..1, left of the domino; each
// level is two Ls, alternating the two ways of tiling the block, so every tile spans two tiles.
// Green answers every move with its mirror image: the point reflection (x,y) → (1-x,-y), which
// swaps the domino's squares, with red and green swapped and the tile turned half a turn.
const std::vector<std::string> kRedTower{
    "RRR@-1,1,2", "RRR@-3,0,0",  // level 1 (élargir): (-1,1)(-2,1)(-1,0), (-3,0)(-2,0)(-3,1)
    "RRR@-3,1,3", "RRR@-1,0,1",  // level 2: (-3,1)(-3,0)(-2,1), (-1,0)(-1,1)(-2,0)
    "RRR@-3,0,0", "RRR@-1,1,2",  // level 3
    "NRR@-3,1,3", "RNR@-1,0,1",  // level 4
    "RRN@-3,0,0", "RNN@-1,1,2",  // level 5
    "GRR@-3,1,3", "NRR@-1,0,1",  // level 6: green on neutral at (-3,1)
    "RRG@-3,0,0", "NNR@-1,1,2",  // level 7: green on green at (-3,1)
    "GRR@-3,1,3", "RGR@-1,0,1",  // level 8
    "RRG@-3,0,0", "GRR@-1,1,2",  // level 9
    "NRN@-3,1,3", "RGR@-1,0,1",  // level 10
};

std::string mirrored(const std::string& move) {
  std::string kind = move.substr(0, 3);
  for (char& c : kind) c = c == 'R' ? 'G' : c == 'G' ? 'R' : c;
  const auto c1 = move.find(','), c2 = move.rfind(',');
  const int x = std::stoi(move.substr(4, c1 - 4));
  const int y = std::stoi(move.substr(c1 + 1, c2 - c1 - 1));
  const int r = std::stoi(move.substr(c2 + 1));
  return kind + "@" + std::to_string(1 - x) + "," + std::to_string(-y) + "," +
         std::to_string((r + 2) % 4);
}

// The 39 first moves of the mirrored game; green's last answer is left to the test.
std::unique_ptr<State> mirrored_game_but_the_last_move() {
  auto s = open_game();
  for (std::size_t i = 0; i < kRedTower.size(); ++i) {
    play(*s, {kRedTower[i]});
    if (i + 1 < kRedTower.size()) play(*s, {mirrored(kRedTower[i])});
  }
  return s;
}

TEST(LTiles, ThereIsNoHeightLimit) {
  auto s = mirrored_game_but_the_last_move();
  EXPECT_EQ(square(*s, -1, 1), sq(10, "G", 39)) << "red's 20th tile is the 39th placed";
  EXPECT_EQ(square(*s, -3, 0)["level"], 10);
  EXPECT_EQ(square(*s, 4, 0)["level"], 10) << "green's mirrored tower, 19 tiles";
  EXPECT_EQ(square(*s, 2, 0)["level"], 9);
}

TEST(LTiles, TheGameEndsWhenAll40TilesArePlacedAndMirrorImagesDraw) {
  auto s = mirrored_game_but_the_last_move();
  EXPECT_FALSE(s->is_over()) << "39 tiles placed";
  EXPECT_EQ(s->legal_moves().front().text.substr(0, 4), "GRG@") << "green's last tile";
  play(*s, {mirrored(kRedTower.back())});
  ASSERT_TRUE(s->is_over());
  EXPECT_TRUE(s->legal_moves().empty());
  // Red's top: (-3,0) (-2,0) (-1,0) red at level 10, joined by the domino's (0,0) at level 1:
  // 4 × 10 = 40; red's tile shows green at (-1,1), level 10, alone: 1 × 10 = 10 for green.
  // Green's tower is the exact mirror: 40 for green, 10 for red. Every zone ties: a draw.
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["scores"][0]["zones"], json({{40, 4, 10}, {10, 1, 10}}));
  EXPECT_EQ(v["scores"][1]["zones"], json({{40, 4, 10}, {10, 1, 10}}));
  EXPECT_EQ(v["scores"][0]["best_cells"], json({{-3, 0}, {-2, 0}, {-1, 0}, {0, 0}}));
  EXPECT_EQ(v["phase"], "over");
  EXPECT_EQ(v["placed"], 40);
  const auto out = *s->outcome();
  EXPECT_TRUE(out.winners.empty());
  EXPECT_EQ(out.scores, (std::vector<int>{40, 40}));
  EXPECT_NE(out.reason.find("draw"), std::string::npos) << out.reason;
  EXPECT_EQ(out.code, "ltiles.draw");
  EXPECT_EQ(s->apply(0, Move{"RRR@-4,0,0"}).error(), RuleError::game_over);
}

TEST(LTiles, TheSingleBestZoneWins) {
  auto s = mirrored_game_but_the_last_move();
  // Green keeps its last tile off the tower: GRG at (1,1) green, (2,1) red, (1,2) green.
  play(*s, {"GRG@1,1,0"});
  ASSERT_TRUE(s->is_over());
  // Green: (1,0) level 1, (2,0) and (3,0) level 9 (their level-10 tile was not placed), (4,0)
  // level 10, plus (1,1) and (1,2): 6 × 10 = 60. Red keeps 40.
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, std::vector<Seat>{1});
  EXPECT_EQ(out.scores, (std::vector<int>{40, 60}));
  EXPECT_EQ(out.reason, "green wins: best zone 60 (6 squares, up to level 10) against 40");
  EXPECT_EQ(out.code, "ltiles.best_zone");
  EXPECT_EQ(out.args,
            (json{{"seat", 1}, {"score", 60}, {"area", 6}, {"height", 10}, {"other", 40}}));
}

TEST(LTiles, EqualBestZonesAreDecidedByTheNextBestZones) {
  auto s = mirrored_game_but_the_last_move();
  // Green's last tile below the domino: green (0,1) and (0,2) join red's green square (-1,1) at
  // level 10: 3 × 10 = 30; the red arm (1,1) stands alone: 1.
  play(*s, {"GRG@0,1,0"});
  ASSERT_TRUE(s->is_over());
  // Red: 40; the red square (2,-1) of green's tower, now at level 9 and alone: 9; (1,1): 1.
  // Green: 40 ((1,0) (2,0) (3,0) (4,0), highest at level 10); 30. Best zones tie at 40; then
  // green's 30 beats red's 9.
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["scores"][0]["zones"], json({{40, 4, 10}, {9, 1, 9}, {1, 1, 1}}));
  EXPECT_EQ(v["scores"][1]["zones"], json({{40, 4, 10}, {30, 3, 10}}));
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, std::vector<Seat>{1});
  EXPECT_EQ(out.scores, (std::vector<int>{40, 40}));
  EXPECT_EQ(out.reason, "green wins: best zones tie at 40; 2nd-best zone 30 against 9");
  EXPECT_EQ(out.code, "ltiles.tie_break");
  EXPECT_EQ(out.args, (json{{"seat", 1}, {"best", 40}, {"rank", 2}, {"score", 30}, {"other", 9}}));
}

TEST(LTiles, AStandardGameEndsAfterExactly40Placements) {
  auto s = start("standard", "1", 9);
  int moves = 0;
  while (!s->is_over()) {
    ASSERT_LT(moves, 40);
    ASSERT_EQ(s->to_move(), moves % 2 == 0 ? 1 : 0) << "the players alternate";
    ASSERT_TRUE(s->apply(*s->to_move(), s->legal_moves().back()).has_value());
    ++moves;
  }
  EXPECT_EQ(moves, 40);
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["piles"][0]["size"], 0);
  EXPECT_EQ(v["piles"][1]["size"], 0);
  EXPECT_EQ(v["piles"][0]["top"], nullptr);
  ASSERT_TRUE(s->outcome().has_value());
  EXPECT_EQ(s->outcome()->scores.size(), 2u);
  EXPECT_EQ(s->outcome()->scores[0], v["scores"][0]["best"]);
  EXPECT_EQ(s->outcome()->scores[1], v["scores"][1]["best"]);
}

// ----------------------------------------------------------------------------------------------
// Notation.

TEST(LTiles, OnlyTheDocumentedNotationIsAccepted) {
  auto s = open_game();
  ASSERT_TRUE(legal(*s, "RRR@0,1,0"));
  ASSERT_TRUE(legal(*s, "RRR@-1,0,1"));
  for (const char* bad :
       {"RRR@00,1,0", "RRR@+0,1,0", "RRR@-0,1,0", "RRR@0,1,4", "rrr@0,1,0", "RRR@0,1,0 ",
        " RRR@0,1,0", "RRR@0,1", "RRR@0,1,0,0", "RRR0,1,0", "RRX@0,1,0", "RR@0,1,0", "RRR@-01,0,1",
        "RRR@0,1,-0", "pile RRR", "pass", "RRR@9999999,1,0"})
    expect_refused(*s, bad);
}

// ----------------------------------------------------------------------------------------------
// Variant 1: each player orders their own pile before play.

void order_pile(State& s, const std::vector<std::string>& kinds) {
  for (const auto& k : kinds) play(s, {"pile " + k});
}

// Red's order, first played first: the 14 tiles that are not RRR; the six RRR then fill in.
const std::vector<std::string> kRedOrder{"RRG", "RRG", "RGR", "RGR", "GRR", "GRR", "GRR",
                                         "NNR", "NRN", "RNN", "RRN", "RNR", "NRR", "NRR"};
const std::vector<std::string> kGreenOrder{"GGG", "GGG", "GGG", "GGG", "GGG", "GGG",
                                           "NGG", "NGG", "GNG", "GGN", "GNN", "NGN",
                                           "NNG", "RGG", "RGG", "RGG", "GRG", "GRG"};

TEST(LTiles, OrderedEachSeatOrdersItsPileAsSetupMovesFirstPlayerFirst) {
  auto s = start("ordered", "1");
  auto v = s->view(std::nullopt);
  EXPECT_EQ(v["phase"], "setup");
  EXPECT_EQ(s->to_move(), 1) << "the first player orders first";
  EXPECT_EQ(s->legal_moves().size(), 10u) << "one move per kind left to order";
  EXPECT_EQ(s->legal_moves().front().text.substr(0, 5), "pile ");
  expect_refused(*s, "GGG@0,1,0");  // no placement before the piles are ready
  EXPECT_EQ(s->apply(0, Move{"pile RRR"}).error(), RuleError::not_your_turn);
  order_pile(*s, kGreenOrder);
  // After 18 picks only the two GGR are left: they fill in by themselves.
  EXPECT_EQ(s->to_move(), 0);
  EXPECT_EQ(s->view(std::nullopt)["phase"], "setup");
  order_pile(*s, kRedOrder);
  v = s->view(std::nullopt);
  EXPECT_EQ(v["phase"], "play");
  EXPECT_EQ(s->to_move(), 1) << "play starts with the first player";
  EXPECT_EQ(v["piles"][1]["top"], "GGG");
  EXPECT_EQ(v["piles"][0]["top"], "RRG");
  EXPECT_EQ(v["piles"][0]["size"], 20);
  EXPECT_EQ(v["piles"][1]["size"], 20);
}

TEST(LTiles, OrderedTilesArePlayedInTheChosenOrder) {
  auto s = start("ordered", "0");
  order_pile(*s, kRedOrder);
  order_pile(*s, kGreenOrder);
  // Red's tiles come off in its order; the six RRR filled in last.
  std::vector<std::string> red_played;
  while (!s->is_over()) {
    const Seat seat = *s->to_move();
    const auto m = s->legal_moves().front();
    if (seat == 0) red_played.push_back(m.text.substr(0, 3));
    ASSERT_TRUE(s->apply(seat, m).has_value());
  }
  auto expected = kRedOrder;
  expected.insert(expected.end(), 6, "RRR");
  EXPECT_EQ(red_played, expected);
}

TEST(LTiles, OrderedAKindAlreadyUsedUpCannotBePiled) {
  auto s = start("ordered", "0");
  order_pile(*s, {"RNR"});  // the only RNR
  expect_refused(*s, "pile RNR");
  expect_refused(*s, "pile GGG");  // not in red's lot
  expect_refused(*s, "pile ");
  EXPECT_TRUE(legal(*s, "pile RRR"));
}

TEST(LTiles, OrderedOnlyTheOwnerSeesTheirOrder) {
  auto s = start("ordered", "0");
  order_pile(*s, {"RRG", "RGR"});
  EXPECT_EQ(s->view(0)["piles"][0]["order"], json({"RRG", "RGR"}));
  EXPECT_EQ(s->view(1)["piles"][0]["order"], nullptr);
  EXPECT_EQ(s->view(std::nullopt)["piles"][0]["order"], nullptr);
  EXPECT_EQ(s->view(1)["piles"][0]["size"], 2) << "how many are ordered is public";
  EXPECT_EQ(s->view(1)["piles"][0]["top"], nullptr) << "no top is shown during the set-up";
  EXPECT_EQ(s->view(0)["piles"][0]["top"], nullptr);
  EXPECT_EQ(s->view(0)["last"], nullptr);
}

TEST(LTiles, OrderedTheOrderNeverLeaksToTheOpponentOrSpectatorsLater) {
  // Two games, the same but for red's order below its first tile.
  auto a = start("ordered", "0"), b = start("ordered", "0");
  order_pile(*a, kRedOrder);
  auto other = kRedOrder;
  std::swap(other[1], other[13]);  // RRG and NRR swap places, below the top
  order_pile(*b, other);
  const auto same_for_others = [&](const char* when) {
    for (const auto viewer : {std::optional<Seat>{}, std::optional<Seat>{1}})
      EXPECT_EQ(a->view(viewer), b->view(viewer)) << when;
    EXPECT_NE(a->view(0), b->view(0)) << "red's own view shows red's own order";
  };
  same_for_others("after red's set-up");
  order_pile(*a, kGreenOrder);
  order_pile(*b, kGreenOrder);
  same_for_others("when play starts");
  play(*a, {"RRG@0,1,0", "GGG@2,0,0"});
  play(*b, {"RRG@0,1,0", "GGG@2,0,0"});
  EXPECT_EQ(a->view(0)["piles"][0]["order"].size(), 19u);
  EXPECT_NE(a->view(std::nullopt), b->view(std::nullopt)) << "now the second tiles are on top";
  EXPECT_EQ(a->view(std::nullopt)["piles"][0]["top"], "RRG");
  EXPECT_EQ(b->view(std::nullopt)["piles"][0]["top"], "NRR");
}

TEST(LTiles, OrderedGameRefusesPlacementsOfAnyTileButTheTop) {
  auto s = start("ordered", "0");
  order_pile(*s, kRedOrder);
  order_pile(*s, kGreenOrder);
  EXPECT_TRUE(legal(*s, "RRG@0,1,0"));
  expect_refused(*s, "RRR@0,1,0");
}

// ----------------------------------------------------------------------------------------------
// Variant 2: all tiles open, the player chooses any.

TEST(LTiles, OpenEveryTileIsVisibleAndAnyMayBePlayed) {
  auto s = open_game();
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["piles"][0]["top"], nullptr);
  EXPECT_EQ(v["piles"][0]["size"], 20);
  EXPECT_EQ(v["piles"][0]["left"]["RNR"], 1);
  EXPECT_EQ(s->view(0), v);
  std::set<std::string> kinds;
  for (const auto& m : s->legal_moves()) kinds.insert(m.text.substr(0, 3));
  EXPECT_EQ(kinds, std::set<std::string>(kRedKinds.begin(), kRedKinds.end()));
}

TEST(LTiles, OpenATileOnceUsedIsGone) {
  auto s = open_game();
  play(*s, {"RNR@0,1,0", "GGG@2,0,0"});
  EXPECT_EQ(s->view(std::nullopt)["piles"][0]["left"]["RNR"], 0);
  EXPECT_EQ(s->view(std::nullopt)["piles"][0]["size"], 19);
  expect_refused(*s, "RNR@-1,0,1");
  EXPECT_TRUE(legal(*s, "RRN@-1,0,1"));
  expect_refused(*s, "GGG@-1,0,1");  // nor may red play green's tiles
}

// ----------------------------------------------------------------------------------------------
// Variant 3: a face-up hand of 3, refilled from the pile.

TEST(LTiles, HandThreeTilesAreDrawnFaceUpAndAnyOfThemMayBePlayed) {
  auto s = start("hand", "0", 4);
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(s->view(0), v);
  EXPECT_EQ(s->view(1), v);
  for (int seat = 0; seat < 2; ++seat) {
    EXPECT_EQ(v["piles"][seat]["hand"].size(), 3u);
    EXPECT_EQ(v["piles"][seat]["size"], 17) << "20 - 3 in hand";
    EXPECT_TRUE(v["piles"][seat]["top"].is_string()) << "the pile stays face up";
  }
  std::set<std::string> hand, played;
  for (const auto& k : v["piles"][0]["hand"]) hand.insert(k.get<std::string>());
  for (const auto& m : s->legal_moves()) played.insert(m.text.substr(0, 3));
  EXPECT_EQ(played, hand);
  for (const auto& k : kRedKinds)
    if (!hand.contains(k)) expect_refused(*s, k + "@0,1,0");
}

TEST(LTiles, HandThePlayedTileIsReplacedInItsSlotByThePileTop) {
  auto s = start("hand", "0", 4);
  const auto before = s->view(std::nullopt)["piles"][0];
  // A slot whose kind sits in no earlier slot, so that playing that kind empties exactly it.
  const auto& h = before["hand"];
  const int slot = (h[2] != h[0] && h[2] != h[1]) ? 2 : (h[1] != h[0] ? 1 : 0);
  const std::string kind = before["hand"][slot];
  play(*s, {kind + "@0,1,0"});
  const auto after = s->view(std::nullopt)["piles"][0];
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(after["hand"][i], i == slot ? before["top"] : before["hand"][i]) << "slot " << i;
  EXPECT_EQ(after["size"], 16);
}

TEST(LTiles, HandTheHandEmptiesOnceThePileIsGone) {
  auto s = start("hand", "0", 4);
  for (int i = 0; i < 36; ++i)
    ASSERT_TRUE(s->apply(*s->to_move(), s->legal_moves().front()).has_value());
  // 18 tiles each played: pile 0, hand 2 (one slot empty).
  const auto p = s->view(std::nullopt)["piles"][0];
  EXPECT_EQ(p["size"], 0);
  EXPECT_EQ(p["top"], nullptr);
  int held = 0;
  for (const auto& k : p["hand"]) held += k.is_string();
  EXPECT_EQ(held, 2);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(s->apply(*s->to_move(), s->legal_moves().front()).has_value());
  EXPECT_TRUE(s->is_over());
  EXPECT_EQ(s->view(std::nullopt)["piles"][0]["hand"], json({nullptr, nullptr, nullptr}));
}

// The listed moves are exactly the placements apply() takes: apply() checks one spot against the
// table itself, while the list is built from a dense copy of the heights. Every spot around the
// table, at every turn of random games, for the kind to play.
TEST(LTiles, TheListedPlacementsAreExactlyThoseApplyTakes) {
  for (std::uint64_t seed : {3u, 4u}) {
    auto s = start("standard", "0", seed);
    ASSERT_TRUE(s);
    rules::Rng pick(seed);
    for (int turn = 0; !s->is_over() && turn < 40; ++turn) {
      const auto moves = s->legal_moves();
      ASSERT_FALSE(moves.empty());
      std::set<std::string> listed;
      for (const auto& m : moves) listed.insert(m.text);
      const std::string kind = moves.front().text.substr(0, moves.front().text.find('@'));
      int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
      const json view = s->view(std::nullopt);
      for (const auto& [key, square] : view["squares"].items()) {
        const int x = std::stoi(key), y = std::stoi(key.substr(key.find(',') + 1));
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
      }
      std::set<std::string> taken;
      for (int x = x0 - 3; x <= x1 + 3; ++x)
        for (int y = y0 - 3; y <= y1 + 3; ++y)
          for (int rot = 0; rot < 4; ++rot) {
            const std::string m = kind + "@" + std::to_string(x) + "," + std::to_string(y) + "," +
                                  std::to_string(rot);
            if (s->clone()->apply(*s->to_move(), Move{m})) taken.insert(m);
          }
      std::set<std::string> listed_of_kind;
      for (const auto& m : listed)
        if (m.starts_with(kind + "@")) listed_of_kind.insert(m);
      std::vector<std::string> only_taken, only_listed;
      std::ranges::set_difference(taken, listed_of_kind, std::back_inserter(only_taken));
      std::ranges::set_difference(listed_of_kind, taken, std::back_inserter(only_listed));
      ASSERT_EQ(only_taken, std::vector<std::string>{})
          << "taken, not listed; seed " << seed << ", turn " << turn;
      ASSERT_EQ(only_listed, std::vector<std::string>{})
          << "listed, not taken; seed " << seed << ", turn " << turn;
      // Listed in (corner, rotation) order, each once: the order clients and seeded picks see.
      std::vector<std::tuple<int, int, int>> order;
      for (const auto& m : moves) {
        const auto at = m.text.find('@'), c1 = m.text.find(',', at), c2 = m.text.find(',', c1 + 1);
        order.emplace_back(std::stoi(m.text.substr(at + 1)), std::stoi(m.text.substr(c1 + 1)),
                           std::stoi(m.text.substr(c2 + 1)));
      }
      EXPECT_TRUE(std::ranges::adjacent_find(order, std::greater_equal<>()) == order.end())
          << "seed " << seed << ", turn " << turn;
      play(*s, {moves[pick.below(moves.size())].text});
    }
  }
}

// ----------------------------------------------------------------------------------------------
// A position rebuilt from one seat's view alone (Game::from_view: a bot playing as a client).

// The options a room shows for start(variant, first).
json options_of(const std::string& variant, const char* first) {
  return *game().normalize_options({{"variant", variant}, {"first", first}});
}

std::unique_ptr<State> rebuilt(const json& options, const json& board, Seat viewer, Seat to_move,
                               std::uint64_t seed) {
  rules::Rng rng(seed);
  return game().from_view(Seen{options, board, viewer, to_move}, rng);
}

std::vector<std::string> sorted_moves(const State& s) {
  std::vector<std::string> out;
  for (const auto& m : s.legal_moves()) out.push_back(m.text);
  std::ranges::sort(out);
  return out;
}

// Plays `s` to its end with the first legal move each time: the kinds each seat placed, in order.
std::array<std::vector<std::string>, 2> kinds_played(State& s) {
  std::array<std::vector<std::string>, 2> kinds;
  while (!s.is_over()) {
    const Seat seat = *s.to_move();
    const Move m = s.legal_moves().front();
    kinds[seat].push_back(m.text.substr(0, 3));
    EXPECT_TRUE(s.apply(seat, m).has_value()) << m.text;
  }
  return kinds;
}

TEST(LTiles, FromViewRebuildsTheTowerExampleAndItsEnd) {
  // Variant 2 hides nothing: the rebuilt tower is the game itself, down to its outcome.
  auto s = mirrored_game_but_the_last_move();
  const json options = options_of("open", "0");
  auto r = rebuilt(options, s->view(1), 1, 1, 7);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->to_move(), 1);
  EXPECT_EQ(r->view(1), s->view(1));
  EXPECT_EQ(r->view(std::nullopt), s->view(std::nullopt));
  EXPECT_EQ(sorted_moves(*r), sorted_moves(*s));
  EXPECT_EQ(square(*r, -1, 1), sq(10, "G", 39));
  play(*s, {mirrored(kRedTower.back())});
  play(*r, {mirrored(kRedTower.back())});
  EXPECT_EQ(r->outcome(), s->outcome());
  // A finished game's board is one the game shows too.
  auto over = rebuilt(options, s->view(0), 0, 0, 7);
  ASSERT_TRUE(over);
  EXPECT_TRUE(over->is_over());
  EXPECT_EQ(over->view(0), s->view(0));
  EXPECT_EQ(over->outcome(), s->outcome());
}

TEST(LTiles, FromViewKeepsWhatTheViewerSeesAndDrawsTheRestAfresh) {
  // Variant 1 in play: red knows its own pile whole, and of green's only the top.
  auto s = start("ordered", "0");
  order_pile(*s, kRedOrder);
  order_pile(*s, kGreenOrder);
  play(*s, {"RRG@0,1,0", "GGG@2,0,0"});
  const json options = options_of("ordered", "0"), board = s->view(0);
  auto a = rebuilt(options, board, 0, 0, 1), b = rebuilt(options, board, 0, 0, 2);
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  for (const auto* r : {a.get(), b.get()}) {
    EXPECT_EQ(r->to_move(), 0);
    EXPECT_EQ(r->view(0), board);
    EXPECT_EQ(r->view(std::nullopt), s->view(std::nullopt)) << "the same tops and counts";
    EXPECT_EQ(sorted_moves(*r), sorted_moves(*s));
  }
  const auto real = kinds_played(*s), in_a = kinds_played(*a), in_b = kinds_played(*b);
  EXPECT_EQ(in_a[0], real[0]) << "red's pile is the order red chose";
  EXPECT_EQ(in_b[0], real[0]);
  EXPECT_NE(in_a[1], in_b[1]) << "green's pile below its top is drawn from the generator";
  EXPECT_EQ(in_a[1].front(), real[1].front()) << "green's top is seen";
  auto sorted = [](std::vector<std::string> kinds) {
    std::ranges::sort(kinds);
    return kinds;
  };
  EXPECT_EQ(sorted(in_a[1]), sorted(real[1])) << "the tiles green has left";
  EXPECT_EQ(sorted(in_b[1]), sorted(real[1]));
  // The same generator draws the same position.
  auto again = rebuilt(options, board, 0, 0, 1);
  ASSERT_TRUE(again);
  EXPECT_EQ(kinds_played(*again), in_a);
}

TEST(LTiles, FromViewDrawsThePicksOfASeatOrderingInFrontOfTheViewer) {
  // Red has ordered; green has picked 5 tiles, which red sees only the number of.
  auto s = start("ordered", "0");
  order_pile(*s, kRedOrder);
  order_pile(*s, {"GGG", "NGG", "RGG", "GRG", "GNN"});
  const json options = options_of("ordered", "0"), board = s->view(0);
  auto a = rebuilt(options, board, 0, 1, 1), b = rebuilt(options, board, 0, 1, 2);
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(a->to_move(), 1);
  EXPECT_EQ(a->view(0), board);
  EXPECT_EQ(b->view(0), board);
  EXPECT_EQ(a->view(0)["piles"][0]["order"], s->view(0)["piles"][0]["order"]);
  const json picks_a = a->view(1)["piles"][1]["order"], picks_b = b->view(1)["piles"][1]["order"];
  EXPECT_EQ(picks_a.size(), 5u);
  EXPECT_EQ(picks_b.size(), 5u);
  EXPECT_NE(picks_a, picks_b) << "green's picks are drawn, not known";
  // Green orders on in the rebuilt game, and play then starts with red.
  EXPECT_EQ(a->legal_moves().front().text.substr(0, 5), "pile ");
  while (a->view(std::nullopt)["phase"] == "setup") play(*a, {a->legal_moves().front().text});
  EXPECT_EQ(a->to_move(), 0);
}

TEST(LTiles, FromViewRefusesABoardTheGameWouldNotShow) {
  auto s = start("standard", "0");
  for (int i = 0; i < 3; ++i) play(*s, {s->legal_moves().front().text});
  const json options = options_of("standard", "0"), board = s->view(1);
  ASSERT_EQ(s->to_move(), 1);
  // Read from the wire, its non-negative numbers are unsigned: the same board.
  auto wire = rebuilt(options, json::parse(board.dump()), 1, 1, 3);
  ASSERT_TRUE(wire);
  EXPECT_EQ(wire->view(1), board);

  const auto refused = [&](const std::function<void(json&)>& change, const char* what) {
    json changed = board;
    change(changed);
    EXPECT_EQ(rebuilt(options, changed, 1, 1, 3), nullptr) << what;
  };
  refused([](json& b) { b = json::object(); }, "an empty object");
  refused([](json& b) { b.erase("tiles"); }, "no tiles");
  refused([](json& b) { b.erase("piles"); }, "no piles");
  refused([](json& b) { b["tiles"] = "many"; }, "tiles of the wrong type");
  refused([](json& b) { b["piles"].erase(1); }, "one pile");
  refused([](json& b) { b["piles"][0]["size"] = 99; }, "more tiles in a pile than in the lot");
  refused([](json& b) { b["piles"][0]["size"] = -1; }, "a negative pile");
  refused([](json& b) { b["piles"][0]["size"] = std::uint64_t{1} << 63; }, "a huge pile");
  refused(
      [](json& b) { b["piles"][1]["left"]["GGG"] = b["piles"][1]["left"]["GGG"].get<int>() + 1; },
      "a tile more left than the lot holds");
  refused([](json& b) { b["piles"][0]["top"] = "GGG"; }, "a green tile on red's pile");
  refused([](json& b) { b["piles"][0]["top"] = 7; }, "a top of the wrong type");
  refused([](json& b) { b["tiles"][1]["rot"] = 4; }, "a rotation that cannot be");
  refused([](json& b) { b["tiles"][1]["at"] = json::array({40, 40}); }, "a tile away from all");
  refused([](json& b) { b["tiles"][1]["at"] = json::array({0}); }, "a corner with one coordinate");
  refused([](json& b) { b["tiles"][1]["seat"] = 1; }, "green placing on red's turn");
  refused([](json& b) { b["tiles"][2]["kind"] = "XYZ"; }, "a kind that is no tile");
  refused([](json& b) { b["tiles"][3]["level"] = 5; }, "a level the tile is not at");
  refused([](json& b) { b["phase"] = "setup"; }, "a set-up in the standard game");
  refused([](json& b) { b["phase"] = "over"; }, "a game over before its end");
  refused([](json& b) { b["placed"] = 2; }, "a count of placed tiles that is not");
  EXPECT_EQ(rebuilt(options, board, 1, 0, 3), nullptr) << "red to move after three tiles";
  EXPECT_EQ(rebuilt(options, board, 2, 1, 3), nullptr) << "a seat the game does not have";
  EXPECT_EQ(rebuilt(options_of("open", "0"), board, 1, 1, 3), nullptr) << "another variant";
  EXPECT_EQ(rebuilt(options_of("standard", "1"), board, 1, 1, 3), nullptr) << "green started";
  EXPECT_EQ(rebuilt(json("x"), board, 1, 1, 3), nullptr) << "options that are not";

  // Variant 3: a hand slot is empty only once the pile has run out.
  auto h = start("hand", "0");
  const json hand_board = h->view(0), hand_options = options_of("hand", "0");
  ASSERT_TRUE(rebuilt(hand_options, hand_board, 0, 0, 3));
  json gap = hand_board;
  gap["piles"][0]["hand"][1] = nullptr;
  EXPECT_EQ(rebuilt(hand_options, gap, 0, 0, 3), nullptr);
  json short_hand = hand_board;
  short_hand["piles"][0]["hand"].erase(2);
  EXPECT_EQ(rebuilt(hand_options, short_hand, 0, 0, 3), nullptr);

  // Variant 1: the owner's order must hold the tiles the seat has left, no more, no fewer.
  auto o = start("ordered", "0");
  order_pile(*o, kRedOrder);
  order_pile(*o, kGreenOrder);
  const json ordered_board = o->view(0), ordered_options = options_of("ordered", "0");
  ASSERT_TRUE(rebuilt(ordered_options, ordered_board, 0, 0, 3));
  json longer = ordered_board;
  longer["piles"][0]["order"].push_back("RRR");
  EXPECT_EQ(rebuilt(ordered_options, longer, 0, 0, 3), nullptr);
}

TEST(LTiles, FromViewNeverThrowsOnAMangledBoard) {
  // Real boards of every variant with one value replaced by something of another type or out
  // of range: each is refused or rebuilt, never a crash or an exception.
  const std::vector<json> odd{nullptr,
                              -1,
                              0,
                              3,
                              1000000000,
                              std::uint64_t{1} << 63,
                              2.5,
                              "RRR",
                              "x",
                              json::array(),
                              json::array({1, 2}),
                              json::object()};
  rules::Rng pick(11);
  int refused = 0;
  for (const char* variant : {"standard", "ordered", "open", "hand"}) {
    auto s = start(variant, "0", 4);
    const json options = options_of(variant, "0");
    for (int turn = 0; turn < 24 && !s->is_over(); ++turn) {
      const Seat v = *s->to_move();
      const json board = s->view(v);
      const json leaves = board.flatten();
      for (int i = 0; i < 6; ++i) {
        auto leaf = leaves.begin();
        std::advance(leaf, static_cast<std::ptrdiff_t>(pick.below(leaves.size())));
        json changed = board;
        changed[json::json_pointer(leaf.key())] = odd[pick.below(odd.size())];
        EXPECT_NO_THROW(refused += rebuilt(options, changed, v, v, 5) == nullptr)
            << variant << " " << leaf.key();
      }
      play(*s, {s->legal_moves()[pick.below(s->legal_moves().size())].text});
    }
  }
  EXPECT_GT(refused, 300);
}

}  // namespace
}  // namespace plateau::rules::ltiles

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(
    LTiles, Conformance,
    ::testing::Values(
        ConformanceCase{&ltiles::game(), {{"players", 2}}, "ltiles_standard"},
        ConformanceCase{
            &ltiles::game(), {{"players", 2}, {"variant", "ordered"}}, "ltiles_ordered"},
        ConformanceCase{&ltiles::game(), {{"players", 2}, {"variant", "open"}}, "ltiles_open", 8},
        ConformanceCase{&ltiles::game(), {{"players", 2}, {"variant", "hand"}}, "ltiles_hand"},
        ConformanceCase{&ltiles::game(), {{"players", 2}, {"first", "1"}}, "ltiles_second_starts"}),
    conformance_case_name);

}  // namespace plateau::rules::testing
