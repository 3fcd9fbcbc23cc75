// Bots at the table (server/rooms/bot_seat.hpp), driven through the lobby with fake clients, a
// store that completes at once, and a worker pool that runs its jobs when the test says: who
// may seat a bot and where, the bot's moves going through the same room as a person's, its
// seat shown with its level, a rematch, the bot sitting again after a restart; and the easy bot
// that plays on for a player who leaves a game of three (Leaving).
#include <gtest/gtest.h>

#include "fakes.hpp"
#include "server/store/history.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;

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

// With bot games off (--max-bot-games 0) nobody seats a bot, and welcome says so; but a player
// who leaves a game of three is still played for, so the others play on.
TEST(BotsOff, WithBotGamesOffAnEasyBotStillPlaysOnForWhoLeaves) {
  ManualStore store;
  QueuedBackground background;
  std::uint64_t n = 3;
  Lobby lobby{store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }, roomy()};
  lobby.use_bots(background, std::chrono::milliseconds(5), false);
  std::vector<std::shared_ptr<FakeConnection>> people;
  for (const char* name : {"Ada", "Bob", "Cid"}) {
    people.push_back(std::make_shared<FakeConnection>());
    lobby.handle(people.back(), *protocol::decode(json{{"type", "hello"}, {"name", name}}.dump()));
    EXPECT_EQ(people.back()->last("welcome")["bots"], false);
  }
  const auto& ada = people[0];
  lobby.handle(ada,
               *protocol::decode(R"({"type":"create","game":"quirky","options":{"players":3},)"
                                 R"("clock":{"kind":"live","base_ms":60000,"increment_ms":0}})"));
  const std::string room = ada->last("created")["room"];
  lobby.handle(ada, *protocol::decode(json{{"type", "add_bot"}, {"room", room}}.dump()));
  EXPECT_EQ(ada->last("error")["code"], "bot/unavailable");
  for (const auto& c : people)
    lobby.handle(
        c, *protocol::decode(json{{"type", "join"}, {"room", room}, {"as", "player"}}.dump()));
  ASSERT_EQ(ada->states[room]["status"], "playing");
  const int mover = ada->states[room]["to_move"];
  lobby.handle(people[static_cast<std::size_t>(mover)],
               *protocol::decode(json{{"type", "resign"}, {"room", room}}.dump()));
  EXPECT_EQ(ada->states[room]["left"][0]["seat"], mover);
  background.drain();
  EXPECT_NE(ada->states[room]["to_move"], mover) << "its bot moved";
  EXPECT_EQ(store.rooms[room].room.rounds[0].moves.size(), 1u);
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

// A bot seated at a waiting table can be sent away by who could seat it; once the game starts
// it plays to the end.
TEST_F(Bots, ABotLeavesAWaitingTableWhenItsPlayersSaySo) {
  auto ada = client("Ada"), bob = client("Bob"), eve = client("Eve");
  const auto room = create(ada, "on_top", {{"players", 4}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  send(eve, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  add_bot(ada, room, 1, "easy");
  add_bot(ada, room, 2, "hard");
  ASSERT_EQ(eve->states[room]["status"], "waiting");
  ASSERT_EQ(eve->states[room]["seats"][2]["bot"], "hard");
  const auto remove = [&](const std::shared_ptr<FakeConnection>& c, int seat) {
    send(c, {{"type", "remove_bot"}, {"room", room}, {"seat", seat}});
    return error_code(c);
  };
  EXPECT_EQ(remove(eve, 2), "bot/not_allowed") << "a spectator who did not make the table";
  EXPECT_EQ(remove(ada, 0), "bot/not_a_bot");
  EXPECT_EQ(remove(ada, 3), "bot/not_a_bot") << "a free seat";
  EXPECT_EQ(remove(ada, 7), "room/no_such_seat");
  EXPECT_EQ(remove(ada, 2), "");
  const json seat = eve->states[room]["seats"][2];
  EXPECT_EQ(seat["name"], nullptr) << "the seat is free again";
  EXPECT_FALSE(seat.contains("bot"));
  EXPECT_EQ(store.rooms[room].room.seats.at(2), std::nullopt) << "stored";
  const auto bot_rows = [&] {
    return std::ranges::count_if(store.players,
                                 [](const auto& p) { return p.first.starts_with("bot-"); });
  };
  EXPECT_EQ(bot_rows(), 1) << "the removed bot's row is gone; the easy one's stays";
  // Bots that come and go leave no rows behind.
  for (int i = 0; i < 10; ++i) {
    add_bot(ada, room, 3, "normal");
    ASSERT_EQ(remove(ada, 3), "");
  }
  EXPECT_EQ(bot_rows(), 1);
  EXPECT_EQ(eve->states[room], [&] {
    auto w = client("Wil");
    send(w, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
    return w->states[room];
  }());
  background.drain();
  EXPECT_EQ(eve->states[room]["status"], "waiting");
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 2}});
  EXPECT_EQ(remove(bob, 2), "bot/not_a_bot") << "Bob is no bot";
  add_bot(bob, room, 3, "easy");
  ASSERT_EQ(eve->states[room]["status"], "playing");
  EXPECT_EQ(remove(ada, 1), "bot/started");
  EXPECT_EQ(eve->states[room]["seats"][1]["bot"], "easy");
}

// Two bots of a level at one table are told apart by their names, which a restart keeps.
TEST_F(Bots, TwoBotsOfALevelAtATableHaveNamesOfTheirOwn) {
  auto ada = client("Ada");
  const auto room = create(ada, "on_top", {{"players", 4}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  add_bot(ada, room, 2, "easy");
  add_bot(ada, room, 1, "easy");
  add_bot(ada, room, 3, "hard");
  const json seats = ada->states[room]["seats"];
  EXPECT_EQ(seats[2]["name"], "Easy bot");
  EXPECT_EQ(seats[1]["name"], "Easy bot 2");
  EXPECT_EQ(seats[3]["name"], "Hard bot");
  EXPECT_EQ(seats[1]["bot"], "easy");

  Lobby lobby2{store, [] { return 5ULL; }, roomy()};
  for (const auto& [id, p] : store.players) lobby2.restore_player(p);
  std::string why;
  ASSERT_TRUE(lobby2.restore_room(store.rooms[room].room, why)) << why;
  auto wil = std::make_shared<FakeConnection>();
  lobby2.handle(wil, *protocol::decode(R"({"type":"hello","name":"Wil"})"));
  lobby2.handle(
      wil, *protocol::decode(json{{"type", "join"}, {"room", room}, {"as", "spectator"}}.dump()));
  for (const int s : {1, 2, 3})
    EXPECT_EQ(wil->states[room]["seats"][s]["name"], seats[s]["name"]) << "seat " << s;
}

// A game's record says which seats bots played, and its replay shows them; a record whose bots
// are not one per player, or not a level, is refused.
TEST_F(Bots, ARecordNamesItsBotsAndTheReplayShowsThem) {
  GameRecord r{"r1", 1, "quantik", json::object(), 7, {"Ada", "Easy bot"}, {}, nullptr, 0, ""};
  r.bots = {"", "easy"};
  const json j = record_to_json(r);
  EXPECT_EQ(j["bots"], json({nullptr, "easy"}));
  const auto back = record_from_json(j);
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->bots, r.bots);
  const auto frames = replay_frames(*back);
  ASSERT_TRUE(frames.has_value()) << frames.error();
  EXPECT_EQ((*frames)[0]["seats"][1]["bot"], "easy");
  EXPECT_FALSE((*frames)[0]["seats"][0].contains("bot"));
  r.bots.clear();
  EXPECT_FALSE(record_to_json(r).contains("bots")) << "a game of people names none";
  for (const json& bad :
       {json({"easy"}), json({nullptr, "genius"}), json({nullptr, 3}), json("x")}) {
    json k = j;
    k["bots"] = bad;
    EXPECT_FALSE(record_from_json(k).has_value()) << bad;
  }
}

// A bot never holds up its opponent's takeback: it agrees at once, and plays again from there.
TEST_F(Bots, ABotAgreesToATakeback) {
  auto ada = client("Ada");
  const auto room = create(ada, "quantik", {{"first", "0"}});
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 0}});
  add_bot(ada, room, 1, "easy");
  background.drain();
  const json start = ada->states[room];
  send(ada, {{"type", "move"},
             {"room", room},
             {"version", ada->versions[room]},
             {"move", start["legal_moves"][0]}});
  ASSERT_EQ(error_code(ada), "");
  background.drain();
  ASSERT_EQ(store.rooms[room].room.rounds[0].moves.size(), 2u) << "the bot replied";
  send(ada, {{"type", "takeback"}, {"room", room}, {"action", "offer"}});
  ASSERT_EQ(error_code(ada), "");
  background.drain();
  EXPECT_EQ(ada->states[room]["offer"], nullptr);
  EXPECT_EQ(ada->states[room]["board"], start["board"]) << "back to before her move";
  EXPECT_EQ(ada->states[room]["to_move"], 0);
  EXPECT_TRUE(store.rooms[room].room.rounds[0].moves.empty());
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

// ---------- a game of three goes on when a player leaves: an easy bot plays their seat ----------

class Leaving : public Bots {
 protected:
  Leaving() {
    lobby.use_clock([this] { return now; });
  }
  Millis now = 1'000'000;
  struct Three {
    std::shared_ptr<FakeConnection> ada, bob, cid, eve;
    std::string room;
    std::vector<std::shared_ptr<FakeConnection>> players() const { return {ada, bob, cid}; }
  };
  // Ada, Bob and Cid at a Quirky table of three (with time control `clock`), Eve watching.
  Three three(const json& clock = nullptr) {
    Three t{client("Ada"), client("Bob"), client("Cid"), client("Eve"), ""};
    json msg{{"type", "create"}, {"game", "quirky"}, {"options", {{"players", 3}}}};
    if (!clock.is_null()) msg["clock"] = clock;
    send(t.ada, msg);
    const auto created = t.ada->take("created");
    EXPECT_EQ(created.size(), 1u);
    if (created.empty()) return t;
    t.room = created[0]["room"];
    int seat = 0;
    for (const auto& c : t.players())
      send(c, {{"type", "join"}, {"room", t.room}, {"as", "player"}, {"seat", seat++}});
    send(t.eve, {{"type", "join"}, {"room", t.room}, {"as", "spectator"}});
    EXPECT_EQ(t.eve->states[t.room]["status"], "playing");
    return t;
  }
  // The person of `t` to move plays their first legal move; false when none is to move.
  bool step(const Three& t, const std::vector<std::shared_ptr<FakeConnection>>& people) {
    for (const auto& c : people) {
      const json& st = c->states[t.room];
      if (st["status"] != "playing" || st["to_move"] != st["you"] || st["legal_moves"].empty())
        continue;
      send(c, {{"type", "move"},
               {"room", t.room},
               {"version", c->versions[t.room]},
               {"move", st["legal_moves"][0]}});
      EXPECT_EQ(error_code(c), "");
      return true;
    }
    return false;
  }
  int to_move(const Three& t) { return t.eve->states[t.room]["to_move"].get<int>(); }
  const RoundRecord& stored_round(const Three& t) { return store.rooms[t.room].room.rounds.back(); }
  // The state a newcomer watching the room is sent whole.
  json watched_whole(const Three& t) {
    auto w = client("Wil");
    send(w, {{"type", "join"}, {"room", t.room}, {"as", "spectator"}});
    return w->states[t.room];
  }
};

TEST_F(Leaving, APlayerWhoResignsAGameOfThreeLeavesItAndAnEasyBotPlaysTheirSeatToTheEnd) {
  auto t = three();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(step(t, t.players()));
  const auto before = stored_round(t).moves.size();
  EXPECT_EQ(t.eve->states[t.room]["left"], json::array()) << "nobody has left";
  send(t.cid, {{"type", "resign"}, {"room", t.room}});
  ASSERT_EQ(error_code(t.cid), "");
  const json left = t.eve->states[t.room]["left"];
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["seat"], 2);
  EXPECT_EQ(left[0]["end"], "resigned");
  EXPECT_EQ(left[0]["at"], before);
  EXPECT_EQ(left[0]["reason"], "Cid resigned");
  EXPECT_TRUE(left[0]["score"].is_number_integer()) << left;
  for (const auto& c : {t.ada, t.bob, t.cid, t.eve}) {
    EXPECT_EQ(c->states[t.room]["status"], "playing") << "the others play on";
    EXPECT_EQ(c->states[t.room]["left"], left);
  }
  EXPECT_EQ(stored_round(t).departed, left) << "stored before it was shown";
  EXPECT_EQ(t.eve->states[t.room], watched_whole(t));
  send(t.cid, {{"type", "resign"}, {"room", t.room}});
  EXPECT_EQ(error_code(t.cid), "round/left");

  // The game goes on to its end: Cid's seat moves by itself, and never by Cid.
  bool refused = false;
  for (int i = 0; i < 400 && t.eve->states[t.room]["status"] == "playing"; ++i) {
    if (to_move(t) == 2 && !refused) {
      EXPECT_TRUE(t.cid->states[t.room]["legal_moves"].empty()) << "no moves for who left";
      send(t.cid, {{"type", "move"},
                   {"room", t.room},
                   {"version", t.cid->versions[t.room]},
                   {"move", "pass"}});
      EXPECT_EQ(error_code(t.cid), "round/left");
      refused = true;
    }
    background.drain();
    if (t.eve->states[t.room]["status"] != "playing") break;
    if (to_move(t) != 2) {
      ASSERT_TRUE(step(t, {t.ada, t.bob}));
    }
  }
  ASSERT_EQ(t.eve->states[t.room]["status"], "over");
  EXPECT_TRUE(refused) << "Cid's seat came to move";
  const auto& moves = stored_round(t).moves;
  EXPECT_TRUE(std::any_of(moves.begin() + static_cast<std::ptrdiff_t>(before), moves.end(),
                          [](const auto& m) { return m.first == 2; }))
      << "the bot moved for Cid";
  const json outcome = t.eve->states[t.room]["outcome"];
  EXPECT_EQ(outcome["left"], left);
  EXPECT_EQ(outcome["scores"][2], left[0]["score"]) << "Cid keeps the score he left with";
  EXPECT_FALSE(outcome["winners"].empty());
  for (const auto& w : outcome["winners"]) EXPECT_NE(w, 2) << "who left never wins";
  const std::string reason = outcome["reason"];
  EXPECT_TRUE(reason.ends_with("; Cid resigned")) << reason;
  EXPECT_EQ(stored_round(t).outcome, outcome);
  EXPECT_EQ(t.eve->states[t.room], watched_whole(t));

  // Its replay agrees with the rules and the stored result, and shows Cid gone from his step.
  const auto& r = stored_round(t);
  GameRecord record{t.room, 1,         "quirky", r.options, r.seed, {"Ada", "Bob", "Cid"},
                    {},     r.outcome, 0,        r.salt};
  for (const auto& [seat, move] : r.moves) record.moves.push_back({seat, move, 0});
  const auto frames = replay_frames(record);
  ASSERT_TRUE(frames.has_value()) << frames.error();
  EXPECT_EQ(frames->back()["outcome"], outcome);
  EXPECT_EQ((*frames)[before - 1]["left"], json::array());
  EXPECT_EQ((*frames)[before]["left"], left);
  record.result["left"] = json::array();
  EXPECT_FALSE(replay_frames(record).has_value()) << "a result that hides who left is refused";

  // The next round is everyone's own again.
  for (const auto& c : t.players()) send(c, {{"type", "rematch"}, {"room", t.room}});
  EXPECT_EQ(t.cid->states[t.room]["round"], 2);
  EXPECT_EQ(t.cid->states[t.room]["left"], json::array());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(step(t, t.players())) << "Cid plays his own turn";
  EXPECT_EQ(stored_round(t).departed, nullptr);
}

// A player gone too long is dropped by another's claim; when all but one have left, the last
// one wins at once.
TEST_F(Leaving, AGonePlayerIsDroppedAndTheLastOneLeftWins) {
  auto t = three();
  lobby.closed(t.bob.get());
  while (to_move(t) != 1) ASSERT_TRUE(step(t, {t.ada, t.cid}));
  const json gone = t.eve->states[t.room]["gone"];
  ASSERT_TRUE(gone.is_object()) << t.eve->states[t.room];
  EXPECT_EQ(gone["seat"], 1);
  send(t.cid, {{"type", "claim"}, {"room", t.room}});
  EXPECT_EQ(error_code(t.cid), "claim/not_gone");
  now = gone["claim_at"].get<Millis>();
  send(t.cid, {{"type", "claim"}, {"room", t.room}});
  ASSERT_EQ(error_code(t.cid), "");
  EXPECT_EQ(t.eve->states[t.room]["status"], "playing");
  EXPECT_EQ(t.eve->states[t.room]["left"][0]["end"], "abandoned");
  EXPECT_EQ(t.eve->states[t.room]["left"][0]["reason"], "Bob left the game");
  EXPECT_EQ(t.eve->states[t.room]["gone"], nullptr) << "his bot plays";
  background.drain();
  EXPECT_NE(to_move(t), 1) << "the bot moved for Bob";

  send(t.ada, {{"type", "resign"}, {"room", t.room}});
  ASSERT_EQ(error_code(t.ada), "");
  for (const auto& c : {t.ada, t.cid, t.eve}) {
    const json& st = c->states[t.room];
    EXPECT_EQ(st["status"], "over");
    EXPECT_EQ(st["outcome"]["winners"], json({2}));
    EXPECT_EQ(st["outcome"]["end"], "resigned");
    EXPECT_EQ(st["outcome"]["seat"], 0);
    EXPECT_EQ(st["outcome"]["reason"], "Bob left the game; Ada resigned: nobody else is left");
    EXPECT_EQ(st["outcome"]["left"].size(), 2u);
  }
  EXPECT_EQ(stored_round(t).outcome, t.eve->states[t.room]["outcome"]);
  EXPECT_EQ(stored_round(t).departed, t.eve->states[t.room]["left"]);
  EXPECT_EQ(t.eve->states[t.room], watched_whole(t));
  background.drain();
  EXPECT_EQ(t.eve->states[t.room]["status"], "over") << "no bot moves once it is over";
}

// A clock in a game of three: whose time runs out leaves, and no clock runs while their bot
// plays; then the next player's runs.
TEST_F(Leaving, WhoseTimeRunsOutInAGameOfThreeLeavesAndTheOthersClocksGoOn) {
  auto t = three({{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 0}});
  const int first = to_move(t);
  EXPECT_EQ(t.eve->states[t.room]["clock"]["running"], first);
  now += 60'000;
  ASSERT_EQ(lobby.next_deadline(), now);
  lobby.expire(now);
  const json st = t.eve->states[t.room];
  EXPECT_EQ(st["status"], "playing");
  ASSERT_EQ(st["left"].size(), 1u);
  EXPECT_EQ(st["left"][0]["seat"], first);
  EXPECT_EQ(st["left"][0]["end"], "flagged");
  EXPECT_EQ(st["clock"]["running"], nullptr) << "no clock runs for a bot";
  EXPECT_EQ(st["clock"]["left_ms"][static_cast<std::size_t>(first)], 0);
  EXPECT_EQ(lobby.next_deadline(), std::nullopt);
  now += 5'000;
  background.drain();
  const int next = to_move(t);
  EXPECT_NE(next, first) << "the bot moved";
  EXPECT_EQ(t.eve->states[t.room]["clock"]["running"], next);
  EXPECT_EQ(t.eve->states[t.room]["clock"]["since"], now);
  EXPECT_EQ(t.eve->states[t.room]["clock"]["left_ms"][static_cast<std::size_t>(next)], 60'000)
      << "the next player is charged nothing for the bot's move";
  EXPECT_EQ(lobby.next_deadline(), now + 60'000);
  EXPECT_EQ(stored_round(t).moves.size(), 1u);
  EXPECT_EQ(t.eve->states[t.room], watched_whole(t));
}

// Who left stays left across a restart, and their bot sits again.
TEST_F(Leaving, AfterARestartWhoLeftHasLeftAndTheirBotPlaysOn) {
  auto t = three();
  while (to_move(t) == 2) ASSERT_TRUE(step(t, t.players()));
  send(t.cid, {{"type", "resign"}, {"room", t.room}});
  ASSERT_EQ(error_code(t.cid), "");
  const json left = t.eve->states[t.room]["left"];
  const std::string token = t.cid->last("welcome")["token"];
  // Play on until it is Cid's seat's turn, then the server dies before its bot moves.
  while (to_move(t) != 2) ASSERT_TRUE(step(t, {t.ada, t.bob}));
  const auto moves = stored_round(t).moves.size();

  QueuedBackground background2;
  std::uint64_t n = 77;
  Lobby lobby2{store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }, roomy()};
  lobby2.use_bots(background2, std::chrono::milliseconds(5));
  for (const auto& [id, p] : store.players) lobby2.restore_player(p);
  std::string why;
  ASSERT_TRUE(lobby2.restore_room(store.rooms[t.room].room, why)) << why;
  background2.drain();
  EXPECT_EQ(stored_round(t).moves.size(), moves + 1) << "Cid's bot moved after the restart";
  EXPECT_EQ(stored_round(t).moves.back().first, 2);
  auto cid2 = std::make_shared<FakeConnection>();
  lobby2.handle(
      cid2, *protocol::decode(json{{"type", "hello"}, {"name", "Cid"}, {"token", token}}.dump()));
  EXPECT_EQ(cid2->states[t.room]["you"], 2);
  EXPECT_EQ(cid2->states[t.room]["left"], left);
  EXPECT_EQ(cid2->states[t.room]["seats"][2]["name"], "Cid");
}

}  // namespace
}  // namespace plateau::server::testing
