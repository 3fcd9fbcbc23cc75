// Bots at the table (server/rooms/bot_seat.hpp), driven through the lobby with fake clients, a
// store that completes at once, and a worker pool that runs its jobs when the test says: who
// may seat a bot and where, the bot's moves going through the same room as a person's, its
// seat shown with its level, a rematch, and the bot sitting again after a restart.
#include <gtest/gtest.h>

#include "fakes.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;

// Jobs and posts wait in queues until drain(), which runs them all, in place, on the test's
// thread (the loop here), until none is left.
class QueuedBackground final : public Background {
 public:
  void run(Work work, Failed failed) override {
    jobs_.push_back({std::move(work), std::move(failed)});
  }
  void post(OnLoop then) override { posts_.push_back(std::move(then)); }
  std::size_t pending() const override { return jobs_.size(); }
  // Returns the jobs run.
  int drain(int at_most = 10'000) {
    int ran = 0;
    while ((!jobs_.empty() || !posts_.empty()) && at_most-- > 0) {
      if (!posts_.empty()) {
        auto then = std::move(posts_.front());
        posts_.pop_front();
        then();
        continue;
      }
      auto [work, failed] = std::move(jobs_.front());
      jobs_.pop_front();
      ++ran;
      OnLoop then;
      try {
        then = work();
      } catch (const std::exception& e) {
        failed(e.what());
        continue;
      }
      if (then) then();
    }
    return ran;
  }

 private:
  std::deque<std::pair<Work, Failed>> jobs_;
  std::deque<OnLoop> posts_;
};

LobbyLimits roomy(std::size_t max_bot_games = 100) {
  return LobbyLimits{.keep = {},
                     .max_rooms_per_player = 1'000'000,
                     .creates_per_minute = 1'000'000,
                     .new_players_per_minute = 1'000'000,
                     .max_bot_games = max_bot_games};
}

class Bots : public ::testing::Test {
 protected:
  explicit Bots(std::size_t max_bot_games = 100)
      : lobby{store, [this] { return counter++ * 0x9e3779b97f4a7c15ULL; }, roomy(max_bot_games)} {
    // Short searches: these tests are about the table, not the bots' strength.
    lobby.use_bots(background, std::chrono::milliseconds(5));
  }
  ManualStore store;
  QueuedBackground background;
  std::uint64_t counter = 1;
  Lobby lobby;

  std::shared_ptr<FakeConnection> client(const std::string& name) {
    auto c = std::make_shared<FakeConnection>();
    send(c, json{{"type", "hello"}, {"name", name}});
    return c;
  }
  void send(const std::shared_ptr<FakeConnection>& c, const json& msg) {
    auto req = protocol::decode(msg.dump());
    ASSERT_TRUE(req.has_value()) << msg.dump();
    lobby.handle(c, std::move(*req));
  }
  std::string create(const std::shared_ptr<FakeConnection>& c, const std::string& game,
                     json options = json::object()) {
    send(c, {{"type", "create"}, {"game", game}, {"options", options}});
    const auto created = c->take("created");
    EXPECT_EQ(created.size(), 1u);
    return created.empty() ? "" : created[0]["room"].get<std::string>();
  }
  void add_bot(const std::shared_ptr<FakeConnection>& c, const std::string& room,
               std::optional<int> seat, const std::string& level = "normal") {
    json msg{{"type", "add_bot"}, {"room", room}, {"level", level}};
    if (seat) msg["seat"] = *seat;
    send(c, msg);
  }
  std::string error_code(const std::shared_ptr<FakeConnection>& c) {
    const auto errors = c->take("error");
    return errors.empty() ? "" : errors.back()["code"].get<std::string>();
  }
  // Plays the person's first legal move whenever it is their turn, and lets the bots think,
  // until the game ends. Returns the moves the person made.
  int play_out(const std::shared_ptr<FakeConnection>& c, const std::string& room) {
    int mine = 0;
    for (int step = 0; step < 2'000; ++step) {
      background.drain();
      const json& st = c->states[room];
      if (st["status"] == "over") return mine;
      if (st["to_move"] != st["you"]) {
        ADD_FAILURE() << "the bot did not move: " << st["to_move"];
        return mine;
      }
      send(c, {{"type", "move"},
               {"room", room},
               {"version", c->versions[room]},
               {"move", st["legal_moves"][0]}});
      EXPECT_EQ(error_code(c), "");
      ++mine;
    }
    ADD_FAILURE() << "the game did not end";
    return mine;
  }
};

TEST_F(Bots, ABotTakesTheOtherSeatAndPlaysAWholeGameThroughTheRoom) {
  auto ada = client("Ada");
  auto eve = client("Eve");
  const auto room = create(ada, "quantik", {{"first", "0"}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  send(eve, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  add_bot(ada, room, 1, "easy");
  const auto added = ada->take("bot_added");
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0]["seat"], 1);
  EXPECT_EQ(added[0]["level"], "easy");
  background.drain();
  const json seat = ada->states[room]["seats"][1];
  EXPECT_EQ(seat["bot"], "easy");
  EXPECT_EQ(seat["name"], "Easy bot");
  EXPECT_EQ(seat["connected"], true);
  EXPECT_FALSE(ada->states[room]["seats"][0].contains("bot")) << "a person's seat has no level";
  EXPECT_EQ(ada->states[room]["status"], "playing");
  // The bot's seat is stored under a bot's id, with a row that names it in the history.
  const auto& stored = store.rooms[room].room.seats;
  ASSERT_EQ(stored.size(), 2u);
  ASSERT_TRUE(stored[1].has_value());
  EXPECT_TRUE(stored[1]->starts_with("bot-easy-")) << *stored[1];
  EXPECT_EQ(store.players[*stored[1]].name, "Easy bot");

  const int mine = play_out(ada, room);
  ASSERT_EQ(ada->states[room]["status"], "over");
  // Every move went through the room, one durable write each, alternating seats.
  const auto& moves = store.rooms[room].room.rounds[0].moves;
  EXPECT_GE(mine, 2);
  EXPECT_TRUE(moves.size() == 2u * mine || moves.size() == 2u * mine - 1) << moves.size();
  for (std::size_t i = 0; i < moves.size(); ++i) EXPECT_EQ(moves[i].first, int(i % 2));
  EXPECT_EQ(lobby.bots().moves, moves.size() - static_cast<std::size_t>(mine));
  EXPECT_EQ(lobby.counters().moves_accepted, moves.size());
  // The spectator's patched copy is the state a sync gives.
  send(eve, {{"type", "sync"}, {"room", room}});
  EXPECT_EQ(eve->last("full")["state"], eve->states[room]);
  EXPECT_EQ(ada->take("error").size(), 0u);
}

TEST_F(Bots, BotsPlayEveryGameToItsEndAtEveryLevelTheyAreGiven) {
  // Every game, at its smallest and largest table, a person in seat 0 and bots elsewhere.
  const std::vector<std::pair<std::string, json>> tables{
      {"quantik", json::object()},  {"kwinty", json::object()},   {"turris", json::object()},
      {"quirky", {{"players", 2}}}, {"quirky", {{"players", 3}}}, {"on_top", {{"players", 2}}},
      {"on_top", {{"players", 4}}}, {"ltiles", json::object()}};
  int i = 0;
  for (const auto& [game, options] : tables) {
    SCOPED_TRACE(game + " " + options.dump());
    auto ada = client("Ada");
    const auto room = create(ada, game, options);
    ASSERT_FALSE(room.empty()) << error_code(ada);
    send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
    const int seats = static_cast<int>(ada->states[room]["seats"].size());
    for (int s = 1; s < seats; ++s) add_bot(ada, room, std::nullopt, i++ % 2 ? "easy" : "normal");
    EXPECT_EQ(ada->take("bot_added").size(), static_cast<std::size_t>(seats - 1));
    play_out(ada, room);
    EXPECT_EQ(ada->states[room]["status"], "over");
  }
}

TEST_F(Bots, WhoMaySeatABotAndWhere) {
  auto ada = client("Ada");
  auto bob = client("Bob");
  auto eve = client("Eve");
  const auto room = create(ada, "on_top", {{"players", 3}});
  // The creator may, before sitting; a stranger may not.
  add_bot(bob, room, 2);
  EXPECT_EQ(error_code(bob), "bot/not_allowed");
  add_bot(ada, room, 2, "grandmaster");
  EXPECT_EQ(error_code(ada), "bot/unknown_level");
  add_bot(ada, room, 7);
  EXPECT_EQ(error_code(ada), "room/no_such_seat");
  add_bot(ada, room, 2);
  EXPECT_EQ(ada->take("bot_added").size(), 1u);
  add_bot(ada, room, 2);
  EXPECT_EQ(error_code(ada), "room/seat_taken");
  // A player seated at the table may too, though they did not make it.
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  add_bot(bob, room, std::nullopt, "hard");
  ASSERT_EQ(bob->take("bot_added").size(), 1u);
  EXPECT_EQ(bob->states[room]["status"], "playing");
  EXPECT_EQ(bob->states[room]["seats"][1]["bot"], "hard");
  // Once it started no seat is free, and bots sit only at a waiting table.
  add_bot(ada, room, std::nullopt);
  EXPECT_EQ(error_code(ada), "bot/started");
  send(eve, {{"type", "join"}, {"room", room}, {"as", "player"}});
  EXPECT_EQ(error_code(eve), "room/full");
  // A room that does not exist.
  add_bot(ada, "nope", std::nullopt);
  EXPECT_EQ(error_code(ada), "room/not_found");
  // The lobby's list shows the bots' seats with their levels.
  send(ada, {{"type", "rooms"}});
  const auto rooms = ada->last("rooms")["rooms"];
  ASSERT_EQ(rooms.size(), 1u);
  EXPECT_EQ(rooms[0]["seats"][1]["bot"], "hard");
  EXPECT_EQ(rooms[0]["seats"][2]["bot"], "normal");
  EXPECT_FALSE(rooms[0]["seats"][0].contains("bot"));
}

class BotsCapped : public Bots {
 protected:
  BotsCapped() : Bots(1) {}
};

TEST_F(BotsCapped, TheServerPlaysNoMoreBotGamesThanItsCap) {
  auto ada = client("Ada");
  const auto first = create(ada, "quantik");
  const auto second = create(ada, "quantik");
  add_bot(ada, first, 1);
  EXPECT_EQ(ada->take("bot_added").size(), 1u);
  EXPECT_EQ(lobby.bot_games(), 1u);
  add_bot(ada, second, 1);
  EXPECT_EQ(error_code(ada), "bot/limit");
  // A room with a bot already may take another: it is one bot game however many bots.
  auto four = create(ada, "on_top", {{"players", 4}});
  add_bot(ada, first, 0);
  EXPECT_EQ(ada->take("bot_added").size(), 1u);
  EXPECT_EQ(lobby.bot_games(), 1u);
  (void)four;
}

TEST(BotsOff, AServerWithoutWorkersSeatsNoBot) {
  ManualStore store;
  Lobby lobby{store, [] { return 7u; }, roomy()};
  auto ada = std::make_shared<FakeConnection>();
  lobby.handle(ada, *protocol::decode(R"({"type":"hello","name":"Ada"})"));
  lobby.handle(ada, *protocol::decode(R"({"type":"create","game":"quantik"})"));
  const std::string room = ada->last("created")["room"];
  lobby.handle(ada, *protocol::decode(json{{"type", "add_bot"}, {"room", room}}.dump()));
  EXPECT_EQ(ada->last("error")["code"], "bot/unavailable");
}

TEST_F(Bots, ABotAsksForARematchOnceAPersonHas) {
  auto ada = client("Ada");
  const auto room = create(ada, "quantik", {{"first", "0"}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  add_bot(ada, room, 1, "easy");
  play_out(ada, room);
  ASSERT_EQ(ada->states[room]["status"], "over");
  background.drain();
  EXPECT_EQ(ada->states[room]["rematch"], json::array()) << "a bot does not ask first";
  send(ada, {{"type", "rematch"}, {"room", room}});
  background.drain();
  EXPECT_EQ(ada->states[room]["round"], 2);
  EXPECT_NE(ada->states[room]["status"], "over");
}

TEST_F(Bots, ABotSitsAgainAfterARestartAndMovesOnItsTurn) {
  auto ada = client("Ada");
  const std::string token = ada->last("welcome")["token"];
  const auto room = create(ada, "kwinty");
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  add_bot(ada, room, 1, "normal");
  background.drain();
  const json& st = ada->states[room];
  ASSERT_EQ(st["status"], "playing");
  if (st["to_move"] == 1) background.drain();
  ASSERT_EQ(ada->states[room]["to_move"], 0);
  // Ada moves; the server dies before the bot's reply (its search never comes back).
  send(ada, {{"type", "move"},
             {"room", room},
             {"version", ada->versions[room]},
             {"move", ada->states[room]["legal_moves"][0]}});
  ASSERT_EQ(error_code(ada), "");
  const auto moves_before = store.rooms[room].room.rounds[0].moves.size();

  // The restart: a new lobby over the same store.
  QueuedBackground background2;
  std::uint64_t n = 99;
  Lobby lobby2{store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }, roomy()};
  lobby2.use_bots(background2, std::chrono::milliseconds(5));
  for (const auto& [id, p] : store.players) lobby2.restore_player(p);
  std::string why;
  ASSERT_TRUE(lobby2.restore_room(store.rooms[room].room, why)) << why;
  background2.drain();
  EXPECT_EQ(store.rooms[room].room.rounds[0].moves.size(), moves_before + 1)
      << "the bot moved again after the restart";
  EXPECT_EQ(store.rooms[room].room.rounds[0].moves.back().first, 1);
  auto ada2 = std::make_shared<FakeConnection>();
  lobby2.handle(
      ada2, *protocol::decode(json{{"type", "hello"}, {"name", "Ada"}, {"token", token}}.dump()));
  const json back = ada2->states[room];
  EXPECT_EQ(back["you"], 0);
  EXPECT_EQ(back["to_move"], 0);
  EXPECT_EQ(back["seats"][1]["bot"], "normal");
  EXPECT_EQ(back["seats"][1]["name"], "Normal bot");
  EXPECT_EQ(back["seats"][1]["connected"], true);
  EXPECT_EQ(lobby2.bot_games(), 1u);
}

TEST_F(Bots, ARoomWithOnlyBotsLeftInItLeavesMemoryAsAnyOther) {
  auto ada = client("Ada");
  const auto room = create(ada, "quantik", {{"first", "1"}});
  add_bot(ada, room, 0, "easy");
  add_bot(ada, room, 1, "easy");
  background.drain();
  // Nobody is there: the bots played it out.
  EXPECT_EQ(store.rooms[room].finished, 1);
  // And the finished room, with nobody in it, goes when idle like any other.
  lobby.tick(60 * 60'000);
  lobby.tick(2 * 60 * 60'000);
  EXPECT_EQ(lobby.room_count(), 0u);
}

}  // namespace
}  // namespace plateau::server::testing
