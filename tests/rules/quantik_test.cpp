// Quantik scenarios: every sentence of quantik.fr.md and the Quantik part of DECISIONS.md.
#include <gtest/gtest.h>

#include "conformance.hpp"
#include "rules/quantik/quantik.hpp"
#include "scenario.hpp"

namespace plateau::rules::quantik {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;

std::unique_ptr<State> start(const char* first = "0") {
  auto s = game().create({{"first", first}}, 1);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

TEST(Quantik, EachPlayerHasEightPiecesTwoOfEachShape) {
  const auto v = start()->view(std::nullopt);
  const json two_each{{"sphere", 2}, {"cylinder", 2}, {"cube", 2}, {"cone", 2}};
  EXPECT_EQ(v["pieces"], json::array({two_each, two_each}));
  // The board is 4 × 4 and empty.
  ASSERT_EQ(v["cells"].size(), 4u);
  for (const auto& row : v["cells"])
    EXPECT_EQ(row, json::array({nullptr, nullptr, nullptr, nullptr}));
}

TEST(Quantik, APieceGoesOnAnEmptyCellAndTurnsAlternate) {
  auto s = start();
  EXPECT_EQ(s->to_move(), 0);
  play(*s, {"cube@b2"});
  EXPECT_EQ(s->to_move(), 1);
  // b2 holds a cube: no shape may go there, by either player.
  for (const char* m : {"sphere@b2", "cylinder@b2", "cone@b2"}) expect_refused(*s, m);
  play(*s, {"cone@c3"});
  EXPECT_EQ(s->to_move(), 0);
  expect_refused(*s, "cube@c3");
  EXPECT_EQ(s->apply(1, Move{"sphere@a4"}).error(), RuleError::not_your_turn);
}

TEST(Quantik, EveryGameEndsWithOneWinnerNeverADraw) {
  // Random games, to the end: each has exactly one winner, the player who did not run out of
  // moves or who completed a line.
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    auto s = game().create({}, seed);
    ASSERT_TRUE(s.has_value());
    random_playout(**s, seed);
    ASSERT_TRUE((*s)->is_over());
    EXPECT_EQ((*s)->outcome()->winners.size(), 1u) << "seed " << seed;
  }
}

TEST(Quantik, TheFirstPieceMayGoOnAnyCellInAnyShape) {
  auto s = start();
  EXPECT_EQ(s->legal_moves().size(), 64u);
}

TEST(Quantik, AShapeIsForbiddenInARowWhereTheOpponentHasIt) {
  auto s = start();
  play(*s, {"sphere@a1"});
  EXPECT_FALSE(legal(*s, "sphere@d1"));
  EXPECT_EQ(s->apply(1, Move{"sphere@d1"}).error(), RuleError::illegal_move);
  EXPECT_TRUE(legal(*s, "cube@d1"));
}

TEST(Quantik, AShapeIsForbiddenInAColumnWhereTheOpponentHasIt) {
  auto s = start();
  play(*s, {"sphere@a1"});
  EXPECT_FALSE(legal(*s, "sphere@a4"));
  EXPECT_TRUE(legal(*s, "cone@a4"));
}

TEST(Quantik, AShapeIsForbiddenInARegionWhereTheOpponentHasIt) {
  auto s = start();
  play(*s, {"sphere@a1"});
  EXPECT_FALSE(legal(*s, "sphere@b2"));
  EXPECT_TRUE(legal(*s, "sphere@c3")) << "another row, column and region";
  // Exactly the 7 cells sharing a row, column or region with a1 are closed to the sphere.
  EXPECT_EQ(s->legal_moves().size(), 15u * 4 - 7);
}

TEST(Quantik, OnesOwnSameShapeIsNoObstacle) {
  auto s = start();
  play(*s, {"sphere@a1", "cube@d4"});
  EXPECT_TRUE(legal(*s, "sphere@b1")) << "same row and region as one's own sphere";
  EXPECT_TRUE(legal(*s, "sphere@a3")) << "same column";
  play(*s, {"sphere@b2"});
}

TEST(Quantik, AMoveAllowedByOwnPiecesButForbiddenByTheOpponentsIsForbidden) {
  auto s = start();
  play(*s, {"sphere@a1", "sphere@c3"});
  // c1: row 1 holds our own sphere (allowed), column c holds the opponent's (forbidden).
  EXPECT_FALSE(legal(*s, "sphere@c1"));
}

TEST(Quantik, FourDifferentShapesInARowWinWhoeverOwnsThem) {
  auto s = start();
  play(*s, {"sphere@a1", "cylinder@b1", "cube@c1"});
  EXPECT_FALSE(s->is_over());
  play(*s, {"cone@d1"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1}) << "the player who placed the fourth";
  EXPECT_EQ(s->view(std::nullopt)["win_line"], json({"a1", "b1", "c1", "d1"}));
}

TEST(Quantik, FourDifferentShapesInAColumnWin) {
  auto s = start();
  play(*s, {"sphere@b1", "cylinder@b2", "cube@b3", "cone@b4"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1});
}

TEST(Quantik, FourDifferentShapesInARegionWin) {
  auto s = start();
  play(*s, {"sphere@c3", "cylinder@d3", "cube@c4"});
  play(*s, {"cone@d4"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1});
  EXPECT_NE(s->outcome()->reason.find("region"), std::string::npos);
  EXPECT_EQ(s->outcome()->code, "quantik.line");
  EXPECT_EQ(s->outcome()->args, (json{{"line", "region"}}));
}

TEST(Quantik, FourPiecesWithARepeatedShapeDoNotWin) {
  auto s = start();
  play(*s, {"sphere@a1", "cylinder@b1", "sphere@c1", "cone@d1"});
  EXPECT_FALSE(s->is_over());
}

TEST(Quantik, AWinningMoveMustItselfBeLegal) {
  auto s = start();
  // Row 1 lacks only a cone, but the opponent's cone in column d forbids it to seat 0.
  play(*s, {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d3"});
  EXPECT_EQ(s->apply(0, Move{"cone@d1"}).error(), RuleError::illegal_move);
  EXPECT_FALSE(s->is_over());
}

TEST(Quantik, AFullBoardWithNoCompletedLineLosesForThePlayerToMove) {
  // DECISIONS.md: rows A A B C / D D B C / b c a a / b c d d (capitals seat 0).
  auto s = start();
  play(*s, {"sphere@a1", "cylinder@a3", "sphere@b1", "cube@b3", "cylinder@c1", "sphere@c3",
            "cube@d1", "sphere@d3", "cone@a2", "cylinder@a4", "cone@b2", "cube@b4", "cylinder@c2",
            "cone@c4", "cube@d2", "cone@d4"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1}) << "seat 0 has no piece left and loses";
  EXPECT_TRUE(s->legal_moves().empty());
}

TEST(Quantik, APlayerWithPiecesButNoLegalPlacementLoses) {
  auto s = start();
  play(*s, {"sphere@a4", "cube@a3", "sphere@b1", "cube@b3", "cube@d1", "cone@c2", "cylinder@a1",
            "cone@d3", "cylinder@c3", "cylinder@b4", "cube@d2"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  const auto pieces = s->view(1)["pieces"][1];
  EXPECT_EQ(pieces["sphere"], 2) << "seat 1 still had pieces";
  EXPECT_EQ(pieces["cylinder"], 1);
}

TEST(Quantik, APieceOfWhichNoneAreLeftCannotBePlayed) {
  auto s = start();
  play(*s, {"sphere@a1", "cube@d4", "sphere@b2"});
  play(*s, {"cube@c3"});
  EXPECT_FALSE(legal(*s, "sphere@a3")) << "both spheres are on the board";
  EXPECT_EQ(s->view(0)["pieces"][0]["sphere"], 0);
}

TEST(Quantik, TheHostMayChooseWhoStarts) {
  EXPECT_EQ(start("0")->to_move(), 0);
  EXPECT_EQ(start("1")->to_move(), 1);
}

TEST(Quantik, TheFirstPlayerIsOtherwiseDrawnFromTheSeed) {
  expect_starter_drawn_from_seed(game(), 2);
}

TEST(Quantik, PerftFromTheEmptyBoard) {
  auto s = start();
  EXPECT_EQ(perft(*s, 1), 64u);
  EXPECT_EQ(perft(*s, 2), 3392u);    // 64 × (60 − 7)
  EXPECT_EQ(perft(*s, 3), 167552u);  // cross-checked with an independent brute force
}

TEST(Quantik, TheViewShowsTheBoardPiecesLeftAndTheLastMove) {
  auto s = start();
  play(*s, {"cone@b3"});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["cells"][2][1], json({{"shape", "cone"}, {"seat", 0}}));
  EXPECT_EQ(v["cells"][0][0], nullptr);
  EXPECT_EQ(v["pieces"][0]["cone"], 1);
  EXPECT_EQ(v["pieces"][1]["cone"], 2);
  EXPECT_EQ(v["last"], "cone@b3");
}

// ---- A position from a seat's view alone (Game::from_view) ----------------------------------

const json kOptions{{"players", 2}, {"first", "random"}};

std::unique_ptr<State> rebuilt(const json& board, Seat to_move, std::uint64_t seed = 1,
                               const json& options = kOptions) {
  Rng rng(seed);
  return game().from_view(Seen{options, board, to_move, to_move}, rng);
}

std::vector<std::string> sorted_moves(const State& s) {
  std::vector<std::string> out;
  for (auto& m : s.legal_moves()) out.push_back(std::move(m.text));
  std::ranges::sort(out);
  return out;
}

// The position of APlayerWithPiecesButNoLegalPlacementLoses one move before its end.
const std::vector<std::string> kTenMoves{"sphere@a4",   "cube@a3",    "sphere@b1",   "cube@b3",
                                         "cube@d1",     "cone@c2",    "cylinder@a1", "cone@d3",
                                         "cylinder@c3", "cylinder@b4"};

TEST(Quantik, AViewRebuildsItsPositionExactly) {
  auto s = start();
  play(*s, kTenMoves);
  ASSERT_EQ(s->to_move(), 0);
  const json board = s->view(0);
  // Nothing is hidden, so whatever the draws, the rebuilt position is the position itself.
  const auto a = rebuilt(board, 0, 1), b = rebuilt(board, 0, 2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->view(0), board);
  EXPECT_EQ(b->view(0), board);
  EXPECT_EQ(a->view(1), s->view(1));
  EXPECT_EQ(a->to_move(), 0);
  EXPECT_EQ(sorted_moves(*a), sorted_moves(*s));
  // It plays on as the game does: white's cube leaves black no placement.
  play(*a, {"cube@d2"});
  play(*s, {"cube@d2"});
  EXPECT_EQ(a->outcome(), s->outcome());
  // The starter is not on the board: the seat that has placed more pieces started.
  auto one = start("1");
  play(*one, {"cone@b3"});
  const auto from_one = rebuilt(one->view(0), 0);
  ASSERT_TRUE(from_one);
  EXPECT_EQ(from_one->view(0), one->view(0));
  EXPECT_EQ(rebuilt(one->view(0), 0, 1, {{"players", 2}, {"first", "0"}}), nullptr)
      << "with seat 0 named to start, seat 1 cannot have placed first";
}

TEST(Quantik, ABoardQuantikDoesNotShowIsRefused) {
  auto s = start();
  play(*s, {"sphere@a1", "cube@d4", "sphere@b2", "cube@c3"});
  const json board = s->view(0);
  ASSERT_TRUE(rebuilt(board, 0));
  EXPECT_EQ(rebuilt(board, 1), nullptr) << "turns alternate: seat 0 is to move";
  EXPECT_EQ(rebuilt(board, 2), nullptr);
  EXPECT_EQ(rebuilt(board, 0, 1, {{"players", 3}}), nullptr);
  const auto changed = [&](const char* pointer, json value) {
    json b = board;
    b[json::json_pointer(pointer)] = std::move(value);
    return b;
  };
  json no_cells = board;
  no_cells.erase("cells");
  EXPECT_EQ(rebuilt(no_cells, 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/cells/0/0/seat", 2), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/cells/0/0/seat", "0"), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/cells/0/0/shape", "pyramid"), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/cells/0/0", 7), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/cells/3", json::array({nullptr, nullptr, nullptr})), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/last", "cone@a4"), 0), nullptr) << "a4 is empty";
  EXPECT_EQ(rebuilt(changed("/last", "sphere@b2"), 0), nullptr) << "seat 0 is to move";
  EXPECT_EQ(rebuilt(changed("/pieces/0/sphere", 1), 0), nullptr) << "both spheres are down";
  EXPECT_EQ(rebuilt(changed("/win_line", json::array({"a1", "b1", "c1", "d1"})), 0), nullptr);
  // A third sphere for seat 0 (and a cone for seat 1, so that the counts alternate).
  json third = changed("/cells/3/0", {{"shape", "sphere"}, {"seat", 0}});
  third["cells"][0][3] = {{"shape", "cone"}, {"seat", 1}};
  EXPECT_EQ(rebuilt(third, 0), nullptr);
  // Seat 1's sphere beside seat 0's in row 1: it could never have been placed.
  json facing = changed("/cells/0/2", {{"shape", "sphere"}, {"seat", 1}});
  facing["cells"][3][0] = {{"shape", "cone"}, {"seat", 0}};
  EXPECT_EQ(rebuilt(facing, 0), nullptr);
  // A finished game has nobody to move.
  auto over = start();
  play(*over, kTenMoves);
  play(*over, {"cube@d2"});
  ASSERT_TRUE(over->is_over());
  EXPECT_EQ(rebuilt(over->view(1), 1), nullptr);
}

}  // namespace
}  // namespace plateau::rules::quantik
