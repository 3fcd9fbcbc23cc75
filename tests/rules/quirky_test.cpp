// Quirky scenarios: every sentence of quirky.fr.md, the Quirky part of DECISIONS.md and the rules
// points of issue 4. Positions are built by playing moves; to know what each draw brings, most
// tests use the documented test-only create_with_stacked_bag (the bag is drawn front first).
// Point names: letter = place in the row from the left, digit = row from the apex (a1 .. g7).
#include "rules/quirky/quirky.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "conformance.hpp"
#include "scenario.hpp"

namespace plateau::rules::quirky {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;
using Bag = std::vector<std::string>;

// A game whose bag holds exactly `bag`, drawn front first; seat 0 draws first.
std::unique_ptr<State> stacked(const Bag& bag, int players = 2, json extra = json::object()) {
  json options{{"players", players}, {"first", "0"}};
  options.update(extra);
  auto s = create_with_stacked_bag(options, 1, bag);
  EXPECT_TRUE(s.has_value()) << options.dump();
  return s ? std::move(*s) : nullptr;
}

Bag repeat(const std::string& piece, int n) { return Bag(static_cast<std::size_t>(n), piece); }
Bag operator+(Bag a, const Bag& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

json view(const State& s) { return s.view(std::nullopt); }
int score(const State& s, Seat seat) { return view(s)["seats"][seat]["score"].get<int>(); }
json scored(const State& s) { return view(s)["last"]["scored"]; }
std::string drawn(const State& s) { return view(s)["drawn"]["piece"].get<std::string>(); }

json triangle(std::vector<std::string> corners, const std::string& colour, json seat, int gain) {
  return json{{"points", corners}, {"colour", colour}, {"seat", seat}, {"gain", gain}};
}

// The 28 points in board order (row by row from the apex, left to right).
std::vector<std::string> all_points() {
  std::vector<std::string> ids;
  for (int row = 1; row <= 7; ++row)
    for (int i = 0; i < row; ++i)
      ids.push_back(std::string(1, static_cast<char>('a' + i)) + std::to_string(row));
  return ids;
}

// ---------------------------------------------------------------------------------------------
// The board and its triangles

TEST(Quirky, TheBoardIsATriangleOfSideSevenWithTwentyEightPoints) {
  auto s = stacked({"green"});
  const auto points = view(*s)["points"];
  ASSERT_EQ(points.size(), 28u);  // 1 + 2 + ... + 7
  const auto ids = all_points();
  for (std::size_t p = 0; p < ids.size(); ++p) EXPECT_EQ(points[p]["id"], ids[p]);
  // Doubled coordinates: the apex in the middle of the bottom row's 0..12 span.
  EXPECT_EQ(points[0], json({{"id", "a1"}, {"x", 6}, {"y", 0}, {"stack", json::array()}}));
  EXPECT_EQ(points[21], json({{"id", "a7"}, {"x", 0}, {"y", 6}, {"stack", json::array()}}));
  EXPECT_EQ(points[27], json({{"id", "g7"}, {"x", 12}, {"y", 6}, {"stack", json::array()}}));
}

TEST(Quirky, TheBoardHoldsEveryEquilateralTriangleTiltedOnesIncluded) {
  // Upward triangles of size k in a triangle of side 6 edges: C(8-k, 2) for k = 1..6:
  // 21 + 15 + 10 + 6 + 3 + 1 = 56. Downward of size k: C(8-2k, 2) for k = 1..3: 15 + 6 + 1 = 22.
  // Aligned: 56 + 22 = 78. With tilted ones: every triangle is inscribed in one upward triangle of
  // size s at one of s positions: sum over s of s * C(8-s, 2) = 21 + 30 + 30 + 24 + 15 + 6 = 126
  // (= C(9, 4)), so 126 - 78 = 48 tilted.
  EXPECT_EQ(triangle_count(false), 126u);
  EXPECT_EQ(triangle_count(true), 78u);
}

// One scenario per triangle size and orientation: three greens placed on its corners.
struct Shape {
  const char* name;
  std::array<const char*, 3> corners;  // in board order, as the view lists them
  bool aligned;
};

void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

class QuirkyTriangle : public ::testing::TestWithParam<Shape> {};

TEST_P(QuirkyTriangle, ThreeGreenTopsOnItsCornersScoreThreePointsForGreen) {
  const Shape& shape = GetParam();
  auto s = stacked(repeat("green", 3));
  play(*s, {shape.corners[0], shape.corners[1]});
  EXPECT_EQ(score(*s, 0), 0) << "two corners are not a triangle";
  EXPECT_EQ(scored(*s), json::array());
  play(*s, {shape.corners[2]});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(score(*s, 1), 0);
  EXPECT_EQ(scored(*s),
            json::array(
                {triangle({shape.corners[0], shape.corners[1], shape.corners[2]}, "green", 0, 3)}));
}

TEST_P(QuirkyTriangle, WithTheAlignedOptionOnlyLatticeAlignedTrianglesScore) {
  const Shape& shape = GetParam();
  auto s = stacked(repeat("green", 3), 2, {{"triangles", "aligned"}});
  play(*s, {shape.corners[0], shape.corners[1], shape.corners[2]});
  EXPECT_EQ(score(*s, 0), shape.aligned ? 3 : 0);
  EXPECT_EQ(scored(*s).size(), shape.aligned ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Quirky, QuirkyTriangle,
    ::testing::Values(
        // Upward: apex (i, j), then (i, j+k) and (i+k, j+k).
        Shape{"Upward1", {"a1", "a2", "b2"}, true}, Shape{"Upward2", {"b3", "b5", "d5"}, true},
        Shape{"Upward3", {"a1", "a4", "d4"}, true}, Shape{"Upward4", {"a2", "a6", "e6"}, true},
        Shape{"Upward5", {"b2", "b7", "g7"}, true},
        Shape{"Upward6TheWholeBoard", {"a1", "a7", "g7"}, true},
        // Downward: (i, j), (i+k, j), then (i+k, j+k) below.
        Shape{"Downward1", {"a2", "b2", "b3"}, true}, Shape{"Downward2", {"a3", "c3", "c5"}, true},
        Shape{"Downward3", {"a4", "d4", "d7"}, true},
        // Tilted, inscribed in the upward triangle a1-a4-d4 one step from each corner, both ways
        // round: side sqrt(1 + 4 - 2) = sqrt 3.
        Shape{"TiltedRoot3Clockwise", {"a2", "c3", "b4"}, false},
        Shape{"TiltedRoot3Anticlockwise", {"b2", "a3", "c4"}, false},
        // Inscribed in a1-a5-e5 one step (and three steps) from each corner: sqrt(1 + 9 - 3) =
        // sqrt 7.
        Shape{"TiltedRoot7Clockwise", {"a2", "d4", "b5"}, false},
        Shape{"TiltedRoot7Anticlockwise", {"b2", "a4", "d5"}, false},
        // Inscribed in a1-a7-g7 two steps from each corner: sqrt(4 + 16 - 8) = 2 sqrt 3.
        Shape{"TiltedTwoRoot3", {"a3", "e5", "c7"}, false},
        // Inscribed in a1-a7-g7 one step from each corner: sqrt(1 + 25 - 5) = sqrt 21.
        Shape{"TiltedRoot21", {"a2", "f6", "b7"}, false}),
    [](const ::testing::TestParamInfo<Shape>& info) { return std::string(info.param.name); });

TEST(Quirky, ThreeMarkersNotInAnEquilateralTriangleScoreNothing) {
  auto s = stacked(repeat("green", 3));
  play(*s, {"a1", "a2", "a3"});  // a straight line
  EXPECT_EQ(score(*s, 0), 0);
  auto t = stacked(repeat("green", 3));
  play(*t, {"a1", "b2", "b3"});  // sides 1, 1 and sqrt 3
  EXPECT_EQ(score(*t, 0), 0);
}

TEST(Quirky, ATriangleOfTopsInTwoColoursScoresNothing) {
  auto s = stacked({"green", "green", "yellow"});
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 0), 0);
  EXPECT_EQ(score(*s, 1), 0);
}

// ---------------------------------------------------------------------------------------------
// Scoring

TEST(Quirky, ATriangleOfAnOpponentsColourScoresForThatOpponentWhoeverPlacedIt) {
  auto s = stacked(repeat("yellow", 3));
  play(*s, {"a1", "a2"});
  ASSERT_EQ(s->to_move(), 0);
  play(*s, {"b2"});  // seat 0 completes a yellow triangle
  EXPECT_EQ(score(*s, 0), 0);
  EXPECT_EQ(score(*s, 1), 3);
  EXPECT_EQ(scored(*s), json::array({triangle({"a1", "a2", "b2"}, "yellow", 1, 3)}));
  EXPECT_EQ(view(*s)["last"]["seat"], 0);
}

TEST(Quirky, TheNeutralColourScoresForNobodyInATwoPlayerGame) {
  auto s = stacked(repeat("red", 3));
  EXPECT_EQ(view(*s)["neutral"], "red");
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 0), 0);
  EXPECT_EQ(score(*s, 1), 0);
  // Still shown, as a triangle that gave nothing.
  EXPECT_EQ(scored(*s), json::array({triangle({"a1", "a2", "b2"}, "red", nullptr, 0)}));
  EXPECT_EQ(view(*s)["log"].back()["gain"], json({0, 0}));
}

TEST(Quirky, RedScoresForTheThirdPlayerInAThreePlayerGame) {
  auto s = stacked(repeat("red", 3), 3);
  EXPECT_EQ(view(*s)["neutral"], nullptr);
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 2), 3);
  EXPECT_EQ(view(*s)["log"].back()["gain"], json({0, 0, 3}));
}

TEST(Quirky, SevenTrianglesMadeByOneMarkerScoreTwentyOnePoints) {
  // Figure 3's claim, built around c5: its six neighbours b4 c4 b5 d5 c6 d6, plus e5 and e7 (two
  // steps east and south-east). Green on c5 then closes the 6 unit triangles around it and the
  // size-2 triangle c5-e5-e7: 7 triangles, 7 × 3 = 21 points.
  auto s = stacked(repeat("green", 9));
  play(*s, {"b4", "c4", "b5", "d5", "c6", "d6", "e5", "e7"});
  const int before = score(*s, 0);
  play(*s, {"c5"});
  EXPECT_EQ(score(*s, 0) - before, 21);
  EXPECT_EQ(scored(*s).size(), 7u);
  EXPECT_EQ(scored(*s)[0], triangle({"b4", "c4", "c5"}, "green", 0, 3));
  for (const auto& t : scored(*s))
    EXPECT_NE(std::ranges::find(t["points"], "c5"), t["points"].end());
}

TEST(Quirky, MoreThanSevenTrianglesAtOnceAreNotCapped) {
  // c5 with its six neighbours and the six points two steps away in every direction (a3 c3 a5 e5
  // c7 e7): 6 unit triangles + 6 size-2 triangles with a corner on c5 = 12, 12 × 3 = 36 points.
  auto s = stacked(repeat("green", 13));
  play(*s, {"b4", "c4", "b5", "d5", "c6", "d6", "a3", "c3", "a5", "e5", "c7", "e7"});
  const int before = score(*s, 0);
  play(*s, {"c5"});
  EXPECT_EQ(score(*s, 0) - before, 36);
  EXPECT_EQ(scored(*s).size(), 12u);
}

TEST(Quirky, AddingAMarkerToAFormedTriangleScoresOnlyTheNewTriangle) {
  // Figure 2: a1 a2 b2 scores; green on b3 adds the downward a2 b2 b3 and nothing else.
  auto s = stacked(repeat("green", 4));
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 0), 3);
  play(*s, {"b3"});
  EXPECT_EQ(score(*s, 0), 6);
  EXPECT_EQ(scored(*s), json::array({triangle({"a2", "b2", "b3"}, "green", 0, 3)}));
}

TEST(Quirky, AnExistingTriangleIsNotScoredAgainByALaterUnrelatedMove) {
  auto s = stacked(repeat("green", 3) + Bag{"yellow"});
  play(*s, {"a1", "a2", "b2"});
  play(*s, {"g7"});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(scored(*s), json::array());
}

TEST(Quirky, AMarkerPlacedOnAnOpponentsMarkerCanCompleteATriangle) {
  // Figure 2: green a1 and b2, yellow a2; green on top of the yellow completes a1 a2 b2.
  auto s = stacked({"green", "yellow", "green", "green"});
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 0), 0);
  play(*s, {"a2"});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(view(*s)["points"][1]["stack"], json({"yellow", "green"}));
}

TEST(Quirky, AMarkerPlacedOnAnOpponentsMarkerBlocksTheirTriangle) {
  // Figure 4: yellow a1 and a2; green covers a2; the yellow on b2 then makes nothing.
  auto s = stacked({"yellow", "yellow", "green", "yellow"});
  play(*s, {"a1", "a2", "a2", "b2"});
  EXPECT_EQ(score(*s, 1), 0);
  EXPECT_EQ(scored(*s), json::array());
}

TEST(Quirky, CoveringATriangleDeductsNothingAndExposingItAgainScoresAgain) {
  auto s = stacked({"yellow", "yellow", "yellow", "green", "black", "red"});
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 1), 3);
  play(*s, {"a2"});  // seat 1 covers a yellow corner with green
  EXPECT_EQ(score(*s, 1), 3) << "no point is ever deducted";
  ASSERT_EQ(drawn(*s), "black");
  play(*s, {"xa2"});  // the green goes back to the bag, the yellow triangle shows again
  EXPECT_EQ(score(*s, 1), 6);
  EXPECT_EQ(scored(*s), json::array({triangle({"a1", "a2", "b2"}, "yellow", 1, 3)}));
}

// ---------------------------------------------------------------------------------------------
// Placement

TEST(Quirky, TheFirstMarkerMayGoOnAnyOfTheTwentyEightPoints) {
  auto s = stacked({"green"});
  EXPECT_EQ(drawn(*s), "green");
  EXPECT_EQ(s->legal_moves().size(), 28u);
  EXPECT_EQ(view(*s)["drawn"]["points"].size(), 28u);
}

TEST(Quirky, MarkersOfTheSameColourCannotBeStacked) {
  auto s = stacked({"green", "green"});
  play(*s, {"a1"});
  EXPECT_FALSE(legal(*s, "a1"));
  EXPECT_EQ(s->apply(1, Move{"a1"}).error(), RuleError::illegal_move);
  EXPECT_EQ(s->legal_moves().size(), 27u);
}

TEST(Quirky, AMarkerMayGoOnAStackOfOneOrTwoWithAnotherColourOnTopButNotOnAStackOfThree) {
  auto s = stacked({"green", "yellow", "green", "red"});
  play(*s, {"a1", "a1"});  // yellow on green
  EXPECT_TRUE(legal(*s, "a1")) << "green on yellow on green: only the top must differ";
  play(*s, {"a1"});
  EXPECT_EQ(view(*s)["points"][0]["stack"], json({"green", "yellow", "green"}));
  ASSERT_EQ(drawn(*s), "red");
  EXPECT_FALSE(legal(*s, "a1")) << "three high is the limit";
  EXPECT_EQ(s->apply(1, Move{"a1"}).error(), RuleError::illegal_move);
  EXPECT_EQ(s->legal_moves().size(), 27u);
}

TEST(Quirky, TheDrawnMarkerMustBePlayedThereIsNoPass) {
  auto s = stacked({"yellow", "green"});
  EXPECT_FALSE(legal(*s, "pass"));
  EXPECT_EQ(s->apply(0, Move{"pass"}).error(), RuleError::illegal_move);
  for (const auto& m : s->legal_moves())
    EXPECT_EQ(m.text.size(), 2u) << "only placements: " << m.text;
}

TEST(Quirky, OnlyTheSeatWhoDrewMayPlay) {
  auto s = stacked({"yellow", "green"});
  EXPECT_EQ(view(*s)["drawn"]["seat"], 0);
  EXPECT_EQ(s->apply(1, Move{"a1"}).error(), RuleError::not_your_turn);
  play(*s, {"a1"});
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(view(*s)["drawn"]["seat"], 1);
}

TEST(Quirky, TurnsGoRoundTheTableInSeatOrder) {
  auto s = stacked(repeat("green", 4), 3);
  std::vector<Seat> movers;
  for (const char* m : {"a1", "c3", "e5", "g7"}) {
    movers.push_back(*s->to_move());
    play(*s, {m});
  }
  EXPECT_EQ(movers, (std::vector<Seat>{0, 1, 2, 0}));
}

TEST(Quirky, AMarkerThatFitsNowhereIsSetAsideAndTheTurnPassesOn) {
  // The box's 45 markers can never close all 28 points to a colour (that needs a stack of 3 or
  // that colour on top everywhere), so this uses a test bag with 29 greens: 28 fill the board.
  auto s = stacked(repeat("green", 29) + Bag{"yellow"});
  for (const auto& p : all_points()) play(*s, {p});
  // Draw 29 falls to seat 0 (seats alternate from seat 0): it fits nowhere.
  const auto v = view(*s);
  EXPECT_EQ(v["set_aside"], json({{"green", 1}, {"yellow", 0}, {"red", 0}}));
  EXPECT_EQ(v["log"].back(), json({{"seat", 0},
                                   {"piece", "green"},
                                   {"event", "set_aside"},
                                   {"move", nullptr},
                                   {"gain", {0, 0}},
                                   {"returned", nullptr}}));
  EXPECT_EQ(s->to_move(), 1) << "the turn passed to the next seat, who drew the yellow";
  EXPECT_EQ(drawn(*s), "yellow");
  EXPECT_EQ(s->legal_moves().size(), 28u);
}

// ---------------------------------------------------------------------------------------------
// Quirks

TEST(Quirky, ABlueQuirkMovesATopMarkerToAnAdjacentEmptyPointOnly) {
  auto s = stacked({"green", "yellow", "blue"});
  play(*s, {"a1", "b2"});
  ASSERT_EQ(drawn(*s), "blue");
  // a1's neighbours are a2 and b2 (taken); b2's are a1 (taken), a2, b3 and c3.
  std::set<std::string> moves;
  for (const auto& m : s->legal_moves()) moves.insert(m.text);
  EXPECT_EQ(moves, (std::set<std::string>{"a1-a2", "b2-a2", "b2-b3", "b2-c3"}));
  EXPECT_EQ(view(*s)["drawn"]["moves"], json({{"a1", {"a2"}}, {"b2", {"a2", "b3", "c3"}}}));
  EXPECT_EQ(view(*s)["drawn"]["points"], json({"a1", "b2"}));
  EXPECT_FALSE(legal(*s, "a1-a3")) << "not adjacent";
  EXPECT_FALSE(legal(*s, "a1-b2")) << "not empty";
  EXPECT_FALSE(legal(*s, "a2-a3")) << "nothing to move";
  EXPECT_FALSE(legal(*s, "a3")) << "a Quirk is never placed";
  play(*s, {"b2-c3"});
  EXPECT_EQ(view(*s)["points"][2]["stack"], json::array());
  EXPECT_EQ(view(*s)["points"][5]["stack"], json({"yellow"}));
}

TEST(Quirky, ABlueQuirkReachesAllSixNeighboursOfAnInnerPoint) {
  auto s = stacked({"green", "blue"});
  play(*s, {"c5"});
  std::set<std::string> moves;
  for (const auto& m : s->legal_moves()) moves.insert(m.text);
  EXPECT_EQ(moves, (std::set<std::string>{"c5-b4", "c5-c4", "c5-b5", "c5-d5", "c5-c6", "c5-d6"}));
}

TEST(Quirky, ABlueQuirkMovesOnlyTheTopMarkerOfAStack) {
  auto s = stacked({"green", "yellow", "blue"});
  play(*s, {"a1", "a1", "a1-a2"});
  EXPECT_EQ(view(*s)["points"][0]["stack"], json({"green"}));
  EXPECT_EQ(view(*s)["points"][1]["stack"], json({"yellow"}));
}

TEST(Quirky, ATriangleExposedByABlueQuirkScoresForItsColourWhoeverMovedIt) {
  // Green under yellow on b2, greens on b3 and c3; seat 1 draws blue and moves the yellow to a1:
  // the green triangle b2 b3 c3 shows and scores for seat 0 (the text's figure 1b).
  auto s = stacked({"green", "yellow", "green", "green", "red", "blue"});
  play(*s, {"b2", "b2", "b3", "c3", "g7"});
  EXPECT_EQ(score(*s, 0), 0);
  ASSERT_EQ(s->to_move(), 1);
  play(*s, {"b2-a1"});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(score(*s, 1), 0);
  EXPECT_EQ(scored(*s), json::array({triangle({"b2", "b3", "c3"}, "green", 0, 3)}));
  EXPECT_EQ(view(*s)["last"]["piece"], "blue");
}

TEST(Quirky, ABlueMoveCanExposeOneColourAndCompleteAnotherAndBothScore) {
  // c4: green under yellow; greens d4 d5 (downward c4 d4 d5 waits for c4); yellows c6 d6 (upward
  // c5 c6 d6 waits for c5). Blue c4-c5 exposes the green and completes the yellow.
  auto s = stacked({"green", "yellow", "green", "green", "yellow", "yellow", "blue"});
  play(*s, {"c4", "c4", "d4", "d5", "c6", "d6"});
  EXPECT_EQ(score(*s, 0) + score(*s, 1), 0);
  play(*s, {"c4-c5"});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(score(*s, 1), 3);
  EXPECT_EQ(scored(*s), json::array({triangle({"c4", "d4", "d5"}, "green", 0, 3),
                                     triangle({"c5", "c6", "d6"}, "yellow", 1, 3)}));
  EXPECT_EQ(view(*s)["log"].back()["gain"], json({3, 3}));
}

TEST(Quirky, ABlueQuirkWithNothingToMoveDoesNothingAndTheTurnPassesOn) {
  auto s = stacked({"blue", "green"});
  // Seat 0 drew the blue on an empty board: the state resolves it at once.
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(drawn(*s), "green");
  EXPECT_EQ(view(*s)["log"][0], json({{"seat", 0},
                                      {"piece", "blue"},
                                      {"event", "no_effect"},
                                      {"move", nullptr},
                                      {"gain", {0, 0}},
                                      {"returned", nullptr}}));
  EXPECT_EQ(view(*s)["bag"]["blue"], 0) << "the Quirk left the game";
}

TEST(Quirky, ABlueQuirkOnAFullBoardDoesNothing) {
  auto s = stacked(repeat("green", 28) + Bag{"blue", "yellow"});
  for (const auto& p : all_points()) play(*s, {p});
  EXPECT_EQ(view(*s)["log"].back()["event"], "no_effect");
  EXPECT_EQ(view(*s)["log"].back()["piece"], "blue");
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(drawn(*s), "yellow");
}

TEST(Quirky, ABlackQuirkPutsAnyTopMarkerBackInTheBag) {
  auto s = stacked({"green", "yellow", "red", "black", "green"});
  play(*s, {"a1", "a1", "g7"});
  ASSERT_EQ(drawn(*s), "black");
  std::set<std::string> moves;
  for (const auto& m : s->legal_moves()) moves.insert(m.text);
  EXPECT_EQ(moves, (std::set<std::string>{"xa1", "xg7"}));
  EXPECT_EQ(view(*s)["drawn"]["points"], json({"a1", "g7"}));
  EXPECT_FALSE(legal(*s, "xb2")) << "nothing there";
  EXPECT_EQ(view(*s)["bag"]["yellow"], 0);
  play(*s, {"xa1"});
  EXPECT_EQ(view(*s)["points"][0]["stack"], json({"green"}));
  EXPECT_EQ(view(*s)["bag"]["yellow"], 1) << "the yellow is back in the bag";
  EXPECT_EQ(view(*s)["bag"]["black"], 0) << "the Quirk is not";
  EXPECT_EQ(view(*s)["log"].back()["returned"], "yellow");
}

TEST(Quirky, ATriangleExposedByABlackQuirkScoresForItsHolder) {
  auto s = stacked({"green", "yellow", "green", "green", "red", "black", "red"});
  play(*s, {"b2", "b2", "b3", "c3", "g7"});
  ASSERT_EQ(s->to_move(), 1);
  play(*s, {"xb2"});
  EXPECT_EQ(score(*s, 0), 3);
  EXPECT_EQ(scored(*s), json::array({triangle({"b2", "b3", "c3"}, "green", 0, 3)}));
}

TEST(Quirky, AMarkerPutBackByABlackQuirkIsDrawnAgainAndTheGameGoesOn) {
  auto s = stacked({"green", "black"});
  play(*s, {"a1", "xa1"});
  ASSERT_FALSE(s->is_over()) << "the bag holds the green again";
  EXPECT_EQ(drawn(*s), "green");
  EXPECT_EQ(s->to_move(), 0);
  play(*s, {"d4"});
  EXPECT_TRUE(s->is_over());
}

TEST(Quirky, ABlackQuirkOnAnEmptyBoardDoesNothing) {
  auto s = stacked({"black", "green"});
  EXPECT_EQ(view(*s)["log"][0]["event"], "no_effect");
  EXPECT_EQ(view(*s)["log"][0]["piece"], "black");
  EXPECT_EQ(s->to_move(), 1);
}

TEST(Quirky, APurpleQuirkSwapsColoursInATwoPlayerGameAndScoresStay) {
  auto s = stacked(repeat("green", 3) + Bag{"purple"} + repeat("green", 3));
  play(*s, {"a1", "a2", "b2"});
  EXPECT_EQ(score(*s, 0), 3);
  // Seat 1 drew the purple: it acts at once, then seat 0 draws.
  const auto v = view(*s);
  EXPECT_EQ(v["seats"],
            json({{{"colour", "yellow"}, {"score", 3}}, {{"colour", "green"}, {"score", 0}}}));
  EXPECT_EQ(v["neutral"], "red");
  EXPECT_EQ(v["log"].back(), json({{"seat", 1},
                                   {"piece", "purple"},
                                   {"event", "colours_passed"},
                                   {"move", nullptr},
                                   {"gain", {0, 0}},
                                   {"returned", nullptr}}));
  EXPECT_EQ(s->to_move(), 0);
  play(*s, {"a5", "a6", "b6"});
  EXPECT_EQ(score(*s, 0), 3) << "green now scores for its new holder";
  EXPECT_EQ(score(*s, 1), 3);
  EXPECT_EQ(scored(*s), json::array({triangle({"a5", "a6", "b6"}, "green", 1, 3)}));
}

TEST(Quirky, APurpleQuirkPassesColoursToTheLeftInAThreePlayerGame) {
  // Left is the next seat in turn order: green 0 → 1, yellow 1 → 2, red 2 → 0.
  auto s = stacked(Bag{"purple"} + repeat("red", 3) + Bag{"purple"}, 3);
  auto seats = view(*s)["seats"];
  EXPECT_EQ(seats[0]["colour"], "red");
  EXPECT_EQ(seats[1]["colour"], "green");
  EXPECT_EQ(seats[2]["colour"], "yellow");
  EXPECT_EQ(s->to_move(), 1) << "seat 0's turn was the purple";
  play(*s, {"a1", "a2", "b2"});  // seats 1, 2, 0 place red
  EXPECT_EQ(score(*s, 0), 3) << "red belongs to seat 0 now";
  // Seat 1 draws the second purple: red → seat 1, green → seat 2, yellow → seat 0.
  seats = view(*s)["seats"];
  EXPECT_EQ(seats, json({{{"colour", "yellow"}, {"score", 3}},
                         {{"colour", "red"}, {"score", 0}},
                         {{"colour", "green"}, {"score", 0}}}));
}

TEST(Quirky, APurpleQuirkDrawnLastStillActsThenTheGameEnds) {
  auto s = stacked({"green", "purple"});
  play(*s, {"a1"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(view(*s)["seats"][0]["colour"], "yellow");
  EXPECT_EQ(view(*s)["log"].back()["event"], "colours_passed");
}

TEST(Quirky, WithoutPurpleQuirksTheBagHoldsFiftyOnePieces) {
  auto created = game().create({{"players", 3}, {"purple_quirks", false}}, 5);
  ASSERT_TRUE(created.has_value());
  auto& s = **created;
  const auto v = view(s);
  EXPECT_EQ(v["bag"]["purple"], 0);
  int in_bag = 0;
  for (const auto& [kind, n] : v["bag"].items()) in_bag += n.get<int>();
  // 45 markers + 3 blue + 3 black = 51, less what was drawn so far (the held piece and any
  // Quirk the state resolved on its own).
  EXPECT_EQ(in_bag + 1 + static_cast<int>(v["log"].size()), 51);
  auto bad = create_with_stacked_bag({{"purple_quirks", false}}, 1, {"purple", "green"});
  EXPECT_EQ(bad.error(), RuleError::bad_option);
}

TEST(Quirky, ABlueOrBlackQuirkIsAlwaysResolvedBeforeTheNextDraw) {
  auto s = stacked({"green", "blue", "yellow"});
  play(*s, {"a1"});
  EXPECT_EQ(drawn(*s), "blue");
  EXPECT_EQ(view(*s)["bag"]["yellow"], 1) << "nothing else is drawn while the Quirk waits";
  EXPECT_EQ(s->apply(1, Move{"b2"}).error(), RuleError::illegal_move);
}

// ---------------------------------------------------------------------------------------------
// The bag and the draw

TEST(Quirky, TheRealBagHoldsFortyFiveMarkersAndNineQuirks) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto created = game().create({{"players", 2}}, seed);
    ASSERT_TRUE(created.has_value());
    const auto v = view(**created);
    // Every piece is in the bag, in a hand or resolved in the log: 15 per colour, 3 per Quirk.
    std::map<std::string, int> seen;
    for (const auto& [kind, n] : v["bag"].items()) seen[kind] += n.get<int>();
    ++seen[v["drawn"]["piece"].get<std::string>()];
    for (const auto& e : v["log"]) ++seen[e["piece"].get<std::string>()];
    EXPECT_EQ(
        seen,
        (std::map<std::string, int>{
            {"green", 15}, {"yellow", 15}, {"red", 15}, {"blue", 3}, {"black", 3}, {"purple", 3}}));
  }
}

TEST(Quirky, DrawsComeFromTheSeedAndVary) {
  std::set<std::string> first_pieces;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    auto a = game().create({{"first", "0"}}, seed), b = game().create({{"first", "0"}}, seed);
    ASSERT_EQ(view(**a), view(**b)) << "the same seed draws the same";
    first_pieces.insert(view(**a)["drawn"]["piece"].get<std::string>());
  }
  EXPECT_EQ(first_pieces.size(), 3u) << "every colour comes first in some games";
}

TEST(Quirky, NoViewShowsTheOrderOfTheBag) {
  // Two bags with the same pieces in different orders, same first draw: every viewer sees the same.
  auto a = stacked({"green", "yellow", "red", "blue", "black", "purple"}, 3);
  auto b = stacked({"green", "purple", "black", "blue", "red", "yellow"}, 3);
  for (std::optional<Seat> viewer : {std::optional<Seat>{}, std::optional<Seat>{0},
                                     std::optional<Seat>{1}, std::optional<Seat>{2}})
    EXPECT_EQ(a->view(viewer), b->view(viewer));
}

bool has_key(const json& j, const std::set<std::string>& keys) {
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (keys.contains(k) || has_key(v, keys)) return true;
  if (j.is_array())
    for (const auto& v : j)
      if (has_key(v, keys)) return true;
  return false;
}

TEST(Quirky, NoViewOrChangeBetweenViewsEverShowsTheSeedOrTheRandomState) {
  // Property over whole random games: seeds with the same public history (starter, first piece,
  // pieces resolved by the state) give identical views for every viewer, so nothing that depends on
  // the seed or the generator's state is shown; and patches, being diffs of views, show less still.
  std::map<std::string, json> by_public;
  int shared = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto created = game().create({{"players", 3}, {"first", "1"}}, seed);
    ASSERT_TRUE(created.has_value());
    for (Seat viewer = -1; viewer < 3; ++viewer) {
      const auto v = (*created)->view(viewer < 0 ? std::nullopt : std::optional<Seat>(viewer));
      const std::string key = std::to_string(viewer) + v["drawn"].dump() + v["log"].dump();
      const auto [it, fresh] = by_public.emplace(key, v);
      if (!fresh) {
        ++shared;
        EXPECT_EQ(it->second, v) << "seed " << seed;
      }
    }
  }
  EXPECT_GT(shared, 20) << "enough seeds share a history to test something";
  // Along complete games: no key that could hold hidden state, and the seed never in a view.
  const std::uint64_t seed = 0x5eed5eed12345678ULL;
  auto created = game().create({{"players", 2}}, seed);
  ASSERT_TRUE(created.has_value());
  auto& s = **created;
  std::vector<json> previous(3);
  testing::random_playout(s, 4, [&](const State& st) {
    for (Seat viewer = -1; viewer < 2; ++viewer) {
      const auto v = st.view(viewer < 0 ? std::nullopt : std::optional<Seat>(viewer));
      // A patch is a diff between two views of one viewer: check the views and the diffs alike.
      auto& before = previous[static_cast<std::size_t>(viewer + 1)];
      const json patch = before.is_null() ? v : json::diff(before, v);
      before = v;
      for (const json& shown : {v, patch}) {
        ASSERT_FALSE(has_key(shown, {"seed", "rng", "order", "next", "stacked"}));
        const std::string text = shown.dump();
        ASSERT_EQ(text.find(std::to_string(seed)), std::string::npos) << text;
        ASSERT_EQ(text.find("5eed5eed"), std::string::npos) << text;
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// The end of the game

TEST(Quirky, TheGameEndsWhenTheBagIsEmptyAndEqualScoresShareTheWin) {
  auto s = stacked({"green", "yellow"});
  play(*s, {"a1"});
  EXPECT_FALSE(s->is_over()) << "a piece is still in the bag";
  play(*s, {"b2"});
  ASSERT_TRUE(s->is_over());
  EXPECT_TRUE(s->legal_moves().empty());
  EXPECT_EQ(view(*s)["drawn"], nullptr);
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, (std::vector<Seat>{0, 1}));
  EXPECT_EQ(out.scores, (std::vector<int>{0, 0}));
  EXPECT_EQ(out.reason, "the bag is empty: 2 players share the win with 0 points");
  EXPECT_EQ(out.code, "quirky.bag_empty");
  EXPECT_EQ(out.args, (json{{"points", 0}, {"sharing", 2}}));
  EXPECT_EQ(s->apply(0, Move{"c3"}).error(), RuleError::game_over);
}

TEST(Quirky, TheHighestScoreWins) {
  auto s = stacked(repeat("green", 3));
  play(*s, {"a1", "a2", "b2"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, (std::vector<Seat>{0}));
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{3, 0}));
  EXPECT_EQ(s->outcome()->reason, "the bag is empty: the highest score is 3 points");
  EXPECT_EQ(s->outcome()->args, (json{{"points", 3}, {"sharing", 1}}));
}

TEST(Quirky, TwoOfThreePlayersCanShareTheWin) {
  auto s = stacked(repeat("green", 3) + repeat("red", 3), 3);
  play(*s, {"a1", "a2", "b2", "a6", "a7", "b7"});
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, (std::vector<Seat>{0, 2}));
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{3, 0, 3}));
  EXPECT_EQ(s->outcome()->reason, "the bag is empty: 2 players share the win with 3 points");
}

TEST(Quirky, AFullGameEndsOnlyOnceEveryPieceHasBeenPlayed) {
  for (const bool purple : {true, false}) {
    auto created = game().create({{"players", 3}, {"purple_quirks", purple}}, 99);
    ASSERT_TRUE(created.has_value());
    auto& s = **created;
    testing::random_playout(s, 8, [&](const State& st) { ASSERT_FALSE(st.is_over()); });
    ASSERT_TRUE(s.is_over());
    const auto v = view(s);
    for (const auto& [kind, n] : v["bag"].items()) EXPECT_EQ(n, 0) << kind;
    std::map<std::string, int> events;
    int markers = 0, quirks = 0;
    for (const auto& e : v["log"]) {
      ++events[e["event"].get<std::string>()];
      const auto piece = e["piece"].get<std::string>();
      (piece == "green" || piece == "yellow" || piece == "red" ? markers : quirks) += 1;
    }
    // Each marker drawn was placed or set aside; a marker a black Quirk returned is drawn again.
    EXPECT_EQ(markers, 45 + events["returned"]);
    EXPECT_EQ(quirks, purple ? 9 : 6);
    EXPECT_EQ(events["colours_passed"], purple ? 3 : 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Options, view, notation

TEST(Quirky, OptionsAreCheckedAndTheHostMayChooseWhoStarts) {
  EXPECT_EQ(game().create({{"players", 4}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"players", 2}, {"first", "2"}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"triangles", "tilted"}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(create_with_stacked_bag({}, 1, {"green", "white"}).error(), RuleError::bad_option);
  auto three = game().create({{"players", 3}, {"first", "2"}}, 1);
  ASSERT_TRUE(three.has_value());
  // Seat 2 draws first; a purple or a Quirk with nothing to act on may already have passed it on.
  const auto v = view(**three);
  const Seat expected = static_cast<Seat>((2 + v["log"].size()) % 3);
  EXPECT_EQ((*three)->to_move(), expected);
  const auto normalized = game().normalize_options(nullptr);
  ASSERT_TRUE(normalized.has_value());
  EXPECT_EQ(
      *normalized,
      json({{"players", 2}, {"first", "random"}, {"triangles", "any"}, {"purple_quirks", true}}));
}

TEST(Quirky, TheFirstPlayerIsOtherwiseDrawnFromTheSeed) {
  std::set<Seat> starters;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto s = create_with_stacked_bag({{"players", 3}}, seed, {"green"});
    ASSERT_TRUE(s.has_value());
    starters.insert(*(*s)->to_move());
  }
  EXPECT_EQ(starters.size(), 3u);
}

TEST(Quirky, SeatsHoldGreenYellowAndRedInOrder) {
  auto two = stacked({"green"});
  EXPECT_EQ(view(*two)["seats"],
            json({{{"colour", "green"}, {"score", 0}}, {{"colour", "yellow"}, {"score", 0}}}));
  auto three = stacked({"green"}, 3);
  EXPECT_EQ(view(*three)["seats"][2]["colour"], "red");
}

TEST(Quirky, TheViewShowsBoardStacksDrawnPieceBagScoresAndTheLastMove) {
  auto s = stacked({"green", "yellow", "green", "green", "blue", "red"});
  play(*s, {"a1", "a2"});
  const auto v = view(*s);
  EXPECT_EQ(v["points"][0], json({{"id", "a1"}, {"x", 6}, {"y", 0}, {"stack", {"green"}}}));
  EXPECT_EQ(v["drawn"], json({{"piece", "green"},
                              {"seat", 0},
                              {"points", v["drawn"]["points"]},
                              {"moves", json::object()}}));
  EXPECT_EQ(v["drawn"]["points"].size(), 27u) << "every point but a1";
  EXPECT_EQ(
      v["bag"],
      json({{"green", 1}, {"yellow", 0}, {"red", 1}, {"blue", 1}, {"black", 0}, {"purple", 0}}));
  EXPECT_EQ(v["set_aside"], json({{"green", 0}, {"yellow", 0}, {"red", 0}}));
  EXPECT_EQ(v["triangles"], "any");
  EXPECT_EQ(v["last"],
            json({{"seat", 1}, {"piece", "yellow"}, {"move", "a2"}, {"scored", json::array()}}));
  EXPECT_EQ(v["log"], json::array({
                          json({{"seat", 0},
                                {"piece", "green"},
                                {"event", "placed"},
                                {"move", "a1"},
                                {"gain", {0, 0}},
                                {"returned", nullptr}}),
                          json({{"seat", 1},
                                {"piece", "yellow"},
                                {"event", "placed"},
                                {"move", "a2"},
                                {"gain", {0, 0}},
                                {"returned", nullptr}}),
                      }));
  EXPECT_EQ(s->view(0), v) << "nothing is private: players and spectators see the same";
  EXPECT_EQ(s->view(1), v);
}

TEST(Quirky, EveryWellFormedMoveIsAcceptedExactlyWhenListed) {
  // is_legal answers directly; it must agree with legal_moves for markers, blue and black alike.
  auto s = stacked({"green", "yellow", "green", "blue", "black", "red"});
  play(*s, {"a1", "a1", "c5"});
  std::vector<std::string> candidates{"pass", "", "x", "-", "a1-", "-a1", "xx", "h1", "a8", "a0"};
  for (const auto& p : all_points()) {
    candidates.push_back(p);
    candidates.push_back("x" + p);
    for (const auto& q : all_points()) candidates.push_back(p + "-" + q);
  }
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE(drawn(*s));
    const auto moves = s->legal_moves();
    int accepted = 0;
    for (const auto& c : candidates) {
      auto copy = s->clone();
      const bool ok = copy->apply(*s->to_move(), Move{c}).has_value();
      EXPECT_EQ(ok, std::ranges::find(moves, Move{c}) != moves.end()) << c;
      accepted += ok;
    }
    EXPECT_EQ(accepted, static_cast<int>(moves.size()));
    play(*s, {moves.front().text});
  }
}

// ---------------------------------------------------------------------------------------------
// A position rebuilt from a seat's view (Game::from_view), for a bot playing as a client

// The box's 54 pieces, `front` drawn first and the rest after in the box's order.
Bag box_bag(const Bag& front) {
  std::map<std::string, int> left{{"green", 15}, {"yellow", 15}, {"red", 15},
                                  {"blue", 3},   {"black", 3},   {"purple", 3}};
  for (const auto& piece : front) --left[piece];
  Bag bag = front;
  for (const auto& [piece, n] : left) bag = bag + repeat(piece, n);
  return bag;
}

// RULES.md's game as a log, from a bag that holds the box's pieces: a1, a1, a1-b2, xb2; the red
// is back in the bag and seat 0 holds a yellow.
std::unique_ptr<State> worked_example() {
  auto s = stacked(box_bag({"green", "red", "blue", "black", "yellow"}));
  play(*s, {"a1", "a1", "a1-b2", "xb2"});
  return s;
}

Seen seen_by(const State& s, Seat viewer, json options = {{"players", 2}, {"first", "0"}}) {
  return Seen{*game().normalize_options(options), s.view(viewer), viewer, *s.to_move()};
}

std::vector<std::string> move_texts(const State& s) {
  std::vector<std::string> out;
  for (const auto& m : s.legal_moves()) out.push_back(m.text);
  return out;
}

TEST(QuirkyFromView, TheWorkedExampleIsRebuiltAndOnlyTheComingDrawsAreSampledAfresh) {
  const auto s = worked_example();
  ASSERT_EQ(s->to_move(), 0);
  ASSERT_EQ(drawn(*s), "yellow");
  EXPECT_EQ(
      view(*s)["bag"],
      (json{{"green", 14}, {"yellow", 14}, {"red", 15}, {"blue", 2}, {"black", 2}, {"purple", 3}}));
  // Seat 1 sees the board too, though seat 0 is to move: every seat sees the same one.
  for (const Seat viewer : {0, 1}) {
    const Seen seen = seen_by(*s, viewer);
    std::set<std::string> next_draws;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Rng rng(seed);
      const auto rebuilt = game().from_view(seen, rng);
      ASSERT_TRUE(rebuilt);
      EXPECT_EQ(rebuilt->view(viewer), seen.board);
      EXPECT_EQ(rebuilt->to_move(), 0);
      EXPECT_EQ(move_texts(*rebuilt), move_texts(*s));
      // The same move in each: what comes next is the rebuild's own draw, not the stacked bag's
      // (which would bring a green), and it varies with the seed.
      play(*rebuilt, {"c3"});
      next_draws.insert(drawn(*rebuilt));
    }
    EXPECT_GT(next_draws.size(), 1u) << "the coming draws do not depend on the rng";
  }
}

TEST(QuirkyFromView, ARebuiltGameIsPlayedToItsEndWithTheBoxCounts) {
  auto s = game().create({{"players", 3}, {"first", "random"}}, 7);
  ASSERT_TRUE(s.has_value());
  for (int i = 0; i < 12; ++i) play(**s, {(*s)->legal_moves().back().text});
  Rng rng(3);
  auto rebuilt = game().from_view(seen_by(**s, 2, {{"players", 3}}), rng);
  ASSERT_TRUE(rebuilt);
  while (!rebuilt->is_over()) play(*rebuilt, {rebuilt->legal_moves().front().text});
  // Every piece of the box was drawn: the bag the view showed was the one the rebuild drew from.
  const json bag = view(*rebuilt)["bag"];  // held: a range-for would not keep the view alive
  for (const auto& [piece, n] : bag.items()) EXPECT_EQ(n, 0) << piece;
}

TEST(QuirkyFromView, ABoardThisGameNeverShowsIsRefused) {
  const auto s = worked_example();
  const Seen good = seen_by(*s, 0);
  Rng rng(1);
  ASSERT_TRUE(game().from_view(good, rng));
  const auto refused = [&](const std::function<void(Seen&)>& spoil) {
    Seen seen = good;
    spoil(seen);
    return game().from_view(seen, rng) == nullptr;
  };
  EXPECT_TRUE(refused([](Seen& v) { v.board.erase("bag"); })) << "a missing key";
  EXPECT_TRUE(refused([](Seen& v) { v.board["seats"][0]["score"] = "0"; })) << "a wrong type";
  EXPECT_TRUE(refused([](Seen& v) { v.board["points"] = json::array(); })) << "a wrong size";
  EXPECT_TRUE(refused([](Seen& v) { v.board["bag"]["green"] = 15; }))
      << "16 greens: 15 in the bag and one on b2";
  EXPECT_TRUE(refused([](Seen& v) { v.board["bag"]["green"] = -1; })) << "out of range";
  EXPECT_TRUE(refused([](Seen& v) {
    v.board["points"][5]["stack"] = json::array({"green", "yellow", "green", "yellow"});
  })) << "a stack of 4";
  EXPECT_TRUE(refused([](Seen& v) { v.board["points"][5]["stack"] = {"green", "green"}; }))
      << "green directly on green";
  EXPECT_TRUE(refused([](Seen& v) { v.board["seats"][0]["score"] = 3; }))
      << "a score the log does not give";
  EXPECT_TRUE(refused([](Seen& v) { v.board["drawn"]["piece"] = "purple"; }))
      << "a purple Quirk is never held";
  EXPECT_TRUE(refused([](Seen& v) { v.board["log"].erase(3); })) << "a line missing from the log";
  EXPECT_TRUE(refused([](Seen& v) { v.to_move = 1; })) << "another seat to move";
  EXPECT_TRUE(refused([](Seen& v) { v.viewer = 2; })) << "no seat 2 in a 2-player game";
  EXPECT_TRUE(refused([](Seen& v) { v.options = {{"players", 3}}; }))
      << "a 2-player board with 3-player options";
  EXPECT_TRUE(refused([](Seen& v) { v.options = "garbage"; })) << "options that are not";
  for (const json& board : {json(nullptr), json(42), json::array({1, 2}), json("garbage")})
    EXPECT_TRUE(refused([&](Seen& v) { v.board = board; })) << board.dump();

  // A game that is over has no seat to move: nothing to rebuild for a bot.
  auto over = game().create({{"players", 2}}, 4);
  ASSERT_TRUE(over.has_value());
  Seen last;
  while (!(*over)->is_over()) {
    last = seen_by(**over, 0, {{"players", 2}});
    play(**over, {(*over)->legal_moves().front().text});
  }
  last.board = (*over)->view(0);
  EXPECT_EQ(game().from_view(last, rng), nullptr);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The conformance suite, for every player count and variant.

}  // namespace plateau::rules::quirky

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(
    Quirky, Conformance,
    ::testing::Values(
        ConformanceCase{&quirky::game(), {{"players", 2}}, "quirky_2p"},
        ConformanceCase{&quirky::game(), {{"players", 3}}, "quirky_3p"},
        ConformanceCase{
            &quirky::game(), {{"players", 2}, {"triangles", "aligned"}}, "quirky_2p_aligned"},
        ConformanceCase{
            &quirky::game(), {{"players", 3}, {"triangles", "aligned"}}, "quirky_3p_aligned"},
        ConformanceCase{
            &quirky::game(), {{"players", 2}, {"purple_quirks", false}}, "quirky_2p_no_purple"},
        ConformanceCase{
            &quirky::game(), {{"players", 3}, {"purple_quirks", false}}, "quirky_3p_no_purple"},
        ConformanceCase{&quirky::game(),
                        {{"players", 3}, {"triangles", "aligned"}, {"purple_quirks", false}},
                        "quirky_3p_aligned_no_purple"}),
    conformance_case_name);

}  // namespace plateau::rules::testing
