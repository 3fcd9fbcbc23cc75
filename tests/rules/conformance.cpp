#include "conformance.hpp"

#include <algorithm>
#include <set>

#include "rules/view_parts.hpp"

namespace plateau::rules::testing {

using nlohmann::json;

namespace {

// A seed whose decimal and hex spellings are distinctive enough that finding one in a view
// means the seed leaked.
constexpr std::uint64_t kTellTaleSeed = 0x5eed5eed12345678ULL;
constexpr int kMaxMoves = 100000;

std::vector<std::optional<Seat>> all_viewers(const State& s) {
  std::vector<std::optional<Seat>> viewers{std::nullopt};
  for (Seat seat = 0; seat < s.num_seats(); ++seat) viewers.push_back(seat);
  return viewers;
}

std::vector<json> all_views(const State& s) {
  std::vector<json> views;
  for (const auto& v : all_viewers(s)) views.push_back(s.view(v));
  return views;
}

std::unique_ptr<State> make(const ConformanceCase& c, std::uint64_t seed) {
  auto created = c.game->create(c.options, seed);
  EXPECT_TRUE(created.has_value()) << "options " << c.options.dump() << " refused";
  return created ? std::move(*created) : nullptr;
}

// Plays a random game from each seed and calls check(state, start) at every position, the
// last included; `start` is the game's first position.
template <class Check>
void check_random_games(const ConformanceCase& c, std::initializer_list<std::uint64_t> seeds,
                        Check check);

}  // namespace

std::vector<Move> random_playout(State& state, std::uint64_t seed,
                                 const std::function<void(const State&)>& each) {
  Rng pick(seed ^ 0xabcdefULL);
  std::vector<Move> played;
  while (!state.is_over()) {
    if (played.size() >= static_cast<std::size_t>(kMaxMoves)) {
      ADD_FAILURE() << "game did not end after " << kMaxMoves << " moves";
      break;
    }
    if (each) each(state);
    const auto moves = state.legal_moves();
    if (moves.empty()) {
      ADD_FAILURE() << "no legal move but the game is not over";
      break;
    }
    const Move& m = moves[pick.below(moves.size())];
    const auto r = state.apply(*state.to_move(), m);
    if (!r) {
      ADD_FAILURE() << "legal move " << m.text << " refused: " << error_code(r.error());
      break;
    }
    played.push_back(m);
  }
  return played;
}

namespace {

template <class Check>
void check_random_games(const ConformanceCase& c, std::initializer_list<std::uint64_t> seeds,
                        Check check) {
  for (const std::uint64_t seed : seeds) {
    auto s = make(c, seed);
    ASSERT_TRUE(s);
    const auto start = s->clone();
    random_playout(*s, seed, [&](const State& st) { check(st, *start); });
    check(*s, *start);
  }
}

}  // namespace

std::vector<ConformanceCase> registered_cases() {
  std::vector<ConformanceCase> cases;
  for (const Game* g : all_games())
    for (int n = g->min_seats(); n <= g->max_seats(); ++n)
      cases.push_back(
          {g, json{{"players", n}}, std::string(g->id()) + "_" + std::to_string(n) + "p"});
  return cases;
}

std::string conformance_case_name(const ::testing::TestParamInfo<ConformanceCase>& info) {
  return info.param.label;
}

TEST_P(Conformance, RandomPlayoutsEndWithAnOutcome) {
  const auto& c = GetParam();
  for (int i = 0; i < c.playouts; ++i) {
    auto s = make(c, 1000 + i);
    ASSERT_TRUE(s);
    random_playout(*s, i, [&](const State& st) {
      ASSERT_FALSE(st.outcome().has_value()) << "an outcome before the end";
      ASSERT_TRUE(st.to_move().has_value());
      ASSERT_GE(*st.to_move(), 0);
      ASSERT_LT(*st.to_move(), st.num_seats());
    });
    ASSERT_TRUE(s->is_over());
    EXPECT_TRUE(s->legal_moves().empty()) << "legal moves after the end";
    const auto out = s->outcome();
    ASSERT_TRUE(out.has_value()) << "over without an outcome";
    EXPECT_FALSE(out->reason.empty());
    EXPECT_EQ(out->code.rfind(std::string(c.game->id()) + ".", 0), 0u)
        << "a code of the game's own: " << out->code;
    EXPECT_TRUE(out->args.is_object());
    EXPECT_TRUE(out->scores.empty() || static_cast<int>(out->scores.size()) == s->num_seats());
    std::set<Seat> winners(out->winners.begin(), out->winners.end());
    EXPECT_EQ(winners.size(), out->winners.size()) << "a winner listed twice";
    for (Seat w : out->winners) {
      EXPECT_GE(w, 0);
      EXPECT_LT(w, s->num_seats());
    }
  }
}

TEST_P(Conformance, SeatCountMatchesPlayersOption) {
  const auto& c = GetParam();
  auto s = make(c, 7);
  ASSERT_TRUE(s);
  const auto normalized = c.game->normalize_options(c.options);
  ASSERT_TRUE(normalized.has_value());
  EXPECT_EQ(s->num_seats(), (*normalized)["players"].get<int>());
}

TEST_P(Conformance, LegalMovesAreDistinctAndAllAccepted) {
  const auto& c = GetParam();
  auto s = make(c, 11);
  ASSERT_TRUE(s);
  int checked = 0;
  random_playout(*s, 5, [&](const State& st) {
    if (checked++ > 60) return;
    const auto moves = st.legal_moves();
    std::set<std::string> texts;
    for (const auto& m : moves) texts.insert(m.text);
    ASSERT_EQ(texts.size(), moves.size()) << "duplicate legal moves";
    // Every listed move is accepted (sampled, to bound the cost on long lists).
    for (std::size_t i = 0; i < moves.size(); i += 1 + moves.size() / 16) {
      auto copy = st.clone();
      ASSERT_TRUE(copy->apply(*st.to_move(), moves[i]).has_value()) << moves[i].text;
    }
  });
}

// A game may pick a random move without listing them all (State::random_move, for bots'
// playouts): it must be the listed move the same draw picks, at every step of a game.
TEST_P(Conformance, ARandomMoveIsTheListedMoveOfTheSameDraw) {
  const auto& c = GetParam();
  for (const std::uint64_t seed : {3u, 4u}) {
    auto s = make(c, seed);
    ASSERT_TRUE(s);
    Rng draws(seed * 31 + 1);
    int steps = 0;
    random_playout(*s, seed, [&](const State& st) {
      const auto moves = st.legal_moves();
      Rng same = draws;
      const Move picked = st.random_move(draws);
      ASSERT_EQ(picked.text, moves[same.below(moves.size())].text) << "at step " << steps;
      ASSERT_EQ(draws, same) << "one draw, as the list's";
      ++steps;
    });
    EXPECT_GT(steps, 0);
  }
}

// A game may check a move without listing every legal one (State::is_legal): it must still
// accept exactly the listed moves. Every move listed at any point of a playout is a plausible
// text; at each sampled position each of them is accepted iff it is listed there, and a refused
// one changes nothing.
TEST_P(Conformance, AMoveIsAcceptedIffItIsListed) {
  const auto& c = GetParam();
  for (std::uint64_t seed : {41ULL, 42ULL}) {
    auto s = make(c, seed);
    ASSERT_TRUE(s);
    std::vector<std::unique_ptr<State>> positions;
    std::set<std::string> seen;
    random_playout(*s, seed, [&](const State& st) {
      positions.push_back(st.clone());
      for (const auto& m : st.legal_moves()) seen.insert(m.text);
    });
    const std::vector<std::string> texts(seen.begin(), seen.end());
    for (std::size_t p = 0; p < positions.size(); p += 1 + positions.size() / 12) {
      const State& st = *positions[p];
      const auto legal = st.legal_moves();
      const std::set<std::string> listed = [&] {
        std::set<std::string> out;
        for (const auto& m : legal) out.insert(m.text);
        return out;
      }();
      const auto before = all_views(st);
      // Every listed move, and a spread of at most 300 of the others.
      std::vector<std::string> tried(listed.begin(), listed.end());
      for (std::size_t i = p % 7; i < texts.size(); i += 1 + texts.size() / 300)
        if (!listed.contains(texts[i])) tried.push_back(texts[i]);
      for (std::size_t i = 0; i < tried.size(); ++i) {
        const std::string& text = tried[i];
        auto copy = st.clone();
        const auto r = copy->apply(*st.to_move(), Move{text});
        ASSERT_EQ(r.has_value(), listed.contains(text)) << "move " << text << " at position " << p;
        if (r) continue;
        EXPECT_EQ(r.error(), RuleError::illegal_move) << text;
        if (i % 16 == 0) {
          EXPECT_EQ(all_views(*copy), before) << "a refused " << text << " changed a view";
        }
      }
    }
  }
}

TEST_P(Conformance, WrongSeatGarbageAndLateMovesChangeNothing) {
  const auto& c = GetParam();
  auto s = make(c, 21);
  ASSERT_TRUE(s);
  int step = 0;
  random_playout(*s, 9, [&](const State& st) {
    if (step++ % 3 != 0) return;
    auto copy = st.clone();
    const auto before = all_views(*copy);
    const Seat mover = *copy->to_move();
    const Move some = copy->legal_moves().front();
    for (Seat other = 0; other < copy->num_seats(); ++other) {
      if (other == mover) continue;
      const auto r = copy->apply(other, some);
      ASSERT_FALSE(r.has_value());
      EXPECT_EQ(r.error(), RuleError::not_your_turn);
    }
    const auto legal = copy->legal_moves();
    for (const char* junk : {"", "???", "pass pass", "\xff\xfe", "0@@z9"}) {
      if (std::ranges::find(legal, Move{junk}) != legal.end()) continue;
      const auto r = copy->apply(mover, Move{junk});
      ASSERT_FALSE(r.has_value()) << junk;
      EXPECT_EQ(r.error(), RuleError::illegal_move);
    }
    EXPECT_EQ(all_views(*copy), before) << "a refused move changed a view";
  });
  ASSERT_TRUE(s->is_over());
  const auto before = all_views(*s);
  const auto r = s->apply(0, Move{"anything"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), RuleError::game_over);
  EXPECT_EQ(all_views(*s), before);
}

TEST_P(Conformance, CloneIsIndependent) {
  const auto& c = GetParam();
  auto s = make(c, 31);
  ASSERT_TRUE(s);
  int step = 0;
  random_playout(*s, 13, [&](const State& st) {
    if (step++ % 4 != 0) return;
    auto copy = st.clone();
    EXPECT_EQ(all_views(*copy), all_views(st));
    const auto before = all_views(st);
    ASSERT_TRUE(copy->apply(*copy->to_move(), copy->legal_moves().back()).has_value());
    EXPECT_EQ(all_views(st), before) << "playing on a clone changed the original";
  });
}

TEST_P(Conformance, ReplayFromSeedAndMovesIsExact) {
  const auto& c = GetParam();
  for (std::uint64_t seed : {3ULL, 77ULL, 123456789ULL}) {
    auto original = make(c, seed);
    ASSERT_TRUE(original);
    std::vector<std::vector<json>> seen;
    const auto moves = random_playout(*original, seed * 7,
                                      [&](const State& st) { seen.push_back(all_views(st)); });
    auto again = make(c, seed);
    ASSERT_TRUE(again);
    for (std::size_t i = 0; i < moves.size(); ++i) {
      ASSERT_EQ(all_views(*again), seen[i]) << "diverged before move " << i;
      ASSERT_TRUE(again->apply(*again->to_move(), moves[i]).has_value()) << moves[i].text;
    }
    EXPECT_EQ(all_views(*again), all_views(*original));
    EXPECT_EQ(again->outcome(), original->outcome());
  }
}

TEST_P(Conformance, ViewsNeverShowTheSeed) {
  const auto& c = GetParam();
  auto s = make(c, kTellTaleSeed);
  ASSERT_TRUE(s);
  const std::string dec = std::to_string(kTellTaleSeed);
  const std::string hex = "5eed5eed12345678";
  auto check = [&](const State& st) {
    for (const auto& v : all_viewers(st)) {
      const json view = st.view(v);
      ASSERT_TRUE(view.is_object()) << "a view is a JSON object";
      const std::string text = view.dump();
      ASSERT_EQ(text.find(dec), std::string::npos) << "seed in view: " << text;
      ASSERT_EQ(text.find(hex), std::string::npos) << "seed in view: " << text;
      ASSERT_FALSE(view.contains("seed"));
    }
  };
  random_playout(*s, 17, check);
  check(*s);
}

}  // namespace plateau::rules::testing

namespace plateau::rules::testing {

// A game that says every viewer sees the same board must mean it: the server then builds one
// board for all of them, so a seat-only secret would reach the spectators.
TEST_P(Conformance, AViewSharedByAllViewersIsTheSameForEach) {
  int checked = 0;
  check_random_games(GetParam(), {3u, 29u}, [&](const State& st, const State&) {
    const ViewParts* parts = view_parts(st);
    if (!parts || parts->view_depends_on_viewer()) return;
    ++checked;
    const auto views = all_views(st);
    for (std::size_t i = 1; i < views.size(); ++i)
      ASSERT_EQ(views[i], views[0]) << "seat " << i - 1 << " sees another board than a spectator";
  });
  RecordProperty("shared_views_checked", checked);
}

}  // namespace plateau::rules::testing

namespace plateau::rules::testing {

// A room sends a game's fixed_view() (view_parts.hpp) with full states only and never diffs it
// while it stays the same object, so it must not change with a move, must be the same for every
// viewer (it is one object) and must not hide a key of the changing part (a client would get a
// stale value).
TEST_P(Conformance, TheFixedPartOfABoardNeverChangesInAGame) {
  check_random_games(GetParam(), {5u, 31u}, [](const State& st, const State& start) {
    const ViewParts *parts = view_parts(st), *first_parts = view_parts(start);
    ASSERT_EQ(parts != nullptr, first_parts != nullptr);
    if (!parts) return;
    const auto fixed = parts->fixed_view(), first = first_parts->fixed_view();
    ASSERT_EQ(fixed != nullptr, first != nullptr);
    if (!fixed) return;
    ASSERT_TRUE(fixed->is_object()) << "a fixed view is an object";
    ASSERT_EQ(*fixed, *first) << "a move changed the fixed part of the board";
    for (const auto& v : all_viewers(st)) {
      const json changing = parts->changing_view(v);
      for (const auto& [key, value] : fixed->items())
        ASSERT_FALSE(changing.contains(key)) << "both parts of the board have " << key;
      ASSERT_EQ(st.view(v).size(), changing.size() + fixed->size());
    }
  });
}

}  // namespace plateau::rules::testing

namespace plateau::rules::testing {

// A room brings a board up to date in place when a game can (ViewParts::update_view) and sends
// the edits it lists: the board must come out exactly as changing_view() builds it, and with the
// fixed part added exactly as view() does, every edit must say truly whether it adds or
// replaces, the edits must list every change, and a board the game declines must stay
// untouched. A game that keeps something of the position a board shows (ViewParts::shown) is
// held to the same given it, and given nothing.
// Boards one and three moves back are updated, as a room's are (its spectators' copy lags).
TEST_P(Conformance, ABoardUpdatedInPlaceIsTheBoardBuiltAfresh) {
  int updated = 0, updated_since = 0;
  struct Position {
    std::shared_ptr<const ViewParts::Shown> shown;
    std::vector<json> boards;  // one per viewer
  };
  std::vector<Position> history;  // the current game's positions
  const State* game = nullptr;
  check_random_games(GetParam(), {7u, 37u}, [&](const State& st, const State& start) {
    if (game != &start) history.clear(), game = &start;
    const ViewParts* parts = view_parts(st);
    if (!parts) return;
    const auto viewers = all_viewers(st);
    std::vector<json> now;
    for (const auto& v : viewers) now.push_back(parts->changing_view(v));
    for (const std::size_t back : {1u, 3u}) {
      if (history.size() < back) continue;
      const Position& earlier = history[history.size() - back];
      for (std::size_t i = 0; i < viewers.size(); ++i)
        for (const bool since : {false, true}) {
          if (since && !earlier.shown) continue;
          json board = earlier.boards[i];
          ViewParts::Update update;
          const ViewParts::Shown* shown = since ? earlier.shown.get() : nullptr;
          const bool ok = parts->update_view(board, viewers[i], shown, update);
          if (!ok) {
            ASSERT_EQ(board, earlier.boards[i]) << "a declined update changed the board";
            continue;
          }
          ++(since ? updated_since : updated);
          const std::string how = std::string(since ? "given what was shown" : "from the board") +
                                  ", " + std::to_string(back) + " moves on, for viewer " +
                                  std::to_string(i);
          for (const auto& e : update.edits) {
            const json::json_pointer ptr(e.pointer);
            ASSERT_TRUE(board.contains(ptr))
                << e.pointer << " is not on the updated board: " << how;
            ASSERT_EQ(earlier.boards[i].contains(ptr), !e.added)
                << e.pointer << (e.added ? " said added: " : " said replaced: ") << how;
          }
          ASSERT_TRUE(update.rest.is_object());
          // The edits must also be complete: the earlier board patched with them alone, as a
          // client's copy is, must come out as the board.
          json patch = json::array();
          for (const auto& e : update.edits)
            patch.push_back({{"op", e.added ? "add" : "replace"},
                             {"path", e.pointer},
                             {"value", board[json::json_pointer(e.pointer)]}});
          json patched = earlier.boards[i].patch(patch);
          for (const auto& [key, value] : update.rest.items()) {
            ASSERT_TRUE(board.contains(key)) << "rest has " << key << ", which the board lacks";
            board[key] = value;
            patched[key] = value;
          }
          ASSERT_EQ(board, now[i]) << "updated: " << how;
          ASSERT_EQ(ViewParts::complete_view(board, parts->fixed_view().get()), st.view(viewers[i]))
              << "updated, then completed: " << how;
          ASSERT_EQ(patched, now[i]) << "the edits miss a change: " << how;
        }
    }
    history.push_back({parts->shown(), std::move(now)});
  });
  RecordProperty("boards_updated_in_place", updated);
  RecordProperty("boards_updated_from_shown_state", updated_since);
}

}  // namespace plateau::rules::testing

namespace plateau::rules::testing {

// A seat's view alone rebuilds a position that agrees with it (Game::from_view): the same view,
// the same seat to move, and the same legal moves, at every position of random games, as a
// bot playing from another machine sees them. And the rebuilt position plays on.
TEST_P(Conformance, AStateRebuiltFromItsMoversViewAgreesWithIt) {
  const auto& c = GetParam();
  const auto options = c.game->normalize_options(c.options);
  ASSERT_TRUE(options.has_value());
  const auto moves_of = [](const State& s) {
    std::vector<std::string> out;
    for (auto& m : s.legal_moves()) out.push_back(std::move(m.text));
    std::ranges::sort(out);
    return out;
  };
  int checked = 0;
  for (int i = 0; i < std::min(c.playouts, 8); ++i) {
    auto s = make(c, 3000 + i);
    ASSERT_TRUE(s);
    Rng rng(99 + static_cast<std::uint64_t>(i));
    random_playout(*s, 700 + i, [&](const State& st) {
      const Seat v = *st.to_move();
      const Seen seen{*options, st.view(v), v, v};
      const auto rebuilt = c.game->from_view(seen, rng);
      ASSERT_TRUE(rebuilt) << "no position from the view " << seen.board.dump().substr(0, 400);
      ASSERT_EQ(rebuilt->num_seats(), st.num_seats());
      ASSERT_EQ(rebuilt->to_move(), st.to_move());
      ASSERT_EQ(rebuilt->view(v), seen.board);
      const auto legal = moves_of(st);
      ASSERT_EQ(moves_of(*rebuilt), legal) << seen.board.dump().substr(0, 400);
      auto next = rebuilt->clone();
      ASSERT_TRUE(next->apply(v, Move{legal[legal.size() / 2]}).has_value());
      ++checked;
    });
  }
  EXPECT_GT(checked, 0);
  // A board the game never shows is refused, not guessed at.
  auto s = make(c, 5);
  const Seat v = *s->to_move();
  Rng rng(1);
  EXPECT_EQ(c.game->from_view(Seen{*options, nlohmann::json::array({1, 2}), v, v}, rng), nullptr);
  EXPECT_EQ(c.game->from_view(Seen{*options, "garbage", v, v}, rng), nullptr);
}

}  // namespace plateau::rules::testing
