// Rooms and the lobby, driven with fake clients and a hand-released store (DESIGN.md §5, ring 4).
#include <gtest/gtest.h>

#include "server/tournaments/tournaments.hpp"

#include "fakes.hpp"

namespace plateau::server::testing {
namespace {

using nlohmann::json;

// Limits no test of a table reaches (every fake client comes from one address); the tests of
// the limits themselves set theirs.
LobbyLimits roomy() {
  return LobbyLimits{.keep = {},
                     .max_rooms_per_player = 1'000'000,
                     .creates_per_minute = 1'000'000,
                     .new_players_per_minute = 1'000'000};
}

class Table : public ::testing::Test {
 protected:
  explicit Table(LobbyLimits limits = roomy())
      : lobby{store, [this] { return counter++ * 0x9e3779b97f4a7c15ULL; }, limits} {}
  ManualStore store;
  std::uint64_t counter = 1;
  Lobby lobby;

  std::shared_ptr<FakeConnection> client(const std::string& name,
                                         std::optional<std::string> token = {}) {
    auto c = std::make_shared<FakeConnection>();
    send(c,
         json{{"type", "hello"}, {"name", name}, {"token", token ? json(*token) : json(nullptr)}});
    return c;
  }
  void send(const std::shared_ptr<FakeConnection>& c, const json& msg) {
    auto req = protocol::decode(msg.dump());
    if (!req)
      lobby.refuse(c, req.error());
    else
      lobby.handle(c, std::move(*req));
  }
  std::string create(const std::shared_ptr<FakeConnection>& c, json options = json::object(),
                     int spectator_delay = 0) {
    send(c, {{"type", "create"},
             {"game", "quantik"},
             {"options", options},
             {"spectator_delay", spectator_delay}});
    const auto created = c->take("created");
    EXPECT_EQ(created.size(), 1u);
    return created.empty() ? "" : created[0]["room"].get<std::string>();
  }
  void join(const std::shared_ptr<FakeConnection>& c, const std::string& room,
            const char* as = "player", std::optional<int> seat = {}) {
    json msg{{"type", "join"}, {"room", room}, {"as", as}};
    if (seat) msg["seat"] = *seat;
    send(c, msg);
  }
  void move(const std::shared_ptr<FakeConnection>& c, const std::string& room, const std::string& m,
            std::optional<std::int64_t> version = {}) {
    send(c, {{"type", "move"},
             {"room", room},
             {"version", version ? *version : c->versions[room]},
             {"move", m}});
  }
  // Each of `players` registers for the event `id`, and is told so.
  void register_for(const std::string& id,
                    std::initializer_list<std::shared_ptr<FakeConnection>> players) {
    for (const auto& c : players) {
      send(c, {{"type", "tournament"}, {"action", "register"}, {"tournament", id}, {"id", 1}});
      EXPECT_EQ(c->take("tournament").size(), 1u);
    }
  }
  std::string error_code(const std::shared_ptr<FakeConnection>& c) {
    const auto errors = c->take("error");
    return errors.empty() ? "" : errors.back()["code"].get<std::string>();
  }
  // Ada and Bob seated at a quantik table Ada starts, Eve watching (`spectator_delay` moves late).
  struct Seated {
    std::shared_ptr<FakeConnection> ada, bob, eve;
    std::string room;
  };
  // A quantik table with time control `clock` that Ada creates (and starts), Ada and Bob seated.
  std::string clocked_table(const std::shared_ptr<FakeConnection>& ada,
                            const std::shared_ptr<FakeConnection>& bob, const json& clock) {
    send(
        ada,
        {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}, {"clock", clock}});
    const auto created = ada->take("created");
    EXPECT_EQ(created.size(), 1u);
    const std::string room = created.empty() ? "" : created[0]["room"].get<std::string>();
    join(ada, room);
    join(bob, room);
    return room;
  }
  Seated seated_table(int spectator_delay = 0) {
    Seated t{client("Ada"), client("Bob"), client("Eve"), ""};
    t.room = create(t.ada, {{"first", "0"}}, spectator_delay);
    join(t.ada, t.room);
    join(t.bob, t.room);
    join(t.eve, t.room, "spectator");
    return t;
  }
  // Four moves that end a game Ada started: Bob wins.
  static constexpr std::array<const char*, 4> kEnding{"sphere@a1", "cylinder@b1", "cube@c1",
                                                      "cone@d1"};
  void play_to_the_end(const std::shared_ptr<FakeConnection>& ada,
                       const std::shared_ptr<FakeConnection>& bob, const std::string& room) {
    for (const char* m : kEnding) move(ada->states[room]["to_move"] == 0 ? ada : bob, room, m);
  }
  // A fresh sync's state, to compare with a client's patched copy.
  // A fresh full state of `room` for `c`. It replaces the client's patched copy as it arrives, so
  // a caller comparing the two must take its copy first.
  json synced(const std::shared_ptr<FakeConnection>& c, const std::string& room) {
    send(c, {{"type", "sync"}, {"room", room}, {"id", "s"}});
    const auto fulls = c->take("full");
    EXPECT_FALSE(fulls.empty());
    EXPECT_EQ(fulls.back()["id"], "s") << "the sync's id is echoed on its full";
    return fulls.empty() ? json() : fulls.back()["state"];
  }
};

TEST_F(Table, TwoPlayersAndASpectatorPlayToTheEndWithExactCopies) {
  auto ada = client("Ada"), bob = client("Bob"), eve = client("Eve");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  EXPECT_EQ(ada->take("joined")[0]["seat"], 0);
  EXPECT_EQ(ada->states[room]["status"], "waiting");
  join(eve, room, "spectator");
  EXPECT_EQ(eve->take("joined")[0]["seat"], nullptr);
  join(bob, room);
  EXPECT_EQ(bob->take("joined")[0]["seat"], 1);
  for (auto& c : {ada, bob, eve}) {
    EXPECT_EQ(c->states[room]["status"], "playing") << "the game starts when the seats are full";
    EXPECT_EQ(c->states[room]["seats"][1]["name"], "Bob");
  }
  EXPECT_EQ(ada->states[room]["legal_moves"].size(), 64u);
  EXPECT_TRUE(bob->states[room]["legal_moves"].empty());
  rules::Rng pick(4);
  int moves = 0;
  while (ada->states[room]["status"] == "playing") {
    const int mover = ada->states[room]["to_move"];
    auto& c = mover == 0 ? ada : bob;
    const auto legal = c->states[room]["legal_moves"];
    ASSERT_FALSE(legal.empty());
    move(c, room, legal[pick.below(legal.size())]);
    ++moves;
    for (auto& viewer : {ada, bob, eve}) {
      ASSERT_EQ(viewer->versions[room], ada->versions[room]) << "everyone is at the same version";
      const json copy = viewer->states[room];  // a copy: the sync replaces the client's
      ASSERT_EQ(copy, synced(viewer, room)) << "patched copy == fresh sync";
    }
    ASSERT_TRUE(error_code(c).empty());
  }
  EXPECT_EQ(ada->states[room]["status"], "over");
  EXPECT_FALSE(eve->states[room]["outcome"]["reason"].get<std::string>().empty());
  EXPECT_EQ(eve->states[room]["board"], ada->states[room]["board"]);
  EXPECT_EQ(static_cast<int>(store.moves.size()), moves) << "every accepted move was written";
  for (auto& c : {ada, bob, eve})
    EXPECT_TRUE(c->patches_before_full.empty()) << "a joiner gets its full first";
}

TEST_F(Table, RefusedMovesGetStableCodesAndChangeNothing) {
  auto ada = client("Ada"), bob = client("Bob"), eve = client("Eve");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  move(ada, room, "cube@a1");
  EXPECT_EQ(error_code(ada), "move/not_started");
  join(bob, room);
  join(eve, room, "spectator");
  const auto version = ada->versions[room];
  const auto bob_frames = bob->received.size(), eve_frames = eve->received.size();
  move(bob, room, "cube@a1");
  EXPECT_EQ(error_code(bob), "move/not_your_turn");
  move(eve, room, "cube@a1");
  EXPECT_EQ(error_code(eve), "move/not_a_player");
  move(ada, room, "cube@e9");
  EXPECT_EQ(error_code(ada), "move/illegal");
  move(ada, room, "cube@a1", version - 1);
  EXPECT_EQ(error_code(ada), "move/stale_version");
  move(ada, room, "cube@a1", version + 1);
  EXPECT_EQ(error_code(ada), "move/stale_version");
  send(ada, {{"type", "move"}, {"room", "nope"}, {"version", 1}, {"move", "cube@a1"}, {"id", 7}});
  const auto errors = ada->take("error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["code"], "room/not_found");
  EXPECT_EQ(errors[0]["id"], 7) << "the id is echoed on errors";
  EXPECT_EQ(ada->versions[room], version);
  EXPECT_EQ(bob->received.size(), bob_frames) << "nobody else noticed";
  EXPECT_EQ(eve->received.size(), eve_frames);
  EXPECT_TRUE(store.moves.empty());
  move(ada, room, "cube@a1");
  EXPECT_EQ(ada->versions[room], version + 1);
  EXPECT_EQ(lobby.counters().moves_accepted, 1u);
  EXPECT_EQ(lobby.counters().refused.at("move/stale_version"), 2u);
}

TEST_F(Table, SeatsAreGivenExactlyOrRefused) {
  auto ada = client("Ada"), bob = client("Bob"), cy = client("Cy");
  const auto room = create(ada);
  join(bob, room, "player", 1);
  EXPECT_EQ(bob->take("joined")[0]["seat"], 1);
  join(cy, room, "player", 1);
  EXPECT_EQ(error_code(cy), "room/seat_taken");
  join(cy, room, "player", 2);
  EXPECT_EQ(error_code(cy), "room/no_such_seat");
  join(ada, room);
  EXPECT_EQ(ada->take("joined")[0]["seat"], 0) << "without a seat: the first free one";
  join(cy, room);
  EXPECT_EQ(error_code(cy), "room/full");
  send(cy, {{"type", "create"}, {"game", "chess"}});
  EXPECT_EQ(error_code(cy), "room/unknown_game");
  send(cy, {{"type", "create"}, {"game", "quantik"}, {"options", {{"players", 5}}}});
  EXPECT_EQ(error_code(cy), "room/bad_option");
  auto stranger = std::make_shared<FakeConnection>();
  send(stranger, {{"type", "rooms"}});
  EXPECT_EQ(error_code(stranger), "proto/no_hello");
}

TEST_F(Table, NothingIsBroadcastBeforeItIsDurable) {
  const auto [ada, bob, eve, room] = seated_table();
  store.automatic = false;
  const auto v = ada->versions[room];
  move(ada, room, "cone@b2");
  EXPECT_EQ(ada->versions[room], v) << "no patch before the write is done";
  EXPECT_EQ(eve->versions[room], v);
  // A seat dropping meanwhile is queued behind the move, in version order.
  lobby.closed(bob.get());
  EXPECT_EQ(eve->versions[room], v);
  store.release_all();
  EXPECT_EQ(eve->versions[room], v + 2);
  EXPECT_EQ(eve->states[room]["board"]["last"], "cone@b2");
  EXPECT_EQ(eve->states[room]["seats"][1]["connected"], false);
}

TEST_F(Table, AMoveIsTimedFromItsArrivalToItsBroadcastAndOnlyOnceItIsOut) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  join(bob, room);
  EXPECT_EQ(lobby.move_latency().count(), 0u) << "joins are not moves";
  store.automatic = false;
  move(ada, room, "cone@b2");
  move(bob, room, "cone@b2", ada->versions[room]);  // stale: refused, never timed
  EXPECT_EQ(lobby.move_latency().count(), 0u) << "not broadcast yet: the write is in flight";
  store.release_all();
  EXPECT_EQ(lobby.move_latency().count(), 1u);
  EXPECT_EQ(error_code(bob), "move/stale_version");
  store.automatic = true;
  move(bob, room, "cube@c3");
  EXPECT_TRUE(error_code(bob).empty());
  EXPECT_EQ(lobby.move_latency().count(), 2u);
  move(bob, room, "cube@d4");
  EXPECT_EQ(error_code(bob), "move/not_your_turn");
  EXPECT_EQ(lobby.move_latency().count(), 2u) << "a refused move is not a broadcast";
}

TEST_F(Table, AFailedWriteTakesTheRoomOutOfServiceWithoutAnnouncingTheMove) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  join(bob, room);
  store.automatic = false;
  const auto v = bob->versions[room];
  move(ada, room, "cone@b2");
  store.release_all(false);
  EXPECT_EQ(bob->versions[room], v);
  EXPECT_EQ(error_code(bob), "store/unavailable");
  EXPECT_EQ(error_code(ada), "store/unavailable") << "the mover learns that the move was not made";
  EXPECT_EQ(ada->versions[room], v);
  store.automatic = true;
  move(ada, room, "cone@c2");
  EXPECT_EQ(error_code(ada), "store/unavailable");
}

TEST_F(Table, ADroppedPlayerComesBackWithTheirTokenAndNobodyElseCanTakeTheSeat) {
  auto ada = client("Ada"), bob = client("Bob");
  const std::string bob_token = bob->take("welcome")[0]["token"];
  const auto room = create(ada, {{"first", "1"}});
  join(ada, room);
  join(bob, room);
  lobby.closed(bob.get());
  EXPECT_EQ(ada->states[room]["seats"][1]["connected"], false);
  auto thief = client("Mallory", "not-the-token");
  join(thief, room, "player", 1);
  EXPECT_EQ(error_code(thief), "room/seat_taken");
  auto back = client("Bob", bob_token);
  EXPECT_EQ(back->take("welcome")[0]["player"], bob->player()->id) << "same player again";
  EXPECT_EQ(back->take("joined")[0]["seat"], 1) << "rebound to the seat by hello alone";
  EXPECT_EQ(ada->states[room]["seats"][1]["connected"], true);
  EXPECT_EQ(back->states[room]["legal_moves"].size(), 64u);
  move(back, room, "sphere@a1");
  EXPECT_EQ(error_code(back), "");
  EXPECT_EQ(ada->states[room]["board"]["last"], "sphere@a1");
}

TEST_F(Table, SpectatorsAreCountedOutsideTheVersionedState) {
  auto ada = client("Ada"), e1 = client("E1"), e2 = client("E2");
  const auto room = create(ada);
  join(ada, room);
  const auto v = ada->versions[room];
  join(e1, room, "spectator");
  join(e2, room, "spectator");
  lobby.tick(1000);  // the others learn the count at the next tick
  EXPECT_EQ(ada->last("crowd")["spectators"], 2);
  EXPECT_EQ(ada->versions[room], v) << "watchers cost the players no version";
  send(e1, {{"type", "leave"}, {"room", room}, {"id", 3}});
  EXPECT_EQ(e1->take("left")[0]["id"], 3);
  lobby.tick(2000);
  EXPECT_EQ(ada->last("crowd")["spectators"], 1);
  send(ada, {{"type", "rooms"}});
  const auto list = ada->take("rooms")[0]["rooms"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["spectators"], 1);
  EXPECT_EQ(list[0]["game"], "quantik");
  EXPECT_EQ(list[0]["status"], "waiting");
}

// The lobby's tournaments, kept nowhere; and a Swiss of one round of Quantik.
Tournaments& lobby_tournaments(Lobby& lobby, NullTournamentStore& none) {
  return lobby.make_tournaments(none, [](const std::string&) { return std::nullopt; });
}
TournamentSpec one_round_cup() {
  TournamentSpec spec;
  spec.name = "Cup";
  spec.game = "quantik";
  spec.format = tournaments::Format::swiss;
  spec.rounds = 1;
  return spec;
}

TEST_F(Table, ATournamentTableSeatsItsOwnPlayersOnlyAndPlaysOneGame) {
  NullTournamentStore none;
  Tournaments& events = lobby_tournaments(lobby, none);
  TournamentSpec spec = one_round_cup();
  const auto id = events.create(spec, 0);
  ASSERT_TRUE(id);
  auto ada = client("Ada"), bob = client("Bob"), eve = client("Eve");
  for (const auto& c : {ada, bob}) {
    send(c, {{"type", "tournament"}, {"action", "register"}, {"tournament", *id}, {"id", 7}});
    const auto answer = c->take("tournament");
    ASSERT_EQ(answer.size(), 1u);
    EXPECT_EQ(answer[0]["registered"], true);
    EXPECT_EQ(answer[0]["id"], 7);
  }
  send(eve, {{"type", "tournament"}, {"action", "register"}, {"tournament", "nope"}});
  EXPECT_EQ(error_code(eve), "tournament/not_found");
  send(eve, {{"type", "tournament"}, {"action", "dance"}, {"tournament", *id}});
  EXPECT_EQ(error_code(eve), "proto/bad_field");
  spec.accounts_only = true;
  const auto members = events.create(spec, 0);
  ASSERT_TRUE(members);
  send(eve, {{"type", "tournament"}, {"action", "register"}, {"tournament", *members}});
  EXPECT_EQ(error_code(eve), "tournament/accounts_only") << "Eve is a guest";
  ASSERT_EQ(events.start(*id, 0), std::nullopt);
  const auto told = ada->take("tournament_table");
  ASSERT_EQ(told.size(), 1u);
  const std::string room = told[0]["room"];
  EXPECT_EQ(bob->take("tournament_table").size(), 1u);
  send(eve, {{"type", "tournament"}, {"action", "register"}, {"tournament", *id}});
  EXPECT_EQ(error_code(eve), "tournament/closed");
  // Nobody else sits; each player sits at their own seat only; no bot.
  join(eve, room);
  EXPECT_EQ(error_code(eve), "seat/reserved");
  const auto seats = events.reserved(room);
  ASSERT_EQ(seats.size(), 2u);
  const auto& first = seats[0] == ada->player()->id ? ada : bob;
  const auto& second = first == ada ? bob : ada;
  join(second, room, "player", 0);
  EXPECT_EQ(error_code(second), "seat/reserved");
  join(second, room);
  EXPECT_EQ(error_code(second), "");
  EXPECT_EQ(second->states[room]["you"], 1);
  send(first, {{"type", "add_bot"}, {"room", room}, {"level", "easy"}});
  EXPECT_NE(error_code(first), "");
  join(first, room);
  EXPECT_EQ(first->states[room]["status"], "playing");
  join(eve, room, "spectator");
  EXPECT_EQ(error_code(eve), "") << "anyone may watch";
  play_to_the_end(first, second, room);
  EXPECT_EQ(first->states[room]["status"], "over");
  send(first, {{"type", "rematch"}, {"room", room}});
  EXPECT_EQ(error_code(first), "seat/reserved") << "one game per table";
  // The game's end counted: the event (one round) is over, and the winner leads it.
  const auto detail = events.detail(*id);
  EXPECT_EQ((*detail)["status"], "finished");
  EXPECT_EQ((*detail)["standings"][0]["player"], second->player()->id);
}

// A node of a cluster that does not direct the tournaments (issue 47): a registration goes to
// the director and its answer comes back to the client, or tournament/unavailable when none
// came; a table's end is told to the director; a frame for a player goes to the other nodes.
TEST_F(Table, ANodeThatDoesNotDirectTheTournamentsAsksTheDirector) {
  NullTournamentStore none;
  Tournaments& events = lobby_tournaments(lobby, none);
  TournamentSpec spec = one_round_cup();
  const auto id = events.create(spec, 0);
  ASSERT_TRUE(id);
  std::vector<json> asked;
  std::optional<json> answer;
  std::vector<std::pair<std::string, std::string>> told;
  std::vector<std::string> ended;
  Shared shared;
  shared.to_director = [&](json op, std::function<void(std::optional<json>)> done) {
    if (events.directing()) return false;
    asked.push_back(op);
    done(answer);
    return true;
  };
  shared.tell_others = [&](const std::string& player, const std::string& frame) {
    told.emplace_back(player, frame);
  };
  shared.table_ended = [&](const std::string& room) { ended.push_back(room); };
  lobby.share(shared);
  auto ada = client("Ada"), bob = client("Bob");
  // While this node directs, it registers them itself, and the table's news reaches the others.
  register_for(*id, {ada, bob});
  EXPECT_TRUE(asked.empty());
  ASSERT_EQ(events.start(*id, 0), std::nullopt);
  const std::string room = ada->take("tournament_table").at(0)["room"];
  EXPECT_EQ(told.size(), 2u) << "each player's table, for their connections elsewhere";
  // Now a copy: the director answers.
  events.direct(false);
  answer = json{{"refused", "tournament/closed"}};
  send(ada, {{"type", "tournament"}, {"action", "withdraw"}, {"tournament", *id}, {"id", 2}});
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0]["op"], "enter");
  EXPECT_EQ(asked[0]["player"], ada->player()->id);
  EXPECT_EQ(asked[0]["enter"], false);
  EXPECT_EQ(error_code(ada), "tournament/closed");
  answer = std::nullopt;  // no director
  send(ada, {{"type", "tournament"}, {"action", "register"}, {"tournament", *id}, {"id", 3}});
  EXPECT_EQ(error_code(ada), "tournament/unavailable");
  answer = json{{"refused", nullptr}};
  send(bob, {{"type", "tournament"}, {"action", "register"}, {"tournament", *id}, {"id", 4}});
  EXPECT_EQ(bob->take("tournament").at(0)["id"], 4);
  // The game ends here: the copy counts nothing, the director is told.
  join(ada, room);
  join(bob, room);
  play_to_the_end(ada, bob, room);
  EXPECT_EQ(ended, std::vector<std::string>{room});
  EXPECT_EQ((*events.detail(*id))["status"], "running") << "a copy does not count it";
}

// A director just woken from a stall (issue 47), until its next heartbeat says whether it still
// holds the tournaments' lease: its tick starts no event and opens no table, and a table's end
// is passed to the director (whoever that is then) instead of counted here.
TEST_F(Table, ADirectorJustWokenFromAStallStartsNothingAndPassesAnEndedTableOn) {
  NullTournamentStore none;
  Tournaments& events = lobby_tournaments(lobby, none);
  TournamentSpec spec = one_round_cup();
  spec.starts_ms = 5'000;
  const auto id = events.create(spec, 0);
  ASSERT_TRUE(id);
  bool fresh = false;
  std::vector<std::string> ended;
  Shared shared;
  shared.may_direct = [&] { return fresh; };
  shared.table_ended = [&](const std::string& room) { ended.push_back(room); };
  lobby.share(shared);
  auto ada = client("Ada"), bob = client("Bob");
  register_for(*id, {ada, bob});
  lobby.tick(6'000);
  EXPECT_EQ((*events.detail(*id))["status"], "registering") << "a stale director starts nothing";
  EXPECT_TRUE(ada->take("tournament_table").empty());
  fresh = true;  // renewed: it still directs
  lobby.tick(7'000);
  EXPECT_EQ((*events.detail(*id))["status"], "running");
  const auto told = ada->take("tournament_table");
  ASSERT_EQ(told.size(), 1u);
  const std::string room = told[0]["room"];
  join(ada, room);
  join(bob, room);
  fresh = false;  // stalled again just as the game ends
  play_to_the_end(ada, bob, room);
  EXPECT_EQ(ended, std::vector<std::string>{room}) << "passed on, to be read once it is known";
  EXPECT_EQ((*events.detail(*id))["status"], "running") << "not counted by a stale director";
}

TEST_F(Table, PrivateRoomsAreNotListed) {
  auto ada = client("Ada");
  send(ada, {{"type", "create"}, {"game", "quantik"}, {"private", true}});
  const std::string room = ada->take("created")[0]["room"];
  send(ada, {{"type", "rooms"}});
  EXPECT_TRUE(ada->take("rooms")[0]["rooms"].empty());
  auto eve = client("Eve");
  join(eve, room, "spectator");
  EXPECT_EQ(eve->take("joined").size(), 1u) << "the link still works";
}

TEST_F(Table, TheListLeadsEachPlayerBackToTheirOwnTablesPrivateOnesToo) {
  auto ada = client("Ada"), bob = client("Bob");
  lobby.tick(1000);
  send(ada,
       {{"type", "create"}, {"game", "quantik"}, {"private", true}, {"options", {{"first", "1"}}}});
  const std::string secret = ada->take("created")[0]["room"];
  join(ada, secret);
  join(bob, secret);  // a private game, Bob to move
  lobby.tick(2000);
  const auto open = create(ada);
  join(ada, open, "player", 1);  // waiting for someone at seat 0
  lobby.tick(3000);
  const auto other = create(bob);
  join(bob, other);
  join(ada, other, "spectator");  // Ada only watches this one
  auto mine = [&](const std::shared_ptr<FakeConnection>& who, json req = json::object()) {
    req["type"] = "rooms";
    send(who, req);
    const auto reply = who->take("rooms");
    return reply.size() == 1 ? reply[0]["mine"] : json();
  };

  const auto ada_tables = mine(ada, {{"game", "kwinty"}, {"limit", 1}});
  ASSERT_EQ(ada_tables.size(), 2u) << "whatever the filter and the page: " << ada_tables;
  EXPECT_EQ(ada_tables[0]["room"], open) << "the most recently active first";
  EXPECT_EQ(ada_tables[0]["you"], 1);
  EXPECT_EQ(ada_tables[0]["status"], "waiting");
  EXPECT_EQ(ada_tables[0]["your_turn"], false);
  EXPECT_EQ(ada_tables[1]["room"], secret) << "a private table is listed to those who sit there";
  EXPECT_EQ(ada_tables[1]["private"], true);
  EXPECT_EQ(ada_tables[1]["you"], 0);
  EXPECT_EQ(ada_tables[1]["your_turn"], false);

  const auto bob_tables = mine(bob);
  ASSERT_EQ(bob_tables.size(), 2u) << bob_tables;
  EXPECT_EQ(bob_tables[0]["room"], other);
  EXPECT_EQ(bob_tables[1]["room"], secret);
  EXPECT_EQ(bob_tables[1]["you"], 1);
  EXPECT_EQ(bob_tables[1]["your_turn"], true);
  EXPECT_EQ(mine(client("Cy")), json::array()) << "a newcomer sits nowhere";

  // The same player on another connection (a second tab, by token) is shown the same tables.
  // Its hello brings her back to both tables at once, so they tie on activity and come in the
  // order of their (random) ids: the same tables, in either order.
  auto tab = client("Ada", ada->last("welcome")["token"].get<std::string>());
  const auto by_room = [](json list) {
    std::sort(list.begin(), list.end(),
              [](const json& a, const json& b) { return a["room"] < b["room"]; });
    return list;
  };
  EXPECT_EQ(by_room(mine(tab)), by_room(ada_tables));
  // A seat given back before the game starts is no longer hers.
  send(ada, {{"type", "leave"}, {"room", open}});
  ASSERT_EQ(mine(ada).size(), 1u);
  EXPECT_EQ(mine(ada)[0]["room"], secret);

  auto cy = client("Cy");
  for (std::size_t i = 0; i <= kMineListed; ++i) join(cy, create(cy));
  EXPECT_EQ(mine(cy).size(), kMineListed) << "at most";
}

TEST_F(Table, TheListShowsTablesToJoinFirstThenTheMostWatchedGamesAndComesInPages) {
  auto ada = client("Ada"), bob = client("Bob"), cy = client("Cy"), dee = client("Dee");
  auto rooms = [&](json req) {
    req["type"] = "rooms";
    send(ada, req);
    const auto reply = ada->take("rooms");
    EXPECT_EQ(reply.size(), 1u);
    std::vector<std::string> ids;
    for (const auto& r : reply.empty() ? json::array() : reply[0]["rooms"])
      ids.push_back(r["room"]);
    return std::tuple{ids, reply.empty() ? json() : reply[0]["total"],
                      reply.empty() ? json() : reply[0]["offset"]};
  };
  lobby.tick(1000);
  const auto a = create(ada);
  join(ada, a);  // waiting for a second player
  lobby.tick(2000);
  const auto b = create(ada);  // waiting, nobody seated yet
  lobby.tick(3000);
  const auto c = create(bob);
  join(bob, c), join(cy, c);  // being played, watched by two
  join(client("E1"), c, "spectator"), join(client("E2"), c, "spectator");
  lobby.tick(4000);
  const auto d = create(dee);
  join(dee, d), join(client("Fay"), d);  // being played more recently, watched by nobody
  lobby.tick(5000);
  send(ada, {{"type", "create"}, {"game", "kwinty"}});
  const std::string e = ada->take("created")[0]["room"];
  send(ada, {{"type", "create"}, {"game", "quantik"}, {"private", true}});

  using Page = std::tuple<std::vector<std::string>, json, json>;
  EXPECT_EQ(rooms({}), Page({e, b, a, c, d}, 5, 0)) << "no limit: every public room, in order";
  EXPECT_EQ(rooms({{"limit", 2}}), Page({e, b}, 5, 0));
  EXPECT_EQ(rooms({{"limit", 2}, {"offset", 2}}), Page({a, c}, 5, 2));
  EXPECT_EQ(rooms({{"limit", 2}, {"offset", 4}}), Page({d}, 5, 4));
  EXPECT_EQ(rooms({{"limit", 2}, {"offset", 9}}), Page({}, 5, 5));
  EXPECT_EQ(rooms({{"game", "quantik"}, {"limit", 10}}), Page({b, a, c, d}, 4, 0));
  EXPECT_EQ(rooms({{"game", "kwinty"}}), Page({e}, 1, 0));

  join(client("E3"), d, "spectator"), join(client("E4"), d, "spectator"),
      join(client("E5"), d, "spectator");
  lobby.tick(6000);  // the listing is built once a tick
  EXPECT_EQ(rooms({{"game", "quantik"}, {"offset", 2}}), Page({d, c}, 4, 2))
      << "now the more watched";

  send(ada, {{"type", "rooms"}, {"game", "chess"}});
  EXPECT_EQ(error_code(ada), "room/unknown_game");
  send(ada, {{"type", "rooms"}, {"limit", 0}});
  EXPECT_EQ(error_code(ada), "proto/bad_field");
  send(ada, {{"type", "rooms"}, {"limit", 501}});
  EXPECT_EQ(error_code(ada), "proto/bad_field");
  send(ada, {{"type", "rooms"}, {"offset", -1}});
  EXPECT_EQ(error_code(ada), "proto/bad_field");
  EXPECT_TRUE(ada->take("rooms").empty());
}

TEST_F(Table, LeavingBeforeTheStartFreesTheSeat) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto room = create(ada);
  join(ada, room);
  send(ada, {{"type", "leave"}, {"room", room}});
  join(bob, room, "player", 0);
  EXPECT_EQ(bob->take("joined")[0]["seat"], 0);
}

TEST_F(Table, ARematchStartsWhenEveryPlayerAsksForIt) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  join(bob, room);
  send(ada, {{"type", "rematch"}, {"room", room}});
  EXPECT_EQ(error_code(ada), "rematch/not_over");
  play_to_the_end(ada, bob, room);
  ASSERT_EQ(ada->states[room]["status"], "over");
  EXPECT_EQ(ada->states[room]["outcome"]["winners"], json({1}));
  send(ada, {{"type", "rematch"}, {"room", room}});
  EXPECT_EQ(bob->states[room]["rematch"], json({0}));
  EXPECT_EQ(bob->states[room]["status"], "over");
  const auto before = ada->versions[room];
  send(bob, {{"type", "rematch"}, {"room", room}});
  for (auto& c : {ada, bob}) {
    // Straight to the new round: no version shows every flag set on the finished board.
    EXPECT_EQ(c->versions[room], before + 1);
    EXPECT_EQ(c->states[room]["rematch"], json::array());
    EXPECT_EQ(c->states[room]["status"], "playing");
    EXPECT_EQ(c->states[room]["round"], 2);
    EXPECT_EQ(c->states[room]["board"]["last"], nullptr);
    EXPECT_EQ(c->states[room]["outcome"], nullptr);
  }
  EXPECT_EQ(ada->states[room]["to_move"], 0) << "the host's choice of starter stands";
}

// Fair chance: a round's seed is committed to from its start and revealed at its end, and the
// next round draws a fresh one, so that nothing revealed about a round tells anything of the next.
TEST_F(Table, EachRoundCommitsToAFreshSeedRevealedOnlyWhenItEnds) {
  auto t = seated_table();
  const auto sealed = [&](const json& f) {
    return f.is_object() && f["commitment"].is_string() &&
           f["commitment"].get<std::string>().size() == 64 && f["seed"].is_null() &&
           f["salt"].is_null();
  };
  for (const auto& c : {t.ada, t.bob, t.eve})
    EXPECT_TRUE(sealed(c->states[t.room]["fairness"])) << c->states[t.room];
  const std::string first = t.ada->states[t.room]["fairness"]["commitment"];
  move(t.ada, t.room, kEnding[0]);
  EXPECT_TRUE(sealed(t.eve->states[t.room]["fairness"])) << "still sealed in play";
  for (std::size_t i = 1; i < kEnding.size(); ++i) move(i % 2 ? t.bob : t.ada, t.room, kEnding[i]);
  ASSERT_EQ(t.eve->states[t.room]["status"], "over");
  for (const auto& c : {t.ada, t.bob, t.eve}) {
    const json f = c->states[t.room]["fairness"];
    ASSERT_TRUE(f["seed"].is_string() && f["salt"].is_string()) << f;
    EXPECT_EQ(f["commitment"], first);
    EXPECT_EQ(
        seed_commitment(std::stoull(f["seed"].get<std::string>()), f["salt"].get<std::string>()),
        first)
        << "the revealed seed and salt open the commitment";
  }
  send(t.ada, {{"type", "rematch"}, {"room", t.room}});
  const auto drawn_next = counter;  // what the room's random source gives next
  send(t.bob, {{"type", "rematch"}, {"room", t.room}});
  const json second = t.eve->states[t.room]["fairness"];
  EXPECT_TRUE(sealed(second)) << second;
  EXPECT_NE(second["commitment"], first);
  for (std::size_t i = 0; i < kEnding.size(); ++i) move(i % 2 ? t.bob : t.ada, t.room, kEnding[i]);
  ASSERT_EQ(t.eve->states[t.room]["status"], "over");
  EXPECT_EQ(t.eve->states[t.room]["fairness"]["seed"],
            std::to_string(drawn_next * 0x9e3779b97f4a7c15ULL))
      << "round 2's seed is a fresh draw at the rematch, not a function of round 1's";
}

// A player shown away or back and a rematch asked for are versions like any other: stored before
// they are shown, so that a rebuilt room starts above every version it showed, with the ended
// round's rematch requests.
TEST_F(Table, EveryVersionIsStoredBeforeItIsShownAndARebuiltRoomKeepsItsRematchRequests) {
  const auto [ada, bob, eve, room] = seated_table();
  play_to_the_end(ada, bob, room);
  ASSERT_EQ(eve->states[room]["status"], "over");
  store.automatic = false;
  const auto v = eve->versions[room];
  send(bob, {{"type", "rematch"}, {"room", room}});
  lobby.closed(ada.get());  // no grace here: shown away at once
  EXPECT_EQ(eve->versions[room], v) << "nothing shown before its write is done";
  ASSERT_EQ(store.tables.size(), 2u);
  EXPECT_EQ(store.tables[0], (std::pair<std::uint32_t, std::int64_t>{0b10, v + 1}));
  EXPECT_EQ(store.tables[1], (std::pair<std::uint32_t, std::int64_t>{0b10, v + 2}));
  store.release_all();
  EXPECT_EQ(eve->versions[room], v + 2);
  EXPECT_EQ(eve->states[room]["rematch"], json({1}));
  EXPECT_EQ(eve->states[room]["seats"][0]["connected"], false);

  // The room as the store gives it back after a restart.
  StoredRoom stored;
  stored.room = RoomRecord{room, "quantik", {{"first", "0"}}, 0, false, 0, 0, ""};
  stored.seats = {ada->last("welcome")["player"].get<std::string>(),
                  bob->last("welcome")["player"].get<std::string>()};
  stored.version = v + 2;
  RoundRecord round;
  round.options = {{"first", "0"}};
  for (const char* m : kEnding)
    round.moves.emplace_back(static_cast<int>(round.moves.size() % 2), m);
  round.outcome = eve->states[room]["outcome"];
  round.rematch = 0b10;
  stored.rounds = {round};
  ManualStore store2;
  std::uint64_t n = 1;
  Lobby lobby2{store2, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }};
  std::string why;
  ASSERT_TRUE(lobby2.restore_room(stored, why)) << why;
  auto eve2 = std::make_shared<FakeConnection>();
  lobby2.handle(eve2, *protocol::decode(R"({"type":"hello","name":"Eve"})"));
  lobby2.handle(
      eve2, *protocol::decode(json{{"type", "join"}, {"room", room}, {"as", "spectator"}}.dump()));
  EXPECT_GT(eve2->versions[room], v + 2) << "above every version shown before";
  EXPECT_EQ(eve2->states[room]["rematch"], json({1}));
  EXPECT_EQ(eve2->states[room]["board"], eve->states[room]["board"]);

  // Requests stored for a round still in play, or for a seat the game lacks, are a broken log.
  for (const auto& [moves, asked] : {std::pair{1, 0b01u}, std::pair{4, 0b100u}}) {
    auto broken = stored;
    broken.room.id = room + std::to_string(moves);
    broken.rounds[0].moves.resize(static_cast<std::size_t>(moves));
    if (moves < 4) broken.rounds[0].outcome = nullptr;
    broken.rounds[0].rematch = asked;
    EXPECT_FALSE(lobby2.restore_room(broken, why));
    EXPECT_NE(why.find("rematch"), std::string::npos) << why;
  }
}

// A player who says hello again under another name (a second tab, or the same one) is shown
// under it at once, in a version of its own: no copy keeps the old name while a sync shows the
// new one.
TEST_F(Table, APlayerRenamedByANewHelloIsShownSoAtOnce) {
  const auto [ada, bob, eve, room] = seated_table();
  const std::string token = ada->last("welcome")["token"];
  const auto v = eve->versions[room];
  auto tab = client("Ada B.", token);
  EXPECT_EQ(eve->versions[room], v + 1);
  EXPECT_EQ(eve->states[room]["seats"][0]["name"], "Ada B.");
  json mine = eve->states[room];
  EXPECT_EQ(mine, synced(eve, room));
  send(ada, {{"type", "hello"}, {"name", "Ada C."}, {"token", token}});
  EXPECT_EQ(eve->versions[room], v + 2);
  EXPECT_EQ(eve->states[room]["seats"][0]["name"], "Ada C.");
  mine = eve->states[room];
  EXPECT_EQ(mine, synced(eve, room));
  client("Ada C.", token);
  EXPECT_EQ(eve->versions[room], v + 2) << "nothing changed, no version";
}

// A player whose connection dropped comes back on a new connection that starts from the copy
// the old one held (as the browser does), saying hello with its version.
struct Returning {
  std::shared_ptr<FakeConnection> conn;
  std::vector<std::string> types;  // what it was sent after the welcome, in order
};

class Resume : public Table {
 protected:
  using Table::Table;
  // Ada and Bob at a quantik table, Ada to move, Eve watching; Bob's connection drops.
  struct Dropped {
    Seated table;
    std::string token;  // Bob's
    json held_state;    // Bob's copy when he dropped
    std::int64_t held;  // its version
  };
  Dropped bob_drops() {
    Dropped d{seated_table(), "", nullptr, 0};
    d.token = d.table.bob->last("welcome")["token"];
    d.held_state = d.table.bob->states[d.table.room];
    d.held = d.table.bob->versions[d.table.room];
    lobby.closed(d.table.bob.get());  // shown away at once (no grace here): a version
    return d;
  }
  Returning come_back(const Dropped& d, std::optional<std::int64_t> held) {
    const auto& room = d.table.room;
    auto c = std::make_shared<FakeConnection>();
    c->states[room] = d.held_state;
    c->versions[room] = d.held;
    json hello{{"type", "hello"}, {"name", "Bob"}, {"token", d.token}};
    if (held) hello["resume"] = {{room, *held}};
    send(c, hello);
    return collect(c);
  }
  void release() { store.release_all(); }
  static Returning collect(const std::shared_ptr<FakeConnection>& c) {
    Returning r{c, {}};
    for (const auto& m : c->received)
      if (m["type"] != "welcome") r.types.push_back(m["type"]);
    return r;
  }
  // The patches `c` was sent for each version of `room`.
  static std::map<std::int64_t, int> patch_counts(const FakeConnection& c,
                                                  const std::string& room) {
    std::map<std::int64_t, int> n;
    for (const auto& m : c.received)
      if (m["type"] == "patch" && m["room"] == room) ++n[m["version"].get<std::int64_t>()];
    return n;
  }
  using Types = std::vector<std::string>;
};

TEST_F(Resume, APlayerBackWithTheVersionItHoldsGetsOnlyThePatchesItMissed) {
  const auto d = bob_drops();
  const auto& [ada, bob, eve, room] = d.table;
  move(ada, room, "sphere@a1");
  ASSERT_EQ(ada->versions[room], d.held + 2);

  const auto back = come_back(d, d.held);
  EXPECT_EQ(back.conn->last("welcome")["tables"], json::array({{{"room", room}, {"seat", 1}}}))
      << "the welcome names the tables the hello puts the player back at";
  EXPECT_EQ(back.types, (Types{"joined", "patch", "patch", "patch", "crowd"}))
      << "the two versions missed, then the one that shows Bob back; no whole state";
  EXPECT_EQ(back.conn->versions[room], d.held + 3);
  EXPECT_EQ(ada->versions[room], d.held + 3);
  EXPECT_EQ(eve->states[room]["seats"][1]["connected"], true);
  const json copy = back.conn->states[room];
  EXPECT_EQ(copy, synced(back.conn, room)) << "the patched copy is the state";
  // Back in the game: the move names the version the patches brought.
  move(back.conn, room, "cube@d4");
  EXPECT_TRUE(error_code(back.conn).empty());
  EXPECT_EQ(eve->states[room]["board"]["last"], "cube@d4");

  // Away again: the seat keeps what it misses from the version that connection had.
  lobby.closed(back.conn.get());
  move(ada, room, "cone@a2");
  const auto again = collect([&] {
    auto c = std::make_shared<FakeConnection>();
    c->states[room] = back.conn->states[room];
    c->versions[room] = back.conn->versions[room];
    send(c, {{"type", "hello"},
             {"name", "Bob"},
             {"token", d.token},
             {"resume", {{room, back.conn->versions[room]}}}});
    return c;
  }());
  EXPECT_EQ(again.types, (Types{"joined", "patch", "patch", "patch", "crowd"}));
  const json copy2 = again.conn->states[room];
  EXPECT_EQ(copy2, synced(again.conn, room));
}

TEST_F(Resume, AVersionTheSeatDoesNotCoverGetsTheWholeState) {
  for (const std::int64_t off : {3, 100}) {
    const auto d = bob_drops();
    const auto& [ada, bob, eve, room] = d.table;
    move(ada, room, "sphere@a1");
    const auto back = come_back(d, d.held + off);
    EXPECT_EQ(back.types, (Types{"joined", "full", "crowd"}))
        << "held + " << off << ": the whole state, with the version that shows Bob back";
    EXPECT_EQ(back.conn->versions[room], d.held + 3);
    EXPECT_EQ(back.conn->states[room]["board"]["last"], "sphere@a1");
  }
  // Without a version, a hello gets the whole state as ever.
  const auto d = bob_drops();
  EXPECT_EQ(come_back(d, std::nullopt).types, (Types{"joined", "full", "crowd"}));
  // A version for a room where the player does not sit puts nobody anywhere.
  const auto& [ada, bob, eve, room] = d.table;
  auto e = std::make_shared<FakeConnection>();
  send(e, {{"type", "hello"},
           {"name", "Eve"},
           {"token", eve->last("welcome")["token"]},
           {"resume", {{room, 3}}}});
  EXPECT_EQ(e->received.size(), 1u) << e->received.back().dump();
  EXPECT_EQ(e->last("welcome")["tables"], json::array());
}

// What a player comes back to holds the version that shows them back, so a client may move as
// soon as it has it, whether the store writes at once or later.
TEST_F(Resume, APlayerBackCanMoveAsSoonAsTheWholeStateOrTheLastMissedPatchIsIn) {
  for (const bool later : {false, true}) {
    for (const bool with_version : {false, true}) {
      const auto d = bob_drops();
      const auto& [ada, bob, eve, room] = d.table;
      move(ada, room, "sphere@a1");
      store.automatic = !later;
      const auto back = come_back(d, with_version ? std::optional(d.held) : std::nullopt);
      release();
      store.automatic = true;
      const auto got = collect(back.conn).types;
      EXPECT_EQ(std::ranges::count(got, "full"), with_version ? 0 : 1) << "later " << later;
      EXPECT_EQ(back.conn->versions[room], ada->versions[room])
          << "later " << later << ", version " << with_version;
      // A whole state is the room's last version, not one a patch still has to follow.
      for (const auto& m : back.conn->received)
        if (m["type"] == "full") {
          EXPECT_EQ(m["version"], ada->versions[room]) << "later " << later;
        }
      move(back.conn, room, "cube@d4");
      EXPECT_EQ(error_code(back.conn), "") << "later " << later << ", version " << with_version;
    }
  }
}

TEST_F(Resume, ASeatAwayForTooLongGetsTheWholeState) {
  for (const bool over : {false, true}) {
    const auto d = bob_drops();
    const auto& [ada, bob, eve, room] = d.table;
    // Ada's connection comes and goes: two versions each time, all missed by Bob.
    const std::string ada_token = ada->last("welcome")["token"];
    const std::size_t cycles = KeepLimits{}.frames / 2 + (over ? 0 : -1);
    auto conn = ada;
    for (std::size_t i = 0; i < cycles; ++i) {
      lobby.closed(conn.get());
      conn = client("Ada", ada_token);
    }
    const auto back = come_back(d, d.held);
    const auto versions =
        static_cast<std::size_t>(conn->versions[room] - d.held);  // with Bob's return
    if (over) {
      EXPECT_GT(versions - 1, KeepLimits{}.frames);
      EXPECT_EQ(back.types, (Types{"joined", "full", "crowd"}));
    } else {
      EXPECT_LE(versions - 1, KeepLimits{}.frames);
      EXPECT_EQ(back.types.size(), versions + 2) << "joined, every patch, crowd";
      EXPECT_EQ(back.types.front(), "joined");
    }
    const json copy = back.conn->states[room];
    EXPECT_EQ(copy, synced(back.conn, room));
  }
}

TEST_F(Resume, WritesInFlightWhenThePlayerDropsOrComesBackReachThemOnceInOrder) {
  auto d = bob_drops();
  auto& [ada, bob, eve, room] = d.table;
  store.automatic = false;
  move(ada, room, "sphere@a1");  // in flight
  // Bob comes back before the move is written: he gets nothing of it yet.
  const auto early = come_back(d, d.held);
  EXPECT_EQ(early.types, (Types{"joined", "patch"})) << "his own away version only";
  release();
  const auto late = collect(early.conn);
  EXPECT_EQ(late.types, (Types{"joined", "patch", "patch", "patch", "crowd"}));
  for (const auto& [v, n] : patch_counts(*early.conn, room)) EXPECT_EQ(n, 1) << "version " << v;
  const json copy = early.conn->states[room];
  EXPECT_EQ(copy, synced(early.conn, room));

  // Bob moves and drops while the move is being written: it is written while he is away.
  const auto held = early.conn->versions[room];
  move(early.conn, room, "cube@d4");
  lobby.closed(early.conn.get());
  release();
  store.automatic = true;
  d.held_state = early.conn->states[room];
  d.held = held;
  const auto back = come_back(d, held);
  EXPECT_EQ(back.types, (Types{"joined", "patch", "patch", "patch", "crowd"}))
      << "his move, away, back";
  EXPECT_EQ(back.conn->states[room]["board"]["last"], "cube@d4");
  const json copy2 = back.conn->states[room];
  EXPECT_EQ(copy2, synced(back.conn, room));
}

// A spectator whose connection dropped watches again on a new connection that starts from the
// copy the old one held, joining with its version.
class SpectatorResume : public Resume {
 protected:
  using Resume::Resume;
  struct Watcher {
    std::string token;
    json held_state;
    std::int64_t held;
  };
  static Watcher holding(const std::shared_ptr<FakeConnection>& c, const std::string& room) {
    return {c->last("welcome")["token"], c->states[room], c->versions[room]};
  }
  Returning watch_again(const std::string& room, const Watcher& w,
                        std::optional<std::int64_t> held) {
    auto c = std::make_shared<FakeConnection>();
    c->states[room] = w.held_state;
    c->versions[room] = w.held;
    send(c, {{"type", "hello"}, {"name", "Eve"}, {"token", w.token}});
    json msg{{"type", "join"}, {"room", room}, {"as", "spectator"}};
    if (held) msg["version"] = *held;
    send(c, msg);
    return collect(c);
  }
};

TEST_F(SpectatorResume, ASpectatorBackWithTheVersionItHoldsGetsOnlyThePatchesItMissed) {
  const auto [ada, bob, eve, room] = seated_table();
  auto finn = client("Finn");
  join(finn, room, "spectator");
  const auto eve_held = holding(eve, room);
  lobby.closed(eve.get());
  move(ada, room, "sphere@a1");
  const auto finn_held = holding(finn, room);  // dropped one move later
  lobby.closed(finn.get());
  move(bob, room, "cube@d4");
  lobby.tick(1000);
  EXPECT_EQ(ada->last("crowd")["spectators"], 0);

  const auto e = watch_again(room, eve_held, eve_held.held);
  EXPECT_EQ(e.types, (Types{"joined", "patch", "patch", "crowd"})) << "both moves; no whole state";
  EXPECT_EQ(e.conn->last("crowd")["spectators"], 1);
  lobby.tick(2000);
  EXPECT_EQ(ada->last("crowd")["spectators"], 1);
  const json e_copy = e.conn->states[room];
  EXPECT_EQ(e_copy["board"]["last"], "cube@d4");
  EXPECT_EQ(e_copy, synced(e.conn, room)) << "the patched copy is the state";
  // A later drop holds a later version: the room kept from the earliest, which covers it.
  const auto f = watch_again(room, finn_held, finn_held.held);
  EXPECT_EQ(f.types, (Types{"joined", "patch", "crowd"}));
  const json f_copy = f.conn->states[room];
  EXPECT_EQ(f_copy, synced(f.conn, room));
  // Both watch on: the next move reaches each once.
  move(ada, room, "cone@b2");
  EXPECT_EQ(e.conn->states[room]["board"]["last"], "cone@b2");
  EXPECT_EQ(f.conn->states[room]["board"]["last"], "cone@b2");
  for (const auto& c : {e.conn, f.conn})
    for (const auto& [v, n] : patch_counts(*c, room)) EXPECT_EQ(n, 1) << "version " << v;
}

TEST_F(SpectatorResume, AVersionNotKeptGetsTheWholeState) {
  for (const std::int64_t off : {2, 50}) {
    const auto [ada, bob, eve, room] = seated_table();
    const auto w = holding(eve, room);
    lobby.closed(eve.get());
    move(ada, room, "sphere@a1");
    const auto back = watch_again(room, w, w.held + off);
    EXPECT_EQ(back.types, (Types{"crowd", "joined", "full"})) << "held + " << off;
    EXPECT_EQ(back.conn->states[room]["board"]["last"], "sphere@a1");
  }
  // Without a version, as ever.
  const auto [ada, bob, eve, room] = seated_table();
  const auto w = holding(eve, room);
  lobby.closed(eve.get());
  EXPECT_EQ(watch_again(room, w, std::nullopt).types, (Types{"crowd", "joined", "full"}));
  // A spectator who left, rather than dropped, is not coming back to that copy: nothing is kept.
  auto [ada2, bob2, eve2, room2] = seated_table();
  const auto w2 = holding(eve2, room2);
  send(eve2, {{"type", "leave"}, {"room", room2}});
  move(ada2, room2, "sphere@a1");
  EXPECT_EQ(watch_again(room2, w2, w2.held).types, (Types{"crowd", "joined", "full"}));
  // A spectator joining again on the same connection is in the room already: the whole state.
  auto gus = client("Gus");
  join(gus, room, "spectator");
  gus->received.clear();
  send(gus,
       {{"type", "join"}, {"room", room}, {"as", "spectator"}, {"version", gus->versions[room]}});
  EXPECT_EQ(collect(gus).types, (Types{"joined", "full"}));
}

// Eve's browser closed its socket while a patch was on its way, and dropped it: she holds one
// version less than the room sent her. The room remembers its last few patches, so she is
// still sent only what she missed.
TEST_F(SpectatorResume, AVersionLostOnTheWayStillResumesByPatches) {
  const auto [ada, bob, eve, room] = seated_table();
  const auto w = holding(eve, room);  // what her page holds
  move(ada, room, "sphere@a1");       // sent to her, lost on the way
  lobby.closed(eve.get());
  move(bob, room, "cube@d4");
  const auto back = watch_again(room, w, w.held);
  EXPECT_EQ(back.types.front(), "joined");
  EXPECT_EQ(std::ranges::count(back.types, "full"), 0);
  EXPECT_EQ(std::ranges::count(back.types, "patch"), 2) << "the one lost and the one missed";
  EXPECT_EQ(back.conn->states[room]["board"]["last"], "cube@d4");
  EXPECT_EQ(back.conn->states[room], synced(back.conn, room));
}

// A room that remembers no patch from before a drop (KeepLimits::recent_frames 0): a client
// holding a version before it gets the whole state.
LobbyLimits forgetful() {
  auto limits = roomy();
  limits.keep.recent_frames = 0;
  return limits;
}
class ForgetfulResume : public SpectatorResume {
 protected:
  ForgetfulResume() : SpectatorResume(forgetful()) {}
};

TEST_F(ForgetfulResume, AVersionFromBeforeTheDropGetsTheWholeState) {
  const auto d = bob_drops();
  const auto& [ada, bob, eve, room] = d.table;
  move(ada, room, "sphere@a1");
  const auto back = come_back(d, d.held - 1);
  EXPECT_EQ(back.types, (Types{"joined", "full", "crowd"}));
  EXPECT_EQ(back.conn->versions[room], d.held + 3);
  EXPECT_EQ(back.conn->states[room]["board"]["last"], "sphere@a1");
  const auto w = holding(eve, room);
  lobby.closed(eve.get());
  move(back.conn, room, "cube@d4");  // Bob, back
  const auto seen = watch_again(room, w, w.held - 1);
  EXPECT_EQ(seen.types, (Types{"crowd", "joined", "full"}));
  EXPECT_EQ(seen.conn->states[room]["board"]["last"], "cube@d4");
}

// The delayed copy spectators see goes on by patches like any other.
TEST_F(SpectatorResume, ADelayedSpectatorBackGetsTheDelayedPatches) {
  const auto [ada, bob, eve, room] = seated_table(1);
  move(ada, room, "sphere@a1");
  const auto w = holding(eve, room);
  lobby.closed(eve.get());
  move(bob, room, "cube@d4");
  move(ada, room, "cone@b2");
  const auto back = watch_again(room, w, w.held);
  EXPECT_EQ(back.types, (Types{"joined", "patch", "patch", "crowd"}));
  EXPECT_EQ(back.conn->states[room]["board"]["last"], "cube@d4") << "one move behind";
  const json copy = back.conn->states[room];
  EXPECT_EQ(copy, synced(back.conn, room));
}

TEST_F(SpectatorResume, WritesInFlightReachTheSpectatorOnceInOrder) {
  const auto [ada, bob, eve, room] = seated_table();
  const auto w = holding(eve, room);
  store.automatic = false;
  move(ada, room, "sphere@a1");  // being written as Eve drops: kept once written
  lobby.closed(eve.get());
  release();
  move(bob, room, "cube@d4");  // being written as she comes back: sent once written
  const auto early = watch_again(room, w, w.held);
  EXPECT_EQ(early.types, (Types{"joined", "patch"}))
      << "the move she missed; the next once written";
  release();
  store.automatic = true;
  EXPECT_EQ(collect(early.conn).types, (Types{"joined", "patch", "patch", "crowd"}));
  for (const auto& [v, n] : patch_counts(*early.conn, room)) EXPECT_EQ(n, 1) << "version " << v;
  const json copy = early.conn->states[room];
  EXPECT_EQ(copy["board"]["last"], "cube@d4");
  EXPECT_EQ(copy, synced(early.conn, room));
}

TEST_F(Table, ASpectatorDelayHoldsBackTheLastMoves) {
  const auto [ada, bob, eve, room] = seated_table(1);
  move(ada, room, "sphere@a1");
  EXPECT_EQ(eve->states[room]["board"]["last"], nullptr) << "one move behind";
  move(bob, room, "cube@d4");
  EXPECT_EQ(eve->states[room]["board"]["last"], "sphere@a1");
  EXPECT_EQ(eve->versions[room], ada->versions[room]) << "versions still advance for everyone";
}

}  // namespace
}  // namespace plateau::server::testing

namespace plateau::server::testing {
namespace {

TEST(Grace, ADroppedSeatShowsAwayOnlyAfterTheGracePeriod) {
  ManualStore store;
  std::uint64_t n = 1;
  Lobby lobby(
      store, [&n] { return n++ * 77; },
      LobbyLimits{.max_rooms = 10, .idle_room_ms = 1'000'000, .grace_ms = 5000, .keep = {}});
  lobby.tick(1000);
  auto hello = [&](const std::shared_ptr<FakeConnection>& c, const char* name) {
    lobby.handle(c, *protocol::decode(nlohmann::json{{"type", "hello"}, {"name", name}}.dump()));
  };
  auto ada = std::make_shared<FakeConnection>(), bob = std::make_shared<FakeConnection>();
  hello(ada, "Ada");
  hello(bob, "Bob");
  lobby.handle(ada, *protocol::decode(R"({"type":"create","game":"quantik"})"));
  const std::string room = ada->take("created")[0]["room"];
  for (auto& c : {ada, bob})
    lobby.handle(c, *protocol::decode(
                        nlohmann::json{{"type", "join"}, {"room", room}, {"as", "player"}}.dump()));
  const auto v = ada->versions[room];
  lobby.closed(bob.get());
  lobby.tick(4000);
  EXPECT_EQ(ada->states[room]["seats"][1]["connected"], true) << "within the grace period";
  EXPECT_EQ(ada->versions[room], v);
  lobby.tick(6500);
  EXPECT_EQ(ada->states[room]["seats"][1]["connected"], false);
  EXPECT_EQ(ada->versions[room], v + 1);
}

// Bob (seated) and Eve (watching) drop while Ada moves and her connection comes and goes five
// times; then both come back with the versions they held. The same script each time, with the
// same ids, so its frames are the same bytes whatever the bounds.
struct AwayAndBack {
  std::vector<std::string> bob, eve;  // what each was sent after the welcome
  std::size_t bob_patches = 0, eve_patches = 0, bob_bytes = 0, eve_bytes = 0;
};

AwayAndBack away_and_back(KeepLimits keep) {
  ManualStore store;
  std::uint64_t n = 1;
  Lobby lobby(store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }, LobbyLimits{.keep = keep});
  auto send = [&](const std::shared_ptr<FakeConnection>& c, const json& msg) {
    lobby.handle(c, *protocol::decode(msg.dump()));
  };
  auto hello = [&](const char* name, const json& token = nullptr) {
    auto c = std::make_shared<FakeConnection>();
    send(c, {{"type", "hello"}, {"name", name}, {"token", token}});
    return c;
  };
  auto ada = hello("Ada"), bob = hello("Bob"), eve = hello("Eve");
  send(ada, {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}});
  const std::string room = ada->take("created")[0]["room"];
  send(ada, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(bob, {{"type", "join"}, {"room", room}, {"as", "player"}});
  send(eve, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
  const auto bob_held = bob->versions[room];
  lobby.closed(bob.get());
  const auto eve_held = eve->versions[room];  // with Bob shown away
  lobby.closed(eve.get());
  send(ada,
       {{"type", "move"}, {"room", room}, {"version", ada->versions[room]}, {"move", "sphere@a1"}});
  const json ada_token = ada->last("welcome")["token"];
  for (int i = 0; i < 5; ++i) {
    lobby.closed(ada.get());
    ada = hello("Ada", ada_token);
  }
  auto back = [&](const std::shared_ptr<FakeConnection>& was, std::int64_t held) {
    auto c = std::make_shared<FakeConnection>();
    c->states[room] = was->states[room];
    c->versions[room] = held;
    return c;
  };
  auto bob2 = back(bob, bob_held), eve2 = back(eve, eve_held);
  send(bob2, {{"type", "hello"},
              {"name", "Bob"},
              {"token", bob->last("welcome")["token"]},
              {"resume", {{room, bob_held}}}});
  send(eve2, {{"type", "hello"}, {"name", "Eve"}, {"token", eve->last("welcome")["token"]}});
  send(eve2, {{"type", "join"}, {"room", room}, {"as", "spectator"}, {"version", eve_held}});
  AwayAndBack r;
  const auto read = [&](FakeConnection& c, std::vector<std::string>& types, std::size_t& patches,
                        std::size_t& bytes) {
    for (const auto& m : c.received)
      if (m["type"] != "welcome") types.push_back(m["type"]);
    patches = c.patch_sizes.size();
    for (const auto b : c.patch_sizes) bytes += b;
    // By patches or by a whole state, the copy is the room's state.
    EXPECT_EQ(c.versions[room], ada->versions[room]);
    EXPECT_EQ(c.states[room]["board"]["last"], "sphere@a1");
  };
  read(*bob2, r.bob, r.bob_patches, r.bob_bytes);
  read(*eve2, r.eve, r.eve_patches, r.eve_bytes);
  return r;
}

TEST(Keep, AClientBackGetsPatchesWhileTheyFitBothBoundsAndTheWholeStateOnceNot) {
  using Types = std::vector<std::string>;
  const auto roomy = away_and_back({.frames = 1000, .bytes = 1 << 20});
  // Bob: his own away version, the move, ten of Ada's, and the one that shows him back.
  EXPECT_EQ(roomy.bob_patches, 13u);
  EXPECT_EQ(roomy.bob.front(), "joined");
  EXPECT_EQ(std::ranges::count(roomy.bob, "full"), 0);
  // Eve: the move, Ada's ten and Bob's return.
  Types eve{"joined"};
  eve.insert(eve.end(), 12, "patch");
  eve.push_back("crowd");
  EXPECT_EQ(roomy.eve, eve);
  const auto whole = [](const Types& t) { return std::ranges::count(t, "full"); };
  // At each bound exactly: patches. One frame or one byte short: the whole state.
  EXPECT_EQ(whole(away_and_back({.frames = roomy.bob_patches, .bytes = 1 << 20}).bob), 0);
  EXPECT_EQ(whole(away_and_back({.frames = roomy.bob_patches - 1, .bytes = 1 << 20}).bob), 1);
  EXPECT_EQ(whole(away_and_back({.frames = 1000, .bytes = roomy.bob_bytes}).bob), 0);
  EXPECT_EQ(whole(away_and_back({.frames = 1000, .bytes = roomy.bob_bytes - 1}).bob), 1);
  EXPECT_EQ(whole(away_and_back({.frames = roomy.eve_patches, .bytes = 1 << 20}).eve), 0);
  EXPECT_EQ(whole(away_and_back({.frames = roomy.eve_patches - 1, .bytes = 1 << 20}).eve), 1);
  EXPECT_EQ(whole(away_and_back({.frames = 1000, .bytes = roomy.eve_bytes}).eve), 0);
  EXPECT_EQ(whole(away_and_back({.frames = 1000, .bytes = roomy.eve_bytes - 1}).eve), 1);
}

}  // namespace
}  // namespace plateau::server::testing

namespace plateau::server::testing {
namespace {

// Rooms build one board for the audiences that see the same one and diff the rest field by
// field; whatever the game, its variant or a spectator delay, every client's patched copy must
// equal a fresh sync after every change, a rematch included.
struct EveryGameCase {
  std::string game;
  json options;
  int delay;
};

class EveryGame : public Table, public ::testing::WithParamInterface<EveryGameCase> {};

TEST_P(EveryGame, EveryAudiencesPatchedCopyEqualsAFreshSync) {
  const auto& param = GetParam();
  const rules::Game* game = rules::find_game(param.game);
  ASSERT_NE(game, nullptr);
  const int seats =
      param.options.contains("players") ? param.options["players"].get<int>() : game->min_seats();
  std::vector<std::shared_ptr<FakeConnection>> players;
  for (int s = 0; s < seats; ++s) players.push_back(client("P" + std::to_string(s)));
  auto eve = client("Eve");
  send(players[0], {{"type", "create"},
                    {"game", param.game},
                    {"options", param.options},
                    {"spectator_delay", param.delay}});
  const auto created = players[0]->take("created");
  ASSERT_EQ(created.size(), 1u) << players[0]->last("error").dump();
  const std::string room = created[0]["room"];
  join(eve, room, "spectator");
  for (auto& p : players) join(p, room);
  auto everyone = players;
  everyone.push_back(eve);
  auto check_all = [&](const char* when) {
    for (std::size_t i = 0; i < everyone.size(); ++i) {
      const json copy = everyone[i]->states[room];  // a copy: the sync replaces the client's
      ASSERT_EQ(copy, synced(everyone[i], room)) << when << ", client " << i;
    }
  };
  check_all("at the start");
  // Each board is also what the game itself shows: the room may bring boards up to date in
  // place, and a patched copy agreeing with a sync of the same wrong board would prove nothing.
  // The spectators' board lags by the delay until the game ends.
  std::vector<json> positions;  // this round's spectator boards, from its first position
  auto check_boards = [&](const char* when) {
    const auto& st = lobby.find(room)->state();
    positions.push_back(st.view(std::nullopt));
    for (int s = 0; s < seats; ++s)
      ASSERT_EQ(players[static_cast<std::size_t>(s)]->states[room]["board"], st.view(s))
          << when << ", seat " << s;
    const auto lag = std::min(positions.size() - 1, static_cast<std::size_t>(param.delay));
    ASSERT_EQ(eve->states[room]["board"],
              st.is_over() ? positions.back() : positions[positions.size() - 1 - lag])
        << when << ", the spectator";
  };
  check_boards("at the start");
  rules::Rng pick(11);
  int moves = 0;
  for (int round = 1; round <= 2; ++round) {
    while (players[0]->states[room]["status"] == "playing" && moves < 400) {
      const int mover = players[0]->states[room]["to_move"];
      auto& c = players[static_cast<std::size_t>(mover)];
      const auto legal = c->states[room]["legal_moves"];
      ASSERT_FALSE(legal.empty());
      move(c, room, legal[pick.below(legal.size())]);
      ASSERT_TRUE(error_code(c).empty());
      ++moves;
      check_all("after a move");
      check_boards("after a move");
      // Now and then the mover takes the move back, with the others' consent: the boards go
      // back, and are built afresh rather than brought up to date.
      if (game->info().takeback && round == 1 && moves % 7 == 0 &&
          players[0]->states[room]["status"] == "playing") {
        send(c, {{"type", "takeback"}, {"room", room}, {"action", "offer"}});
        ASSERT_EQ(error_code(c), "");
        check_all("after a takeback asked");
        const auto back = eve->states[room]["offer"]["moves"].get<std::size_t>();
        for (auto& p : players)
          if (p != c) send(p, {{"type", "takeback"}, {"room", room}, {"action", "accept"}});
        ASSERT_EQ(eve->states[room]["offer"], nullptr);
        positions.resize(positions.size() - 1 - back);
        check_all("after a takeback");
        check_boards("after a takeback");
      }
    }
    if (round == 2 || players[0]->states[room]["status"] != "over") break;
    for (auto& p : players) {
      send(p, {{"type", "rematch"}, {"room", room}});
      check_all("after a rematch request");
    }
    ASSERT_EQ(players[0]->states[room]["round"], 2);
    positions.clear();
    check_boards("in a new round");
  }
  // A seat that drops and comes back shows it to everyone.
  lobby.closed(players[1].get());
  everyone.erase(everyone.begin() + 1);
  check_all("after a seat dropped");
  EXPECT_EQ(eve->states[room]["seats"][1]["connected"], false);
}

std::vector<EveryGameCase> every_game_cases() {
  std::vector<EveryGameCase> cases;
  for (const rules::Game* g : rules::all_games()) {
    cases.push_back({std::string(g->id()), json{{"players", g->max_seats()}}, 0});
    cases.push_back({std::string(g->id()), json{{"players", g->min_seats()}}, 2});
  }
  cases.push_back({"ltiles", json{{"variant", "ordered"}}, 0});
  cases.push_back({"ltiles", json{{"variant", "ordered"}}, 3});
  cases.push_back({"ltiles", json{{"variant", "hand"}}, 0});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Rooms, EveryGame, ::testing::ValuesIn(every_game_cases()),
                         [](const ::testing::TestParamInfo<EveryGameCase>& info) {
                           return info.param.game + "_" + std::to_string(info.index);
                         });

}  // namespace
}  // namespace plateau::server::testing

// Limits that hold under abuse (issue 42, section 2): each at its edge, with the lobby's own
// clock (ticks) and fake addresses.
namespace plateau::server::testing {
namespace {

using nlohmann::json;

template <LobbyLimits (*kLimits)()>
class Limited : public Table {
 protected:
  Limited() : Table(kLimits()) {}
  std::shared_ptr<FakeConnection> from(const std::string& address, const std::string& name,
                                       std::optional<std::string> token = {}) {
    auto c = std::make_shared<FakeConnection>();
    c->addr = address;
    send(c,
         json{{"type", "hello"}, {"name", name}, {"token", token ? json(*token) : json(nullptr)}});
    return c;
  }
  std::string token_of(const std::shared_ptr<FakeConnection>& c) {
    return c->last("welcome")["token"];
  }
  std::string id_of(const std::shared_ptr<FakeConnection>& c) {
    return c->last("welcome")["player"];
  }
  // A create's reply: the room id, or the error's code.
  // A new room's id (24 hex characters), or the error code of the refusal.
  std::string try_create(const std::shared_ptr<FakeConnection>& c) {
    send(c, {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}});
    const auto created = c->take("created");
    return created.empty() ? error_code(c) : created[0]["room"].get<std::string>();
  }
};

LobbyLimits two_rooms_each() {
  auto l = roomy();
  l.max_rooms_per_player = 2;
  return l;
}
using RoomsPerPlayer = Limited<two_rooms_each>;

TEST_F(RoomsPerPlayer, APlayerHasAtMostSoManyOpenRoomsOfTheirOwnAndAFinishedOneStopsCounting) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto first = try_create(ada);
  const auto second = try_create(ada);
  EXPECT_EQ(try_create(ada), "room/too_many_yours");
  EXPECT_EQ(lobby.room_count(), 2u) << "nothing was made";
  EXPECT_EQ(try_create(bob).size(), 24u) << "another player's rooms are their own";
  // A room being played is still open; one whose game is over is not.
  join(ada, first);
  join(bob, first);
  EXPECT_EQ(try_create(ada), "room/too_many_yours");
  play_to_the_end(ada, bob, first);
  ASSERT_EQ(ada->states[first]["status"], "over");
  EXPECT_EQ(try_create(ada).size(), 24u);
  // So is one closed by the host.
  EXPECT_EQ(try_create(ada), "room/too_many_yours");
  EXPECT_TRUE(lobby.close_room(second));
  EXPECT_EQ(try_create(ada).size(), 24u);
}

// A room the host closed is gone at once, although the store writes the close a moment later:
// a join meanwhile must not load it back from the store.
TEST_F(Table, AClosedRoomIsNotLoadedBackWhileItsCloseIsBeingWritten) {
  auto ada = client("Ada"), eve = client("Eve");
  const auto room = create(ada);
  join(ada, room);
  store.automatic = false;
  ASSERT_TRUE(lobby.close_room(room));
  EXPECT_EQ(error_code(ada), "room/not_found") << "the player is told";
  const int loads = store.loads;
  join(eve, room, "spectator");
  EXPECT_EQ(error_code(eve), "room/not_found");
  EXPECT_EQ(store.loads, loads) << "not read back from the store";
  store.release_all();
  store.automatic = true;
  join(eve, room, "spectator");
  EXPECT_EQ(error_code(eve), "room/not_found");
}

LobbyLimits three_creates_a_minute() {
  auto l = roomy();
  l.creates_per_minute = 3;
  return l;
}
using CreatesPerMinute = Limited<three_creates_a_minute>;

TEST_F(CreatesPerMinute, OneAddressCreatesAtMostSoManyRoomsInAnyMinute) {
  lobby.tick(1'000);
  auto ada = from("198.51.100.7", "Ada"), bob = from("198.51.100.7", "Bob"),
       cy = from("203.0.113.9", "Cy");
  EXPECT_EQ(try_create(ada).size(), 24u);
  lobby.tick(20'000);
  EXPECT_EQ(try_create(ada).size(), 24u);
  EXPECT_EQ(try_create(bob).size(), 24u);
  EXPECT_EQ(try_create(bob), "rate/creates") << "whichever player the address says it is";
  EXPECT_EQ(try_create(ada), "rate/creates");
  EXPECT_EQ(try_create(cy).size(), 24u) << "another address is counted apart";
  EXPECT_EQ(lobby.room_count(), 4u);
  lobby.tick(61'000);  // the first is over a minute old, the others not
  EXPECT_EQ(try_create(ada).size(), 24u);
  EXPECT_EQ(try_create(ada), "rate/creates");
  lobby.tick(81'000);
  EXPECT_EQ(try_create(bob).size(), 24u);
  EXPECT_EQ(lobby.counters().refused.at("rate/creates"), 3u);
}

LobbyLimits unload_after_a_minute() {
  auto l = roomy();
  l.unload_after_ms = 60'000;
  l.max_rooms = 3;
  return l;
}
class Unload : public Limited<unload_after_a_minute> {
 protected:
  // Ada and Bob at a quantik table, a move each made; both gone.
  struct Left {
    std::string room, ada_token, bob_token;
    json board;
    std::int64_t version;
  };
  Left abandoned_table() {
    auto ada = client("Ada"), bob = client("Bob");
    Left t{create(ada, {{"first", "0"}}), token_of(ada), token_of(bob), {}, 0};
    join(ada, t.room);
    join(bob, t.room);
    move(ada, t.room, "sphere@a1");
    move(bob, t.room, "cube@d4");
    t.board = ada->states[t.room]["board"];
    t.version = ada->versions[t.room];
    lobby.closed(ada.get());
    lobby.closed(bob.get());
    return t;
  }
};

TEST_F(Unload, AGameWhosePlayersAreAllAwayLeavesMemoryAndComesBackWhenOneSaysHello) {
  lobby.tick(1'000);
  const auto t = abandoned_table();
  lobby.tick(60'000);
  EXPECT_EQ(lobby.room_count(), 1u) << "away for less than the limit";
  lobby.tick(62'000);
  EXPECT_EQ(lobby.room_count(), 0u);
  EXPECT_EQ(lobby.unloaded_count(), 1u);
  EXPECT_EQ(store.unloaded, std::vector<std::string>{t.room})
      << "the store may let go of its round";

  // Still the players' table, and still listed, while out of memory.
  auto ada = client("Ada", t.ada_token);
  EXPECT_EQ(ada->last("welcome")["tables"], json::array({{{"room", t.room}, {"seat", 0}}}));
  EXPECT_EQ(lobby.room_count(), 1u) << "brought back by the hello";
  EXPECT_EQ(store.loads, 1);
  EXPECT_EQ(ada->take("joined").size(), 1u);
  EXPECT_EQ(ada->states[t.room]["board"], t.board);
  EXPECT_GT(ada->versions[t.room], t.version);
  EXPECT_EQ(ada->states[t.room]["seats"][1]["name"], "Bob");
  EXPECT_EQ(ada->states[t.room]["to_move"], 0);
  move(ada, t.room, "cone@b2");
  EXPECT_EQ(error_code(ada), "");
  EXPECT_EQ(ada->states[t.room]["board"]["last"], "cone@b2");
  auto bob = client("Bob", t.bob_token);
  EXPECT_EQ(bob->last("welcome")["tables"], json::array({{{"room", t.room}, {"seat", 1}}}));
  EXPECT_EQ(bob->states[t.room]["board"], ada->states[t.room]["board"]);
  EXPECT_EQ(bob->states[t.room]["you"], 1);
}

TEST_F(Unload, AnUnloadedGameIsListedAndComesBackForASpectatorOrAMove) {
  lobby.tick(1'000);
  const auto t = abandoned_table();
  lobby.tick(62'000);
  ASSERT_EQ(lobby.room_count(), 0u);
  auto eve = client("Eve");
  send(eve, {{"type", "rooms"}});
  const auto listed = eve->take("rooms")[0]["rooms"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["room"], t.room);
  EXPECT_EQ(listed[0]["status"], "playing");
  EXPECT_EQ(listed[0]["seats"][0]["name"], "Ada");
  EXPECT_EQ(lobby.room_count(), 0u) << "listed without being loaded";
  join(eve, t.room, "spectator");
  EXPECT_EQ(lobby.room_count(), 1u);
  EXPECT_EQ(eve->take("joined").size(), 1u);
  EXPECT_EQ(eve->states[t.room]["board"], t.board);
  send(eve, {{"type", "leave"}, {"room", t.room}});
  lobby.tick(63'000);
  lobby.tick(124'000);
  ASSERT_EQ(lobby.room_count(), 0u) << "unloaded again once the spectator left";
  // A move brings it back too (refused here: this connection has no seat there).
  move(eve, t.room, "cone@b2", t.version);
  EXPECT_EQ(error_code(eve), "move/not_a_player");
  EXPECT_EQ(lobby.room_count(), 1u);
}

TEST_F(Unload, APlayerStillConnectedIsLedBackToTheirUnloadedTable) {
  lobby.tick(1'000);
  auto ada = client("Ada"), bob = client("Bob");
  const auto room = create(ada, {{"first", "0"}});
  join(ada, room);
  join(bob, room);
  move(ada, room, "sphere@a1");
  send(ada, {{"type", "leave"}, {"room", room}});  // the seat stays hers; the connection goes on
  lobby.closed(bob.get());
  lobby.tick(62'000);
  ASSERT_EQ(lobby.room_count(), 0u);
  send(ada, {{"type", "rooms"}});
  const auto mine = ada->take("rooms")[0]["mine"];
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0]["room"], room);
  EXPECT_EQ(mine[0]["you"], 0);
  EXPECT_EQ(mine[0]["your_turn"], false) << "Bob is to move";
  send(bob, {{"type", "hello"}, {"name", "Bob"}, {"token", bob->last("welcome")["token"]}});
  send(bob, {{"type", "rooms"}});
  EXPECT_EQ(bob->take("rooms")[0]["mine"][0]["your_turn"], true);
}

TEST_F(Unload, MaxRoomsBoundsTheRoomsInMemoryNotTheGamesBeingPlayed) {
  lobby.tick(1'000);
  std::vector<Left> games;
  for (int i = 0; i < 5; ++i) {
    games.push_back(abandoned_table());
    lobby.tick(1'000 + 62'000 * (i + 1));
    EXPECT_EQ(lobby.room_count(), 0u);
  }
  EXPECT_EQ(lobby.unloaded_count(), 5u) << "five games going, with room for three in memory";
  for (int i = 2; i < 5; ++i)
    EXPECT_EQ(client("Ada", games[static_cast<std::size_t>(i)].ada_token)->take("joined").size(),
              1u);
  EXPECT_EQ(lobby.room_count(), 3u);
  auto eve = client("Eve");
  join(eve, games[0].room, "spectator");
  EXPECT_EQ(error_code(eve), "room/too_many") << "memory is full: not loaded, and not lost";
  EXPECT_EQ(lobby.unloaded_count(), 2u);
}

TEST_F(Unload, TheAdminClosesEveryRoomOfAPlayerOrEveryRoomInactiveForAWhileInMemoryOrNot) {
  lobby.tick(1'000);
  const auto old = abandoned_table();  // Ada's, unloaded below
  lobby.tick(62'000);
  ASSERT_EQ(lobby.unloaded_count(), 1u);
  auto ada = client("Ada", old.ada_token);  // brings it back; she leaves it again at once
  send(ada, {{"type", "leave"}, {"room", old.room}});
  lobby.closed(ada.get());
  lobby.tick(124'000);
  ASSERT_EQ(lobby.unloaded_count(), 1u);
  auto cy = client("Cy"), dee = client("Dee");
  const auto cys = create(cy);  // Cy's, nobody seated
  const auto dees = create(dee);
  join(cy, dees);                  // Dee's, where Cy sits
  const auto alone = create(dee);  // Dee's alone
  json cy_welcome = cy->last("welcome");
  EXPECT_TRUE(lobby.close_rooms(std::nullopt, std::nullopt).empty())
      << "no criterion, nothing closed";
  auto closed = lobby.close_rooms(cy_welcome["player"].get<std::string>(), std::nullopt);
  std::ranges::sort(closed);
  std::vector<std::string> expected{cys, dees};
  std::ranges::sort(expected);
  EXPECT_EQ(closed, expected) << "the rooms Cy created or sits in";
  EXPECT_EQ(cy->last("error")["code"], "room/not_found") << "told, as by a single close";
  EXPECT_EQ(store.rooms[cys].finished, 2);
  // Inactive for longer than a minute: the unloaded game (last active at 2 s), not Dee's new room.
  lobby.tick(130'000);
  EXPECT_EQ(lobby.close_rooms(std::nullopt, Millis{60'000}), std::vector<std::string>{old.room});
  EXPECT_EQ(lobby.unloaded_count(), 0u);
  EXPECT_EQ(store.rooms[old.room].finished, 2);
  auto ada2 = client("Ada", old.ada_token);
  EXPECT_TRUE(ada2->last("welcome")["tables"].empty()) << "a closed room is nobody's table";
  join(ada2, old.room, "spectator");
  EXPECT_EQ(error_code(ada2), "room/not_found") << "and the store does not give it back";
  EXPECT_EQ(lobby.close_rooms(dee->last("welcome")["player"].get<std::string>(), Millis{60'000}),
            std::vector<std::string>{})
      << "both: Dee's room is not that old";
  EXPECT_EQ(lobby.room_count(), 1u);
  (void)alone;
}

LobbyLimits three_new_players_a_minute() {
  auto l = roomy();
  l.new_players_per_minute = 3;
  l.forget_players_ms = 3'600'000;
  return l;
}
using Players = Limited<three_new_players_a_minute>;

TEST_F(Players, AHelloStoresNothingTheFirstSeatOrRoomDoes) {
  auto ada = client("Ada"), bob = client("Bob"), cy = client("Cy");
  EXPECT_TRUE(store.players.empty()) << "three hellos, no player written";
  const auto room = create(ada);
  ASSERT_TRUE(store.players.contains(id_of(ada))) << "her room names her";
  EXPECT_EQ(store.players[id_of(ada)].token_hash, Lobby::hash_token(token_of(ada)));
  join(cy, room, "spectator");
  EXPECT_FALSE(store.players.contains(id_of(cy))) << "watching takes no seat";
  const int writes = store.writes;
  join(bob, room);
  ASSERT_TRUE(store.players.contains(id_of(bob)));
  EXPECT_EQ(store.players[id_of(bob)].name, "Bob");
  EXPECT_EQ(store.writes, writes + 2) << "his row, then his seat";
  EXPECT_EQ(store.player_writes, 2);
  client("Bob", token_of(bob));
  client("Bobby", token_of(bob));
  EXPECT_EQ(store.players[id_of(bob)].name, "Bobby") << "a stored player's new name is stored";
  EXPECT_EQ(store.player_writes, 3) << "and only a new name";
}

TEST_F(Players, OneAddressMakesAtMostSoManyNewPlayersInAnyMinute) {
  lobby.tick(1'000);
  auto ada = from("198.51.100.7", "Ada");
  from("198.51.100.7", "Bob");
  from("198.51.100.7", "Cy");
  auto dee = from("198.51.100.7", "Dee");
  EXPECT_EQ(error_code(dee), "rate/hello");
  EXPECT_TRUE(dee->take("welcome").empty());
  EXPECT_EQ(lobby.player_count(), 3u);
  send(dee, {{"type", "rooms"}});
  EXPECT_EQ(error_code(dee), "proto/no_hello") << "no player behind it";
  auto tokenless = from("198.51.100.7", "Eve", "not-a-token");
  EXPECT_EQ(error_code(tokenless), "rate/hello") << "an unknown token makes a new player too";
  EXPECT_EQ(from("198.51.100.7", "Ada", token_of(ada))->last("welcome")["player"], id_of(ada))
      << "a known token is no new player";
  EXPECT_FALSE(from("203.0.113.9", "Fay")->last("welcome").is_null())
      << "another address is counted apart";
  lobby.tick(61'500);
  EXPECT_FALSE(from("198.51.100.7", "Dee")->last("welcome").is_null()) << "a minute later";
}

// In a cluster, a node reads a player another node made off its loop before the hello: the
// lobby says which hellos would ask (an unknown token, within the new players' rate), and only
// those; asking counts nothing against the rate.
TEST_F(Players, AClusterNodeIsToldWhichHellosWouldReadAPlayerFromTheStore) {
  lobby.tick(1'000);
  auto ada = from("198.51.100.7", "Ada");
  const auto hello = [](std::optional<std::string> token) {
    protocol::Hello h;
    h.name = "Someone";
    h.token = std::move(token);
    return h;
  };
  FakeConnection same, other;
  same.addr = "198.51.100.7";
  other.addr = "203.0.113.9";
  EXPECT_EQ(lobby.player_to_find(same, hello("made-elsewhere")), std::nullopt)
      << "alone, the lobby never asks";
  Shared shared;
  std::vector<std::string> asked;
  shared.find_player = [&](const std::string& hash) -> std::optional<StoredPlayer> {
    asked.push_back(hash);
    return StoredPlayer{"p-elsewhere", hash, "Zed", true};
  };
  lobby.share(shared);
  EXPECT_EQ(lobby.player_to_find(same, hello(std::nullopt)), std::nullopt) << "no token";
  EXPECT_EQ(lobby.player_to_find(same, hello(token_of(ada))), std::nullopt) << "known here";
  EXPECT_EQ(lobby.player_to_find(same, hello("made-elsewhere")),
            std::optional(Lobby::hash_token("made-elsewhere")));
  for (int i = 0; i < 5; ++i) (void)lobby.player_to_find(same, hello("made-elsewhere"));
  from("198.51.100.7", "Bob");  // the second new player of the minute: asking counted nothing
  auto zed = from("198.51.100.7", "Zed", "made-elsewhere");
  EXPECT_EQ(zed->last("welcome")["player"], "p-elsewhere") << "the third: read from the store";
  EXPECT_EQ(asked, std::vector<std::string>{Lobby::hash_token("made-elsewhere")});
  EXPECT_EQ(lobby.player_to_find(same, hello("another")), std::nullopt) << "the rate is spent";
  EXPECT_TRUE(lobby.player_to_find(other, hello("another")).has_value())
      << "another address is counted apart";
}

TEST_F(Players, APlayerWhoNeverSatIsForgottenAfterAWhileOneWithASeatNever) {
  lobby.tick(1'000);
  auto ada = from("192.0.2.1", "Ada"), bob = from("192.0.2.2", "Bob"), cy = from("192.0.2.3", "Cy"),
       dee = from("192.0.2.4", "Dee"), eve = from("192.0.2.5", "Eve");
  const auto room = create(cy);  // Cy stored, but never seated
  join(ada, room);
  join(bob, room);
  send(bob, {{"type", "leave"}, {"room", room}});  // before the start: his seat is given back
  const std::string cy_id = id_of(cy), bob_id = id_of(bob), eve_id = id_of(eve);
  ASSERT_TRUE(store.players.contains(cy_id));
  ASSERT_TRUE(store.players.contains(bob_id));
  for (auto* c : {&ada, &bob, &cy, &eve}) lobby.closed(c->get());  // Dee stays connected
  lobby.tick(3'600'000);
  EXPECT_EQ(lobby.player_count(), 5u) << "not yet";
  lobby.tick(3'700'000);
  EXPECT_EQ(lobby.player_count(), 3u)
      << "Ada and Bob, who took seats, and Dee, connected, are kept";
  EXPECT_EQ(lobby.counters().players_forgotten, 2u);
  EXPECT_FALSE(store.players.contains(cy_id)) << "forgotten in the store too";
  EXPECT_TRUE(store.players.contains(bob_id));
  EXPECT_TRUE(store.players.contains(id_of(ada)));
  EXPECT_NE(from("192.0.2.3", "Cy", token_of(cy))->last("welcome")["player"], cy_id)
      << "the token names nobody now";
  EXPECT_NE(from("192.0.2.5", "Eve", token_of(eve))->last("welcome")["player"], eve_id);
  EXPECT_EQ(from("192.0.2.1", "Ada", token_of(ada))->last("welcome")["player"], id_of(ada));
  EXPECT_EQ(from("192.0.2.2", "Bob", token_of(bob))->last("welcome")["player"], bob_id);
  EXPECT_EQ(from("192.0.2.4", "Dee", token_of(dee))->last("welcome")["player"], id_of(dee));
}

TEST_F(Table, ARoomsReplyHoldsADefaultPageAndNeverMoreThanTheMaximum) {
  auto ada = client("Ada");
  for (int i = 0; i < 230; ++i) create(ada);
  auto page = [&](json req) {
    req["type"] = "rooms";
    send(ada, req);
    return ada->take("rooms").at(0);
  };
  const auto plain = page({});
  EXPECT_EQ(plain["rooms"].size(), 50u);
  EXPECT_EQ(plain["total"], 230);
  const auto big = page({{"limit", 500}, {"offset", 10}});
  EXPECT_EQ(big["rooms"].size(), 200u) << "cut to the maximum";
  EXPECT_EQ(big["rooms"][0]["room"], plain["rooms"][10]["room"]);
  EXPECT_EQ(page({{"offset", 220}})["rooms"].size(), 10u);
}

TEST_F(Table, TheListingIsBuiltOnceATickAndSharedByEveryoneWhoAsks) {
  lobby.tick(1'000);
  auto ada = client("Ada"), bob = client("Bob");
  const auto first = create(ada);
  auto listed = [&](const std::shared_ptr<FakeConnection>& who) {
    send(who, {{"type", "rooms"}});
    const auto reply = who->take("rooms").at(0);
    std::vector<std::string> ids;
    for (const auto& r : reply["rooms"]) ids.push_back(r["room"]);
    return ids;
  };
  EXPECT_EQ(listed(ada), std::vector<std::string>{first});
  const auto second = create(bob);
  join(bob, first, "spectator");
  EXPECT_EQ(listed(bob), std::vector<std::string>{first}) << "the same listing until the next tick";
  lobby.tick(2'000);
  const auto now = listed(bob);
  EXPECT_EQ(now.size(), 2u);
  EXPECT_NE(std::ranges::find(now, second), now.end());
}

TEST_F(Table, ArrivalsAndDeparturesSendOneCrowdPerTickToEveryone) {
  const auto [ada, bob, eve, room] = seated_table();
  lobby.tick(1'000);
  for (auto& c : {ada, bob, eve}) c->take("crowd");
  std::vector<std::shared_ptr<FakeConnection>> crowd;
  for (int i = 0; i < 20; ++i) {
    crowd.push_back(client("S" + std::to_string(i)));
    join(crowd.back(), room, "spectator");
  }
  send(eve, {{"type", "leave"}, {"room", room}});
  lobby.closed(crowd[0].get());
  EXPECT_TRUE(ada->take("crowd").empty()) << "nothing before the tick";
  for (auto& c : crowd) EXPECT_EQ(c->take("crowd").size(), 1u) << "only its own, on joining";
  lobby.tick(2'000);
  const auto seen = ada->take("crowd");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0]["spectators"], 19);
  for (std::size_t i = 1; i < crowd.size(); ++i) {
    const auto got = crowd[i]->take("crowd");
    ASSERT_EQ(got.size(), 1u) << i;
    EXPECT_EQ(got[0]["spectators"], 19);
  }
  EXPECT_TRUE(crowd[0]->take("crowd").empty()) << "gone";
  lobby.tick(3'000);
  EXPECT_TRUE(ada->take("crowd").empty()) << "no change, no crowd";
  // Whoever is in the room still gets every patch: the audience is found by pointer now.
  move(ada, room, "sphere@a1");
  EXPECT_EQ(crowd[7]->states[room]["board"]["last"], "sphere@a1");
  send(crowd[19], {{"type", "leave"}, {"room", room}});
  move(bob, room, "cube@d4");
  EXPECT_EQ(crowd[18]->states[room]["board"]["last"], "cube@d4");
  EXPECT_EQ(crowd[19]->states[room]["board"]["last"], "sphere@a1") << "not after leaving";
}

LobbyLimits two_spectators() {
  auto l = roomy();
  l.max_spectators = 2;
  return l;
}
using Audience = Limited<two_spectators>;

TEST_F(Audience, ARoomHoldsAtMostSoManySpectatorsAndTheNextIsRefused) {
  auto ada = client("Ada"), e1 = client("E1"), e2 = client("E2"), e3 = client("E3");
  const auto room = create(ada);
  join(ada, room);
  join(e1, room, "spectator");
  join(e2, room, "spectator");
  join(e3, room, "spectator");
  EXPECT_EQ(error_code(e3), "room/full_audience");
  EXPECT_TRUE(e3->take("joined").empty());
  join(client("Bob"), room);
  EXPECT_EQ(ada->states[room]["status"], "playing") << "players are not spectators";
  send(e1, {{"type", "leave"}, {"room", room}});
  join(e3, room, "spectator");
  EXPECT_EQ(e3->take("joined").size(), 1u) << "a place was freed";
}

// ---------- a round that ends outside the rules: a resignation, a draw agreed ----------

// The state a newcomer watching `room` is sent whole: every patched copy must equal it.
json watched_whole(Lobby& lobby, const std::string& room) {
  auto w = std::make_shared<FakeConnection>();
  lobby.handle(w, *protocol::decode(R"({"type":"hello","name":"Wil"})"));
  lobby.handle(
      w, *protocol::decode(json{{"type", "join"}, {"room", room}, {"as", "spectator"}}.dump()));
  return w->states[room];
}

// What a newcomer watching a room rebuilt from `stored` by a new server is sent; the reason
// when it cannot be rebuilt.
json rebuilt(const StoredRoom& stored) {
  ManualStore store;
  std::uint64_t n = 1;
  Lobby lobby{store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }};
  std::string why;
  if (!lobby.restore_room(stored, why)) return why;
  return watched_whole(lobby, stored.room.id);
}

TEST_F(Table, APlayerWhoResignsLosesAndEveryoneSeesItOnceItIsStored) {
  auto t = seated_table();
  move(t.ada, t.room, kEnding[0]);
  store.automatic = false;
  const auto v = t.eve->versions[t.room];
  send(t.eve, {{"type", "resign"}, {"room", t.room}});
  EXPECT_EQ(error_code(t.eve), "move/not_a_player");
  send(t.ada, {{"type", "resign"}, {"room", t.room}});  // not Ada's turn: resigning needs none
  EXPECT_EQ(t.eve->versions[t.room], v) << "shown only once stored";
  const auto& stored = store.rooms[t.room].room.rounds[0].outcome;
  ASSERT_TRUE(stored.is_object());
  EXPECT_EQ(stored["end"], "resigned");
  store.release_all();
  store.automatic = true;
  for (const auto& c : {t.ada, t.bob, t.eve}) {
    const json& st = c->states[t.room];
    EXPECT_EQ(st["status"], "over");
    EXPECT_EQ(st["to_move"], nullptr);
    EXPECT_EQ(st["legal_moves"], json::array());
    EXPECT_EQ(st["outcome"], (json{{"winners", {1}},
                                   {"scores", json::array()},
                                   {"reason", "Ada resigned"},
                                   {"code", "ended.resigned"},
                                   {"args", {{"seat", 0}}},
                                   {"end", "resigned"},
                                   {"seat", 0}}));
    EXPECT_TRUE(st["fairness"]["seed"].is_string()) << "the seed is revealed, as at any end";
  }
  EXPECT_EQ(t.eve->versions[t.room], v + 1) << "one version";
  EXPECT_EQ(t.eve->states[t.room], watched_whole(lobby, t.room));
  EXPECT_EQ(stored, t.eve->states[t.room]["outcome"]);
  // Over is over: no move, no second resignation, no draw.
  move(t.bob, t.room, "cube@d4");
  EXPECT_EQ(error_code(t.bob), "move/game_over");
  send(t.bob, {{"type", "resign"}, {"room", t.room}});
  EXPECT_EQ(error_code(t.bob), "move/game_over");
  send(t.bob, {{"type", "draw"}, {"room", t.room}, {"action", "offer"}});
  EXPECT_EQ(error_code(t.bob), "move/game_over");
  // And a rematch follows as after any end.
  send(t.ada, {{"type", "rematch"}, {"room", t.room}});
  send(t.bob, {{"type", "rematch"}, {"room", t.room}});
  EXPECT_EQ(t.eve->states[t.room]["status"], "playing");
  EXPECT_EQ(t.eve->states[t.room]["round"], 2);
  EXPECT_EQ(t.eve->states[t.room]["outcome"], nullptr);
  move(t.ada, t.room, kEnding[0]);
  EXPECT_EQ(t.bob->states[t.room]["to_move"], 1) << "round 2 plays";
}

// (This lobby runs no bots: nobody can leave a game of three, since no bot would play on for
// them. With bots, see bot_seat_test.cpp's Leaving.)
TEST_F(Table, NobodyResignsOrOffersADrawBeforeTheGameStartsOrInAGameOfThreeWithoutBots) {
  auto ada = client("Ada"), bob = client("Bob"), cid = client("Cid");
  const auto room = create(ada);
  join(ada, room);
  send(ada, {{"type", "resign"}, {"room", room}});
  EXPECT_EQ(error_code(ada), "move/not_started");
  send(ada, {{"type", "draw"}, {"room", room}, {"action", "offer"}});
  EXPECT_EQ(error_code(ada), "move/not_started");
  send(ada, {{"type", "draw"}, {"room", room}, {"action", "maybe"}});
  EXPECT_EQ(error_code(ada), "proto/bad_field");

  send(ada, {{"type", "create"}, {"game", "quirky"}, {"options", {{"players", 3}}}});
  const std::string three = ada->take("created").at(0)["room"];
  for (const auto& c : {ada, bob, cid}) join(c, three);
  ASSERT_EQ(cid->states[three]["status"], "playing");
  send(bob, {{"type", "resign"}, {"room", three}});
  EXPECT_EQ(error_code(bob), "resign/many_seats");
  send(bob, {{"type", "draw"}, {"room", three}, {"action", "offer"}});
  EXPECT_EQ(error_code(bob), "draw/two_seats");
  EXPECT_EQ(cid->states[three]["status"], "playing");
}

TEST_F(Table, ADrawIsOfferedThenAcceptedDeclinedOrLeftToLapseWithTheNextMove) {
  auto t = seated_table();
  const auto offer = [&](const std::shared_ptr<FakeConnection>& c, const char* action) {
    send(c, {{"type", "draw"}, {"room", t.room}, {"action", action}});
  };
  const json by_ada{{"kind", "draw"}, {"by", 0}}, by_bob{{"kind", "draw"}, {"by", 1}};
  EXPECT_EQ(t.eve->states[t.room]["offer"], nullptr);
  offer(t.bob, "accept");
  EXPECT_EQ(error_code(t.bob), "draw/no_offer");
  offer(t.ada, "offer");
  for (const auto& c : {t.ada, t.bob, t.eve}) EXPECT_EQ(c->states[t.room]["offer"], by_ada);
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].offer["at"], 0) << "stored with the moves made";
  offer(t.ada, "offer");
  EXPECT_EQ(error_code(t.ada), "draw/offered");
  offer(t.ada, "accept");
  EXPECT_EQ(error_code(t.ada), "draw/no_offer") << "nobody accepts their own offer";
  offer(t.bob, "decline");
  EXPECT_EQ(error_code(t.bob), "");
  EXPECT_EQ(t.eve->states[t.room]["offer"], nullptr);
  offer(t.bob, "decline");
  EXPECT_EQ(error_code(t.bob), "draw/no_offer");

  // An offer lapses with the next move, in the move's own version.
  offer(t.bob, "offer");
  EXPECT_EQ(t.ada->states[t.room]["offer"], by_bob);
  const auto v = t.eve->versions[t.room];
  move(t.ada, t.room, kEnding[0]);
  EXPECT_EQ(t.eve->versions[t.room], v + 1);
  EXPECT_EQ(t.eve->states[t.room]["offer"], nullptr);
  offer(t.ada, "accept");
  EXPECT_EQ(error_code(t.ada), "draw/no_offer");

  // Accepted: the round ends drawn. (An offer made to one who offered already agrees it too.)
  offer(t.bob, "offer");
  offer(t.ada, "offer");
  for (const auto& c : {t.ada, t.bob, t.eve}) {
    EXPECT_EQ(c->states[t.room]["status"], "over");
    EXPECT_EQ(c->states[t.room]["offer"], nullptr);
    EXPECT_EQ(c->states[t.room]["outcome"], (json{{"winners", json::array()},
                                                  {"scores", json::array()},
                                                  {"reason", "draw agreed"},
                                                  {"code", "ended.draw_agreed"},
                                                  {"args", json::object()},
                                                  {"end", "agreed_draw"},
                                                  {"seat", 0}}));
  }
  EXPECT_EQ(t.eve->states[t.room], watched_whole(lobby, t.room));
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].outcome["end"], "agreed_draw");
}

// A restart brings back a round that ended by resignation as it ended, and a draw offer only if
// no move was made since it.
TEST_F(Table, ARebuiltRoomKeepsItsResignationAndAnOfferThatStillStands) {
  auto t = seated_table();
  move(t.ada, t.room, kEnding[0]);
  send(t.ada, {{"type", "draw"}, {"room", t.room}, {"action", "offer"}});
  const StoredRoom offered = store.rooms[t.room].room;
  move(t.bob, t.room, kEnding[1]);
  const StoredRoom lapsed = store.rooms[t.room].room;
  send(t.bob, {{"type", "resign"}, {"room", t.room}});
  const StoredRoom resigned = store.rooms[t.room].room;

  EXPECT_EQ(rebuilt(offered)["offer"], (json{{"kind", "draw"}, {"by", 0}}));
  EXPECT_EQ(rebuilt(lapsed)["offer"], nullptr) << "a move since: the offer lapsed";
  const json back = rebuilt(resigned);
  EXPECT_EQ(back["status"], "over");
  EXPECT_EQ(back["outcome"], t.eve->states[t.room]["outcome"]);
  EXPECT_EQ(back["board"], t.eve->states[t.room]["board"]);

  // An outcome stored for a round the rules say goes on, that is no ending, is a broken log.
  auto broken = resigned;
  broken.rounds[0].outcome["end"] = "bored";
  EXPECT_TRUE(rebuilt(broken).is_string());
  broken.rounds[0].outcome = resigned.rounds[0].outcome;
  broken.rounds[0].outcome["winners"] = {1};  // the resigner winning
  EXPECT_TRUE(rebuilt(broken).is_string());
}

// ---------- takebacks (issue 44): casual tables of games that neither draw nor hide ----------

TEST_F(Table, ATakebackAskedAndAcceptedTakesTheAskersLastMoveBackForEveryone) {
  auto t = seated_table();
  const auto takeback = [&](const std::shared_ptr<FakeConnection>& c, const char* action) {
    send(c, {{"type", "takeback"}, {"room", t.room}, {"action", action}});
  };
  const json start = t.eve->states[t.room];
  takeback(t.ada, "offer");
  EXPECT_EQ(error_code(t.ada), "takeback/nothing") << "no move of hers to take back yet";
  move(t.ada, t.room, kEnding[0]);
  takeback(t.bob, "offer");
  EXPECT_EQ(error_code(t.bob), "takeback/nothing");
  takeback(t.ada, "offer");
  ASSERT_EQ(error_code(t.ada), "");
  const json asked{{"kind", "takeback"}, {"by", 0}, {"moves", 1}, {"accepted", {0}}};
  for (const auto& c : {t.ada, t.bob, t.eve}) EXPECT_EQ(c->states[t.room]["offer"], asked);
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].offer["to"], 0) << "stored";
  takeback(t.ada, "offer");
  EXPECT_EQ(error_code(t.ada), "offer/pending");
  takeback(t.ada, "accept");
  EXPECT_EQ(error_code(t.ada), "takeback/none_asked") << "nobody agrees to their own";
  send(t.bob, {{"type", "draw"}, {"room", t.room}, {"action", "offer"}});
  EXPECT_EQ(error_code(t.bob), "offer/pending") << "one offer at a time";
  takeback(t.eve, "accept");
  EXPECT_EQ(error_code(t.eve), "move/not_a_player");

  const auto v = t.eve->versions[t.room];
  takeback(t.bob, "accept");
  ASSERT_EQ(error_code(t.bob), "");
  EXPECT_EQ(t.eve->versions[t.room], v + 1) << "one version";
  for (const auto& c : {t.ada, t.bob, t.eve}) {
    const json& st = c->states[t.room];
    EXPECT_EQ(st["board"], start["board"]) << "the position before her move";
    EXPECT_EQ(st["to_move"], 0);
    EXPECT_EQ(st["offer"], nullptr);
  }
  EXPECT_EQ(t.ada->states[t.room]["legal_moves"].size(), 64u);
  EXPECT_EQ(t.eve->states[t.room], watched_whole(lobby, t.room));
  EXPECT_TRUE(store.rooms[t.room].room.rounds[0].moves.empty()) << "gone from the store";
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].offer, nullptr);
  move(t.ada, t.room, kEnding[1]);
  EXPECT_EQ(error_code(t.ada), "") << "she plays another move instead";
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].moves.size(), 1u);
}

// Asked after the other has moved, a takeback goes back to the asker's move; a request is
// declined, or lapses with the next move.
TEST_F(Table, ATakebackGoesBackToTheAskersMoveAndIsDeclinedOrLapses) {
  auto t = seated_table();
  const auto takeback = [&](const std::shared_ptr<FakeConnection>& c, const char* action) {
    send(c, {{"type", "takeback"}, {"room", t.room}, {"action", action}});
    return error_code(c);
  };
  move(t.ada, t.room, kEnding[0]);
  const json after_one = t.eve->states[t.room];
  move(t.bob, t.room, kEnding[1]);
  EXPECT_EQ(takeback(t.ada, "offer"), "");
  EXPECT_EQ(t.eve->states[t.room]["offer"]["moves"], 2) << "hers and his since";
  EXPECT_EQ(takeback(t.bob, "decline"), "");
  EXPECT_EQ(t.eve->states[t.room]["offer"], nullptr);
  EXPECT_EQ(takeback(t.bob, "decline"), "takeback/none_asked");
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].moves.size(), 2u) << "declined: nothing goes";
  EXPECT_EQ(takeback(t.bob, "offer"), "");
  EXPECT_EQ(t.eve->states[t.room]["offer"]["moves"], 1);
  move(t.ada, t.room, kEnding[2]);
  EXPECT_EQ(t.eve->states[t.room]["offer"], nullptr) << "her move lapses it";
  EXPECT_EQ(takeback(t.ada, "accept"), "takeback/none_asked");
  EXPECT_EQ(takeback(t.bob, "offer"), "");
  EXPECT_EQ(t.eve->states[t.room]["offer"]["moves"], 2);
  EXPECT_EQ(takeback(t.ada, "accept"), "");
  EXPECT_EQ(t.eve->states[t.room]["board"], after_one["board"]);
  EXPECT_EQ(t.eve->states[t.room]["to_move"], 1);
  EXPECT_EQ(store.rooms[t.room].room.rounds[0].moves.size(), 1u);
}

TEST_F(Table, NoTakebackWithAClockInAGameThatDrawsOrHidesOrOnceOver) {
  auto ada = client("Ada"), bob = client("Bob");
  const auto takeback = [&](const std::shared_ptr<FakeConnection>& c, const std::string& room) {
    send(c, {{"type", "takeback"}, {"room", room}, {"action", "offer"}});
    return error_code(c);
  };
  const std::string timed =
      clocked_table(ada, bob, {{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 0}});
  move(ada, timed, kEnding[0]);
  EXPECT_EQ(takeback(ada, timed), "takeback/timed");

  send(ada, {{"type", "create"}, {"game", "quirky"}, {"options", {{"first", "0"}}}});
  const std::string quirky = ada->take("created").at(0)["room"];
  join(ada, quirky);
  join(bob, quirky);
  move(ada, quirky, ada->states[quirky]["legal_moves"][0]);
  ASSERT_EQ(error_code(ada), "");
  EXPECT_EQ(takeback(ada, quirky), "takeback/not_in_game") << "a piece was drawn from the bag";

  auto t = seated_table();
  play_to_the_end(t.ada, t.bob, t.room);
  EXPECT_EQ(takeback(t.bob, t.room), "move/game_over");
}

// A takeback asked stands across a restart, and one agreed is gone from the rebuilt room.
TEST_F(Table, ATakebackAskedOrAgreedIsKeptAcrossARestart) {
  auto t = seated_table(1);  // spectators one move late: their copy goes back too
  move(t.ada, t.room, kEnding[0]);
  const json after_one = t.ada->states[t.room];
  move(t.bob, t.room, kEnding[1]);
  move(t.ada, t.room, kEnding[2]);
  send(t.bob, {{"type", "takeback"}, {"room", t.room}, {"action", "offer"}});
  const StoredRoom asked = store.rooms[t.room].room;
  send(t.ada, {{"type", "takeback"}, {"room", t.room}, {"action", "accept"}});
  ASSERT_EQ(error_code(t.ada), "");
  const StoredRoom agreed = store.rooms[t.room].room;
  EXPECT_EQ(t.eve->states[t.room], watched_whole(lobby, t.room));
  EXPECT_EQ(t.ada->states[t.room]["board"], after_one["board"]);

  EXPECT_EQ(rebuilt(asked)["offer"],
            (json{{"kind", "takeback"}, {"by", 1}, {"moves", 2}, {"accepted", {1}}}));
  EXPECT_EQ(agreed.rounds[0].moves.size(), 1u);
  const json back = rebuilt(agreed);
  EXPECT_EQ(back["offer"], nullptr);
  EXPECT_EQ(back["to_move"], 1);
}

// ---------- clocks (issue 44): a fake clock, the lobby's flags, no sleeping ----------

TEST_F(Table, ALiveClockRunsFromTheStartAndTheFlagFallsAtZeroForEveryone) {
  Millis now = 1'000'000;
  lobby.use_clock([&now] { return now; });
  std::vector<Millis> wakes;
  lobby.on_deadline([&wakes](Millis at) { wakes.push_back(at); });
  auto ada = client("Ada"), bob = client("Bob"), eve = client("Eve");
  send(ada, {{"type", "create"},
             {"game", "quantik"},
             {"options", {{"first", "0"}}},
             {"clock", {{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 2'000}}}});
  const std::string room = ada->take("created").at(0)["room"];
  join(ada, room);
  join(eve, room, "spectator");
  EXPECT_EQ(eve->states[room]["clock"]["running"], nullptr) << "waiting: no clock runs";
  EXPECT_EQ(lobby.next_deadline(), std::nullopt);
  now += 5'000;
  join(bob, room);
  ASSERT_EQ(eve->states[room]["status"], "playing");
  EXPECT_EQ(eve->states[room]["clock"]["running"], 0);
  EXPECT_EQ(eve->states[room]["clock"]["since"], now);
  EXPECT_EQ(eve->states[room]["clock"]["left_ms"], json({60'000, 60'000}));
  EXPECT_EQ(lobby.next_deadline(), now + 60'000);
  EXPECT_EQ(wakes, std::vector<Millis>{now + 60'000}) << "the server is told to wake then";

  now += 10'000;
  move(ada, room, kEnding[0]);
  EXPECT_EQ(eve->states[room]["clock"]["left_ms"], json({52'000, 60'000}))
      << "10 s spent, 2 s added";
  EXPECT_EQ(eve->states[room]["clock"]["running"], 1);
  EXPECT_EQ(store.moves.back().clock_ms, 52'000) << "stored with the move";
  const Millis flag = now + 60'000;
  EXPECT_EQ(lobby.next_deadline(), flag);
  lobby.expire(flag - 1);
  EXPECT_EQ(eve->states[room]["status"], "playing") << "one millisecond before: still on";
  now = flag;
  lobby.expire(flag);
  for (const auto& c : {ada, bob, eve}) {
    const json& st = c->states[room];
    EXPECT_EQ(st["status"], "over");
    EXPECT_EQ(st["outcome"]["end"], "flagged");
    EXPECT_EQ(st["outcome"]["reason"], "Bob ran out of time");
    EXPECT_EQ(st["outcome"]["winners"], json({0}));
    EXPECT_EQ(st["clock"]["left_ms"], json({52'000, 0}));
    EXPECT_EQ(st["clock"]["running"], nullptr);
  }
  EXPECT_EQ(eve->states[room], watched_whole(lobby, room));
  EXPECT_EQ(store.rooms[room].room.rounds[0].outcome["end"], "flagged");
  EXPECT_EQ(lobby.next_deadline(), std::nullopt);
  move(bob, room, kEnding[1]);
  EXPECT_EQ(error_code(bob), "move/game_over");
}

// A move that comes after the flag fell, before the timer saw to it, does not count: the flag
// falls then, and the mover is told.
TEST_F(Table, AMoveAfterTheFlagIsRefusedAndTheFlagFalls) {
  Millis now = 0;
  lobby.use_clock([&now] { return now; });
  auto ada = client("Ada"), bob = client("Bob");
  const std::string room =
      clocked_table(ada, bob, {{"kind", "live"}, {"base_ms", 1'000}, {"increment_ms", 0}});
  now = 1'000;
  move(ada, room, kEnding[0]);
  EXPECT_EQ(error_code(ada), "move/flagged");
  EXPECT_EQ(bob->states[room]["outcome"]["end"], "flagged");
  EXPECT_EQ(bob->states[room]["outcome"]["winners"], json({1}));
  EXPECT_EQ(bob->states[room]["board"]["last"], nullptr) << "the late move was not played";
}

// Without bots to play for a player whose time runs out, clocks are for two seats.
TEST_F(Table, WithoutBotsClocksAreForTwoSeatsAndTheyMustBeInBounds) {
  auto ada = client("Ada");
  send(ada, {{"type", "create"},
             {"game", "quirky"},
             {"options", {{"players", 3}}},
             {"clock", {{"kind", "correspondence"}, {"days", 3}}}});
  EXPECT_EQ(error_code(ada), "clock/two_seats");
  send(ada, {{"type", "create"},
             {"game", "quantik"},
             {"clock", {{"kind", "live"}, {"base_ms", 10}, {"increment_ms", 0}}}});
  EXPECT_EQ(error_code(ada), "proto/bad_field");
  EXPECT_TRUE(ada->take("created").empty());
}

// After a restart a live clock resumes with the time it had at the last stored change; a
// correspondence deadline is a date, and one that passed while the server was down flags at
// start-up.
TEST_F(Table, ARestartChargesNoDowntimeToALiveClockButACorrespondenceDeadlineStands) {
  Millis now = 0;
  lobby.use_clock([&now] { return now; });
  auto ada = client("Ada"), bob = client("Bob");
  const auto table = [&](const json& clock) {
    const std::string room = clocked_table(ada, bob, clock);
    now += 4'000;
    move(ada, room, kEnding[0]);  // Bob's clock runs from here
    return room;
  };
  const auto live = table({{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 0}});
  const auto mail = table({{"kind", "correspondence"}, {"days", 1}});
  const Millis mail_moved = now;
  now += 30'000;  // Bob thinks, then the server dies

  ManualStore store2;
  std::uint64_t n = 1;
  Lobby lobby2{store2, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; }};
  Millis later = now + 2 * 86'400'000;  // down for two days
  lobby2.use_clock([&later] { return later; });
  for (const auto& [id, player] : store.players) lobby2.restore_player(player);
  std::string why;
  ASSERT_TRUE(lobby2.restore_room(store.rooms[live].room, why)) << why;
  ASSERT_TRUE(lobby2.restore_room(store.rooms[mail].room, why)) << why;
  const json back = watched_whole(lobby2, live);
  EXPECT_EQ(back["clock"]["left_ms"], json({56'000, 60'000}))
      << "Ada's as her move stored it; Bob's whole: his 30 s before the crash are not charged";
  EXPECT_EQ(back["clock"]["running"], 1);
  EXPECT_EQ(back["clock"]["since"], later);
  EXPECT_EQ(lobby2.next_deadline(), mail_moved + 86'400'000) << "the date it always had";
  lobby2.expire(later);
  const json mailed = watched_whole(lobby2, mail);
  EXPECT_EQ(mailed["status"], "over");
  EXPECT_EQ(mailed["outcome"]["reason"], "Bob ran out of time");
  EXPECT_EQ(watched_whole(lobby2, live)["status"], "playing");
  EXPECT_EQ(lobby2.next_deadline(), later + 60'000);
}

// A live clock forgives a mover the network's measured delay, up to --max-lag-credit-ms.
TEST_F(Table, ALiveClockForgivesTheMeasuredLagUpToItsBound) {
  Millis now = 0;
  lobby.use_clock([&now] { return now; });
  auto ada = client("Ada"), bob = client("Bob");
  const std::string room =
      clocked_table(ada, bob, {{"kind", "live"}, {"base_ms", 60'000}, {"increment_ms", 0}});
  ada->lag = 200;
  bob->lag = 5'000;  // a terrible line, or a lie: credited 500 ms at most
  now = 3'000;
  move(ada, room, kEnding[0]);
  EXPECT_EQ(ada->states[room]["clock"]["left_ms"][0], 57'200) << "3 s, 200 ms of it forgiven";
  now = 7'000;
  move(bob, room, kEnding[1]);
  EXPECT_EQ(bob->states[room]["clock"]["left_ms"][1], 56'500) << "4 s, 500 ms of it forgiven";
}

// Nobody holds a game hostage: once the player to move has been gone for the gone time, the
// other may claim the win; before, the state shows when they may.
TEST_F(Table, ThePlayerToMoveGoneTooLongLosesWhenTheOtherClaimsTheWin) {
  Millis now = 0;
  lobby.use_clock([&now] { return now; });
  const auto [ada, bob, eve, room] = seated_table();
  const std::string token = bob->last("welcome")["token"];
  lobby.closed(bob.get());  // Bob's connection drops; Ada is to move
  EXPECT_EQ(eve->states[room]["seats"][1]["connected"], false);
  EXPECT_EQ(eve->states[room]["gone"], nullptr) << "the player to move, Ada, is here";
  send(ada, {{"type", "claim"}, {"room", room}});
  EXPECT_EQ(error_code(ada), "claim/not_gone");
  now = 1'000;
  move(ada, room, kEnding[0]);
  EXPECT_EQ(eve->states[room]["gone"], (json{{"seat", 1}, {"since", 0}, {"claim_at", 60'000}}));
  now = 30'000;
  send(ada, {{"type", "claim"}, {"room", room}});
  const auto early = ada->take("error");
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0]["code"], "claim/not_gone");
  EXPECT_NE(early[0]["message"].get<std::string>().find("30 s more"), std::string::npos)
      << early[0];
  // Bob comes back: the countdown is gone; he drops again, and it starts afresh.
  auto bob2 = client("Bob", token);
  EXPECT_EQ(eve->states[room]["gone"], nullptr);
  now = 40'000;
  lobby.closed(bob2.get());
  EXPECT_EQ(eve->states[room]["gone"]["claim_at"], 100'000);
  now = 99'999;
  send(ada, {{"type", "claim"}, {"room", room}});
  EXPECT_EQ(error_code(ada), "claim/not_gone");
  now = 100'000;
  send(eve, {{"type", "claim"}, {"room", room}});
  EXPECT_EQ(error_code(eve), "move/not_a_player");
  send(ada, {{"type", "claim"}, {"room", room}});
  for (const auto& c : {ada, eve}) {
    EXPECT_EQ(c->states[room]["status"], "over");
    EXPECT_EQ(c->states[room]["outcome"]["end"], "abandoned");
    EXPECT_EQ(c->states[room]["outcome"]["reason"], "Bob left the game");
    EXPECT_EQ(c->states[room]["outcome"]["winners"], json({0}));
    EXPECT_EQ(c->states[room]["gone"], nullptr);
  }
  EXPECT_EQ(eve->states[room], watched_whole(lobby, room));
  EXPECT_EQ(store.rooms[room].room.rounds[0].outcome["end"], "abandoned");
}

TEST_F(Table, ACorrespondenceGamesClockDecidesWhoIsGone) {
  Millis now = 0;
  lobby.use_clock([&now] { return now; });
  auto ada = client("Ada"), bob = client("Bob");
  const std::string room = clocked_table(ada, bob, {{"kind", "correspondence"}, {"days", 1}});
  lobby.closed(bob.get());
  move(ada, room, kEnding[0]);
  EXPECT_EQ(ada->states[room]["gone"], nullptr);
  now = 3'600'000;
  send(ada, {{"type", "claim"}, {"room", room}});
  EXPECT_EQ(error_code(ada), "claim/not_gone");
}

}  // namespace
}  // namespace plateau::server::testing
