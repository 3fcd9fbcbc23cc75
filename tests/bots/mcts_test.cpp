// The bots' engine (bots/): the search never plays an illegal move, keeps its budgets, repeats
// itself from a seed, plays only games it can sample without cheating, and beats random play;
// `easy` never walks into a loss it could avoid; determinize() agrees with what a seat sees.
#include <gtest/gtest.h>

#include <algorithm>

#include "bots/bot.hpp"
#include "bots/mcts.hpp"

namespace plateau::bots {
namespace {

using rules::Move;
using rules::Seat;
using rules::State;

std::unique_ptr<State> start(std::string_view game, std::uint64_t seed) {
  auto created = rules::find_game(game)->create(nlohmann::json::object(), seed);
  EXPECT_TRUE(created.has_value());
  return std::move(*created);
}

bool legal(const State& s, const Move& m) {
  const auto moves = s.legal_moves();
  return std::ranges::find(moves, m) != moves.end();
}

// A random position `plies` moves into a game (fewer if it ends first).
std::unique_ptr<State> random_position(std::string_view game, std::uint64_t seed, int plies) {
  auto s = start(game, seed);
  rules::Rng rng(seed * 7 + 1);
  for (int i = 0; i < plies && !s->is_over(); ++i) {
    const auto moves = s->legal_moves();
    EXPECT_TRUE(s->apply(*s->to_move(), moves[rng.below(moves.size())]));
  }
  return s;
}

const std::vector<std::string_view> kPerfectInformation{"quantik", "kwinty", "turris"};

TEST(Mcts, PlaysWholeGamesOfEveryGameItCanSampleWithLegalMovesOnly) {
  for (const auto game : kPerfectInformation) {
    auto s = start(game, 11);
    rules::Rng rng(5);
    int bot_moves = 0;
    while (!s->is_over()) {
      const Seat seat = *s->to_move();
      Move m;
      if (seat == 0) {
        const auto choice = search(*s, {.iterations = 25}, 100 + bot_moves);
        ASSERT_TRUE(choice) << game;
        m = choice->move;
        ++bot_moves;
        ASSERT_TRUE(legal(*s, m)) << game << ": " << m.text;
      } else {
        const auto moves = s->legal_moves();
        m = moves[rng.below(moves.size())];
      }
      ASSERT_TRUE(s->apply(seat, m)) << game << ": " << m.text;
    }
    EXPECT_GT(bot_moves, 3) << game;
  }
}

TEST(Mcts, KeepsAnIterationBudgetExactlyAndRepeatsItselfFromASeed) {
  const auto s = random_position("quantik", 3, 4);
  const auto a = search(*s, {.iterations = 200}, 42);
  const auto b = search(*s, {.iterations = 200}, 42);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->iterations, 200u);
  EXPECT_EQ(a->move, b->move);
  EXPECT_DOUBLE_EQ(a->value, b->value);
  EXPECT_GE(a->value, 0.0);
  EXPECT_LE(a->value, 1.0);
}

TEST(Mcts, StopsWhenTheClockItIsGivenSaysTheTimeIsUp) {
  const auto s = random_position("kwinty", 3, 6);
  auto t = std::chrono::steady_clock::time_point{};
  // Each reading of this clock is a millisecond after the last.
  const Now fake = [&t] { return t += std::chrono::milliseconds(1); };
  const auto choice = search(*s, {.time = std::chrono::milliseconds(50)}, 1, fake);
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->iterations, 50u) << "one reading at the start, one after each iteration";
  const auto both = search(*s, {.iterations = 10, .time = std::chrono::milliseconds(50)}, 1, fake);
  EXPECT_EQ(both->iterations, 10u) << "whichever bound comes first";
}

TEST(Mcts, RefusesAFinishedGameAndGamesItCannotSampleWithoutCheating) {
  auto over = start("quantik", 1);
  rules::Rng rng(9);
  while (!over->is_over()) {
    const auto moves = over->legal_moves();
    ASSERT_TRUE(over->apply(*over->to_move(), moves[rng.below(moves.size())]));
  }
  EXPECT_EQ(search(*over, {.iterations = 5}, 1).error(), SearchError::game_over);
  // Until these games sample what a seat cannot see, no bot plays them: a search on the real
  // state would know the bag, the face-down tiles, the piles.
  for (const auto game : {"quirky", "on_top", "ltiles"}) {
    const auto s = start(game, 2);
    EXPECT_EQ(search(*s, {.iterations = 5}, 1).error(), SearchError::cannot_determinize) << game;
    EXPECT_EQ(choose(*s, Level::easy, 1).error(), SearchError::cannot_determinize) << game;
  }
}

TEST(Mcts, BeatsRandomPlayAtQuantikFromEitherSeat) {
  int wins = 0, games = 0;
  for (std::uint64_t g = 0; g < 20; ++g) {
    auto s = start("quantik", g);
    const Seat bot = static_cast<Seat>(g % 2);
    rules::Rng rng(1000 + g);
    int ply = 0;
    while (!s->is_over()) {
      const Seat seat = *s->to_move();
      Move m;
      if (seat == bot) {
        m = search(*s, {.iterations = 400}, g * 100 + ply)->move;
      } else {
        const auto moves = s->legal_moves();
        m = moves[rng.below(moves.size())];
      }
      ASSERT_TRUE(s->apply(seat, m));
      ++ply;
    }
    ++games;
    if (s->outcome()->winners == std::vector<Seat>{bot}) ++wins;
  }
  EXPECT_GE(wins, 19) << wins << " of " << games;
}

// The replies after which `me` has lost, found by trying them all.
bool some_reply_wins_against(const State& s, Seat me, const Move& mine) {
  auto after = s.clone();
  EXPECT_TRUE(after->apply(me, mine));
  if (after->is_over()) return after->outcome()->winners != std::vector<Seat>{me};
  for (const auto& reply : after->legal_moves()) {
    auto then = after->clone();
    EXPECT_TRUE(then->apply(*after->to_move(), reply));
    if (then->is_over() && then->outcome()->winners != std::vector<Seat>{me}) return true;
  }
  return false;
}

TEST(Easy, NeverWalksIntoALossItCouldAvoid) {
  int positions = 0, with_a_trap = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const auto s = random_position("quantik", seed, 3 + static_cast<int>(seed % 8));
    if (s->is_over()) continue;
    const Seat me = *s->to_move();
    const auto moves = s->legal_moves();
    const auto losing = std::ranges::count_if(
        moves, [&](const Move& m) { return some_reply_wins_against(*s, me, m); });
    const auto m = choose(*s, Level::easy, seed);
    ASSERT_TRUE(m);
    ASSERT_TRUE(legal(*s, *m));
    ++positions;
    if (losing > 0 && losing < static_cast<long>(moves.size())) {
      ++with_a_trap;
      EXPECT_FALSE(some_reply_wins_against(*s, me, *m)) << "seed " << seed << ": " << m->text;
    }
  }
  EXPECT_GT(with_a_trap, 20) << "of " << positions << " positions";
}

TEST(Levels, AreOneTableOfNamesAndThinkTimes) {
  EXPECT_EQ(level_named("easy"), Level::easy);
  EXPECT_EQ(level_named("normal"), Level::normal);
  EXPECT_EQ(level_named("hard"), Level::hard);
  EXPECT_EQ(level_named("Hard"), std::nullopt);
  EXPECT_EQ(spec(Level::normal).think.time, std::chrono::milliseconds(300));
  EXPECT_EQ(spec(Level::hard).think.time, std::chrono::seconds(2));
  EXPECT_GT(spec(Level::hard).think.time, spec(Level::normal).think.time);
}

// A sample of the position agrees with all its seat sees (for these games, everything).
TEST(Determinize, ASampleShowsTheSeatExactlyWhatTheRealPositionShows) {
  for (const auto game : kPerfectInformation)
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const auto s = random_position(game, seed, static_cast<int>(seed * 3 % 30));
      rules::Rng rng(seed);
      for (Seat viewer = 0; viewer < s->num_seats(); ++viewer) {
        const auto sample = s->determinize(viewer, rng);
        ASSERT_TRUE(sample) << game;
        EXPECT_EQ(sample->view(viewer), s->view(viewer)) << game << " seed " << seed;
        EXPECT_EQ(sample->legal_moves(), s->legal_moves()) << game;
        EXPECT_EQ(sample->to_move(), s->to_move()) << game;
      }
    }
}

}  // namespace
}  // namespace plateau::bots
