// The reaper frees what rooms are done with on its own thread (server/rooms/reaper.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fakes.hpp"
#include "server/rooms/reaper.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;

// Notes the thread that destroys it.
struct Marked {
  explicit Marked(std::atomic<std::thread::id>* f) : freed_on(f) {}
  Marked(const Marked&) = delete;
  Marked& operator=(const Marked&) = delete;
  std::atomic<std::thread::id>* freed_on;
  ~Marked() { freed_on->store(std::this_thread::get_id()); }
};

TEST(ReaperTest, FreesOnItsOwnThreadAndDrainWaitsForIt) {
  Reaper reaper;
  std::atomic<std::thread::id> freed_on{};
  reaper.retire(std::make_shared<Marked>(&freed_on));
  reaper.drain();
  EXPECT_EQ(reaper.freed(), 1u);
  EXPECT_NE(freed_on.load(), std::thread::id{}) << "drain returns once it is freed";
  EXPECT_NE(freed_on.load(), std::this_thread::get_id())
      << "freed on the reaper's thread, not the caller's";
}

TEST(ReaperTest, AReferenceThatIsNotTheLastOnlyGoes) {
  Reaper reaper;
  std::atomic<std::thread::id> freed_on{};
  auto kept = std::make_shared<Marked>(&freed_on);
  reaper.retire(kept);  // a copy: `kept` still holds it
  reaper.drain();
  EXPECT_EQ(freed_on.load(), std::thread::id{}) << "still held here";
  EXPECT_EQ(kept.use_count(), 1) << "the reaper let its reference go";
}

TEST(ReaperTest, ItsDestructorFreesEverythingStillWaiting) {
  std::atomic<std::thread::id> freed_on{};
  std::weak_ptr<Marked> watch;
  {
    Reaper reaper;
    for (int i = 0; i < 1000; ++i) {
      auto m = std::make_shared<Marked>(&freed_on);
      if (i == 999) watch = m;
      reaper.retire(std::move(m));
    }
  }
  EXPECT_TRUE(watch.expired());
}

TEST(ReaperTest, ManyHandOversFromOneThreadAreAllFreed) {
  Reaper reaper;
  std::atomic<int> alive{0};
  struct Counted {
    std::atomic<int>* alive;
    explicit Counted(std::atomic<int>* a) : alive(a) { ++*alive; }
    ~Counted() { --*alive; }
  };
  for (int i = 0; i < 10'000; ++i) reaper.retire(std::make_shared<Counted>(&alive));
  reaper.drain();
  EXPECT_EQ(alive.load(), 0);
  EXPECT_EQ(reaper.freed(), 10'000u);
}

// A room hands the reaper its finished round (the position and the boards its audiences
// shared) and, in games that keep the position each board shows, each shown position once a
// newer one replaces it; the room plays on with every client's copy exact.
TEST(ReaperTest, ARoomHandsOverItsFinishedRoundAndKeepsPlaying) {
  ManualStore store;
  std::uint64_t counter = 1;
  Lobby lobby{store, [&] { return counter++ * 0x9e3779b97f4a7c15ULL; }};
  auto hello = [&](const std::string& name) {
    auto c = std::make_shared<FakeConnection>();
    lobby.handle(c, *protocol::decode(json{{"type", "hello"}, {"name", name}}.dump()));
    return c;
  };
  auto send = [&](const std::shared_ptr<FakeConnection>& c, const json& msg) {
    lobby.handle(c, *protocol::decode(msg.dump()));
  };
  auto ada = hello("Ada"), bob = hello("Bob"), eve = hello("Eve");
  send(ada, {{"type", "create"}, {"game", "turris"}});
  const std::string room = ada->take("created").at(0)["room"];
  send(eve, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  rules::Rng pick(5);
  auto play_out = [&] {
    while (ada->states[room]["status"] == "playing") {
      auto& c = ada->states[room]["to_move"] == 0 ? ada : bob;
      const auto legal = c->states[room]["legal_moves"];
      send(c, {{"type", "move"},
               {"room", room},
               {"version", c->versions[room]},
               {"move", legal[pick.below(legal.size())]}});
      ASSERT_TRUE(c->take("error").empty());
    }
  };
  play_out();
  lobby.reaper().drain();
  const auto after_round = lobby.reaper().freed();
  EXPECT_GT(after_round, 0u)
      << "Turris keeps each shown position: the ones replaced went to the reaper";
  send(ada, {{"type", "rematch"}, {"room", room}});
  send(bob, {{"type", "rematch"}, {"room", room}});
  ASSERT_EQ(ada->states[room]["round"], 2);
  lobby.reaper().drain();
  // The finished round's position, its shown position and board, and its fixed view.
  EXPECT_GE(lobby.reaper().freed(), after_round + 3);
  play_out();
  for (auto& c : {ada, bob, eve}) {
    const json copy = c->states[room];
    send(c, {{"type", "sync"}, {"room", room}});
    EXPECT_EQ(copy, c->take("full").back()["state"]);
  }
}

}  // namespace
}  // namespace plateau::server::testing
