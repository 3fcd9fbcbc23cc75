// AudienceViews: each audience's view, and the patch that takes it to the next version
// (server/rooms/audience_views.hpp).
#include <gtest/gtest.h>

#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server/rooms/audience_views.hpp"

using namespace plateau;
using namespace plateau::server;
using nlohmann::json;

namespace {

const rules::Game& quantik() { return *rules::find_game("quantik"); }
const json kFirst0{{"first", "0"}};

// Two seats and the spectators, watching `state` (and `delayed`, if given).
struct Scenery {
  std::unique_ptr<rules::State> state = *quantik().create(kFirst0, 7);
  std::unique_ptr<rules::State> delayed;
  std::vector<protocol::SeatInfo> seats{{"Ada", true, std::nullopt}, {"Bob", true, std::nullopt}};
  std::vector<bool> rematch{false, false};
  int round = 1;
  std::uint64_t generation = 1;
  std::uint64_t line = 1;
  AudienceViews views{3};

  Scene scene() const {
    return Scene{"quantik", true,    &seats,     &rematch, round,   state.get(), delayed.get(),
                 nullptr,   nullptr, generation, line,     nullptr, nullptr,     nullptr};
  }
  // What audience `a` should see, built from scratch.
  json expected(int a) const {
    protocol::RoomFacts facts{
        "quantik", state->is_over() ? protocol::Status::over : protocol::Status::playing,
        &seats,    &rematch,
        round,     nullptr,
        nullptr,   nullptr,
        nullptr};
    const auto& st = a == 2 && delayed ? *delayed : *state;
    return protocol::make_state(facts, st, a == 2 ? std::nullopt : std::optional<rules::Seat>(a));
  }
  void play(const char* move) {
    ASSERT_TRUE(state->apply(*state->to_move(), rules::Move{move}));
    ++generation;
  }
  // Advances to the scene as `version`, checking that each patch takes its audience from what
  // it saw to what it sees now. Returns the patches' operations.
  std::vector<json> advance(std::int64_t version) {
    std::vector<json> before;
    for (int a = 0; a < 3; ++a) before.push_back(views.state_of(a));
    std::vector<json> ops;
    for (const auto& [a, frame] : views.advance(scene(), "r", version)) {
      const auto patch = json::parse(*frame);
      EXPECT_EQ(patch["type"], "patch");
      EXPECT_EQ(patch["room"], "r");
      EXPECT_EQ(patch["version"], version);
      const auto patched = protocol::apply_patch(before[static_cast<std::size_t>(a)], patch["ops"]);
      EXPECT_TRUE(patched.has_value());
      if (patched) {
        EXPECT_EQ(*patched, views.state_of(a)) << "audience " << a;
      }
      EXPECT_EQ(views.state_of(a), expected(a)) << "audience " << a;
      ops.push_back(patch["ops"]);
    }
    return ops;
  }
};

bool touches_board(const json& ops) {
  for (const auto& op : ops)
    if (op["path"].get<std::string>().starts_with("/board")) return true;
  return false;
}

}  // namespace

TEST(AudienceViews, BuiltOnFirstUseAsEachAudienceSeesIt) {
  Scenery s;
  EXPECT_FALSE(s.views.built());
  s.views.build(s.scene());
  ASSERT_TRUE(s.views.built());
  for (int a = 0; a < 3; ++a) EXPECT_EQ(s.views.state_of(a), s.expected(a));
  s.views.clear();
  EXPECT_FALSE(s.views.built());
}

TEST(AudienceViews, EachPatchTakesItsAudienceToTheNewState) {
  Scenery s;
  s.views.build(s.scene());
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    s.play(m);
    const auto ops = s.advance(s.generation);
    EXPECT_TRUE(touches_board(ops[0]));
  }
  EXPECT_TRUE(s.state->is_over());
}

TEST(AudienceViews, ASeatChangeAloneLeavesTheBoardsAlone) {
  Scenery s;
  s.views.build(s.scene());
  s.seats[1].connected = false;
  const auto ops = s.advance(2);
  for (const auto& o : ops) {
    EXPECT_FALSE(touches_board(o)) << o.dump();
    EXPECT_FALSE(o.empty());
  }
}

TEST(AudienceViews, DelayedSpectatorsSeeTheirOwnCopy) {
  Scenery s;
  s.delayed = s.state->clone();
  s.views.build(s.scene());
  s.play("sphere@a1");
  const auto ops = s.advance(2);
  EXPECT_TRUE(touches_board(ops[0]));
  EXPECT_FALSE(touches_board(ops[2])) << "the spectators' copy has not moved";
  ASSERT_TRUE(s.delayed->apply(0, rules::Move{"sphere@a1"}));
  s.play("cylinder@b1");
  EXPECT_TRUE(touches_board(s.advance(3)[2]));
}

TEST(AudienceViews, BoardsNoLongerShownGoToTheReaper) {
  Reaper reaper;
  Scenery s;
  s.views.free_with(&reaper);
  s.views.build(s.scene());
  s.play("sphere@a1");
  s.advance(2);
  // A new round: a new position, whose board replaces the old one.
  s.state = *quantik().create({{"first", "1"}}, 8);
  ++s.round;
  ++s.generation;
  s.advance(3);
  reaper.drain();
  EXPECT_GE(reaper.freed(), 1u);
}
