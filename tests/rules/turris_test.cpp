// Turris scenarios: every rule of the Turris part of blocks_kwinty_turris.fr.md and of the Turris
// section of DECISIONS.md, played move by move. Seat 0 is white (W), seat 1 black (B); every
// scenario lets white start unless it says otherwise.
//
// Faces are drawn in the tests as the view gives them: rows from the bottom of the picture up,
// three squares left to right as seen by a person facing that side; 'W'/'B' is a square in that
// player's largest (highlighted) area, 'w'/'b' one outside it, '.' an empty line of sight.
#include <gtest/gtest.h>

#include <set>

#include "conformance.hpp"
#include "rules/turris/turris.hpp"
#include "scenario.hpp"

namespace plateau::rules::turris {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;
using Moves = std::vector<std::string>;

std::unique_ptr<State> start(const char* first = "0", bool chain = true) {
  auto s = game().create({{"first", first}, {"chain_bonus", chain}}, 1);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

std::set<std::string> move_set(const State& s) {
  std::set<std::string> out;
  for (const auto& m : s.legal_moves()) out.insert(m.text);
  return out;
}

bool any_removal(const State& s) {
  for (const auto& m : s.legal_moves())
    if (m.text.starts_with("remove:")) return true;
  return false;
}

// The move is not listed, is refused as illegal, and changes nothing.
::testing::AssertionResult refused(State& s, const std::string& m) {
  if (legal(s, m)) return ::testing::AssertionFailure() << m << " is a legal move";
  const json before = s.view(std::nullopt);
  const auto r = s.apply(*s.to_move(), Move{m});
  if (r.has_value()) return ::testing::AssertionFailure() << m << " was accepted";
  if (r.error() != RuleError::illegal_move)
    return ::testing::AssertionFailure() << m << ": " << error_code(r.error());
  if (s.view(std::nullopt) != before)
    return ::testing::AssertionFailure() << m << " changed the view";
  return ::testing::AssertionSuccess();
}

// A face of the view as text rows, bottom row first (see the file comment).
std::vector<std::string> face_rows(const State& s, const char* face) {
  std::vector<std::string> rows;
  const json view = s.view(std::nullopt);
  for (const auto& row : view["faces"][face]["grid"]) {
    std::string text;
    for (const auto& sq : row) {
      if (sq.is_null()) {
        text += '.';
        continue;
      }
      const bool best = sq["best"].get<bool>();
      text += sq["seat"] == 0 ? (best ? 'W' : 'w') : (best ? 'B' : 'b');
    }
    rows.push_back(text);
  }
  return rows;
}

json face_score(const State& s, const char* face) {
  return s.view(std::nullopt)["faces"][face]["score"];
}

// All nine base columns, white on the corners and the centre, black on the edges; white's centre
// block (placed last, when levels 1 and 2 hold others) earns a bonus that white declines. Black
// moves next.
const Moves kBase{"v@a1/1", "v@b1/1", "v@c1/1", "v@c2/1", "v@c3/1",
                  "v@b3/1", "v@a3/1", "v@a2/1", "v@b2/1", "bonus:none"};

// Two levels over a full flat level: the pinwheel a1-b1, c1-c2, b3-c3, a2-a3 on the lower level,
// the other pinwheel b1-c1, c2-c3, a3-b3, a1-a2 above it (each of those rests on two different
// blocks), then the centre column as one vertical block, which earns a bonus that is declined.
Moves unit(int level, bool swapped_order = false) {
  const std::string lo = "/" + std::to_string(level), hi = "/" + std::to_string(level + 1);
  Moves m = swapped_order ? Moves{"h@c1-c2" + lo, "h@a1-b1" + lo, "h@b3-c3" + lo, "h@a2-a3" + lo,
                                  "h@b1-c1" + hi, "h@c2-c3" + hi, "h@a1-a2" + hi, "h@a3-b3" + hi}
                          : Moves{"h@a1-b1" + lo, "h@c1-c2" + lo, "h@b3-c3" + lo, "h@a2-a3" + lo,
                                  "h@b1-c1" + hi, "h@c2-c3" + hi, "h@a3-b3" + hi, "h@a1-a2" + hi};
  m.push_back("v@b2" + lo);
  m.push_back("bonus:none");
  return m;
}

Moves concat(std::initializer_list<Moves> parts) {
  Moves out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A complete game of 40 blocks: the base, units on levels 3-4, 5-6, 7-8, then four blocks on top.
const Moves kTop{"h@a1-b1/9", "h@c1-c2/9", "v@c3/9", "v@b3/9"};
Moves complete_game(bool draw_variant = false) {
  return concat({kBase, unit(3), unit(5), unit(7, draw_variant), kTop});
}

// --- Construction rules ---------------------------------------------------------------------

TEST(Turris, TheFirstBlockStandsAnywhereOnTheBaseExceptTheCentre) {
  auto s = start();
  // Rule a: free placement; no horizontal on the base; rule f keeps the empty level's centre shut.
  EXPECT_EQ(move_set(*s), (std::set<std::string>{"v@a1/1", "v@a2/1", "v@a3/1", "v@b1/1", "v@b3/1",
                                                 "v@c1/1", "v@c2/1", "v@c3/1"}));
  EXPECT_TRUE(refused(*s, "v@b2/1"));
  EXPECT_TRUE(refused(*s, "h@a1-b1/1"));
}

TEST(Turris, EachPlayerHasTwentyBlocksAndTheTowerStaysOnThreeByThreeCells) {
  auto s = start();
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({20, 20}));
  // « Le plan de la tour ne doit pas s'étendre sur plus de 3 x 3 carrés »: columns a-c, rows 1-3.
  for (const char* m : {"v@d1/1", "v@a4/1", "v@a0/1", "v@`1/1"}) EXPECT_TRUE(refused(*s, m));
  play(*s, {"v@c1/1", "v@c2/1"});
  for (const char* m : {"v@d1/1", "v@d2/1", "v@c4/1", "h@c1-d1/3", "h@c2-d2/3"})
    EXPECT_TRUE(refused(*s, m));
  EXPECT_TRUE(legal(*s, "v@b1/1"));
}

TEST(Turris, ALaterVerticalMustTouchALongSideOfABlock) {
  auto s = start();
  play(*s, {"v@a1/1"});
  // Rules a and c: only the two columns beside a1; resting on a1 touches only its end.
  EXPECT_EQ(move_set(*s), (std::set<std::string>{"v@a2/1", "v@b1/1"}));
  EXPECT_TRUE(refused(*s, "v@c3/1"));
  EXPECT_TRUE(refused(*s, "v@a1/3"));
}

TEST(Turris, NoHorizontalBlockLiesOnTheBase) {
  auto s = start();
  play(*s, {"v@a1/1", "v@a2/1"});
  EXPECT_TRUE(refused(*s, "h@a3-b3/1"));
  EXPECT_TRUE(refused(*s, "h@b1-b2/1"));
  EXPECT_TRUE(legal(*s, "h@a1-a2/3")) << "over two standing blocks it may lie";
}

TEST(Turris, NoBlockHangsOverAnEmptyCell) {
  auto s = start();
  play(*s, {"v@a1/1", "v@a2/1"});
  EXPECT_TRUE(refused(*s, "h@a2-a3/3")) << "a3 is empty under one half";
  EXPECT_TRUE(refused(*s, "h@a1-b1/3")) << "b1 is empty under one half";
  EXPECT_TRUE(refused(*s, "v@b1/3")) << "a vertical lands on its column, never above it";
  EXPECT_TRUE(refused(*s, "v@a1/5")) << "a1 is two levels high: a block there lands on level 3";
}

TEST(Turris, AVerticalOnTopOfABlockStillNeedsALongSideContact) {
  auto s = start();
  play(*s, kBase);
  // Levels 3 and 4 are empty: a vertical on a1 would touch only the block under its end.
  EXPECT_TRUE(refused(*s, "v@a1/3"));
  play(*s, {"h@a1-b1/3"});
  EXPECT_TRUE(legal(*s, "v@a2/3")) << "its long side touches a1 on level 3";
  EXPECT_TRUE(refused(*s, "v@c3/3"));
  play(*s, {"v@a2/3"});
}

TEST(Turris, AHorizontalMustRestOnTwoDifferentBlocks) {
  auto s = start();
  play(*s, kBase);
  play(*s, {"h@a1-b1/3"});
  EXPECT_TRUE(refused(*s, "h@a1-b1/4")) << "both halves would rest on the same block";
  play(*s, {"h@c1-c2/3"});
  EXPECT_TRUE(legal(*s, "h@b1-c1/4")) << "b1 rests on a1-b1, c1 on c1-c2";
  play(*s, {"h@b1-c1/4"});
}

TEST(Turris, CellsOfAHorizontalAreWrittenInOrder) {
  auto s = start();
  play(*s, kBase);
  EXPECT_TRUE(refused(*s, "h@b1-a1/3"));
  play(*s, {"h@a1-b1/3"});
}

TEST(Turris, NoNewLevelMayMakeFourIncompleteLevels) {
  auto s = start();
  // Levels 1 and 2 are incomplete (only three base columns), level 3 is begun: three already.
  play(*s, {"v@a1/1", "v@b1/1", "v@a2/1", "h@a1-b1/3"});
  // v@a2/3 touches a1 on level 3 and is supported, but would begin a fourth incomplete level.
  EXPECT_TRUE(refused(*s, "v@a2/3"));
  EXPECT_TRUE(legal(*s, "v@c1/1")) << "filling the lowest levels is always open";
  // Once levels 1 and 2 are complete, the same shape is legal (see the test on long sides).
}

TEST(Turris, ALevelsCentreWaitsForAnotherBlockOnThatLevel) {
  auto s = start();
  EXPECT_TRUE(refused(*s, "v@b2/1"));
  play(*s, {"v@a1/1", "v@b1/1"});
  EXPECT_TRUE(legal(*s, "v@b2/1")) << "levels 1 and 2 now hold b1 (and a1)";

  auto t = start();
  play(*t, kBase);
  EXPECT_TRUE(refused(*t, "h@a2-b2/3")) << "level 3 is empty: its centre is shut";
  play(*t, {"h@a1-b1/3"});
  EXPECT_TRUE(legal(*t, "h@a2-b2/3"));
}

TEST(Turris, ACentreVerticalNeedsAnotherBlockOnItsUpperLevelToo) {
  auto s = start();
  play(*s, kBase);
  play(*s, {"h@a1-b1/3"});
  // Touches b1 on level 3, level 3 holds a1-b1, but level 4 holds nothing yet.
  EXPECT_TRUE(refused(*s, "v@b2/3"));
  play(*s, {"v@a2/3"});  // fills a2 on levels 3 and 4
  EXPECT_TRUE(legal(*s, "v@b2/3"));
  play(*s, {"v@b2/3"});
}

// --- The bonus ---------------------------------------------------------------------------------

TEST(Turris, AVerticalInTheCentreColumnEarnsABonus) {
  auto s = start();
  play(*s, {"v@a1/1", "v@b1/1", "v@b2/1"});
  EXPECT_EQ(s->to_move(), 0) << "the bonus is a further move of the same seat";
  EXPECT_EQ(s->view(std::nullopt)["phase"], "bonus");
  EXPECT_TRUE(legal(*s, "bonus:none"));
  EXPECT_TRUE(legal(*s, "v@a2/1")) << "a bonus placement is written like any placement";
  play(*s, {"bonus:none"});
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(s->view(std::nullopt)["phase"], "place");
}

TEST(Turris, AHorizontalWithOneHalfOnTheCentreEarnsABonusAndOthersDoNot) {
  auto s = start();
  play(*s, kBase);
  play(*s, {"h@a1-b1/3"});
  EXPECT_EQ(s->to_move(), 0) << "off the centre: no bonus, the turn passes";
  play(*s, {"h@a2-b2/3"});
  EXPECT_EQ(s->to_move(), 0);
  EXPECT_EQ(s->view(std::nullopt)["phase"], "bonus");
}

TEST(Turris, TheBonusMayPlaceAnotherOwnBlock) {
  auto s = start();
  play(*s, {"v@a1/1", "v@b1/1", "v@b2/1", "v@c2/1"});
  EXPECT_EQ(s->to_move(), 1) << "c2 is off the centre: the turn ends";
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({17, 19}));  // white 20 − 3, black 20 − 1
  EXPECT_EQ(s->view(std::nullopt)["blocks"][3]["seat"], 0);
}

// W a1, B b1, W c1, B c2, W c3, B b3, W a3, B a2 on the base (b2 left empty),
// W h@a1-b1/3, B h@b3-c3/3, then white's centre block, which leaves level 3's centre open.
const Moves kBeforeChain{"v@a1/1", "v@b1/1", "v@c1/1",    "v@c2/1",    "v@c3/1", "v@b3/1",
                         "v@a3/1", "v@a2/1", "h@a1-b1/3", "h@b3-c3/3", "v@b2/1"};

TEST(Turris, ABonusPlacementOnACentreEarnsAFurtherBonus) {
  auto s = start("0", true);
  play(*s, kBeforeChain);
  EXPECT_EQ(s->to_move(), 0);
  play(*s, {"h@a2-b2/3"});  // the bonus placement, with one half on level 3's centre
  EXPECT_EQ(s->to_move(), 0) << "chained: another bonus";
  EXPECT_EQ(s->view(std::nullopt)["phase"], "bonus");
  EXPECT_EQ(s->view(std::nullopt)["last"], json({{"seat", 0}, {"moves", {"v@b2/1", "h@a2-b2/3"}}}));
}

TEST(Turris, WithoutChainingABonusPlacementEarnsNothingMore) {
  auto s = start("0", false);
  play(*s, kBeforeChain);
  EXPECT_EQ(s->to_move(), 0) << "the first centre still earns its bonus";
  play(*s, {"h@a2-b2/3"});
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(s->view(std::nullopt)["phase"], "place");
}

// W a1, B b1, W a2, B a3, then white's centre block: black's b1 can go, a3 (their last) cannot.
const Moves kRemovalReady{"v@a1/1", "v@b1/1", "v@a2/1", "v@a3/1", "v@b2/1"};

TEST(Turris, TheBonusMayRemoveAnOpponentBlockAndGiveItBack) {
  auto s = start();
  play(*s, kRemovalReady);
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({17, 18}));  // white 20 − 3, black 20 − 2
  play(*s, {"remove:v@b1/1"});
  const json v = s->view(std::nullopt);
  EXPECT_EQ(v["supply"], json({17, 19})) << "black has the block back";
  EXPECT_EQ(v["blocks"][1], nullptr);
  EXPECT_EQ(v["levels"][0][0][1], nullptr) << "b1 on level 1 is empty again";
  EXPECT_EQ(v["levels"][1][0][1], nullptr);
  EXPECT_EQ(s->to_move(), 1) << "a removal ends the turn";
  EXPECT_EQ(v["last"], json({{"seat", 0}, {"moves", {"v@b2/1", "remove:v@b1/1"}}}));
}

TEST(Turris, TheOpponentsLastPlacedBlockCannotBeRemoved) {
  auto s = start();
  play(*s, kRemovalReady);
  EXPECT_EQ(s->view(std::nullopt)["protected"], json({4, 3}));  // block ids: v@b2/1, v@a3/1
  EXPECT_TRUE(refused(*s, "remove:v@a3/1"));
  EXPECT_TRUE(legal(*s, "remove:v@b1/1"));
}

TEST(Turris, OnesOwnBlockCannotBeRemoved) {
  auto s = start();
  play(*s, kRemovalReady);
  EXPECT_TRUE(refused(*s, "remove:v@a1/1"));
  EXPECT_TRUE(refused(*s, "remove:v@a2/1"));
}

// Base, then B h@a1-b1/3, W v@a2/3, B v@a1/4 (levels 3, 4 and 5 are open), then white's centre
// vertical on levels 3-4 earns a bonus.
const Moves kFiveLevels = concat({kBase, {"h@a1-b1/3", "v@a2/3", "v@a1/4", "v@b2/3"}});

TEST(Turris, ABlockWithAnotherOnItCannotBeRemoved) {
  auto s = start();
  play(*s, kFiveLevels);
  ASSERT_EQ(s->to_move(), 0);
  EXPECT_TRUE(refused(*s, "remove:h@a1-b1/3")) << "black's v@a1/4 rests on it";
  EXPECT_TRUE(refused(*s, "remove:v@b1/1")) << "h@a1-b1/3 rests on it";
}

TEST(Turris, ARemovalThatWouldLeaveFourIncompleteLevelsIsRefused) {
  auto s = start();
  play(*s, kFiveLevels);
  // Removing black's c2 (nothing on it, not their last) would reopen levels 1 and 2 under the
  // three open levels 3, 4, 5: five incomplete levels.
  EXPECT_TRUE(refused(*s, "remove:v@c2/1"));
  EXPECT_TRUE(refused(*s, "remove:v@b3/1"));
  EXPECT_TRUE(refused(*s, "remove:v@a1/4")) << "black's last block";
  EXPECT_FALSE(any_removal(*s));
  EXPECT_TRUE(legal(*s, "bonus:none"));
}

TEST(Turris, ARemovalThatWouldLeaveAVerticalTouchingNothingIsRefused) {
  auto s = start();
  // W a1, B b1, W c1, B a2, then white's centre: removing b1 would leave c1 standing alone.
  play(*s, {"v@a1/1", "v@b1/1", "v@c1/1", "v@a2/1", "v@b2/1"});
  ASSERT_EQ(s->to_move(), 0);
  EXPECT_TRUE(refused(*s, "remove:v@b1/1"));
  EXPECT_FALSE(any_removal(*s));
}

TEST(Turris, ARemovalThatWouldLeaveALevelWithOnlyItsCentreIsRefused) {
  auto s = start();
  // Level 4 holds only black's h@b1-c1/4 when white's centre vertical fills b2 on levels 3-4;
  // black then places h@a2-a3/3, so h@b1-c1/4 is no longer their last block.
  play(*s, concat({kBase,
                   {"h@a1-b1/3", "h@c1-c2/3", "h@b1-c1/4", "h@b3-c3/3", "h@a2-a3/3", "v@b2/3"}}));
  ASSERT_EQ(s->to_move(), 0);
  ASSERT_EQ(s->view(std::nullopt)["phase"], "bonus");
  // Nothing rests on it and rule e holds after, but level 4 would hold its centre alone.
  EXPECT_TRUE(refused(*s, "remove:h@b1-c1/4"));
  EXPECT_FALSE(any_removal(*s));
}

// W a1, B b1, W a2, B c1, W a3, B c2, W h@a1-a2/3, B b3, then white's centre block and the
// removal of black's c1.
const Moves kBarred{"v@a1/1", "v@b1/1",    "v@a2/1", "v@c1/1", "v@a3/1",
                    "v@c2/1", "h@a1-a2/3", "v@b3/1", "v@b2/1", "remove:v@c1/1"};

TEST(Turris, FreedCellsAreBarredToTheOpponentForTheirWholeNextTurn) {
  auto s = start();
  play(*s, kBarred);
  EXPECT_EQ(s->view(std::nullopt)["barred"], json({{"seat", 1}, {"cells", {"c1/1", "c1/2"}}}));
  ASSERT_EQ(s->to_move(), 1);
  EXPECT_TRUE(refused(*s, "v@c1/1"));
  // Black's own centre placement earns a bonus; the bonus placement is still barred from c1.
  play(*s, {"h@b2-c2/3"});
  ASSERT_EQ(s->to_move(), 1);
  ASSERT_EQ(s->view(std::nullopt)["phase"], "bonus");
  EXPECT_TRUE(refused(*s, "v@c1/1"));
  play(*s, {"bonus:none"});
  EXPECT_EQ(s->view(std::nullopt)["barred"], nullptr);
  EXPECT_TRUE(legal(*s, "v@c1/1")) << "the bar was black's only";
  play(*s, {"h@a3-b3/3"});
  EXPECT_TRUE(legal(*s, "v@c1/1")) << "black's next turn is free again";
}

// --- Passing and the end ---------------------------------------------------------------------

TEST(Turris, APlayerWhoCannotPlacePasses) {
  auto s = start();
  // Base with black on the corners, level 3 filled but for a1 by four horizontals; white's last
  // one covers the centre and removes black's corner block a1.
  play(*s,
       {"v@a2/1", "v@a1/1", "v@b1/1", "v@c1/1", "v@c2/1", "v@c3/1", "v@b3/1", "v@a3/1", "v@b2/1",
        "bonus:none", "h@b1-c1/3", "h@a2-a3/3", "h@b3-c3/3", "h@b2-c2/3", "remove:v@a1/1"});
  // a1 is barred to black; every other block would begin level 4 with levels 1, 2 and 3 open.
  ASSERT_EQ(s->to_move(), 1);
  EXPECT_EQ(move_set(*s), std::set<std::string>{"pass"});
  play(*s, {"pass"});
  EXPECT_EQ(s->to_move(), 0);
  EXPECT_TRUE(legal(*s, "v@a1/1"));
  EXPECT_FALSE(legal(*s, "pass")) << "a player who can place may not pass";
}

TEST(Turris, APlayerWithNoBlockLeftIsSkippedAndTheOtherPlacesAllTheirs) {
  auto s = start();
  // As the complete game, but white uses the bonus of the centre block on levels 5-6 to place
  // the first block of level 7: white then places one block more than black.
  Moves moves = concat({kBase, unit(3), unit(5)});
  moves.back() = "h@a1-b1/7";  // instead of "bonus:none"
  play(*s, moves);
  play(*s, {"h@c1-c2/7", "h@b3-c3/7", "h@a2-a3/7", "h@b1-c1/8", "h@c2-c3/8", "h@a3-b3/8",
            "h@a1-a2/8", "v@b2/7", "bonus:none", "h@a1-b1/9", "h@c1-c2/9"});
  // White's twentieth block is h@c1-c2/9 (14 + the bonus one + 5 since).
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({0, 2}));
  EXPECT_EQ(s->to_move(), 1);
  play(*s, {"v@c3/9"});
  EXPECT_EQ(s->to_move(), 1) << "white has nothing to place: black goes on";
  play(*s, {"v@b3/9"});
  EXPECT_TRUE(s->is_over());
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({0, 0}));
}

TEST(Turris, TheGameGoesOnUntilBothPlayersHavePlacedEveryBlock) {
  auto s = start();
  Moves moves = complete_game();
  const std::string last = moves.back();
  moves.pop_back();
  play(*s, moves);
  EXPECT_FALSE(s->is_over());
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({0, 1}));
  play(*s, {last});
  EXPECT_TRUE(s->is_over());
  EXPECT_TRUE(s->legal_moves().empty());
  EXPECT_EQ(s->view(std::nullopt)["phase"], "over");
  EXPECT_EQ(s->apply(1, Move{"pass"}).error(), RuleError::game_over);
}

TEST(Turris, TheGameEndsWhenTheFortiethBlockIsPlacedEvenOnACentre) {
  // Issue 49: seed 130, chain bonus on, white first. The 40th block, black's h@b2-c2/9, covers
  // a centre; it used to earn a bonus (a removal gave a block back and play went on). « Le jeu
  // se termine lorsque tous les pions ont été posés. »
  auto created = game().create({{"first", "0"}, {"chain_bonus", true}}, 130);
  ASSERT_TRUE(created.has_value());
  auto& s = *created;
  const Moves moves{"v@a2/1",    "v@a3/1",    "v@b2/1",     "v@c2/1",    "v@c3/1",    "v@b1/1",
                    "h@a2-a3/3", "h@b1-b2/3", "v@a1/1",     "v@b3/1",    "v@c1/1",    "v@c1/3",
                    "h@c2-c3/3", "h@a2-b2/4", "v@c2/4",     "v@a1/3",    "h@a1-a2/5", "v@b1/4",
                    "v@c3/4",    "v@a3/4",    "v@b3/3",     "h@c2-c3/6", "h@a1-b1/6", "v@c1/5",
                    "h@b2-b3/5", "v@b3/6",    "v@a3/6",     "h@a2-b2/6", "h@b1-c1/7", "v@c2/7",
                    "v@c1/8",    "v@b2/7",    "v@a1/7",     "v@b1/8",    "v@b3/8",    "v@c3/7",
                    "v@a3/8",    "v@a2/7",    "h@b1-c1/10", "h@b2-c2/9"};
  ASSERT_EQ(moves.size(), 40u);
  play(*s, moves);
  const json view = s->view(std::nullopt);
  EXPECT_EQ(view["supply"], json({0, 0}));
  ASSERT_TRUE(s->is_over()) << "offered instead: " << view["phase"];
  EXPECT_TRUE(s->legal_moves().empty());
  EXPECT_EQ(view["phase"], "over");
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, std::vector<Seat>{1});
  EXPECT_EQ(out.scores, (std::vector<int>{38, 49}));
  EXPECT_EQ(out.reason.rfind("all blocks are placed", 0), 0u) << out.reason;
  EXPECT_EQ(out.code, "turris.faces");
  EXPECT_EQ(out.args, (json{{"ended", "full"}, {"white", 38}, {"black", 49}}));
}

TEST(Turris, ABonusEarnedByAPlayersLastBlockStaysWhileTheOpponentHasBlocks) {
  // Seed 27, white first: white's 20th block, h@b2-b3/9, covers the centre b2/9 while black has
  // 2 blocks left. The bonus is offered; a removal gives black a block back and play goes on.
  auto created = game().create({{"first", "0"}, {"chain_bonus", true}}, 27);
  ASSERT_TRUE(created.has_value());
  auto& s = *created;
  play(*s,
       {"v@c1/1", "v@c2/1", "v@b2/1", "h@c1-c2/3", "v@b1/1",    "v@c3/1",    "v@a2/1", "h@a2-b2/3",
        "v@a3/1", "v@b3/1", "v@a1/1", "h@b3-c3/3", "v@a1/3",    "h@c2-c3/4", "v@b3/4", "v@a2/4",
        "v@a3/3", "v@c1/4", "v@b1/3", "v@b2/4",    "v@a1/5",    "v@a3/5",    "v@b1/5", "v@c3/5",
        "v@b3/6", "v@b2/6", "v@c2/5", "v@a2/6",    "h@c2-c3/7", "h@b3-c3/8", "v@a1/7", "h@b2-c2/8",
        "v@b1/7", "v@a3/7", "v@c1/6", "v@a2/8",    "v@c1/8",    "h@b2-b3/9"});
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({0, 2}));
  EXPECT_EQ(s->view(std::nullopt)["phase"], "bonus");
  EXPECT_EQ(s->to_move(), 0);
  EXPECT_EQ(move_set(*s), (std::set<std::string>{"remove:v@b1/7", "bonus:none"}));
  play(*s, {"remove:v@b1/7"});
  EXPECT_FALSE(s->is_over());
  EXPECT_EQ(s->view(std::nullopt)["supply"], json({0, 3}));
  EXPECT_EQ(s->to_move(), 1);
}

// --- Scoring -----------------------------------------------------------------------------------

// The complete tower, level by level (W white, B black; rows 1..3 listed as a1 b1 c1 / a2 b2 c2
// / a3 b3 c3):
//   levels 1-2: 9 verticals, W on a1 c1 a3 c3 b2, B on b1 a2 c2 b3
//   level 3: B a1-b1, W c1-c2, B b3-c3, W a2-a3, B b2 (vertical 3-4)
//   level 4: B b1-c1, W c2-c3, B a3-b3, W a1-a2
//   level 5: W a1-b1, B c1-c2, W b3-c3, B a2-a3, W b2 (vertical 5-6)
//   level 6: W b1-c1, B c2-c3, W a3-b3, B a1-a2
//   level 7: B a1-b1, W c1-c2, B b3-c3, W a2-a3, B b2 (vertical 7-8)
//   level 8: B b1-c1, W c2-c3, B a3-b3, W a1-a2
//   level 9: W a1-b1, B c1-c2, W c3 (vertical 9-10), B b3 (vertical 9-10); a2, b2, a3 empty
TEST(Turris, ACompleteTowerIsScoredFaceByFace) {
  auto s = start();
  play(*s, complete_game());
  ASSERT_TRUE(s->is_over());

  // Face A, from row 1: a b c. Level 10 shows b3 and c3 two rows back.
  //   W areas: {L1-2 a} 2, {L1-3 c} 3, {L4 a, L5 a b, L6 b c, L7 c} 6, {L8 a, L9 a b} 3, {L10 c} 1
  //   B areas: {L1-3 b, L3 a, L4 b c, L5 c} 7, {L6 a, L7 a b, L8 b c, L9 c} 6, {L10 b} 1
  EXPECT_EQ(face_rows(*s, "A"), (std::vector<std::string>{"wBw", "wBw", "BBw", "WBB", "WWB", "bWW",
                                                          "bbW", "wbb", "wwb", ".bw"}));
  EXPECT_EQ(face_score(*s, "A"), json({6, 7}));
  // Face B, from column c: rows 1 2 3. Two white areas of 7: the lower one is highlighted.
  //   W: {L1-3 col1, L3-4 col2, L4-5 col3} 7, {L1-2 col3} 2, {L6-7 col1, L7-8 col2, L8-10 col3} 7
  //   B: {L1-2 col2} 2, {L3 col3} 1, {L4-5 col1, L5-6 col2, L6-7 col3} 6, {L8-9 col1, L9 col2} 3
  EXPECT_EQ(face_rows(*s, "B"), (std::vector<std::string>{"Wbw", "Wbw", "WWb", "BWW", "BBW", "wBB",
                                                          "wwB", "bww", "bbw", "..w"}));
  EXPECT_EQ(face_score(*s, "B"), json({7, 6}));
  // Face C, from row 3: c b a. On level 9 the a-column shows a1-b1 two rows back.
  //   W: {L1-2 c3} 2, {L1-3 a3} 3, {L4-5 c3, L5-6 b3, L6-7 a3} 6, {L8-10 c3} 3, {L9 a} 1
  //   B: {L1-3 b3, L3 c3, L4 b3 a3, L5 a3} 7, {L6-7 c3, L7-10 b3, L8 a3} 7 (not highlighted)
  EXPECT_EQ(face_rows(*s, "C"), (std::vector<std::string>{"wBw", "wBw", "BBw", "WBB", "WWB", "bWW",
                                                          "bbW", "wbb", "wbw", "wb."}));
  EXPECT_EQ(face_score(*s, "C"), json({6, 7}));
  // Face D, from column a: rows 3 2 1. Level 9 shows b3 one row back and c2 two rows back.
  //   W: {L1-3 a3, L3-4 a2, L4-5 a1} 7, {L1-2 a1} 2, {L6-7 a3, L7-8 a2, L8-9 a1} 6
  //   B: {L1-2 a2} 2, {L3 a1} 1, {L4-5 a3, L5-6 a2, L6-7 a1} 6, {L8-10 a3, L9 a2} 4
  EXPECT_EQ(face_rows(*s, "D"), (std::vector<std::string>{"Wbw", "Wbw", "WWb", "BWW", "BBW", "wBB",
                                                          "wwB", "bww", "bbw", "b.."}));
  EXPECT_EQ(face_score(*s, "D"), json({7, 6}));
  // Roof, rows 1 2 3 from the bottom, columns a b c: a2 (level 8), b2 (level 8), a3 (level 8)
  // show lower blocks. W {a1 b1 a2} 3, {c3} 1; B {c1 c2 b2 b3 a3} 5.
  EXPECT_EQ(face_rows(*s, "roof"), (std::vector<std::string>{"WWB", "WBB", "BBw"}));
  EXPECT_EQ(face_score(*s, "roof"), json({3, 5}));

  // White 6 + 7 + 6 + 7 + 3 = 29; black 7 + 6 + 7 + 6 + 5 = 31.
  const auto out = *s->outcome();
  EXPECT_EQ(out.scores, (std::vector<int>{29, 31}));
  EXPECT_EQ(out.winners, std::vector<Seat>{1});
  EXPECT_NE(out.reason.find("black wins"), std::string::npos) << out.reason;
  EXPECT_EQ(s->view(std::nullopt)["score"], json({29, 31}));
}

TEST(Turris, RecessedSquaresOfTheCompleteTowerShowTheirDepth) {
  auto s = start();
  play(*s, complete_game());
  const json faces = s->view(std::nullopt)["faces"];
  EXPECT_EQ(faces["A"]["grid"][9][1]["depth"], 2) << "b3 seen from row 1";
  EXPECT_EQ(faces["A"]["grid"][8][0]["depth"], 0);
  EXPECT_EQ(faces["C"]["grid"][8][2]["depth"], 2) << "a1 seen from row 3";
  EXPECT_EQ(faces["D"]["grid"][8][0]["depth"], 1) << "b3 seen from column a";
  EXPECT_EQ(faces["D"]["grid"][8][1]["depth"], 2) << "c2 seen from column a";
  EXPECT_EQ(faces["roof"]["grid"][1][1]["level"], 8) << "the centre column stops at level 8";
  EXPECT_EQ(faces["roof"]["grid"][2][1]["level"], 10);
}

TEST(Turris, EveryFaceOfTheCompleteTowerScoresForBothPlayersAsInTheText) {
  auto s = start();
  play(*s, complete_game());
  // The text's example scores both colours on all five views (e.g. face A: black 10, white 12).
  for (const char* face : {"A", "B", "C", "D", "roof"}) {
    const json score = face_score(*s, face);
    EXPECT_GT(score[0].get<int>(), 0) << face;
    EXPECT_GT(score[1].get<int>(), 0) << face;
  }
}

TEST(Turris, EqualTotalsAreADraw) {
  auto s = start();
  // The complete game with levels 7-8 placed in another order: c1-c2/7 is now black's and
  // a1-b1/7 white's, a1-a2/8 black's and a3-b3/8 white's.
  play(*s, complete_game(true));
  ASSERT_TRUE(s->is_over());
  // A: W {L4 a, L5 a b, L6 b c, L7 a b} 7; B {L1-3 b, L3 a, L4 b c, L5 c} 7
  EXPECT_EQ(face_rows(*s, "A"), (std::vector<std::string>{"wBw", "wBw", "BBw", "WBB", "WWB", "bWW",
                                                          "WWb", "bbb", "wwb", ".bw"}));
  EXPECT_EQ(face_score(*s, "A"), json({7, 7}));
  // B: W {L1-3 col1, L3-4 col2, L4-5 col3} 7; B {L4-5 col1, L5-6 col2, L6 col3, L7 all, L8-9
  //    col1, L9 col2} 11
  EXPECT_EQ(face_rows(*s, "B"), (std::vector<std::string>{"Wbw", "Wbw", "WWb", "BWW", "BBW", "wBB",
                                                          "BBB", "Bww", "BBw", "..w"}));
  EXPECT_EQ(face_score(*s, "B"), json({7, 11}));
  // C: W {L4-5 c3, L5-6 b3, L6-8 a3, L8 all, L9-10 c3, L9 a} 12; B {L1-3 b3, L3 c3, L4-5 ...} 7
  EXPECT_EQ(face_rows(*s, "C"), (std::vector<std::string>{"wBw", "wBw", "BBw", "WBB", "WWB", "bWW",
                                                          "bbW", "WWW", "WbW", "Wb."}));
  EXPECT_EQ(face_score(*s, "C"), json({12, 7}));
  // D: W {L1-3 a3, L3-4 a2, L4-5 a1} 7; B {L4-5 a3, L5-6 a2, L6 a1} 5 and {L8-9 a2 a1, ...} 5
  EXPECT_EQ(face_rows(*s, "D"), (std::vector<std::string>{"Wbw", "Wbw", "WWb", "BWW", "BBW", "wBB",
                                                          "www", "wbb", "bbw", "b.."}));
  EXPECT_EQ(face_score(*s, "D"), json({7, 5}));
  // Roof: W {a1 b1} 2, {a3} 1, {c3} 1; B {c1 c2 b2 a2 b3} 5
  EXPECT_EQ(face_rows(*s, "roof"), (std::vector<std::string>{"WWB", "BBB", "wBw"}));
  EXPECT_EQ(face_score(*s, "roof"), json({2, 5}));
  // White 7 + 7 + 12 + 7 + 2 = 35; black 7 + 11 + 7 + 5 + 5 = 35.
  const auto out = *s->outcome();
  EXPECT_EQ(out.scores, (std::vector<int>{35, 35}));
  EXPECT_TRUE(out.winners.empty());
  EXPECT_NE(out.reason.find("draw"), std::string::npos) << out.reason;
}

TEST(Turris, FacesAreScoredLiveAndRecessedSquaresJoinTheFrontOnes) {
  auto s = start();
  play(*s, {"v@a1/1", "v@a2/1", "v@b2/1", "bonus:none"});
  // Face A (a b c): a1 in front, b2 one row back, both white: one area of 4 squares.
  EXPECT_EQ(face_rows(*s, "A"), (std::vector<std::string>{"WW.", "WW."}));
  EXPECT_EQ(face_score(*s, "A"), json({4, 0}));
  // Face B (1 2 3 from column c): a1 two rows back, b2 one row back.
  EXPECT_EQ(face_rows(*s, "B"), (std::vector<std::string>{"WW.", "WW."}));
  EXPECT_EQ(face_score(*s, "B"), json({4, 0}));
  // Face C (c b a from row 3): b2 and a2, each one row back.
  EXPECT_EQ(face_rows(*s, "C"), (std::vector<std::string>{".WB", ".WB"}));
  EXPECT_EQ(face_score(*s, "C"), json({2, 2}));
  // Face D (3 2 1 from column a): a2 and a1 in front.
  EXPECT_EQ(face_rows(*s, "D"), (std::vector<std::string>{".BW", ".BW"}));
  EXPECT_EQ(face_score(*s, "D"), json({2, 2}));
  // Roof: a1 and b2 touch only at a corner: white has two areas of 1; the first found (row 1
  // first) is the one highlighted.
  EXPECT_EQ(face_rows(*s, "roof"), (std::vector<std::string>{"W..", "Bw.", "..."}));
  EXPECT_EQ(face_score(*s, "roof"), json({1, 1}));
  // White 4 + 4 + 2 + 2 + 1 = 13, black 0 + 0 + 2 + 2 + 1 = 5.
  EXPECT_EQ(s->view(std::nullopt)["score"], json({13, 5}));
  EXPECT_FALSE(s->outcome().has_value());
}

// --- Options and the view ----------------------------------------------------------------------

TEST(Turris, TheHostMayChooseWhoStarts) {
  EXPECT_EQ(start("0")->to_move(), 0);
  EXPECT_EQ(start("1")->to_move(), 1);
}

TEST(Turris, TheFirstPlayerIsOtherwiseDrawnFromTheSeed) {
  std::set<Seat> starters;
  for (std::uint64_t seed = 0; seed < 32; ++seed) {
    auto a = game().create({}, seed), b = game().create({}, seed);
    ASSERT_EQ((*a)->to_move(), (*b)->to_move());
    starters.insert(*(*a)->to_move());
  }
  EXPECT_EQ(starters.size(), 2u);
}

TEST(Turris, OptionsAreCheckedAndDefaulted) {
  const auto normalized = game().normalize_options(json::object());
  ASSERT_TRUE(normalized.has_value());
  EXPECT_EQ((*normalized)["chain_bonus"], true);
  EXPECT_EQ((*normalized)["first"], "random");
  EXPECT_EQ(game().create({{"chain_bonus", 3}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"players", 3}}, 1).error(), RuleError::bad_option);
  EXPECT_EQ(game().create({{"first", "2"}}, 1).error(), RuleError::bad_option);
}

TEST(Turris, TheViewDescribesTheTowerBlocksAndTurn) {
  auto s = start();
  play(*s, {"v@a1/1", "v@b1/1", "h@a1-b1/3"});
  const json v = s->view(1);
  EXPECT_EQ(v, s->view(std::nullopt)) << "nothing is hidden";
  EXPECT_EQ(v["colors"], json({"white", "black"}));
  EXPECT_EQ(v["height"], 3);
  EXPECT_EQ(v["complete"], 0);
  EXPECT_EQ(v["levels"].size(), 3u);
  EXPECT_EQ(v["levels"][0][0], json({0, 1, nullptr})) << "row 1 on level 1: a1 b1 c1";
  EXPECT_EQ(v["levels"][2][0], json({2, 2, nullptr})) << "one block over two cells";
  EXPECT_EQ(v["levels"][2][1], json({nullptr, nullptr, nullptr}));
  EXPECT_EQ(v["blocks"][2],
            json({{"seat", 0}, {"name", "h@a1-b1/3"}, {"cells", {"a1/3", "b1/3"}}}));
  EXPECT_EQ(v["blocks"][0]["cells"], json({"a1/1", "a1/2"}));
  EXPECT_EQ(v["supply"], json({18, 19}));
  EXPECT_EQ(v["protected"], json({2, 1}));
  EXPECT_EQ(v["barred"], nullptr);
  EXPECT_EQ(v["phase"], "place");
  EXPECT_EQ(v["last"], json({{"seat", 0}, {"moves", {"h@a1-b1/3"}}}));
  EXPECT_EQ(v["faces"]["A"]["columns"], json({"a", "b", "c"}));
  EXPECT_EQ(v["faces"]["D"]["columns"], json({"3", "2", "1"}));
  EXPECT_EQ(v["faces"]["A"]["grid"][2][0],
            json({{"seat", 0}, {"block", 2}, {"depth", 0}, {"best", true}}));
  EXPECT_EQ(v["faces"]["roof"]["grid"][0][0],
            json({{"seat", 0}, {"block", 2}, {"level", 3}, {"best", true}}));
}

TEST(Turris, AnEmptyTowerScoresNothing) {
  auto s = start();
  const json v = s->view(std::nullopt);
  EXPECT_EQ(v["levels"], json::array());
  EXPECT_EQ(v["faces"]["A"]["grid"], json::array());
  EXPECT_EQ(v["faces"]["roof"]["grid"][1], json({nullptr, nullptr, nullptr}));
  EXPECT_EQ(v["score"], json({0, 0}));
  EXPECT_EQ(v["last"], nullptr);
}

TEST(Turris, RandomGamesKeepEveryInvariant) {
  // Over random games: a seat with no block is never to place; a bonus always offers a real use;
  // "pass" is only ever alone; the tower never holds 4 incomplete levels; the end comes with
  // both supplies empty.
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto created = game().create({{"chain_bonus", seed % 2 == 0}}, seed);
    ASSERT_TRUE(created.has_value());
    auto& s = **created;
    testing::random_playout(s, seed, [](const State& st) {
      const json v = st.view(std::nullopt);
      const Seat mover = *st.to_move();
      // (A player whose last block earns a bonus may still remove with an empty supply.)
      if (v["phase"] == "place") {
        EXPECT_GT(v["supply"][mover].get<int>(), 0);
      }
      const auto moves = st.legal_moves();
      if (v["phase"] == "bonus") {
        EXPECT_GT(moves.size(), 1u) << "a bonus with no use is skipped";
      }
      if (std::ranges::find(moves, Move{"pass"}) != moves.end()) {
        EXPECT_EQ(moves.size(), 1u);
      }
      EXPECT_LE(v["height"].get<int>() - v["complete"].get<int>(), 3);
    });
    ASSERT_TRUE(s.is_over());
    EXPECT_EQ(s.view(std::nullopt)["supply"], json({0, 0}));
  }
}

// --- A position from a seat's view alone (Game::from_view) ------------------------------------

const json kOptions{{"players", 2}, {"first", "random"}, {"chain_bonus", true}};

std::unique_ptr<State> rebuilt(const json& board, Seat to_move, const json& options = kOptions,
                               std::uint64_t seed = 1) {
  Rng rng(seed);
  return game().from_view(Seen{options, board, to_move, to_move}, rng);
}

TEST(Turris, AViewRebuildsItsPositionThroughARemovalABarAndABonus) {
  auto s = start();
  play(*s, kBarred);
  // Black's centre placement earns a bonus, while c1 is still barred to black.
  play(*s, {"h@b2-c2/3"});
  const json board = s->view(1);
  ASSERT_EQ(board["phase"], "bonus");
  ASSERT_EQ(board["blocks"][3], nullptr) << "the removed block shows as null";
  // Nothing is hidden, so whatever the draws, the rebuilt position is the position itself.
  const auto a = rebuilt(board, 1, kOptions, 1), b = rebuilt(board, 1, kOptions, 2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->view(1), board);
  EXPECT_EQ(b->view(1), board);
  EXPECT_EQ(move_set(*a), move_set(*s));
  EXPECT_TRUE(refused(*a, "v@c1/1")) << "the bar holds in the rebuilt position";
  // It plays on as the game does: the turn ends, the bar lapses, white moves.
  play(*a, {"bonus:none"});
  play(*s, {"bonus:none"});
  EXPECT_EQ(a->view(0), s->view(0));
  EXPECT_EQ(move_set(*a), move_set(*s));
}

TEST(Turris, ABoardTurrisDoesNotShowIsRefused) {
  auto s = start();
  play(*s, kRemovalReady);  // white is to use the bonus of the centre block
  const json board = s->view(0);
  ASSERT_TRUE(rebuilt(board, 0));
  EXPECT_EQ(rebuilt(board, 1), nullptr) << "white's turn goes on with the bonus";
  EXPECT_EQ(rebuilt(board, 0, {{"players", 2}, {"chain_bonus", "yes"}}), nullptr);
  const auto changed = [&](const char* pointer, json value) {
    json b = board;
    b[json::json_pointer(pointer)] = std::move(value);
    return b;
  };
  json no_blocks = board;
  no_blocks.erase("blocks");
  EXPECT_EQ(rebuilt(no_blocks, 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks/1/seat", "black"), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/blocks/1/name", "v@d1/1"), 0), nullptr) << "no column d";
  EXPECT_EQ(rebuilt(changed("/blocks/1/name", "v@b1/3"), 0), nullptr) << "over an empty cell";
  EXPECT_EQ(rebuilt(changed("/blocks/4/name", "v@a1/1"), 0), nullptr) << "a1 is taken";
  EXPECT_EQ(rebuilt(changed("/blocks/2", 7), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/supply", json({20, 20})), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/protected", json({0, 3})), 0), nullptr) << "white placed b2 last";
  EXPECT_EQ(rebuilt(changed("/phase", "over"), 0), nullptr);
  EXPECT_EQ(rebuilt(changed("/last", nullptr), 0), nullptr) << "four blocks, and no move?";
  EXPECT_EQ(rebuilt(changed("/barred", {{"seat", 0}, {"cells", {"a1/1", "a1/2"}}}), 0), nullptr)
      << "a1 is not free";
  EXPECT_EQ(rebuilt(changed("/faces/roof/score", json({9, 9})), 0), nullptr);
  // Who starts an empty tower, when the host named the seat.
  const json empty = start("1")->view(1);
  EXPECT_TRUE(rebuilt(empty, 1, {{"players", 2}, {"first", "1"}}));
  EXPECT_EQ(rebuilt(empty, 0, {{"players", 2}, {"first", "1"}}), nullptr);
  // A finished game has nobody to move.
  auto over = start();
  play(*over, complete_game());
  ASSERT_TRUE(over->is_over());
  EXPECT_EQ(rebuilt(over->view(0), 0), nullptr);
}

}  // namespace
}  // namespace plateau::rules::turris

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(
    Turris, Conformance,
    ::testing::Values(
        ConformanceCase{&turris::game(), {{"players", 2}}, "turris_default"},
        ConformanceCase{
            &turris::game(), {{"players", 2}, {"chain_bonus", false}}, "turris_no_chain"},
        ConformanceCase{&turris::game(), {{"players", 2}, {"first", "1"}}, "turris_black_first"}),
    conformance_case_name);

}  // namespace plateau::rules::testing
