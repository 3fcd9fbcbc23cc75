// The bots' engine (bots/): the search never plays an illegal move, keeps its budgets, repeats
// itself from a seed, plays only games it can sample without cheating, and beats random play;
// `easy` never walks into a loss it could avoid; determinize() agrees with what a seat sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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

const std::vector<std::string_view> kHidden{"quirky", "on_top", "ltiles"};

// Every game, with each seat count and variant a bot must play.
struct Setup {
  std::string_view game;
  nlohmann::json options;
};
std::vector<Setup> every_setup() {
  std::vector<Setup> out;
  for (const rules::Game* g : rules::all_games())
    for (int seats = g->min_seats(); seats <= g->max_seats(); ++seats)
      out.push_back({g->id(), {{"players", seats}}});
  for (const char* variant : {"hand", "ordered", "open"})
    out.push_back({"ltiles", {{"variant", variant}}});
  return out;
}

std::unique_ptr<State> create(const Setup& setup, std::uint64_t seed) {
  auto created = rules::find_game(setup.game)->create(setup.options, seed);
  EXPECT_TRUE(created.has_value()) << setup.game << " " << setup.options;
  return std::move(*created);
}

// A random position `plies` moves into a game set up as `setup` (fewer if it ends first).
std::unique_ptr<State> random_position(const Setup& setup, std::uint64_t seed, int plies) {
  auto s = create(setup, seed);
  rules::Rng rng(seed * 7 + 1);
  for (int i = 0; i < plies && !s->is_over(); ++i) {
    const auto moves = s->legal_moves();
    EXPECT_TRUE(s->apply(*s->to_move(), moves[rng.below(moves.size())]));
  }
  return s;
}

std::unique_ptr<State> random_position(std::string_view game, std::uint64_t seed, int plies) {
  return random_position(Setup{game, nlohmann::json::object()}, seed, plies);
}

TEST(Mcts, PlaysWholeGamesOfEveryGameWithLegalMovesOnly) {
  for (const auto& setup : every_setup()) {
    auto s = create(setup, 11);
    rules::Rng rng(5);
    int bot_moves = 0;
    while (!s->is_over()) {
      const Seat seat = *s->to_move();
      Move m;
      if (seat == 0) {
        const auto choice = search(*s, {.iterations = 12}, 100 + bot_moves);
        ASSERT_TRUE(choice) << setup.game;
        m = choice->move;
        ++bot_moves;
        ASSERT_TRUE(legal(*s, m)) << setup.game << ": " << m.text;
      } else {
        const auto moves = s->legal_moves();
        m = moves[rng.below(moves.size())];
      }
      ASSERT_TRUE(s->apply(seat, m)) << setup.game << ": " << m.text;
    }
    EXPECT_GT(bot_moves, 3) << setup.game << " " << setup.options;
  }
}

// The arena's variants of the search (Tuning) play legal moves in every game too, and repeat
// themselves from a seed.
TEST(Mcts, EveryTuningPlaysLegalMovesAndRepeatsItselfFromASeed) {
  const std::vector<Tuning> tunings{{.exploration = 0.3},
                                    {.score_share = 0},
                                    {.widen_from = 2, .widen_below_root = true},
                                    {.playout_plies = 6},
                                    {.split_drawn = true},
                                    {.widen_below_root = true, .split_drawn = true},
                                    {.score_share = 1, .margin_scale = 8},
                                    {.score_share = 0.5, .margin_scale = 3, .playout_plies = 10}};
  for (const auto& setup : every_setup())
    for (std::size_t t = 0; t < tunings.size(); ++t) {
      const auto s = random_position(setup, t, static_cast<int>(t * 3));
      if (s->is_over()) continue;
      const auto a = search(*s, {.iterations = 60}, t, steady_now(), tunings[t]);
      const auto b = search(*s, {.iterations = 60}, t, steady_now(), tunings[t]);
      ASSERT_TRUE(a && b) << setup.game;
      EXPECT_TRUE(legal(*s, a->move)) << setup.game << " tuning " << t << ": " << a->move.text;
      EXPECT_EQ(a->move, b->move) << setup.game << " tuning " << t;
      EXPECT_EQ(a->iterations, 60u);
    }
}

// A finished game's winners and scores (Outcome's reason has no default to skip).
rules::Outcome ended(std::vector<Seat> winners, std::vector<int> scores) {
  rules::Outcome out;
  out.winners = std::move(winners);
  out.scores = std::move(scores);
  return out;
}

// A playout's worth: the result alone where nothing scores; blended with the score's place
// (the default) or with the lead over the best of the others (margin_scale), which tells a rout
// from a near thing even in a game of two, where the place is the result again.
TEST(Mcts, ValuesAPlayoutByItsResultAndItsPlaceOrItsLead) {
  std::vector<double> v;
  const auto rout = ended({0}, {30, 10});
  const auto close = ended({0}, {30, 27});
  const auto drawn = ended({}, {12, 12});
  playout_values(ended({1}, {}), 2, {}, v);
  EXPECT_EQ(v, (std::vector<double>{0, 1}));
  playout_values(rout, 2, {}, v);
  EXPECT_EQ(v, (std::vector<double>{1, 0}));
  playout_values(close, 2, {}, v);  // by place, a near thing is a rout
  EXPECT_EQ(v, (std::vector<double>{1, 0}));
  playout_values(drawn, 2, {.margin_scale = 10}, v);
  EXPECT_DOUBLE_EQ(v[0], 0.5);
  EXPECT_DOUBLE_EQ(v[1], 0.5);

  const Tuning lead{.score_share = 0.5, .margin_scale = 10};
  std::vector<double> by_rout;
  playout_values(rout, 2, lead, by_rout);
  playout_values(close, 2, lead, v);
  EXPECT_GT(by_rout[0], v[0]);  // winning by 20 is worth more than by 3
  EXPECT_LT(by_rout[1], v[1]);  // and losing by 20 less than by 3
  EXPECT_GT(v[0], 0.5);
  EXPECT_LT(v[1], 0.5);
  EXPECT_NEAR(v[0], 0.5 + 0.25 * (1 + std::tanh(0.3)), 1e-12);
  EXPECT_NEAR(v[1], 0.25 * (1 - std::tanh(0.3)), 1e-12);

  // Three seats: each seat's lead is over the best of the others.
  playout_values(ended({2}, {5, 9, 15}), 3, {.score_share = 1, .margin_scale = 6}, v);
  EXPECT_NEAR(v[0], 0.5 + 0.5 * std::tanh(-10.0 / 6), 1e-12);
  EXPECT_NEAR(v[1], 0.5 + 0.5 * std::tanh(-6.0 / 6), 1e-12);
  EXPECT_NEAR(v[2], 0.5 + 0.5 * std::tanh(6.0 / 6), 1e-12);
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

// Ranking the root's moves in a game that scores is thinking too: with hundreds of L-Tiles
// placements to score and a clock that says the time is up once it has been read a few times,
// the ranking stops there and the search makes the one iteration it always makes.
TEST(Mcts, RankingTheMovesStopsWhenTheTimeIsUp) {
  for (std::uint64_t g = 0; g < 4; ++g) {
    const auto s = random_position("ltiles", g, 6);
    if (s->is_over()) continue;
    ASSERT_GT(s->legal_moves().size(), 40u);
    auto t = std::chrono::steady_clock::time_point{};
    int readings = 0;
    const Now fake = [&] {
      ++readings;
      return t += std::chrono::milliseconds(1);
    };
    const auto choice = search(*s, {.time = std::chrono::milliseconds(3)}, g, fake);
    ASSERT_TRUE(choice);
    EXPECT_EQ(choice->iterations, 1u) << "the ranking used the time up";
    EXPECT_LE(readings, 5) << "the start, the ranking's checks until the time is up, one iteration";
    auto after = s->clone();
    EXPECT_TRUE(after->apply(*s->to_move(), choice->move)) << choice->move.text;
  }
}

// A game that gives no way to sample it: a one-move game that keeps State's determinize.
class Unsampled final : public State {
 public:
  std::unique_ptr<State> clone() const override { return std::make_unique<Unsampled>(*this); }
  int num_seats() const override { return 2; }
  std::optional<Seat> to_move() const override {
    return done_ ? std::nullopt : std::optional<Seat>(0);
  }
  std::vector<Move> legal_moves() const override {
    return done_ ? std::vector<Move>{} : std::vector<Move>{Move{"go"}};
  }
  std::optional<rules::Outcome> outcome() const override {
    return done_ ? std::optional<rules::Outcome>(rules::Outcome{{0}, {}, "went"}) : std::nullopt;
  }
  nlohmann::json view(std::optional<Seat>) const override { return done_; }

 protected:
  void do_apply(const Move&) override { done_ = true; }

 private:
  bool done_ = false;
};

TEST(Mcts, RefusesAFinishedGameAndAGameItCannotSampleWithoutCheating) {
  auto over = start("quantik", 1);
  rules::Rng rng(9);
  while (!over->is_over()) {
    const auto moves = over->legal_moves();
    ASSERT_TRUE(over->apply(*over->to_move(), moves[rng.below(moves.size())]));
  }
  EXPECT_EQ(search(*over, {.iterations = 5}, 1).error(), SearchError::game_over);
  EXPECT_EQ(choose("quantik", *over, Level::easy, 1).error(), SearchError::game_over);
  // A search on the real state of a game with hidden parts would know them: refused.
  const Unsampled unsampled;
  EXPECT_EQ(search(unsampled, {.iterations = 5}, 1).error(), SearchError::cannot_determinize);
  EXPECT_EQ(choose("unsampled", unsampled, Level::easy, 1).error(),
            SearchError::cannot_determinize);
  EXPECT_EQ(choose("unsampled", unsampled, Level::normal, 1).error(),
            SearchError::cannot_determinize);
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

// In a game that scores, a search too short to try every move tries the ones that gain most at
// once first (progressive widening at the root): with 30 iterations among hundreds of L-Tiles
// placements, it plays one of the ten best by what it gains, every time.
TEST(Mcts, AShortSearchInAScoringGameTriesTheMovesThatGainMostFirst) {
  const auto gain = [](const State& s, const Move& m) {
    auto after = s.clone();
    const Seat me = *s.to_move();
    EXPECT_TRUE(after->apply(me, m));
    const auto scores = after->scores();
    return scores[static_cast<std::size_t>(me)] - scores[static_cast<std::size_t>(1 - me)];
  };
  int checked = 0;
  for (std::uint64_t g = 0; g < 12; ++g) {
    const auto s = random_position("ltiles", g, 6 + static_cast<int>(g));
    if (s->is_over()) continue;
    std::vector<int> gains;
    for (const auto& m : s->legal_moves()) gains.push_back(gain(*s, m));
    ASSERT_GT(gains.size(), 40u) << "a position where 30 iterations cannot try every move";
    std::ranges::sort(gains, std::greater<>());
    const auto choice = search(*s, {.iterations = 30}, g);
    ASSERT_TRUE(choice);
    EXPECT_GE(gain(*s, choice->move), gains[9]) << "position " << g << ": " << choice->move.text;
    ++checked;
  }
  EXPECT_GE(checked, 10);
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
    const auto m = choose("quantik", *s, Level::easy, seed);
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

// A game and level search as their row in kTunings says (Quirky's hard widens below the
// root), the others with Tuning's defaults; choose() plays with that tuning: the move it
// picks is the tuned search's, on positions where the default search picks another.
TEST(Levels, AGameAndLevelSearchWithTheirRowOfTheTuningTable) {
  const Tuning defaults;
  EXPECT_TRUE(tuning_for("quirky", Level::hard).widen_below_root);
  EXPECT_EQ(tuning_for("quirky", Level::normal).widen_below_root, defaults.widen_below_root);
  EXPECT_EQ(tuning_for("on_top", Level::hard).widen_below_root, defaults.widen_below_root);
  EXPECT_DOUBLE_EQ(tuning_for("quirky", Level::hard).exploration, defaults.exploration);
  int differ = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto s = random_position(bots::Setup{"quirky", {{"players", 2}}}, seed, 8);
    ASSERT_FALSE(s->is_over());
    // A clock a millisecond further on at each reading: hard's 2 s are 2,000 readings.
    const auto clock = [] {
      return [t = std::chrono::steady_clock::time_point{}]() mutable {
        return t += std::chrono::milliseconds(1);
      };
    };
    const auto chosen = choose("quirky", *s, Level::hard, seed, clock());
    const auto tuned =
        search(*s, spec(Level::hard).think, seed, clock(), tuning_for("quirky", Level::hard));
    const auto plain = search(*s, spec(Level::hard).think, seed, clock(), defaults);
    ASSERT_TRUE(chosen && tuned && plain);
    EXPECT_EQ(*chosen, tuned->move) << "seed " << seed;
    differ += tuned->move != plain->move;
  }
  EXPECT_GT(differ, 0) << "the tuning changes some choice, so the check above can fail";
}

// A sample of a position shows its viewer exactly what the real one shows, and the same moves
// when the viewer is to move; it plays on to an end.
TEST(Determinize, ASampleShowsTheViewerExactlyWhatTheRealPositionShows) {
  for (const auto& setup : every_setup())
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      const auto s = random_position(setup, seed, static_cast<int>(seed * 5 % 40));
      rules::Rng rng(seed);
      for (Seat viewer = 0; viewer < s->num_seats(); ++viewer) {
        const auto sample = s->determinize(viewer, rng);
        ASSERT_TRUE(sample) << setup.game;
        const auto where = std::string(setup.game) + " " + setup.options.dump() + " seed " +
                           std::to_string(seed) + " viewer " + std::to_string(viewer);
        EXPECT_EQ(sample->view(viewer), s->view(viewer)) << where;
        EXPECT_EQ(sample->to_move(), s->to_move()) << where;
        EXPECT_EQ(sample->drawn(), s->drawn()) << where;  // shown to everyone
        if (s->to_move() == viewer) {
          EXPECT_EQ(sample->legal_moves(), s->legal_moves()) << where;
        }
        rules::Rng play(seed);
        while (!sample->is_over()) {
          const auto moves = sample->legal_moves();
          ASSERT_TRUE(sample->apply(*sample->to_move(), moves[play.below(moves.size())])) << where;
        }
      }
    }
}

// drawn() names the piece or tile the seat to move drew, as its view shows it, in the games
// that draw one each turn, and nothing in the others (or once a game is over).
TEST(Drawn, NamesWhatTheSeatToMoveDrewAsItsViewShowsIt) {
  for (const auto& setup : every_setup())
    for (std::uint64_t seed = 0; seed < 8; ++seed) {
      const auto s = random_position(setup, seed, static_cast<int>(seed * 9 % 50));
      const auto where = std::string(setup.game) + " seed " + std::to_string(seed);
      const auto drawn = s->view(s->to_move())["drawn"];
      if (setup.game == "quirky" && !s->is_over())
        EXPECT_EQ(s->drawn(), drawn["piece"].get<std::string>()) << where;
      else if (setup.game == "on_top" && !s->is_over())
        EXPECT_EQ(s->drawn(), std::to_string(drawn["tile"].get<int>())) << where;
      else
        EXPECT_EQ(s->drawn(), "") << where;
    }
}

// Two samples, played on with the same choices, part ways in a game with hidden parts (what
// was hidden, or drawn later, differs) and never in a game without.
TEST(Determinize, SamplesDifferWhereSomethingIsHiddenAndOnlyThere) {
  for (const auto& setup : every_setup()) {
    // L-Tiles' open variant shows every tile and draws nothing.
    const bool hidden = std::ranges::find(kHidden, setup.game) != kHidden.end() &&
                        setup.options.value("variant", "") != "open";
    int parted = 0;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
      // From the opening to deep in the game (an ordered L-Tiles pile is hidden once ordered).
      const auto s = random_position(setup, seed, static_cast<int>(seed) * 7);
      if (s->is_over()) continue;
      const Seat viewer = *s->to_move();
      rules::Rng rng_a(seed), rng_b(seed + 1000);
      auto a = s->determinize(viewer, rng_a), b = s->determinize(viewer, rng_b);
      for (int ply = 0; ply < 30 && !a->is_over() && !b->is_over(); ++ply) {
        if (a->view(viewer) != b->view(viewer)) break;
        const auto moves = a->legal_moves();
        if (moves != b->legal_moves()) break;
        const auto& m = moves[static_cast<std::size_t>(ply) % moves.size()];
        ASSERT_TRUE(a->apply(*a->to_move(), m));
        ASSERT_TRUE(b->apply(*b->to_move(), m));
      }
      parted += a->view(viewer) != b->view(viewer) || a->legal_moves() != b->legal_moves();
    }
    if (hidden)
      EXPECT_GT(parted, 0) << setup.game << " " << setup.options;
    else
      EXPECT_EQ(parted, 0) << setup.game << " " << setup.options;
  }
}

}  // namespace
}  // namespace plateau::bots
