// On Top scenarios: every sentence and worked example of on_top.fr.md and the On Top part of
// DECISIONS.md, then the conformance suite for each player count and variant.
//
// Geometry used below (see rules/on_top/board.json and RULES.md): cells are named by row letter
// (a top .. f bottom) and column number; intersections are named here by their coordinates
// (x in half edges, y in rows), e.g. (4,1). Around an intersection (x,y) lie, in the row above,
// the cells of columns x-1 (up), x (down), x+1 (up) and, in the row below, x-1 (down), x (up),
// x+1 (down), when they are on the board. The top edge (y = 0) and the bottom edge (y = 6) are
// the golden border. The red start cells are c6 and d10.
//
// Most scenarios draw known tiles through the documented test-only create_for_test (a tile is 6
// letters: A's tip, A at W1, B at W1, B's tip, B at W2, A at W2, W1 being the wide corner met
// first going clockwise from A's tip). Filler sixths are white ("W").
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "conformance.hpp"
#include "rules/on_top/on_top.hpp"
#include "rules/rng.hpp"
#include "rules/view_parts.hpp"
#include "scenario.hpp"

namespace plateau::rules::on_top {
namespace {

using nlohmann::json;
using namespace plateau::rules::testing;

std::unique_ptr<State> setup_game(json options, std::vector<std::string> tiles,
                                  std::optional<std::array<int, 4>> pawns = std::nullopt,
                                  std::optional<int> spare_blacks = std::nullopt) {
  if (!options.contains("first")) options["first"] = "0";
  auto s =
      create_for_test(options, 1, TestSetup{std::move(tiles), pawns, spare_blacks, std::nullopt});
  EXPECT_TRUE(s.has_value());
  return s ? std::move(*s) : nullptr;
}

std::unique_ptr<State> start(json options, std::uint64_t seed = 1) {
  auto s = game().create(options, seed);
  EXPECT_TRUE(s.has_value());
  return s ? std::move(*s) : nullptr;
}

// `tiles` plus one more, so that the game is not over (tiles run out) after the scenario and
// the scores are the track's, without the end's penalty.
std::vector<std::string> and_one_more(std::vector<std::string> tiles) {
  tiles.push_back("WWWWWW");
  return tiles;
}

int cell(const json& view, const std::string& name) {
  const auto& cells = view["geometry"]["cells"];
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (cells[i]["name"] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no cell " << name;
  return -1;
}

int inter(const json& view, int x, int y) {
  const auto& inters = view["geometry"]["intersections"];
  for (std::size_t i = 0; i < inters.size(); ++i)
    if (inters[i]["x"] == x && inters[i]["y"] == y) return static_cast<int>(i);
  ADD_FAILURE() << "no intersection (" << x << "," << y << ")";
  return -1;
}

// The record of the last placement's scoring at (x,y).
json scored_at(const json& view, int x, int y) {
  const int v = inter(view, x, y);
  for (const auto& r : view["last"]["scored"])
    if (r["intersection"] == v) return r;
  ADD_FAILURE() << "(" << x << "," << y << ") was not scored by the last placement";
  return json::object();
}

json placed(std::initializer_list<std::pair<const char*, json>> pawns) {
  json out = json::array();
  for (const auto& [colour, seat] : pawns) out.push_back(json{{"colour", colour}, {"seat", seat}});
  return out;
}

int pawns_left(const json& view, int colour) { return view["colours"][colour]["pawns_left"]; }
int score(const json& view, int seat) { return view["seats"][seat]["score"]; }

// The text's first example, built from the start cell c6:
//   1. b6-b7 touches c6 along b6's lower edge.
//   2. a5-b5 touches b6; its W2 (the corner both halves share at (4,1)) is yellow-yellow.
//   3. b4-c4 touches b5; b4's tip is at (4,1) and is red.
//   4. a3-b3 touches b4: a3's tip at the corner (3,0) is blue, its W1 at (4,1) is red-red.
// After 4, a4 has no empty neighbour left (a3, a5) and takes a black triangle, which completes
// the corner (3,0) (cells a3, a4) and the intersection (4,1) (a3 a4 a5 b3 b4 b5): 3 reds (2 from
// tile 4, 1 from tile 3), 2 yellows (tile 2) and a black (a4).
const std::vector<std::string> kExampleMoves{"b6-b7", "a5-b5", "b4-c4", "a3-b3"};
const std::vector<std::string> kExampleTiles{"WWWWWW", "WWWWYY", "RWWWWW", "BRRWWW"};

// The text's "other examples" around (5,2) (cells b4 b5 b6 c4 c5 c6, c6 being a start triangle):
//   1. b6-b5 touches c6; its W1 is at (5,2): two sixths there (tiles[0][1], tiles[0][2]).
//   2. b4-b3 touches b5; b4's tip is at (5,2) (tiles[1][0]).
//   3. c4-c3 touches b4; c4's tip is at (5,2) (tiles[2][0]).
//   4. d3-d4 touches c3.
//   5. d5-d6 touches d4 and leaves c5 (neighbours c4, c6, d5) a hole: a black triangle goes in
//      and completes (5,2) with 2 blacks (c5, c6), and (4,3) (c3 c4 c5 d3 d4 d5) as well.
const std::vector<std::string> kAroundC6Moves{"b6-b5", "b4-b3", "c4-c3", "d3-d4", "d5-d6"};

// ---------------------------------------------------------------------------------------------
// Components: the board and tile data (our stand-in for the box).

TEST(OnTop, TheBoardIsAHexagonOf78TrianglesWith51Intersections) {
  const auto v = start({{"players", 2}})->view(std::nullopt);
  const auto& geo = v["geometry"];
  // Rows of 11, 13, 15, 15, 13, 11 triangles: 78. Row lines of 6, 7, 8, 9, 8, 7, 6 points: 51.
  EXPECT_EQ(geo["cells"].size(), 78u);
  EXPECT_EQ(geo["intersections"].size(), 51u);
  // An up cell lists its apex first, then clockwise; a down cell its top-left corner first.
  EXPECT_EQ(geo["cells"][cell(v, "a3")],
            (json{{"name", "a3"}, {"up", true}, {"points", {{3, 0}, {4, 1}, {2, 1}}}}));
  EXPECT_EQ(geo["cells"][cell(v, "c6")],
            (json{{"name", "c6"}, {"up", false}, {"points", {{5, 2}, {7, 2}, {6, 3}}}}));
  // The six corners of the hexagon have 2 cells around them, the other 16 edge points 3, the 29
  // inner points 6.
  EXPECT_EQ(geo["intersections"][inter(v, 3, 0)]["cells"].size(), 2u);
  EXPECT_EQ(geo["intersections"][inter(v, 5, 0)]["cells"].size(), 3u);
  EXPECT_EQ(geo["intersections"][inter(v, 4, 1)]["cells"].size(), 6u);
  EXPECT_EQ(geo["track_spaces"], 50);
}

TEST(OnTop, TheGoldenBorderRunsAlongTheTopAndBottomEdges) {
  const auto v = start({{"players", 2}})->view(std::nullopt);
  std::set<std::pair<int, int>> golden;
  for (const auto& i : v["geometry"]["intersections"])
    if (i["golden"]) golden.emplace(i["x"], i["y"]);
  // Top edge x = 3, 5, .., 13 at y = 0 and bottom edge the same at y = 6: 2 × 6 points.
  std::set<std::pair<int, int>> expected;
  for (int x = 3; x <= 13; x += 2) expected.insert({{x, 0}, {x, 6}});
  EXPECT_EQ(golden, expected);
  // 5 edges along each.
  EXPECT_EQ(v["geometry"]["golden_edges"].size(), 10u);
  EXPECT_EQ(v["geometry"]["golden_edges"][0], (json{{3, 0}, {5, 0}}));
}

TEST(OnTop, TheBoxHolds34TilesWith51SixthsOfEachColour) {
  const auto& tiles = box_tiles();
  ASSERT_EQ(tiles.size(), 34u);
  std::map<char, int> sixths;
  for (const auto& t : tiles) {
    ASSERT_EQ(t.size(), 6u);
    // Our stand-in paints each wide corner in one colour (A and B halves alike).
    EXPECT_EQ(t[1], t[2]) << t;
    EXPECT_EQ(t[4], t[5]) << t;
    for (char c : t) ++sixths[c];
  }
  // 34 tiles × 6 sixths = 204 = 4 colours × 51.
  EXPECT_EQ(sixths, (std::map<char, int>{{'B', 51}, {'R', 51}, {'W', 51}, {'Y', 51}}));
}

// ---------------------------------------------------------------------------------------------
// Setting up.

TEST(OnTop, TwoBlackTrianglesStartOnTheRedCellsAndEightAreSpare) {
  const auto v = start({{"players", 2}})->view(std::nullopt);
  EXPECT_EQ(v["start_cells"], (json{cell(v, "c6"), cell(v, "d10")}));
  EXPECT_EQ(v["cells"][cell(v, "c6")], (json{{"kind", "start"}}));
  EXPECT_EQ(v["cells"][cell(v, "d10")], (json{{"kind", "start"}}));
  EXPECT_TRUE(v["cells"][cell(v, "c7")].is_null());
  EXPECT_EQ(v["black_left"], 8);  // 10 black triangles - 2 on the red cells
}

TEST(OnTop, EachPlayerHas20PawnsToPlaceAndANeutralColourHas21) {
  // 21 pawns per colour; a player's first one is their marker on the score track.
  const auto v = start({{"players", 2}})->view(std::nullopt);
  EXPECT_EQ(v["colours"], (json{{{"colour", "blue"}, {"seat", 0}, {"pawns_left", 20}},
                                {{"colour", "yellow"}, {"seat", 1}, {"pawns_left", 20}},
                                {{"colour", "red"}, {"seat", nullptr}, {"pawns_left", 21}},
                                {{"colour", "white"}, {"seat", nullptr}, {"pawns_left", 21}}}));
  EXPECT_EQ(v["seats"],
            (json{{{"colour", "blue"}, {"team", nullptr}, {"score", 0}, {"penalty", 0}},
                  {{"colour", "yellow"}, {"team", nullptr}, {"score", 0}, {"penalty", 0}}}));
  const auto v3 = start({{"players", 3}})->view(std::nullopt);
  EXPECT_EQ(v3["colours"][2]["seat"], 2);
  EXPECT_EQ(v3["colours"][3]["seat"], nullptr);
  EXPECT_EQ(v3["colours"][3]["pawns_left"], 21);
  const auto v4 = start({{"players", 4}})->view(std::nullopt);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(v4["colours"][c]["pawns_left"], 20);
}

TEST(OnTop, TheHostMayChooseWhoStartsAndPlayGoesRoundInSeatOrder) {
  auto s = setup_game({{"players", 3}, {"first", "2"}}, kExampleTiles);
  EXPECT_EQ(s->to_move(), 2);
  play(*s, {"b6-b7"});
  EXPECT_EQ(s->to_move(), 0);
  play(*s, {"a5-b5"});
  EXPECT_EQ(s->to_move(), 1);
  EXPECT_EQ(game().create({{"players", 2}, {"first", "3"}}, 1).error(), RuleError::bad_option);
}

TEST(OnTop, WhoStartsIsDrawnAtRandomByDefault) {
  std::set<int> starters;
  for (std::uint64_t seed = 0; seed < 40; ++seed)
    starters.insert(*start({{"players", 4}}, seed)->to_move());
  EXPECT_EQ(starters, (std::set<int>{0, 1, 2, 3}));
}

// ---------------------------------------------------------------------------------------------
// The draw.

TEST(OnTop, TheDrawnTileIsShownToAllAndThePileOnlyByItsSize) {
  auto s = start({{"players", 2}}, 5);
  const auto v = s->view(std::nullopt);
  ASSERT_TRUE(v["drawn"].is_object());
  const int id = v["drawn"]["tile"];
  ASSERT_GE(id, 0);
  ASSERT_LT(id, 34);
  // The sixths shown are the box tile's, letter for letter.
  const std::string letters = box_tiles()[id];
  const std::map<char, std::string> names{
      {'B', "blue"}, {'Y', "yellow"}, {'R', "red"}, {'W', "white"}};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v["drawn"]["sixths"][i], names.at(letters[i]));
  EXPECT_EQ(v["tiles_left"], 33);  // 34 - the one drawn
  for (Seat seat : {0, 1}) EXPECT_EQ(s->view(seat), v) << "a player sees what a spectator sees";
  play(*s, {s->legal_moves().front().text});
  EXPECT_EQ(s->view(std::nullopt)["tiles_left"], 32);
}

TEST(OnTop, EveryTileOfTheBoxIsDrawnAtMostOnce) {
  auto s = start({{"players", 2}}, 9);
  std::multiset<int> drawn;
  while (!s->is_over()) {
    drawn.insert(s->view(std::nullopt)["drawn"]["tile"].get<int>());
    play(*s, {s->legal_moves().back().text});
  }
  EXPECT_EQ(std::set<int>(drawn.begin(), drawn.end()).size(), drawn.size());
  EXPECT_TRUE(s->view(std::nullopt)["drawn"].is_null());
}

TEST(OnTop, NoViewShowsThePileOrder) {
  // Two games whose first draws agree but whose later draws differ must look the same to
  // everyone until the draws part: so a view holds nothing about the pile beyond its size.
  auto a = start({{"players", 2}, {"first", "0"}}, 100);
  const auto first = a->view(std::nullopt)["drawn"];
  const std::string move = a->legal_moves().front().text;
  auto after_a = a->clone();
  play(*after_a, {move});
  bool found = false;
  for (std::uint64_t seed = 101; seed < 5000 && !found; ++seed) {
    auto b = start({{"players", 2}, {"first", "0"}}, seed);
    if (b->view(std::nullopt)["drawn"] != first) continue;
    auto after_b = b->clone();
    play(*after_b, {move});
    if (after_b->view(std::nullopt)["drawn"] == after_a->view(std::nullopt)["drawn"]) continue;
    found = true;
    for (std::optional<Seat> viewer :
         {std::optional<Seat>{}, std::optional<Seat>{0}, std::optional<Seat>{1}})
      EXPECT_EQ(a->view(viewer), b->view(viewer));
    // Once the second draw differs, only the drawn tile differs.
    auto va = after_a->view(std::nullopt), vb = after_b->view(std::nullopt);
    va.erase("drawn");
    vb.erase("drawn");
    EXPECT_EQ(va, vb);
  }
  EXPECT_TRUE(found);
}

// ---------------------------------------------------------------------------------------------
// Placing a tile.

TEST(OnTop, TheFirstTileMustTouchAStartTriangleAlongAnEdge) {
  auto s = start({{"players", 2}});
  // c6's neighbours c5 c7 b6 and d10's neighbours d9 d11 e10 each pair with their 2 empty
  // neighbours: 6 × 2 = 12 spots, each either way round: 24 moves.
  const auto moves = s->legal_moves();
  EXPECT_EQ(moves.size(), 24u);
  for (const char* m : {"c5-c4", "c4-c5", "c5-d5", "c7-c8", "c7-d7", "b6-b5", "b7-b6", "d9-d8",
                        "c9-d9", "d11-d12", "d11-c11", "e10-e9", "e11-e10"})
    EXPECT_TRUE(legal(*s, m)) << m;
}

TEST(OnTop, ATileTouchingAStartTriangleOnlyByACornerIsRefused) {
  auto s = start({{"players", 2}});
  // b5 shares only the point (5,2) with c6.
  expect_refused(*s, "b5-b4");
  expect_refused(*s, "b4-b5");
  // Far from everything.
  expect_refused(*s, "a7-a8");
}

TEST(OnTop, ALaterTileMayTouchAnyTileAlreadyPlaced) {
  auto s = setup_game({{"players", 2}}, kExampleTiles);
  play(*s, {"b6-b7"});
  // a7 touches b7 only; b8 touches b7 only; neither touches a start triangle.
  EXPECT_TRUE(legal(*s, "a7-a8"));
  EXPECT_TRUE(legal(*s, "b8-b9"));
  EXPECT_TRUE(legal(*s, "c5-c4")) << "the start triangles still count";
  expect_refused(*s, "a10-a11");
}

TEST(OnTop, ATileCoversTwoEmptyEdgeNeighbours) {
  auto s = setup_game({{"players", 2}}, kExampleTiles);
  play(*s, {"b6-b7"});
  expect_refused(*s, "b6-b5");  // b6 is covered
  expect_refused(*s, "c6-c5");  // c6 holds a start triangle
  expect_refused(*s, "c5-c7");  // not neighbours
  expect_refused(*s, "c5-c5");
  expect_refused(*s, "a1-a2");  // not on the board
  expect_refused(*s, "c5c4");
  expect_refused(*s, "C5-C4");
  expect_refused(*s, "c5-c4 ");
  expect_refused(*s, "c05-c4");
  expect_refused(*s, "pass");
}

TEST(OnTop, NamingTheCellsTheOtherWayTurnsTheTileHalfAround) {
  // Tile BYYRWW: A's tip blue, W1 yellow-yellow, B's tip red, W2 white-white.
  // c5 (up) has points (5,2) (6,3) (4,3); c4 (down) has (3,2) (5,2) (4,3).
  auto s = setup_game({{"players", 2}}, {"BYYRWW", "BYYRWW"});
  auto turned = s->clone();
  // "c5-c4": A = c5, its tip (6,3); clockwise next is (4,3) = W1; (5,2) = W2.
  play(*s, {"c5-c4"});
  auto v = s->view(std::nullopt);
  EXPECT_EQ(v["cells"][cell(v, "c5")]["corners"], (json{"white", "blue", "yellow"}));
  EXPECT_EQ(v["cells"][cell(v, "c4")]["corners"], (json{"red", "white", "yellow"}));
  EXPECT_EQ(v["cells"][cell(v, "c5")]["pair"], cell(v, "c4"));
  // "c4-c5": A = c4, its tip (3,2); clockwise next is (5,2) = W1; (4,3) = W2.
  play(*turned, {"c4-c5"});
  v = turned->view(std::nullopt);
  EXPECT_EQ(v["cells"][cell(v, "c4")]["corners"], (json{"blue", "yellow", "white"}));
  EXPECT_EQ(v["cells"][cell(v, "c5")]["corners"], (json{"yellow", "red", "white"}));
}

// ---------------------------------------------------------------------------------------------
// Holes and black triangles.

TEST(OnTop, ASingleCellHoleIsFilledWithABlackTriangleAtOnce) {
  auto s = setup_game({{"players", 2}}, std::vector<std::string>(4, "WWWWWW"));
  play(*s, {"b6-b7", "a7-a8"});
  auto v = s->view(std::nullopt);
  EXPECT_TRUE(v["cells"][cell(v, "a6")].is_null()) << "a6 still has a5 empty beside it";
  // b5-a5 leaves a6 (neighbours a5, a7) with no empty neighbour.
  play(*s, {"b5-a5"});
  v = s->view(std::nullopt);
  EXPECT_EQ(v["cells"][cell(v, "a6")], (json{{"kind", "black"}}));
  EXPECT_EQ(v["last"]["filled"], (json{{{"cell", cell(v, "a6")}, {"kind", "black"}}}));
  EXPECT_EQ(v["black_left"], 7);  // 8 spares - 1
  // Two empty neighbours (a3 a4 next to a5) are no hole.
  EXPECT_TRUE(v["cells"][cell(v, "a4")].is_null());
  EXPECT_TRUE(v["cells"][cell(v, "a3")].is_null());
  expect_refused(*s, "a6-a5");
}

TEST(OnTop, OnceTheSparesAreGoneAHoleStaysEmptyButCountsAsBlack) {
  // With 1 spare left, one tile (a5-a6) makes two holes: a4 (between a3 and a5) and a7 (between
  // a6, a8 and b7). Cells are filled in board order: a4 gets the last black triangle, a7 stays
  // empty ("void") and still counts as filled and black.
  auto s =
      setup_game({{"players", 4}}, {"YYYYYY", "WWWWWW", "RRRRRR", "BBBBBB", "RRRRRR", "BBBBBB"},
                 std::nullopt, 1);
  play(*s, {"b6-b7", "b8-b9", "a9-a8", "b5-b4", "b3-a3", "a5-a6"});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["cells"][cell(v, "a4")], (json{{"kind", "black"}}));
  EXPECT_EQ(v["cells"][cell(v, "a7")], (json{{"kind", "void"}}));
  EXPECT_EQ(v["last"]["filled"], (json{{{"cell", cell(v, "a4")}, {"kind", "black"}},
                                       {{"cell", cell(v, "a7")}, {"kind", "void"}}}));
  EXPECT_EQ(v["black_left"], 0);
  // (7,0) around a6 (blue), a7 (void), a8 (red): the void adds no colour, 1 blue and 1 red tie.
  const auto r = scored_at(v, 7, 0);
  EXPECT_EQ(r["counts"], (json{1, 0, 1, 0}));
  EXPECT_EQ(r["tie"], true);
}

TEST(OnTop, WithNoSpareLeftTheEdgeExampleStillCountsTheEmptyCellAsBlack) {
  auto s = setup_game({{"players", 3}}, and_one_more(kExampleTiles), std::nullopt, 0);
  play(*s, kExampleMoves);
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["cells"][cell(v, "a4")], (json{{"kind", "void"}}));
  EXPECT_EQ(scored_at(v, 3, 0)["placed"], placed({{"blue", 0}}));
  EXPECT_EQ(scored_at(v, 4, 1)["placed"], placed({{"yellow", 1}, {"red", 2}}));
}

// ---------------------------------------------------------------------------------------------
// Scoring: the text's examples.

TEST(OnTop, ExampleThreeRedsTwoYellowsAndABlackYellowFirstThenRedOnTop) {
  auto s = setup_game({{"players", 3}}, and_one_more(kExampleTiles));
  play(*s, kExampleMoves);
  const auto v = s->view(std::nullopt);
  // "La tuile posée termine deux intersections": (3,0) and (4,1), in that order.
  EXPECT_EQ(v["last"]["scored"].size(), 2u);
  const auto r = scored_at(v, 4, 1);
  EXPECT_EQ(r["counts"], (json{0, 2, 3, 0}));  // blue, yellow, red, white; the black is ignored
  EXPECT_EQ(r["placed"], placed({{"yellow", 1}, {"red", 2}}));
  EXPECT_EQ(r["top"], "red");
  EXPECT_EQ(r["height"], 2);
  EXPECT_EQ(r["points"], 2);  // height 2, not golden
  EXPECT_EQ(r["scorer"], 2);
  EXPECT_EQ(v["towers"][inter(v, 4, 1)], (json{"yellow", "red"}));
  EXPECT_EQ(score(v, 2), 2);
  EXPECT_EQ(score(v, 1), 0) << "a second scores nothing";
  EXPECT_EQ(pawns_left(v, 1), 19);  // 20 - 1
  EXPECT_EQ(pawns_left(v, 2), 19);
}

TEST(OnTop, ExampleTheEdgeIntersectionWithOneBlueAndABlackFilledHole) {
  auto s = setup_game({{"players", 3}}, and_one_more(kExampleTiles));
  play(*s, kExampleMoves);
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["last"]["filled"], (json{{{"cell", cell(v, "a4")}, {"kind", "black"}}}));
  const auto r = scored_at(v, 3, 0);
  EXPECT_EQ(r["counts"], (json{1, 0, 0, 0}));
  EXPECT_EQ(r["placed"], placed({{"blue", 0}}));  // majority without a second
  EXPECT_EQ(r["height"], 1);
  EXPECT_EQ(r["golden"], true);
  EXPECT_EQ(r["points"], 2);  // a lone pawn on the golden border: 1 × 2
  EXPECT_EQ(score(v, 0), 2);
  EXPECT_EQ(v["last"]["scored"][0]["intersection"], inter(v, 3, 0)) << "reading order";
}

TEST(OnTop, ExampleBlueAndRedBothSecondThenYellowOnTopWithTwoSixths) {
  auto s = setup_game({{"players", 3}},
                      and_one_more({"WYYWWW", "BWWWWW", "RWWWWW", "WWWWWW", "WWWWWW"}));
  play(*s, kAroundC6Moves);
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 5, 2);
  EXPECT_EQ(r["counts"], (json{1, 2, 1, 0}));  // 2 blacks: c5 (hole) and c6 (start)
  EXPECT_EQ(r["placed"], placed({{"blue", 0}, {"red", 2}, {"yellow", 1}}));
  EXPECT_EQ(v["towers"][inter(v, 5, 2)], (json{"blue", "red", "yellow"}));
  EXPECT_EQ(r["points"], 3);  // a tower of 3, not golden
  EXPECT_EQ(score(v, 1), 3);
  EXPECT_EQ(score(v, 0), 0);
  EXPECT_EQ(score(v, 2), 0);
}

TEST(OnTop, ExampleATieForFirstPlacesNoPawnAtAll) {
  // Blue 2 (tile 1's W1) and white 2 (the tips of b4 and c4) tie for first.
  auto s = setup_game({{"players", 4}},
                      and_one_more({"WBBWWW", "WWWWWW", "WWWWWW", "RRRRRR", "RRRRRR"}));
  play(*s, kAroundC6Moves);
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 5, 2);
  EXPECT_EQ(r["counts"], (json{2, 0, 0, 2}));
  EXPECT_EQ(r["tie"], true);
  EXPECT_EQ(r["placed"], json::array());
  EXPECT_EQ(r["points"], 0);
  EXPECT_EQ(v["towers"][inter(v, 5, 2)], json::array()) << "scored and left empty";
  EXPECT_EQ(pawns_left(v, 0), 20);
}

TEST(OnTop, ExampleWhiteSecondThenYellowOnTopAndANeutralColourPlacesItsPawn) {
  // 3 players: white is neutral. Yellow 3 (W1 of tile 1 and c4's tip), white 1 (b4's tip).
  auto s = setup_game({{"players", 3}},
                      and_one_more({"WYYWWW", "WWWWWW", "YWWWWW", "WWWWWW", "WWWWWW"}));
  play(*s, kAroundC6Moves);
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 5, 2);
  EXPECT_EQ(r["counts"], (json{0, 3, 0, 1}));
  EXPECT_EQ(r["placed"], placed({{"white", nullptr}, {"yellow", 1}}));
  EXPECT_EQ(r["points"], 2);
  EXPECT_EQ(score(v, 1), 2);
  // (4,3), completed by the same hole, is all white (5 sixths): white alone, and it moves no
  // marker. White placed 2 of its 21 pawns.
  const auto w = scored_at(v, 4, 3);
  EXPECT_EQ(w["counts"], (json{0, 0, 0, 5}));
  EXPECT_EQ(w["placed"], placed({{"white", nullptr}}));
  EXPECT_EQ(w["scorer"], nullptr);
  EXPECT_EQ(w["points"], 0);
  EXPECT_EQ(pawns_left(v, 3), 19);
}

TEST(OnTop, ALonePawnOffTheGoldenBorderScoresOnePoint) {
  // All red tiles around c6: (5,2) gets 4 red sixths (b4 b5 b6 c4) and 2 blacks, (4,3) gets 5
  // red sixths (c3 c4 d3 d4 d5) and the black hole c5. Each: red alone, height 1, × 1.
  auto s = setup_game({{"players", 3}}, and_one_more(std::vector<std::string>(5, "RRRRRR")));
  play(*s, kAroundC6Moves);
  const auto v = s->view(std::nullopt);
  for (const auto& [x, y] : {std::pair{5, 2}, std::pair{4, 3}}) {
    const auto r = scored_at(v, x, y);
    EXPECT_EQ(r["placed"], placed({{"red", 2}}));
    EXPECT_EQ(r["golden"], false);
    EXPECT_EQ(r["points"], 1);
  }
  EXPECT_EQ(scored_at(v, 5, 2)["counts"], (json{0, 0, 4, 0}));
  EXPECT_EQ(scored_at(v, 4, 3)["counts"], (json{0, 0, 5, 0}));
  EXPECT_EQ(score(v, 2), 2);  // 1 + 1
}

TEST(OnTop, OnlyTheMajorityAndTheSecondsPlaceAPawn) {
  // « Les seuls joueurs qui peuvent poser un pion sur une intersection comptabilisée sont le
  // joueur majoritaire et les joueurs en seconde position. » Over random games, every scored
  // intersection's pawns are exactly the seconds (in colour order) and then the majority colour,
  // or nothing on a tie for first; a colour in third place or lower never places.
  int third_place = 0, ties = 0;
  const std::array<const char*, 4> names{"blue", "yellow", "red", "white"};
  for (const json& options : {json{{"players", 2}}, json{{"players", 4}}})
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      auto s = start(options, seed);
      Rng pick(seed);
      while (!s->is_over()) {
        const auto moves = s->legal_moves();
        ASSERT_TRUE(s->apply(*s->to_move(), moves[pick.below(moves.size())]).has_value());
        const auto v = s->view(std::nullopt);
        for (const auto& r : v["last"]["scored"]) {
          std::array<int, 4> counts{};
          for (int c = 0; c < 4; ++c) counts[c] = r["counts"][c];
          const int most = *std::max_element(counts.begin(), counts.end());
          if (most == 0 || std::count(counts.begin(), counts.end(), most) > 1) {
            ties += most > 0;
            EXPECT_EQ(r["placed"], json::array());
            continue;
          }
          int second = 0;
          for (int n : counts)
            if (n < most) second = std::max(second, n);
          json expected = json::array();
          for (int c = 0; c < 4; ++c) {
            if (counts[c] > 0 && counts[c] < second) ++third_place;
            if (second > 0 && counts[c] == second) expected.push_back(names[c]);
          }
          if (!r["top"].is_null()) expected.push_back(r["top"]);
          json got = json::array();
          for (const auto& p : r["placed"]) got.push_back(p["colour"]);
          EXPECT_EQ(got, expected) << r.dump();
          if (!r["top"].is_null()) {
            EXPECT_EQ(r["top"],
                      names[std::max_element(counts.begin(), counts.end()) - counts.begin()]);
          } else {
            EXPECT_TRUE(s->is_over()) << "a top pawn is missing only when the game stopped first";
          }
        }
      }
    }
  EXPECT_GT(third_place, 10) << "colours in third place did come up";
  EXPECT_GT(ties, 10);
}

// The golden border scenario: 2 players, red and white neutral.
//   b6-b7, b5-b4, then a5-a6 with W1 at (5,0) blue-blue, then a4-a3 whose A tip (a4's corner
//   (5,0)) is red and whose W2 at the corner (3,0) is white-white.
const std::vector<std::string> kGoldenMoves{"b6-b7", "b5-b4", "a5-a6", "a4-a3"};
const std::vector<std::string> kGoldenTiles{"WWWWWW", "WWWWWW", "WBBWWW", "RWWWWW"};

TEST(OnTop, ATowerOfTwoOnTheGoldenBorderScoresFour) {
  auto s = setup_game({{"players", 2}}, and_one_more(kGoldenTiles));
  play(*s, kGoldenMoves);
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 5, 0);
  EXPECT_EQ(r["counts"], (json{2, 0, 1, 0}));
  EXPECT_EQ(r["placed"], placed({{"red", nullptr}, {"blue", 0}}));
  EXPECT_EQ(r["golden"], true);
  EXPECT_EQ(r["points"], 4);  // height 2 × 2
  EXPECT_EQ(score(v, 0), 4);
  EXPECT_EQ(pawns_left(v, 2), 20);  // the neutral red: 21 - 1
}

TEST(OnTop, ANeutralColourOnTopMovesNoMarker) {
  auto s = setup_game({{"players", 2}}, and_one_more(kGoldenTiles));
  play(*s, kGoldenMoves);
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 3, 0);  // a3 and a4 both white at (3,0)
  EXPECT_EQ(r["counts"], (json{0, 0, 0, 2}));
  EXPECT_EQ(r["placed"], placed({{"white", nullptr}}));
  EXPECT_EQ(r["top"], "white");
  EXPECT_EQ(r["points"], 0);
  EXPECT_EQ(r["scorer"], nullptr);
  EXPECT_EQ(score(v, 0), 4);  // only (5,0)
  EXPECT_EQ(score(v, 1), 0);
}

TEST(OnTop, AnIntersectionIsScoredOnceOnly) {
  auto tiles = kGoldenTiles;
  tiles.push_back("YYYYYY");
  auto s = setup_game({{"players", 2}}, tiles);
  play(*s, kGoldenMoves);
  const auto towers = s->view(std::nullopt)["towers"];
  // b3-b2 completes (2,1) (a3 b2 b3) and (4,1); (3,0) and (5,0) around a3/a4 are not scored again.
  play(*s, {"b3-b2"});
  const auto v = s->view(std::nullopt);
  json scored = json::array();
  for (const auto& r : v["last"]["scored"]) scored.push_back(r["intersection"]);
  EXPECT_EQ(scored, (json{inter(v, 2, 1), inter(v, 4, 1)}));
  EXPECT_EQ(v["towers"][inter(v, 3, 0)], towers[inter(v, 3, 0)]);
  EXPECT_EQ(v["towers"][inter(v, 5, 0)], towers[inter(v, 5, 0)]);
  // (4,1): a3 white (its W1 of tile 4), a4 white, a5 white, b3 yellow, b4 b5 white: 5 to 1.
  EXPECT_EQ(scored_at(v, 4, 1)["placed"], placed({{"yellow", 1}, {"white", nullptr}}));
}

TEST(OnTop, SeveralCirclesCompletedByOneTileAreAllScoredInReadingOrder) {
  // One-colour tiles: each cell gives its colour to each of its 3 corners.
  //   b6 b7 yellow, b8 b9 white, a9 a8 red, b5 b4 blue, b3 a3 red, then a5 a6 blue; a4 and a7
  //   become holes (a4 black, a7 void: one spare only).
  auto s = setup_game({{"players", 4}},
                      and_one_more({"YYYYYY", "WWWWWW", "RRRRRR", "BBBBBB", "RRRRRR", "BBBBBB"}),
                      std::nullopt, 1);
  play(*s, {"b6-b7", "b8-b9", "a9-a8", "b5-b4", "b3-a3"});
  EXPECT_EQ(s->view(std::nullopt)["last"]["scored"], json::array()) << "nothing complete yet";
  play(*s, {"a5-a6"});
  const auto v = s->view(std::nullopt);
  json order = json::array();
  for (const auto& r : v["last"]["scored"]) order.push_back(r["intersection"]);
  EXPECT_EQ(order, (json{inter(v, 3, 0), inter(v, 5, 0), inter(v, 7, 0), inter(v, 4, 1),
                         inter(v, 6, 1), inter(v, 8, 1)}));
  // (3,0): a3 red, a4 black → red alone, golden: 1 × 2.
  EXPECT_EQ(scored_at(v, 3, 0)["placed"], placed({{"red", 2}}));
  EXPECT_EQ(scored_at(v, 3, 0)["points"], 2);
  // (5,0): a4 black, a5 a6 blue → blue alone, golden: 1 × 2.
  EXPECT_EQ(scored_at(v, 5, 0)["placed"], placed({{"blue", 0}}));
  EXPECT_EQ(scored_at(v, 5, 0)["points"], 2);
  // (7,0): a6 blue, a7 void, a8 red → tie.
  EXPECT_EQ(scored_at(v, 7, 0)["placed"], json::array());
  // (4,1): a3 b3 red, a5 b4 b5 blue, a4 black → red second, blue on top: height 2.
  EXPECT_EQ(scored_at(v, 4, 1)["placed"], placed({{"red", 2}, {"blue", 0}}));
  EXPECT_EQ(scored_at(v, 4, 1)["points"], 2);
  // (6,1): a5 a6 b5 blue, b6 b7 yellow, a7 void → yellow second, blue on top: height 2.
  EXPECT_EQ(scored_at(v, 6, 1)["placed"], placed({{"yellow", 1}, {"blue", 0}}));
  EXPECT_EQ(scored_at(v, 6, 1)["points"], 2);
  // (8,1): a8 a9 red, b8 b9 white, b7 yellow, a7 void → red and white tie.
  EXPECT_EQ(scored_at(v, 8, 1)["tie"], true);
  // Blue 2 + 2 + 2 = 6, red 2; pawns: blue 20 - 3, red 20 - 2, yellow 20 - 1.
  EXPECT_EQ(score(v, 0), 6);
  EXPECT_EQ(score(v, 2), 2);
  EXPECT_EQ(score(v, 1), 0);
  EXPECT_EQ(pawns_left(v, 0), 17);
  EXPECT_EQ(pawns_left(v, 2), 18);
  EXPECT_EQ(pawns_left(v, 1), 19);
  EXPECT_EQ(pawns_left(v, 3), 20);
}

TEST(OnTop, TheViewDescribesTheLastPlacement) {
  auto s = setup_game({{"players", 3}}, and_one_more(kExampleTiles));
  play(*s, kExampleMoves);
  const auto v = s->view(std::nullopt);
  const auto& last = v["last"];
  EXPECT_EQ(last["seat"], 0);  // 4th placement, 3 players, seat 0 first
  EXPECT_EQ(last["colour"], "blue");
  EXPECT_EQ(last["move"], "a3-b3");
  EXPECT_EQ(last["tile"], 3);
  EXPECT_EQ(last["cells"], (json{cell(v, "a3"), cell(v, "b3")}));
  EXPECT_EQ(v["cells"][cell(v, "a3")], (json{{"kind", "tile"},
                                             {"tile", 3},
                                             {"turn", 4},
                                             {"pair", cell(v, "b3")},
                                             // a3's points (3,0) (4,1) (2,1): A's tip, W1, W2.
                                             {"corners", {"blue", "red", "white"}}}));
  EXPECT_EQ(v["turn"], 5);
  EXPECT_EQ(v["to_move"], 1);
  EXPECT_TRUE(v["result"].is_null());
  EXPECT_TRUE(v["towers"][inter(v, 6, 1)].is_null()) << "not complete yet";
}

// ---------------------------------------------------------------------------------------------
// The end.

TEST(OnTop, APlayerWhoPlacesTheirLastPawnWinsAtOnce) {
  // Blue has 1 pawn left and places it on (3,0) with the last tile: the game stops before
  // (4,1) is scored, and the score track does not matter.
  auto s = setup_game({{"players", 3}}, kExampleTiles, std::array<int, 4>{1, 20, 20, 21});
  play(*s, kExampleMoves);
  ASSERT_TRUE(s->is_over());
  EXPECT_TRUE(s->legal_moves().empty());
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, std::vector<Seat>{0});
  EXPECT_EQ(out.scores, (std::vector<int>{2, 0, 0}));  // no penalty for unused pawns
  EXPECT_NE(out.reason.find("last pawn"), std::string::npos) << out.reason;
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["last"]["scored"].size(), 1u);
  EXPECT_TRUE(v["towers"][inter(v, 4, 1)].is_null());
  EXPECT_EQ(v["seats"][1]["penalty"], 0);
  EXPECT_EQ(v["result"]["winners"], (json{0}));
  EXPECT_EQ(s->apply(1, Move{"b2-c2"}).error(), RuleError::game_over);
}

TEST(OnTop, ALastPawnPlacedAsASecondEndsTheGameBeforeTheTopPawn) {
  auto s = setup_game({{"players", 3}}, kExampleTiles, std::array<int, 4>{20, 1, 20, 21});
  play(*s, kExampleMoves);
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{1});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["towers"][inter(v, 4, 1)], (json{"yellow"})) << "red never placed its pawn";
  EXPECT_EQ(score(v, 2), 0);
  EXPECT_EQ(score(v, 0), 2) << "(3,0) came first";
}

TEST(OnTop, ANeutralColourRunningOutEndsTheGameAndMostPointsWins) {
  // 2 players: red is neutral and tops (4,1) with its last pawn.
  auto s = setup_game({{"players", 2}}, kExampleTiles, std::array<int, 4>{20, 20, 1, 21});
  play(*s, kExampleMoves);
  ASSERT_TRUE(s->is_over());
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, std::vector<Seat>{0});
  EXPECT_EQ(out.scores, (std::vector<int>{2, 0}));  // blue's golden corner; no penalty
  EXPECT_NE(out.reason.find("neutral red"), std::string::npos) << out.reason;
}

TEST(OnTop, WhenTheTilesRunOutEachUnusedPawnCostsOnePoint) {
  auto s = setup_game({{"players", 2}}, kGoldenTiles);
  play(*s, kGoldenMoves);
  ASSERT_TRUE(s->is_over());
  const auto out = *s->outcome();
  // Blue: 4 points - 19 pawns left = -15. Yellow: 0 - 20 = -20.
  EXPECT_EQ(out.scores, (std::vector<int>{-15, -20}));
  EXPECT_EQ(out.winners, std::vector<Seat>{0});
  EXPECT_NE(out.reason.find("tiles ran out"), std::string::npos) << out.reason;
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["seats"][0]["penalty"], 19);
  EXPECT_EQ(v["seats"][0]["score"], -15);
  EXPECT_TRUE(v["drawn"].is_null());
  EXPECT_EQ(v["to_move"], nullptr);
}

TEST(OnTop, EqualPointsGoToThePlayerWithFewestPawnsLeft) {
  // Yellow starts with 18 pawns (test setup). After the first example and no more tiles:
  // blue 2 - 19 = -17, yellow 0 - 17 = -17, red 2 - 19 = -17: yellow has fewest pawns left.
  auto s = setup_game({{"players", 3}}, kExampleTiles, std::array<int, 4>{20, 18, 20, 21});
  play(*s, kExampleMoves);
  const auto out = *s->outcome();
  EXPECT_EQ(out.scores, (std::vector<int>{-17, -17, -17}));
  EXPECT_EQ(out.winners, std::vector<Seat>{1});
  EXPECT_NE(out.reason.find("fewest pawns"), std::string::npos) << out.reason;
  EXPECT_EQ(out.code, "on_top.points");
  EXPECT_EQ(out.args["tie"], "fewest_pawns");
}

TEST(OnTop, EqualPointsAndEqualPawnsLeftShareTheWin) {
  // Blue 2 - 19 = -17 and red 2 - 19 = -17, both with 19 pawns left; yellow 0 - 19 = -19.
  auto s = setup_game({{"players", 3}}, kExampleTiles);
  play(*s, kExampleMoves);
  const auto out = *s->outcome();
  EXPECT_EQ(out.scores, (std::vector<int>{-17, -19, -17}));
  EXPECT_EQ(out.winners, (std::vector<Seat>{0, 2}));
  EXPECT_NE(out.reason.find("shared"), std::string::npos) << out.reason;
  EXPECT_EQ(out.args["tie"], "shared");
}

TEST(OnTop, TheGameEndsWhenNoRoomIsLeftForATile) {
  // More tiles than the board can take: play until no two empty neighbours remain.
  auto s = setup_game({{"players", 2}}, std::vector<std::string>(60, "BYYRWW"));
  std::array<int, 2> points{};
  while (!s->is_over()) {
    play(*s, {s->legal_moves().front().text});
    const auto after = s->view(std::nullopt);  // kept alive: the loop runs over a part of it
    for (const auto& r : after["last"]["scored"])
      if (r["scorer"].is_number()) points[r["scorer"].get<int>()] += r["points"].get<int>();
  }
  const auto v = s->view(std::nullopt);
  const auto out = *s->outcome();
  EXPECT_NE(out.reason.find("no room"), std::string::npos) << out.reason;
  EXPECT_GT(v["tiles_left"].get<int>(), 0);
  for (const auto& c : v["cells"]) EXPECT_FALSE(c.is_null()) << "every cell is filled";
  for (Seat seat : {0, 1}) {
    EXPECT_EQ(v["seats"][seat]["penalty"], pawns_left(v, seat));
    EXPECT_EQ(score(v, seat), points[seat] - pawns_left(v, seat));
    EXPECT_EQ(out.scores[seat], score(v, seat));
  }
}

// ---------------------------------------------------------------------------------------------
// Teams.

TEST(OnTop, TeamsNeedFourPlayers) {
  for (int players : {2, 3})
    EXPECT_EQ(game().create({{"players", players}, {"teams", true}}, 1).error(),
              RuleError::bad_option);
  auto s = start({{"players", 4}, {"teams", true}});
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(v["seats"][0]["team"], 0);
  EXPECT_EQ(v["seats"][1]["team"], 1);
  EXPECT_EQ(v["seats"][2]["team"], 0);
  EXPECT_EQ(v["seats"][3]["team"], 1);
}

TEST(OnTop, PartnersSitOppositeKeepTheirColoursAndAddTheirPoints) {
  // The several-circles game, then the tiles run out: blue 6 - 17 = -11, yellow 0 - 19 = -19,
  // red 2 - 18 = -16, white 0 - 20 = -20. Blue + red (seats 0, 2) = -27; yellow + white = -39.
  auto s =
      setup_game({{"players", 4}, {"teams", true}},
                 {"YYYYYY", "WWWWWW", "RRRRRR", "BBBBBB", "RRRRRR", "BBBBBB"}, std::nullopt, 1);
  play(*s, {"b6-b7", "b8-b9", "a9-a8", "b5-b4", "b3-a3", "a5-a6"});
  ASSERT_TRUE(s->is_over());
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, (std::vector<Seat>{0, 2}));
  EXPECT_EQ(out.scores, (std::vector<int>{-27, -39, -27, -39}));
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(score(v, 0), -11) << "each marker stays the player's own";
  EXPECT_EQ(score(v, 2), -16);
  // (4,1) still set red against blue although they are partners.
  EXPECT_EQ(scored_at(v, 4, 1)["placed"], placed({{"red", 2}, {"blue", 0}}));
}

TEST(OnTop, ATeamWinsAtOnceWhenOneOfItsPlayersPlacesTheirLastPawn) {
  auto s = setup_game({{"players", 4}, {"teams", true}}, kExampleTiles,
                      std::array<int, 4>{1, 20, 20, 20});
  play(*s, kExampleMoves);
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, (std::vector<Seat>{0, 2}));
  EXPECT_EQ(s->outcome()->scores, (std::vector<int>{2, 0, 2, 0}));  // blue 2 + red 0
}

// ---------------------------------------------------------------------------------------------
// Several colours in second place: « ils posent tous un pion sur l'intersection (l'ordre est
// sans importance) ». They all place at once; only then is the end of the game checked.

// Two players. d9-d8, c10-c9, b8-c8, d6-d7 close (8,3) (cells c7 c8 c9 d7 d8 d9; c7 becomes a
// black hole): 3 white sixths, 1 blue, 1 yellow, 1 black. Blue and yellow are both second.
const std::vector<std::string> kTwoSecondsMoves{"d9-d8", "c10-c9", "b8-c8", "d6-d7"};
const std::vector<std::string> kTwoSecondsTiles{"WBBBWW", "RWWWRR", "RYYBRR", "WBBYWW"};

// The same tiles with every letter in `from` replaced by the one at the same place in `to`.
std::vector<std::string> recoloured(std::vector<std::string> tiles, std::string_view from,
                                    std::string_view to) {
  for (auto& t : tiles)
    for (auto& ch : t)
      if (const auto at = from.find(ch); at != std::string_view::npos) ch = to[at];
  return tiles;
}

TEST(OnTop, SecondPlaceColoursWithTheirLastPawnsAllPlaceThemAndShareTheWin) {
  // Issue 49's first position: blue used to place, win at once, and yellow placed nothing.
  auto s = setup_game({{"players", 2}}, kTwoSecondsTiles, std::array<int, 4>{1, 1, 21, 21});
  play(*s, kTwoSecondsMoves);
  ASSERT_TRUE(s->is_over());
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 8, 3);
  EXPECT_EQ(r["counts"], (json{1, 1, 0, 3}));
  EXPECT_EQ(r["placed"], placed({{"blue", 0}, {"yellow", 1}})) << "white, on top, never places";
  EXPECT_EQ(v["towers"][inter(v, 8, 3)], (json{"blue", "yellow"}));
  EXPECT_EQ(pawns_left(v, 0), 0);
  EXPECT_EQ(pawns_left(v, 1), 0);
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, (std::vector<Seat>{0, 1}));
  EXPECT_EQ(out.scores, (std::vector<int>{0, 0}));
  EXPECT_EQ(out.reason,
            "blue and yellow placed their last pawns in the same placement and share the win");
}

TEST(OnTop, EverySecondPlaceColourPlacesItsPawnWhenAnotherPlacesItsLast) {
  // Issue 49's second position: (10,3) holds 3 red sixths, 1 blue, 1 yellow and the start cell
  // d10. Blue places its last pawn, and yellow still places its own beside it.
  auto s = setup_game({{"players", 2}}, {"WRRBYY", "YWWBRR", "RRRYWW", "YWWRBB"},
                      std::array<int, 4>{1, 20, 21, 21});
  play(*s, {"d12-d11", "d9-d8", "c11-c10", "c8-c9"});
  ASSERT_TRUE(s->is_over());
  const auto v = s->view(std::nullopt);
  const auto r = scored_at(v, 10, 3);
  EXPECT_EQ(r["counts"], (json{1, 1, 3, 0}));
  EXPECT_EQ(r["placed"], placed({{"blue", 0}, {"yellow", 1}}));
  EXPECT_EQ(v["towers"][inter(v, 10, 3)], (json{"blue", "yellow"}));
  EXPECT_EQ(pawns_left(v, 1), 19);
  EXPECT_EQ(pawns_left(v, 2), 21) << "the game stopped before red's pawn on top";
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "blue placed their last pawn and wins at once");
  EXPECT_EQ(s->outcome()->code, "on_top.last_pawn");
  EXPECT_EQ(s->outcome()->args, (json{{"seats", {0}}, {"how", "alone"}}));
}

TEST(OnTop, SecondPlaceTeammatesWithTheirLastPawnsWinForTheirTeam) {
  // Yellow recoloured red: blue and red (seats 0 and 2, partners) are second with their last.
  auto s = setup_game({{"players", 4}, {"teams", true}}, recoloured(kTwoSecondsTiles, "Y", "R"),
                      std::array<int, 4>{1, 20, 1, 20});
  play(*s, kTwoSecondsMoves);
  ASSERT_TRUE(s->is_over());
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(scored_at(v, 8, 3)["placed"], placed({{"blue", 0}, {"red", 2}}));
  EXPECT_EQ(s->outcome()->winners, (std::vector<Seat>{0, 2}));
  EXPECT_EQ(s->outcome()->reason,
            "blue and red placed their last pawns in the same placement and their team wins");
}

TEST(OnTop, SecondPlaceOpponentsInTeamsWithTheirLastPawnsShareTheWinBetweenBothTeams) {
  auto s = setup_game({{"players", 4}, {"teams", true}}, kTwoSecondsTiles,
                      std::array<int, 4>{1, 1, 20, 20});
  play(*s, kTwoSecondsMoves);
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(s->outcome()->winners, (std::vector<Seat>{0, 1, 2, 3}));
  EXPECT_EQ(
      s->outcome()->reason,
      "blue and yellow placed their last pawns in the same placement and both teams share the win");
}

TEST(OnTop, APlayersLastPawnOutranksANeutralColourRunningOutInTheSamePlacement) {
  // Two players, yellow recoloured red: blue (a player) and red (neutral) are second and both
  // place their last pawn. The player's last pawn wins at once, whatever the score track says.
  auto s = setup_game({{"players", 2}}, recoloured(kTwoSecondsTiles, "Y", "R"),
                      std::array<int, 4>{1, 20, 1, 21});
  play(*s, kTwoSecondsMoves);
  ASSERT_TRUE(s->is_over());
  EXPECT_EQ(pawns_left(s->view(std::nullopt), 2), 0);
  EXPECT_EQ(s->outcome()->winners, std::vector<Seat>{0});
  EXPECT_EQ(s->outcome()->reason, "blue placed their last pawn and wins at once");
}

TEST(OnTop, TwoNeutralColoursRunningOutTogetherEndTheGameOnPoints) {
  // Recoloured so that blue (3 sixths) is on top and the neutral red and white are second.
  auto s = setup_game({{"players", 2}}, recoloured(kTwoSecondsTiles, "WBY", "BRW"),
                      std::array<int, 4>{20, 20, 1, 1});
  play(*s, kTwoSecondsMoves);
  ASSERT_TRUE(s->is_over());
  const auto v = s->view(std::nullopt);
  EXPECT_EQ(scored_at(v, 8, 3)["placed"], placed({{"red", nullptr}, {"white", nullptr}}));
  EXPECT_EQ(pawns_left(v, 0), 20) << "blue never placed its pawn on top";
  const auto out = *s->outcome();
  EXPECT_EQ(out.winners, (std::vector<Seat>{0, 1}));  // 0 points each, 20 pawns left each
  EXPECT_EQ(out.reason.rfind("the neutral red and white pawns ran out; most points wins", 0), 0u)
      << out.reason;
  EXPECT_EQ(out.code, "on_top.points");
  EXPECT_EQ(
      out.args,
      (json{
          {"ended", "neutrals_out"}, {"neutrals", {2, 3}}, {"penalty", false}, {"tie", "shared"}}));
}

// The property behind the sentence: the order in which the code lists the colours tied for
// second (a test-only setting) changes nothing at all, over random games with few pawns, so that
// colours run out, often several in one placement.
TEST(OnTop, APlacementsResultDoesNotDependOnTheOrderSecondPlaceColoursAreListedIn) {
  std::array<int, 4> order{0, 1, 2, 3};
  std::vector<std::array<int, 4>> orders;
  do orders.push_back(order);
  while (std::next_permutation(order.begin(), order.end()));
  int several_seconds = 0, several_ran_out = 0;
  const std::vector<json> variants{
      {{"players", 2}}, {{"players", 3}}, {{"players", 4}}, {{"players", 4}, {"teams", true}}};
  for (const auto& options : variants)
    for (std::uint64_t seed = 0; seed < 30; ++seed) {
      Rng rng(seed);
      std::array<int, 4> pawns{};
      for (auto& n : pawns) n = 1 + static_cast<int>(rng.below(seed % 2 ? 2 : 6));
      std::vector<std::unique_ptr<State>> games;
      for (const auto& o : orders) {
        auto s = create_for_test(options, seed, TestSetup{{}, pawns, std::nullopt, o});
        ASSERT_TRUE(s.has_value());
        games.push_back(std::move(*s));
      }
      while (!games[0]->is_over()) {
        const auto moves = games[0]->legal_moves();
        const Move m = moves[rng.below(moves.size())];
        for (auto& g : games) ASSERT_TRUE(g->apply(*g->to_move(), m).has_value()) << m.text;
        // Everything a view shows but the board's fixed geometry. Only a scoring placement can
        // set the games apart (and every later view would show it), so only those are compared.
        const auto reference = view_parts(*games[0])->changing_view(std::nullopt);
        if (reference["last"]["scored"].empty()) continue;
        for (std::size_t i = 1; i < games.size(); ++i) {
          const auto view = view_parts(*games[i])->changing_view(std::nullopt);
          // The difference as a patch, short enough to read when it is not empty.
          if (view != reference)
            FAIL() << "seed " << seed << " " << options.dump() << ", seconds listed in order " << i
                   << ": " << json::diff(reference, view).dump();
          ASSERT_EQ(games[i]->outcome().has_value(), games[0]->outcome().has_value());
          if (games[0]->outcome()) {
            EXPECT_EQ(games[i]->outcome()->winners, games[0]->outcome()->winners);
            EXPECT_EQ(games[i]->outcome()->reason, games[0]->outcome()->reason);
          }
        }
        for (const auto& r : reference["last"]["scored"]) {
          int seconds = 0, out = 0;
          for (const auto& p : r["placed"])
            if (p["colour"] != r["top"]) {
              ++seconds;
              for (const auto& c : reference["colours"])
                if (c["colour"] == p["colour"] && c["pawns_left"] == 0) ++out;
            }
          several_seconds += seconds > 1;
          several_ran_out += out > 1;
        }
      }
    }
  // The random games did reach the cases that matter.
  EXPECT_GT(several_seconds, 20);
  EXPECT_GT(several_ran_out, 2);
}

// ---------------------------------------------------------------------------------------------
// Alternative start cells.

TEST(OnTop, TheRedCellsTakeExactlyTwoStartTriangles) {
  EXPECT_EQ(game().create({{"players", 2}, {"start_triangles", 3}}, 1).error(),
            RuleError::bad_option);
  EXPECT_EQ(
      game().create({{"players", 2}, {"start", "alternative"}, {"start_triangles", 7}}, 1).error(),
      RuleError::bad_option);
  EXPECT_EQ(game().create({{"players", 2}, {"start", "elsewhere"}}, 1).error(),
            RuleError::bad_option);
}

TEST(OnTop, AlternativeStartCellsComeFromTheBoardData) {
  auto s = start({{"players", 2}, {"start", "alternative"}});
  auto v = s->view(std::nullopt);
  EXPECT_EQ(v["start_cells"], (json{cell(v, "b5"), cell(v, "e11")}));
  EXPECT_EQ(v["black_left"], 8);
  // b5's neighbours a5 b4 b6 and e11's e10 e12 f11, each with 2 empty neighbours: 24 moves.
  EXPECT_EQ(s->legal_moves().size(), 24u);
  EXPECT_TRUE(legal(*s, "a5-a4"));
  EXPECT_FALSE(legal(*s, "c5-c4")) << "c6 is no start cell here";
  s = start({{"players", 2}, {"start", "alternative"}, {"start_triangles", 6}});
  v = s->view(std::nullopt);
  EXPECT_EQ(v["start_cells"], (json{cell(v, "b5"), cell(v, "c3"), cell(v, "c11"), cell(v, "d5"),
                                    cell(v, "d13"), cell(v, "e11")}));
  EXPECT_EQ(v["black_left"], 4);  // 10 - 6
}

TEST(OnTop, RandomStartCellsAreInnerCellsThatShareNoEdge) {
  std::set<json> layouts;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto s = start({{"players", 3}, {"start", "random"}, {"start_triangles", 5}}, seed);
    const auto v = s->view(std::nullopt);
    const auto& starts = v["start_cells"];
    ASSERT_EQ(starts.size(), 5u);
    EXPECT_EQ(v["black_left"], 5);
    layouts.insert(starts);
    const auto& cells = v["geometry"]["cells"];
    auto share_an_edge = [&](int a, int b) {
      int shared = 0;
      for (const auto& p : cells[a]["points"])
        for (const auto& q : cells[b]["points"]) shared += p == q ? 1 : 0;
      return shared == 2;
    };
    for (const auto& c : starts) {
      // An inner cell: each of its 3 edges is shared with another cell.
      int neighbours = 0;
      for (int other = 0; other < static_cast<int>(cells.size()); ++other)
        if (other != c && share_an_edge(c, other)) ++neighbours;
      EXPECT_EQ(neighbours, 3);
      for (const auto& d : starts) {
        if (c != d) {
          EXPECT_FALSE(share_an_edge(c, d)) << "two start cells share an edge";
        }
      }
    }
    // Same seed, same layout.
    EXPECT_EQ(start({{"players", 3}, {"start", "random"}, {"start_triangles", 5}}, seed)
                  ->view(std::nullopt)["start_cells"],
              starts);
  }
  EXPECT_GT(layouts.size(), 10u);
}

// ---------------------------------------------------------------------------------------------
// A position rebuilt from a seat's view (Game::from_view), for a bot playing as a client

std::vector<std::string> move_texts(const State& s) {
  std::vector<std::string> out;
  for (const auto& m : s.legal_moves()) out.push_back(m.text);
  return out;
}

const json kTwoFromSeatZero{{"players", 2}, {"first", "0"}};

Seen seen_by(const State& s, Seat viewer, const json& options = kTwoFromSeatZero) {
  return Seen{*game().normalize_options(options), s.view(viewer), viewer, *s.to_move()};
}

// The text's first example's placements, with the box's tiles as a real game draws them: a4
// takes a black triangle and the intersections (3,0) and (4,1) are scored.
std::unique_ptr<State> example_with_box_tiles() {
  auto s = start(kTwoFromSeatZero, 11);
  play(*s, kExampleMoves);
  return s;
}

TEST(OnTopFromView, TheExampleIsRebuiltAndOnlyTheFaceDownOrderIsSampledAfresh) {
  const auto s = example_with_box_tiles();
  const json v = s->view(0);
  ASSERT_EQ(v["cells"][cell(v, "a4")], (json{{"kind", "black"}}));
  ASSERT_TRUE(v["towers"][inter(v, 4, 1)].is_array());
  ASSERT_EQ(v["tiles_left"], 34 - 5);
  for (const Seat viewer : {0, 1}) {
    const Seen seen = seen_by(*s, viewer);
    std::set<int> next_tiles;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      Rng rng(seed);
      const auto rebuilt = game().from_view(seen, rng);
      ASSERT_TRUE(rebuilt);
      EXPECT_EQ(rebuilt->view(viewer), seen.board);
      EXPECT_EQ(rebuilt->to_move(), s->to_move());
      EXPECT_EQ(move_texts(*rebuilt), move_texts(*s));
      // The same placement in each: the next tile comes from the rebuild's own draw, among the
      // face-down ones, and varies with the seed.
      const std::string move = move_texts(*s).front();
      play(*rebuilt, {move});
      const json after = rebuilt->view(viewer);
      const int tile = after["drawn"]["tile"];
      for (const auto& c : after["cells"])
        EXPECT_FALSE(c.is_object() && c.value("tile", -1) == tile);
      next_tiles.insert(tile);
    }
    EXPECT_GT(next_tiles.size(), 1u) << "the face-down order does not depend on the rng";
  }
}

TEST(OnTopFromView, ARebuiltGameDrawsEveryFaceDownTileOnce) {
  const json options{{"players", 4}, {"teams", true}, {"start", "random"}, {"start_triangles", 5}};
  auto s = start(options, 21);
  for (int i = 0; i < 9; ++i) play(*s, {move_texts(*s).back()});
  Rng rng(2);
  auto rebuilt = game().from_view(seen_by(*s, 3, options), rng);
  ASSERT_TRUE(rebuilt);
  std::set<int> tiles;
  const json cells = rebuilt->view(0)["cells"];  // held: a range-for would not keep the view alive
  for (const auto& c : cells)
    if (c.is_object() && c["kind"] == "tile") tiles.insert(c["tile"].get<int>());
  while (!rebuilt->is_over()) {
    const json v = rebuilt->view(0);
    EXPECT_TRUE(tiles.insert(v["drawn"]["tile"].get<int>()).second) << "a tile drawn twice";
    play(*rebuilt, {move_texts(*rebuilt).front()});
  }
}

TEST(OnTopFromView, ABoardThisGameNeverShowsIsRefused) {
  const auto s = example_with_box_tiles();
  const Seen good = seen_by(*s, 0);
  Rng rng(1);
  ASSERT_TRUE(game().from_view(good, rng));
  const json& v = good.board;
  const int a4 = cell(v, "a4"), b6 = cell(v, "b6"), c6 = cell(v, "c6");
  const auto refused = [&](const std::function<void(Seen&)>& spoil) {
    Seen seen = good;
    spoil(seen);
    return game().from_view(seen, rng) == nullptr;
  };
  EXPECT_TRUE(refused([](Seen& x) { x.board.erase("cells"); })) << "a missing key";
  EXPECT_TRUE(refused([](Seen& x) { x.board["black_left"] = "7"; })) << "a wrong type";
  EXPECT_TRUE(refused([](Seen& x) { x.board["towers"].erase(0); })) << "a wrong size";
  EXPECT_TRUE(refused([&](Seen& x) { x.board["cells"][a4]["kind"] = "plastic"; }))
      << "an unknown kind";
  EXPECT_TRUE(refused([](Seen& x) { x.board["colours"][0]["pawns_left"] = 25; }))
      << "more pawns than a colour has";
  EXPECT_TRUE(refused([](Seen& x) {
    x.board["colours"][0]["pawns_left"] = x.board["colours"][0]["pawns_left"].get<int>() - 1;
  })) << "a pawn missing that no tower holds";
  EXPECT_TRUE(refused([](Seen& x) { x.board["black_left"] = 8; }))
      << "eleven black triangles: 2 start, a4 and 8 spares";
  EXPECT_TRUE(refused([](Seen& x) { x.board["seats"][1]["score"] = 1; }))
      << "a score the towers do not give";
  EXPECT_TRUE(refused([&](Seen& x) { x.board["cells"][b6]["tile"] = x.board["drawn"]["tile"]; }))
      << "the tile in hand on the board too";
  EXPECT_TRUE(refused([&](Seen& x) { x.board["cells"][a4] = nullptr; }))
      << "an empty cell with no empty neighbour: a hole left unfilled";
  EXPECT_TRUE(refused([&](Seen& x) { x.board["cells"][c6] = nullptr; })) << "a start cell gone";
  EXPECT_TRUE(refused([](Seen& x) { x.board["tiles_left"] = 30; })) << "a pile of another size";
  EXPECT_TRUE(refused([](Seen& x) { x.board["last"] = nullptr; })) << "no last placement";
  EXPECT_TRUE(refused([](Seen& x) { x.to_move = 1; })) << "another seat to move";
  EXPECT_TRUE(refused([](Seen& x) { x.viewer = 2; })) << "no seat 2 in a 2-player game";
  EXPECT_TRUE(refused([](Seen& x) { x.options = {{"players", 3}}; }))
      << "a 2-player board with 3-player options";
  EXPECT_TRUE(refused([](Seen& x) { x.options = {{"players", 2}, {"start", "alternative"}}; }))
      << "start triangles the options do not put there";
  EXPECT_TRUE(refused([](Seen& x) { x.options = {{"players", 2}, {"first", "1"}}; }))
      << "seat 1 would be to move after 4 placements from seat 1";
  for (const json& board : {json(nullptr), json(42), json::array({1, 2}), json("garbage")})
    EXPECT_TRUE(refused([&](Seen& x) { x.board = board; })) << board.dump();

  // A game that is over has no seat to move: nothing to rebuild for a bot.
  auto over = start({{"players", 2}}, 4);
  Seen last = seen_by(*over, 0, {{"players", 2}});
  while (!over->is_over()) play(*over, {move_texts(*over).front()});
  last.board = over->view(0);
  EXPECT_EQ(game().from_view(last, rng), nullptr);
}

}  // namespace
}  // namespace plateau::rules::on_top

namespace plateau::rules::testing {

INSTANTIATE_TEST_SUITE_P(
    OnTop, Conformance,
    ::testing::Values(
        ConformanceCase{&on_top::game(), {{"players", 2}}, "on_top_2p"},
        ConformanceCase{&on_top::game(), {{"players", 3}}, "on_top_3p"},
        ConformanceCase{&on_top::game(), {{"players", 4}}, "on_top_4p"},
        ConformanceCase{&on_top::game(), {{"players", 4}, {"teams", true}}, "on_top_4p_teams"},
        ConformanceCase{
            &on_top::game(), {{"players", 2}, {"start", "alternative"}}, "on_top_2p_alternative"},
        ConformanceCase{&on_top::game(),
                        {{"players", 3}, {"start", "alternative"}, {"start_triangles", 6}},
                        "on_top_3p_alternative_6"},
        ConformanceCase{&on_top::game(),
                        {{"players", 4}, {"start", "random"}, {"start_triangles", 4}},
                        "on_top_4p_random_4"},
        ConformanceCase{
            &on_top::game(), {{"players", 2}, {"first", "1"}}, "on_top_2p_second_starts"}),
    conformance_case_name);

}  // namespace plateau::rules::testing
