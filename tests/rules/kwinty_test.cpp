// Kwinty scenarios: every sentence of the Kwinty part of blocks_kwinty_turris.fr.md and the Kwinty
// part of DECISIONS.md, then the conformance suite for every variant.
//
// Positions are built by playing moves. Cells are named as in the notation: columns a..q are
// x = 0..16, rows 1..9 are y = 0..8; the view gives cells as [x, y]. In the wall pictures below
// W is white (seat 0), B black (seat 1), "." empty, the top row is row 9.
#include "rules/kwinty/kwinty.hpp"

#include <gtest/gtest.h>

#include <set>

#include "conformance.hpp"
#include "scenario.hpp"

namespace plateau::rules::kwinty {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;

std::unique_ptr<State> start(json options = {{"first", "0"}}) {
  auto s = game().create(options, 1);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

std::unique_ptr<State> start_strict() { return start({{"first", "0"}, {"strict", true}}); }

json cells(std::initializer_list<std::pair<int, int>> list) {
  json out = json::array();
  for (const auto& [x, y] : list) out.push_back(json::array({x, y}));
  return out;
}

// ---- The wall, the first block and contact (rule a) -------------------------------------------

TEST(Kwinty, TheFirstBlockGoesOnTheTableLyingOrStanding) {
  auto s = start();
  // The table is unbounded, so the frame fixes where the first block goes: i1.
  EXPECT_EQ(s->legal_moves(), (std::vector<Move>{{"L@i1"}, {"S@i1"}}));
  expect_refused(*s, "L@a1");
  expect_refused(*s, "L@i2");
  expect_refused(*s, "S@i2");
}

TEST(Kwinty, EveryLaterBlockTouchesTheWallAlongAnEdge) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1"}));
  expect_refused(*s, "L@l1");  // k1 would stay empty between the blocks
  expect_refused(*s, "S@l1");
  expect_refused(*s, "L@e1");  // e1 f1, g1 and h1 empty
  EXPECT_TRUE(legal(*s, "L@k1"));
  EXPECT_TRUE(legal(*s, "S@h1"));
  ASSERT_TRUE(played(*s, {"L@k1"}));
}

TEST(Kwinty, RestingOnABlockCountsAsTouchingIt) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1"}));
  EXPECT_TRUE(legal(*s, "L@i2"));
  EXPECT_TRUE(legal(*s, "S@j2"));
  ASSERT_TRUE(played(*s, {"S@j2"}));
}

TEST(Kwinty, ABlockGoesOnlyOnEmptySquares) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "S@k1"}));
  expect_refused(*s, "L@i1");
  expect_refused(*s, "S@j1");  // j1 is white's
  expect_refused(*s, "L@j2");  // k2 is black's
  EXPECT_TRUE(legal(*s, "L@i2"));
}

TEST(Kwinty, TheSecondMoveHasExactlySevenPlacementsAfterALyingBlockAndFiveAfterAStandingOne) {
  auto s = start();
  // After L@i1 (i1 j1): on the table L@g1 L@k1 S@h1 S@k1; on top L@i2 S@i2 S@j2 = 7.
  // After S@i1 (i1 i2): on the table L@g1 L@j1 S@h1 S@j1; on top S@i3 = 5 (L@i3 would hang
  // over j2). Total 7 + 5 = 12.
  EXPECT_EQ(perft(*s, 1), 2u);
  EXPECT_EQ(perft(*s, 2), 12u);
  ASSERT_TRUE(played(*s, {"L@i1"}));
  std::set<std::string> moves;
  for (const auto& m : s->legal_moves()) moves.insert(m.text);
  EXPECT_EQ(moves, (std::set<std::string>{"L@g1", "L@k1", "S@h1", "S@k1", "L@i2", "S@i2", "S@j2"}));
}

// ---- Full support (rule b) ---------------------------------------------------------------------

TEST(Kwinty, ALyingBlockMayNotHangOverAnEmptySquare) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1"}));
  expect_refused(*s, "L@j2");  // k2 would hang over the empty k1
  expect_refused(*s, "L@h2");  // h2 over the empty h1
  EXPECT_TRUE(legal(*s, "L@i2"));
}

TEST(Kwinty, AStandingBlockRestsOnTheSquareBelowItsFoot) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"S@i1"}));
  expect_refused(*s, "L@i3");  // j3 would hang over the empty j2 (and j1)
  expect_refused(*s, "S@j2");  // j2 over the empty j1
  EXPECT_TRUE(legal(*s, "S@i3"));
  ASSERT_TRUE(played(*s, {"L@j1"}));
  // Now j1 is filled but j2 still empty: a lying block across i3 j3 still hangs.
  expect_refused(*s, "L@i3");
}

TEST(Kwinty, ABlockMayBePlacedLyingOrStandingOnTopOfTheWall) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@i2", "S@i3", "S@j3"}));
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["blocks"][2],
            json({{"seat", 0}, {"move", "S@i3"}, {"x", 8}, {"y", 2}, {"w", 1}, {"h", 2}}));
  EXPECT_EQ(v["blocks"][3],
            json({{"seat", 1}, {"move", "S@j3"}, {"x", 9}, {"y", 2}, {"w", 1}, {"h", 2}}));
}

// ---- The 9 × 9 limit, floating sideways --------------------------------------------------------

TEST(Kwinty, TheWallMayNotBeWiderThanNineSquaresAndItsColumnsFloat) {
  auto s = start();
  // Built leftwards from i1: the wall covers c..j (8 columns), so a new square may go in
  // columns b..k (j − 8 = b, c + 8 = k).
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1", "L@e1", "L@c1"}));
  auto v = s->view(0);
  EXPECT_EQ(v["extent"], json::array({2, 9}));
  EXPECT_EQ(v["x_range"], json::array({1, 10}));
  expect_refused(*s, "L@a1");  // a..j would be 10 wide
  EXPECT_TRUE(legal(*s, "S@b1"));
  EXPECT_TRUE(legal(*s, "S@k1"));
  ASSERT_TRUE(played(*s, {"S@b1"}));
  // Now b..j is 9 wide: the columns are b..j, and nothing more fits on the table at either end.
  v = s->view(1);
  EXPECT_EQ(v["extent"], json::array({1, 9}));
  EXPECT_EQ(v["x_range"], json::array({1, 9}));
  expect_refused(*s, "S@k1");
  expect_refused(*s, "S@a1");
  for (const auto& m : s->legal_moves()) EXPECT_NE(m.text.back(), '1') << m.text;
}

TEST(Kwinty, TheAllowedColumnsFollowTheWallToTheRight) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@k1", "L@m1"}));
  // i..n: a new square may go from n − 8 = f to i + 8 = q.
  EXPECT_EQ(s->view(std::nullopt)["x_range"], json::array({5, 16}));
  ASSERT_TRUE(played(*s, {"L@o1", "S@q1"}));
  EXPECT_EQ(s->view(std::nullopt)["x_range"], json::array({8, 16}));
  expect_refused(*s, "S@h1");
}

TEST(Kwinty, TheWallMayNotBeTallerThanNineSquares) {
  auto s = start();
  // Lying blocks of alternate colours stacked on i..j, rows 1 to 8.
  ASSERT_TRUE(played(*s, {"L@i1", "L@i2", "L@i3", "L@i4", "L@i5", "L@i6", "L@i7", "L@i8"}));
  expect_refused(*s, "S@i9");  // its top square would be row 10
  expect_refused(*s, "S@j9");
  EXPECT_TRUE(legal(*s, "L@i9"));
  ASSERT_TRUE(played(*s, {"L@i9"}));
  for (const auto& m : s->legal_moves()) EXPECT_NE(m.text.substr(2, 1), "i") << m.text;
  EXPECT_FALSE(s->is_over());
}

// ---- Same colour end to end (rule c) -----------------------------------------------------------

TEST(Kwinty, TwoLyingBlocksOfOneColourMayNotLieEndToEndInARow) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@i2"}));
  expect_refused(*s, "L@k1");  // white's k1 l1 would meet white's i1 j1 end to end
  expect_refused(*s, "L@g1");  // and so would g1 h1, on the other end
  ASSERT_TRUE(played(*s, {"S@k1"}));
  EXPECT_TRUE(legal(*s, "L@g1")) << "black may lie end to end with white";
  // White lies on black's i2 j2 and its own k2: long sides only.
  ASSERT_TRUE(played(*s, {"L@g1", "L@j3"}));
  expect_refused(*s, "L@e1");  // black's e1 f1 would meet black's g1 h1 end to end
}

TEST(Kwinty, BlocksOfDifferentColoursMayMeetEndToEnd) {
  auto s = start();
  // Black's lying block ends against white's, then white's against black's.
  ASSERT_TRUE(played(*s, {"L@i1", "L@k1", "L@m1"}));
  // White stands on black's standing block.
  ASSERT_TRUE(played(*s, {"S@o1", "S@o3"}));
  EXPECT_FALSE(s->is_over());
}

TEST(Kwinty, AStandingBlockMayNotStandOnAStandingBlockOfItsColour) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"S@i1", "L@j1"}));
  expect_refused(*s, "S@i3");  // white on white, short side on short side
  // White stands on black's lying block, beside its own standing block.
  ASSERT_TRUE(played(*s, {"S@j2"}));
  EXPECT_TRUE(legal(*s, "S@i3")) << "black may stand on white";
  ASSERT_TRUE(played(*s, {"S@i3", "S@k2"}));
  expect_refused(*s, "S@i5");  // black on black
}

TEST(Kwinty, ByDefaultAShortSideMayTouchTheLongSideOfItsColour) {
  auto s = start();
  // White's lying block ends against white's standing block; white stands on its lying block
  // and lies on its standing blocks: none of these is end to end.
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1", "S@k1", "S@f1", "S@i2", "S@e1", "S@j2", "S@g2"}));
  ASSERT_TRUE(played(*s, {"L@i4"}));
  EXPECT_FALSE(s->is_over());
}

TEST(Kwinty, TheStrictReadingForbidsAShortSideAgainstAnyBlockOfItsColour) {
  auto s = start_strict();
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1"}));
  expect_refused(*s, "S@k1");  // white's lying block would end against white's standing one
  expect_refused(*s, "S@i2");  // white's standing foot on white's lying block
  EXPECT_TRUE(legal(*s, "L@i2")) << "long side on long side is still fine";
  ASSERT_TRUE(played(*s, {"L@i2"}));
  expect_refused(*s, "S@f1");  // black's lying g1 h1 would end against black's standing block
  EXPECT_TRUE(legal(*s, "S@k1"));
}

TEST(Kwinty, TheStrictReadingForbidsLyingOnAStandingBlockOfItsColour) {
  auto s = start_strict();
  ASSERT_TRUE(played(*s, {"S@i1", "S@j1"}));
  expect_refused(*s, "L@i3");         // on white's standing top (short side) at i2
  ASSERT_TRUE(played(*s, {"S@h1"}));  // standing side by side: long sides only
  expect_refused(*s, "L@i3");         // black's own standing top j2 is under it too
  EXPECT_TRUE(legal(*s, "L@h3")) << "black may lie on white";
}

TEST(Kwinty, TheStrictReadingDoesNotConcernTheOtherColour) {
  auto s = start_strict();
  // Black stands against white's end, white beside black, black lies end to end with white,
  // white lies on its own block with its end against black's standing block.
  ASSERT_TRUE(played(*s, {"L@i1", "S@k1", "S@l1", "L@g1", "L@i2"}));
  EXPECT_FALSE(s->is_over());
}

// ---- Five in a line wins at once ---------------------------------------------------------------

TEST(Kwinty, FiveInALineHorizontallyWinsAtOnce) {
  // Black starts: B i1 j1, B k1 k2 (standing), B l1 m1. Row 1: W W B B B B B (g..m).
  auto s = start({{"first", "1"}});
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1", "S@k1", "S@h2"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"L@l1"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1});
  EXPECT_TRUE(s->outcome()->scores.empty());
  EXPECT_EQ(s->outcome()->reason, "black lined up 5 squares horizontally");
  EXPECT_EQ(s->outcome()->code, "kwinty.five");
  EXPECT_EQ(s->outcome()->args, (json{{"seat", 1}, {"length", 5}, {"direction", "horizontal"}}));
  EXPECT_TRUE(s->legal_moves().empty());
  EXPECT_EQ(s->view(std::nullopt)["win_lines"],
            json::array({cells({{8, 0}, {9, 0}, {10, 0}, {11, 0}, {12, 0}})}));
  EXPECT_EQ(s->apply(0, Move{"L@i2"}).error(), RuleError::game_over);
}

TEST(Kwinty, FiveInALineVerticallyWinsAtOnce) {
  // White stacks lying blocks on i..j; black builds k..l beside it.
  //   5 WW..
  //   4 WWBB
  //   3 WWBB
  //   2 WWBB
  //   1 WWBB
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@k1", "L@i2", "S@k2", "L@i3", "S@l2", "L@i4", "L@k4"}));
  EXPECT_FALSE(s->is_over()) << "four in a line does not win";
  // Two columns of four each, for both colours.
  EXPECT_EQ(s->view(std::nullopt)["fours_count"], json::array({2, 2}));
  ASSERT_TRUE(played(*s, {"L@i5"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "white lined up 5 squares vertically");
  const auto v = s->view(0);
  // Both columns i and j are now lines of five: both are highlighted.
  EXPECT_EQ(v["win_lines"], json::array({cells({{8, 0}, {8, 1}, {8, 2}, {8, 3}, {8, 4}}),
                                         cells({{9, 0}, {9, 1}, {9, 2}, {9, 3}, {9, 4}})}));
  // A run of five is no line of four: only black's two columns are left.
  EXPECT_EQ(v["fours_count"], json::array({0, 2}));
  EXPECT_EQ(v["fours"][1], json::array({cells({{10, 0}, {10, 1}, {10, 2}, {10, 3}}),
                                        cells({{11, 0}, {11, 1}, {11, 2}, {11, 3}})}));
}

TEST(Kwinty, FiveInALineOnTheRisingDiagonalWinsAtOnce) {
  //   5 .....WW
  //   4 ....WWW
  //   3 .B.WWBB
  //   2 .B.WBBW
  //   1 BBWWBBW
  //     ghijklm      white: i1 j2 k3 l4 m5
  auto s = start();
  ASSERT_TRUE(
      played(*s, {"L@i1", "S@k1", "S@j2", "S@l1", "S@m1", "L@l3", "S@k3", "L@g1", "S@m4", "S@h2"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"S@l4"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "white lined up 5 squares on the rising diagonal");
  EXPECT_EQ(s->view(1)["win_lines"],
            json::array({cells({{8, 0}, {9, 1}, {10, 2}, {11, 3}, {12, 4}})}));
}

TEST(Kwinty, FiveInALineOnTheFallingDiagonalWinsAtOnce) {
  // The mirror image of the rising diagonal:
  //   5 WW.....
  //   4 WWW....
  //   3 BBWW.B.
  //   2 WBBW.B.
  //   1 WBBWWBB
  //     fghijkl      white: f5 g4 h3 i2 j1
  auto s = start();
  ASSERT_TRUE(
      played(*s, {"L@i1", "S@h1", "S@i2", "S@g1", "S@f1", "L@f3", "S@h3", "L@k1", "S@f4", "S@k2"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"S@g4"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "white lined up 5 squares on the falling diagonal");
  EXPECT_EQ(s->outcome()->args, (json{{"seat", 0}, {"length", 5}, {"direction", "falling"}}));
  EXPECT_EQ(s->view(std::nullopt)["win_lines"],
            json::array({cells({{5, 4}, {6, 3}, {7, 2}, {8, 1}, {9, 0}})}));
}

TEST(Kwinty, ALineLongerThanFiveAlsoWins) {
  //   3 ...WW...
  //   2 BWWWWWWB     white's S@j2 joins g2 h2 i2 and k2 l2: six in row 2
  //   1 BBBWWBBB
  //     fghijklm
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1", "L@g2", "L@k1", "L@k2", "S@f1", "S@i2", "S@m1"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"S@j2"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "white lined up 6 squares horizontally");
  EXPECT_EQ(s->view(std::nullopt)["win_lines"],
            json::array({cells({{6, 1}, {7, 1}, {8, 1}, {9, 1}, {10, 1}, {11, 1}})}));
}

// ---- The end after 40 blocks: lines of four ----------------------------------------------------

// Both 40-block games below build the same kind of wall on columns i..q: rows of four lying
// blocks on i..p whose colours alternate (rule c forbids two of a colour end to end), and four
// standing blocks on q (rows 1–8) whose colours alternate too; q9 stays empty. Rows, columns
// and all diagonals were checked by hand (cross-checked with an independent script): the only
// runs of four are the ones named.

TEST(Kwinty, AfterFortyBlocksTheMostLinesOfFourWins) {
  //   9 WWBBWWBB.
  //   8 BBWWBBWWB
  //   7 BBWWBBWWB
  //   6 BBWWBBWWW
  //   5 WWBBWWBBW
  //   4 BBWWBBWWB
  //   3 WWBBWWBBB
  //   2 WWBBWWBBW
  //   1 WWBBWWBBW
  //     ijklmnopq
  // White: one line, the falling diagonal n9 o8 p7 q6 (m10 is off the wall, r5 beyond it).
  // Black: none. 1 > 0: white wins.
  auto s = start();
  ASSERT_TRUE(
      played(*s, {"L@i1", "L@k1", "L@m1", "L@o1", "S@q1", "L@k2", "L@i2", "L@o2", "L@m2", "L@k3",
                  "L@i3", "L@o3", "L@m3", "S@q3", "L@k4", "L@i4", "L@o4", "L@m4", "L@i5", "L@k5",
                  "L@m5", "L@o5", "S@q5", "L@i6", "L@k6", "L@m6", "L@o6", "L@i7", "L@k7", "L@m7",
                  "L@o7", "S@q7", "L@k8", "L@i8", "L@o8", "L@m8", "L@i9", "L@k9", "L@m9"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"L@o9"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{1, 0}));
  EXPECT_EQ(s->outcome()->reason,
            "all 40 blocks placed without a line of five; lines of four: white 1, black 0");
  EXPECT_EQ(s->outcome()->code, "kwinty.fours");
  EXPECT_EQ(s->outcome()->args, (json{{"ended", "full"}, {"white", 1}, {"black", 0}}));
  EXPECT_TRUE(s->legal_moves().empty());
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["blocks_left"], json::array({0, 0}));
  EXPECT_EQ(v["fours"], json::array({json::array({cells({{13, 8}, {14, 7}, {15, 6}, {16, 5}})}),
                                     json::array()}));
  EXPECT_EQ(v["win_lines"], json::array());
}

TEST(Kwinty, APlayerWhoCannotPlacePassesAndEqualLinesOfFourDraw) {
  // After 38 blocks (19 each) only q5 q6 is free above the wall, and it sits on white's
  // standing block q3 q4: white, to move, cannot place and passes; black stands there, then
  // white stands on black's block.
  //   9 WWBBWWBB.
  //   8 BBWWBBWWW
  //   7 BBWWBBWWW
  //   6 BBWWBBWWB
  //   5 WWBBWWBBB
  //   4 BBWWBBWWW
  //   3 WWBBWWBBW
  //   2 WWBBWWBBB
  //   1 WWBBWWBBB
  //     ijklmnopq
  // White: the rising diagonal n5 o6 p7 q8 (m4 is black). Black: the falling diagonal n4 o3 p2
  // q1 (m5 is white). 1 = 1: a draw.
  auto s = start();
  ASSERT_TRUE(
      played(*s, {"L@i1", "L@k1", "L@m1", "L@o1", "L@i2", "S@q1", "L@m2", "L@k2", "L@i3", "L@o2",
                  "L@m3", "L@k3", "S@q3", "L@o3", "L@k4", "L@i4", "L@o4", "L@m4", "L@i5", "L@k5",
                  "L@m5", "L@o5", "L@k6", "L@i6", "L@o6", "L@m6", "L@k7", "L@i7", "L@o7", "L@m7",
                  "L@k8", "L@i8", "L@o8", "L@m8", "L@i9", "L@k9", "L@m9", "L@o9"}));
  ASSERT_EQ(s->to_move(), 0);
  EXPECT_EQ(s->legal_moves(), std::vector<Move>{{"pass"}});
  expect_refused(*s, "S@q5");  // white standing on white
  EXPECT_EQ(s->apply(1, Move{"S@q5"}).error(), RuleError::not_your_turn);
  ASSERT_TRUE(played(*s, {"pass"}));
  EXPECT_EQ(s->view(std::nullopt)["last"], json({{"seat", 0}, {"move", "pass"}}));
  ASSERT_EQ(s->to_move(), 1);
  EXPECT_EQ(s->legal_moves(), std::vector<Move>{{"S@q5"}});
  ASSERT_TRUE(played(*s, {"S@q5"}));
  ASSERT_EQ(s->to_move(), 0);
  EXPECT_EQ(s->legal_moves(), std::vector<Move>{{"S@q7"}}) << "the passer plays on";
  ASSERT_TRUE(played(*s, {"S@q7"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_TRUE(s->outcome()->winners.empty());
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{1, 1}));
  EXPECT_EQ(
      s->outcome()->reason,
      "all 40 blocks placed without a line of five; lines of four: white 1, black 1 (a draw)");
  EXPECT_EQ(s->view(std::nullopt)["fours"],
            json::array({json::array({cells({{13, 4}, {14, 5}, {15, 6}, {16, 7}})}),
                         json::array({cells({{13, 3}, {14, 2}, {15, 1}, {16, 0}})})}));
}

TEST(Kwinty, PassingIsRefusedToAPlayerWhoCanPlace) {
  auto s = start();
  expect_refused(*s, "pass");
  ASSERT_TRUE(played(*s, {"L@i1"}));
  expect_refused(*s, "pass");
}

TEST(Kwinty, WhenNeitherPlayerCanPlaceTheGameEndsAndLinesOfFourDecide) {
  // A wall with a standing block on i (rows 1–2) and on q (rows 3–4 white, 5–6 black); lying
  // blocks elsewhere. After 39 blocks white has none left and black's last block could only
  // stand on q7, on black's own standing block: neither can place.
  //   9 WWBBWWBB.
  //   8 BBWWBBWW.
  //   7 WWBBWWBB.
  //   6 WWBBWWBBB
  //   5 WWBBWWBBB
  //   4 BBWWBBWWW
  //   3 WWBBWWBBW
  //   2 WWWBBWWBB
  //   1 WBBWWBBWW
  //     ijklmnopq
  // White: no line of four. Black: the falling diagonal n8 o7 p6 q5 (m9 is white). 0 < 1.
  auto s = start();
  ASSERT_TRUE(
      played(*s, {"S@i1", "L@j1", "L@l1", "L@n1", "L@p1", "L@l2", "L@j2", "L@p2", "L@n2", "L@k3",
                  "L@i3", "L@o3", "L@m3", "L@i4", "S@q3", "L@m4", "L@k4", "L@k5", "L@o4", "L@o5",
                  "L@i5", "S@q5", "L@m5", "L@k6", "L@i6", "L@o6", "L@m6", "L@k7", "L@i7", "L@o7",
                  "L@m7", "L@i8", "L@k8", "L@m8", "L@o8", "L@k9", "L@i9", "L@o9"}));
  EXPECT_FALSE(s->is_over());
  ASSERT_TRUE(played(*s, {"L@m9"}));
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1});
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{0, 1}));
  EXPECT_EQ(s->outcome()->reason,
            "neither player can place a block; lines of four: white 0, black 1");
  EXPECT_TRUE(s->legal_moves().empty());
  const auto v = s->view(1);
  EXPECT_EQ(v["blocks_left"], json::array({0, 1}));
  EXPECT_EQ(v["blocks"].size(), 39u);
  EXPECT_EQ(v["fours"][1], json::array({cells({{13, 7}, {14, 6}, {15, 5}, {16, 4}})}));
}

// ---- Who starts, rematches, options ------------------------------------------------------------

TEST(Kwinty, TheHostMayChooseWhoStarts) {
  EXPECT_EQ(start({{"first", "0"}})->to_move(), 0);
  EXPECT_EQ(start({{"first", "1"}})->to_move(), 1);
  EXPECT_EQ(start({{"first", "1"}})->view(std::nullopt)["first"], 1);
}

TEST(Kwinty, TheFirstPlayerIsOtherwiseDrawnFromTheSeed) {
  expect_starter_drawn_from_seed(game(), 2);
}

TEST(Kwinty, TheLoserStartsTheNextGame) {
  // Black wins horizontally; the rematch is started by white, the loser.
  const json options{{"players", 2}, {"first", "1"}, {"strict", false}};
  auto s = start(options);
  ASSERT_TRUE(played(*s, {"L@i1", "L@g1", "S@k1", "S@h2", "L@l1"}));
  ASSERT_TRUE(s->is_over());
  const json next = game().rematch_options(options, *s->outcome());
  EXPECT_EQ(next, json({{"players", 2}, {"first", "0"}, {"strict", false}}));
  EXPECT_EQ(start(next)->to_move(), 0);
  // And when white wins, black starts, even when the last starter was drawn at random.
  const json after_white =
      game().rematch_options({{"players", 2}, {"first", "random"}, {"strict", true}},
                             Outcome{{0}, {}, "white lined up 5 squares vertically"});
  EXPECT_EQ(after_white, json({{"players", 2}, {"first", "1"}, {"strict", true}}));
}

TEST(Kwinty, ADrawKeepsTheOptionsForTheRematch) {
  const json options{{"players", 2}, {"first", "random"}, {"strict", true}};
  EXPECT_EQ(game().rematch_options(options, Outcome{{}, {2, 2}, "a draw"}), options);
}

TEST(Kwinty, OptionsAreFirstAndStrict) {
  const auto d = game().describe();
  EXPECT_EQ(d["id"], "kwinty");
  EXPECT_EQ(d["seats"], json::array({2, 2}));
  ASSERT_EQ(d["options"].size(), 3u);
  EXPECT_EQ(d["options"][1]["name"], "first");
  EXPECT_EQ(d["options"][2]["name"], "strict");
  EXPECT_EQ(d["options"][2]["type"], "bool");
  EXPECT_EQ(d["options"][2]["default"], false);
  EXPECT_EQ(game().create({{"strict", 1}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"players", 3}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(start_strict()->view(std::nullopt)["strict"], true);
}

// ---- Notation and view -------------------------------------------------------------------------

TEST(Kwinty, MalformedMovesAreRefused) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1"}));
  for (const char* m : {"", "L@r1", "L@i0", "L@i10", "l@k1", "L k1", "Lk1", "L@K1", "X@k1", "L@k1 ",
                        "S@", "pass ", "PASS"})
    expect_refused(*s, m);
}

TEST(Kwinty, TheViewShowsTheWallBlocksLeftAndTheLastMove) {
  auto s = start();
  auto v = s->view(std::nullopt);
  EXPECT_EQ(v["columns"], 17);
  EXPECT_EQ(v["rows"], 9);
  EXPECT_EQ(v["max_extent"], 9);
  EXPECT_EQ(v["colours"], json::array({"white", "black"}));
  EXPECT_EQ(v["blocks"], json::array());
  EXPECT_EQ(v["extent"], nullptr);
  EXPECT_EQ(v["x_range"], json::array({8, 9}));
  EXPECT_EQ(v["last"], nullptr);
  EXPECT_EQ(v["blocks_left"], json::array({20, 20}));
  ASSERT_TRUE(played(*s, {"L@i1", "S@k1"}));
  v = s->view(std::nullopt);
  EXPECT_EQ(
      v["blocks"],
      json::array({json{{"seat", 0}, {"move", "L@i1"}, {"x", 8}, {"y", 0}, {"w", 2}, {"h", 1}},
                   json{{"seat", 1}, {"move", "S@k1"}, {"x", 10}, {"y", 0}, {"w", 1}, {"h", 2}}}));
  EXPECT_EQ(v["extent"], json::array({8, 10}));
  EXPECT_EQ(v["x_range"], json::array({2, 16}));  // k − 8 = c, i + 8 = q
  EXPECT_EQ(v["blocks_left"], json::array({19, 19}));
  EXPECT_EQ(v["last"], json({{"seat", 1}, {"move", "S@k1"}}));
  EXPECT_EQ(v["fours"], json::array({json::array(), json::array()}));
  EXPECT_EQ(v["fours_count"], json::array({0, 0}));
  EXPECT_EQ(v["win_lines"], json::array());
  EXPECT_EQ(v["first"], 0);
  EXPECT_EQ(v["strict"], false);
  // Nothing is hidden: every seat and spectators see the same wall.
  EXPECT_EQ(s->view(0), v);
  EXPECT_EQ(s->view(1), v);
}

TEST(Kwinty, TheViewCountsLinesOfFourAsTheyAppear) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "L@k1", "L@i2", "S@k2", "L@i3", "S@l2"}));
  EXPECT_EQ(s->view(std::nullopt)["fours_count"], json::array({0, 0})) << "runs of three";
  ASSERT_TRUE(played(*s, {"L@i4"}));
  EXPECT_EQ(s->view(std::nullopt)["fours"][0],
            json::array({cells({{8, 0}, {8, 1}, {8, 2}, {8, 3}}),
                         cells({{9, 0}, {9, 1}, {9, 2}, {9, 3}})}));
}

// ---- A position from a seat's view alone (Game::from_view) ----------------------------------

const json kOptions{{"players", 2}, {"first", "random"}, {"strict", false}};

std::unique_ptr<State> rebuilt(const json& board, Seat to_move, const json& options = kOptions,
                               std::uint64_t seed = 1) {
  Rng rng(seed);
  return game().from_view(Seen{options, board, to_move, to_move}, rng);
}

// The wall of APlayerWhoCannotPlacePassesAndEqualLinesOfFourDraw, white to move and to pass.
const std::vector<std::string> kWallBeforeThePass{
    "L@i1", "L@k1", "L@m1", "L@o1", "L@i2", "S@q1", "L@m2", "L@k2", "L@i3", "L@o2",
    "L@m3", "L@k3", "S@q3", "L@o3", "L@k4", "L@i4", "L@o4", "L@m4", "L@i5", "L@k5",
    "L@m5", "L@o5", "L@k6", "L@i6", "L@o6", "L@m6", "L@k7", "L@i7", "L@o7", "L@m7",
    "L@k8", "L@i8", "L@o8", "L@m8", "L@i9", "L@k9", "L@m9", "L@o9"};

TEST(Kwinty, AViewRebuildsItsPositionPassesIncluded) {
  auto s = start();
  ASSERT_TRUE(played(*s, kWallBeforeThePass));
  const json before = s->view(0);
  // Nothing is hidden, so whatever the draws, the rebuilt position is the position itself.
  const auto a = rebuilt(before, 0, kOptions, 1), b = rebuilt(before, 0, kOptions, 2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->view(0), before);
  EXPECT_EQ(b->view(0), before);
  EXPECT_EQ(a->legal_moves(), std::vector<Move>{{"pass"}});
  // The board lists blocks, not passes: after white's pass, black to move puts it back.
  ASSERT_TRUE(played(*s, {"pass"}));
  const json after = s->view(1);
  const auto c = rebuilt(after, 1);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->view(1), after);
  EXPECT_EQ(c->legal_moves(), std::vector<Move>{{"S@q5"}});
  // It plays on to the same end as the game.
  ASSERT_TRUE(played(*c, {"S@q5", "S@q7"}));
  ASSERT_TRUE(played(*s, {"S@q5", "S@q7"}));
  EXPECT_EQ(c->outcome(), s->outcome());
  // The board's last move is white's pass, so white cannot be to move.
  EXPECT_EQ(rebuilt(after, 0), nullptr);
}

TEST(Kwinty, ABoardKwintyDoesNotShowIsRefused) {
  auto s = start();
  ASSERT_TRUE(played(*s, {"L@i1", "S@k1", "L@i2"}));
  const json board = s->view(1);
  ASSERT_TRUE(rebuilt(board, 1));
  EXPECT_EQ(rebuilt(board, 0), nullptr) << "black, able to place, cannot have passed";
  EXPECT_EQ(rebuilt(board, -1), nullptr);
  EXPECT_EQ(rebuilt(board, 1, {{"players", 2}, {"strict", true}}), nullptr)
      << "the board says the default reading is in force";
  EXPECT_EQ(rebuilt(board, 1, {{"players", 2}, {"first", "1"}}), nullptr) << "white started";
  EXPECT_EQ(rebuilt(board, 1, {{"players", 2}, {"colour", "red"}}), nullptr);
  const auto changed = [&](const char* pointer, json value) {
    json b = board;
    b[json::json_pointer(pointer)] = std::move(value);
    return b;
  };
  json no_blocks = board;
  no_blocks.erase("blocks");
  EXPECT_EQ(rebuilt(no_blocks, 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks", "L@i1"), 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks/1/seat", "black"), 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks/1/seat", 0), 1), nullptr)
      << "white twice: black, able to place, would have passed";
  EXPECT_EQ(rebuilt(changed("/blocks/1/move", "S@e1"), 1), nullptr) << "e1 is off the wall";
  EXPECT_EQ(rebuilt(changed("/blocks/1/x", 3), 1), nullptr) << "S@k1 is in column k";
  EXPECT_EQ(rebuilt(changed("/first", 2), 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks_left", json::array({20, 20})), 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/fours_count", json::array({1, 0})), 1), nullptr);
  EXPECT_EQ(rebuilt(changed("/last", nullptr), 1), nullptr);
  // A finished game has nobody to move: black's five in row 1.
  auto won = start({{"first", "1"}});
  ASSERT_TRUE(played(*won, {"L@i1", "L@g1", "S@k1", "S@h2", "L@l1"}));
  ASSERT_TRUE(won->is_over());
  EXPECT_EQ(rebuilt(won->view(0), 0), nullptr);
  EXPECT_EQ(rebuilt(won->view(1), 1), nullptr);
}

}  // namespace
}  // namespace plateau::rules::kwinty

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(
    Kwinty, Conformance,
    // Random Kwinty games are short (a few ms), so more playouts than the default cost little and
    // reach the rarer endings (passes, neither player able to place) more often.
    ::testing::Values(
        ConformanceCase{&kwinty::game(), {{"players", 2}}, "kwinty_default", 200},
        ConformanceCase{
            &kwinty::game(), {{"players", 2}, {"first", "1"}}, "kwinty_black_first", 50},
        ConformanceCase{&kwinty::game(), {{"players", 2}, {"strict", true}}, "kwinty_strict", 200}),
    conformance_case_name);

}  // namespace plateau::rules::testing
