// Rooms that survive: kill -9 and restart with every acknowledged move (on the SQLite store and
// on PostgreSQL), reconnection by token, and a store that refuses a corrupted or truncated
// database without touching it. Real binary, real sockets, 127.0.0.1.
#include <gtest/gtest.h>

#include <fstream>

#include "client_seat.hpp"
#include "tests/server/temp_postgres.hpp"

namespace plateau::testing {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The state minus what a restart legitimately changes: who is connected (and so who is gone).
json without_presence(json st) {
  for (auto& s : st["seats"]) s.erase("connected");
  st.erase("gone");
  return st;
}

struct Table {
  std::string game, room;
  std::vector<std::unique_ptr<Seat>> players;
  json acked;  // the last state every player had seen, from the first player's copy
};

// Tables of every game at every seat count, played part way; kill -9; every acknowledged move is
// there after the restart, and the players finish their games.
void kill_nine_loses_no_acknowledged_move(ServerProcess& server) {
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  std::vector<Table> tables;
  rules::Rng pick(2024);
  int acknowledged = 0;
  // Three tables of every game at every player count, each played part way.
  for (const rules::Game* g : rules::all_games()) {
    for (int n = g->min_seats(); n <= g->max_seats(); ++n) {
      for (int copy = 0; copy < 3; ++copy) {
        Table t;
        t.game = std::string(g->id());
        for (int i = 0; i < n; ++i) t.players.push_back(connect(port, t.game + std::to_string(i)));
        t.room = create(*t.players[0], t.game, {{"players", n}});
        for (auto& p : t.players) join(*p, t.room);
        for (auto& p : t.players) ASSERT_TRUE(p->reach(t.players.back()->version));
        const int moves = 1 + static_cast<int>(pick.below(6));
        for (int k = 0; k < moves; ++k) {
          auto& any = *t.players[0];
          if (any.state["status"] != "playing") break;
          Seat& m = *t.players[any.state["to_move"].get<int>()];
          const auto& legal = m.state["legal_moves"];
          const auto v = m.version;
          m.ws.send({{"type", "move"},
                     {"room", t.room},
                     {"version", v},
                     {"move", legal[pick.below(legal.size())]}});
          for (auto& p : t.players) ASSERT_TRUE(p->reach(v + 1)) << "acknowledged: everyone saw it";
          ++acknowledged;
        }
        t.acked = t.players[0]->state;
        tables.push_back(std::move(t));
      }
    }
  }
  ASSERT_GT(acknowledged, 30);
  server.kill(SIGKILL);
  for (auto& t : tables)
    for (auto& p : t.players) p->ws.close();

  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  EXPECT_NE(server.log().find("event=recovered rooms=" + std::to_string(tables.size())),
            std::string::npos)
      << server.log();
  for (auto& t : tables) {
    SCOPED_TRACE(t.game + " room " + t.room);
    std::vector<std::unique_ptr<Seat>> back;
    for (auto& p : t.players)
      ASSERT_NO_FATAL_FAILURE(come_back(port, "again", p->token, t.room, back.emplace_back()));
    for (auto& s : back) ASSERT_TRUE(s->reach(back.back()->version));
    json expected = without_presence(t.acked), got = without_presence(back[0]->state);
    for (auto* j : {&expected, &got})
      for (auto& seat : (*j)["seats"]) seat.erase("name");  // the players said hello as "again"
    EXPECT_EQ(got, expected) << "the room came back exactly as acknowledged";
    std::vector<Seat*> ptrs;
    for (auto& s : back) ptrs.push_back(s.get());
    auto watcher = connect(port, "Eve");
    join(*watcher, t.room, true);
    play_out(ptrs, *watcher, 99, false);
  }
  EXPECT_EQ(server.stop(), 0);
}

TEST(Durability, KillNineLosesNoAcknowledgedMoveAndPlayersFinishTheirGames) {
  ServerProcess server;
  kill_nine_loses_no_acknowledged_move(server);
}

// The same on the shared store: a throwaway PostgreSQL server holds the games (--store wins over
// the --data the test server is given).
TEST(Durability, KillNineOnThePostgresStoreLosesNoAcknowledgedMoveEither) {
  auto pg = test::TempPostgres::start();
  ASSERT_TRUE(pg.has_value()) << pg.error();
  ServerProcess server({}, {"--store", (*pg)->fresh_database()});
  kill_nine_loses_no_acknowledged_move(server);
  EXPECT_NE(server.log().find("store=postgresql:///"), std::string::npos) << server.log();
}

// Tables still waiting for players come back too: with nobody seated, with the host alone, and
// with a free seat between two taken ones; then they fill up and their games start.
TEST(Durability, WaitingTablesComeBackWithTheirSeatsAndStartOnceFull) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = connect(port, "Ada"), cy = connect(port, "Cy");
  const auto empty = create(*ada, "quantik");
  const auto alone = create(*ada, "kwinty");
  ASSERT_NO_FATAL_FAILURE(join(*ada, alone));
  auto dan = connect(port, "Dan");
  const auto gap = create(*cy, "on_top", {{"players", 4}});
  for (auto [who, seat] : {std::pair{cy.get(), 2}, std::pair{dan.get(), 0}}) {
    who->ws.send({{"type", "join"}, {"room", gap}, {"as", "player"}, {"seat", seat}});
    const auto joined = who->expect("joined");
    ASSERT_TRUE(joined.has_value());
    EXPECT_EQ((*joined)["seat"], seat);
  }
  server.kill(SIGKILL);

  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  EXPECT_NE(server.log().find("event=recovered rooms=3 quarantined=0"), std::string::npos)
      << server.log();
  auto lobby = connect(port, "Lee");
  lobby->ws.send({{"type", "rooms"}});
  const auto listed = lobby->ws.recv_type("rooms");
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ((*listed)["total"], 3) << listed->dump();
  for (const auto& r : (*listed)["rooms"]) EXPECT_EQ(r["status"], "waiting") << r.dump();

  // The host is back at her seat by her token alone, and the game starts when Bob sits.
  std::unique_ptr<Seat> ada2;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "Ada", ada->token, alone, ada2));
  auto bob = connect(port, "Bob");
  ASSERT_NO_FATAL_FAILURE(join(*bob, alone));
  EXPECT_EQ(bob->state["status"], "playing");
  EXPECT_EQ(bob->state["seats"][0]["name"], "Ada");
  EXPECT_EQ(bob->state["you"], 1);

  // The empty table seats its first two players.
  auto p = connect(port, "P"), q = connect(port, "Q");
  ASSERT_NO_FATAL_FAILURE(join(*p, empty));
  ASSERT_NO_FATAL_FAILURE(join(*q, empty));
  EXPECT_EQ(q->state["status"], "playing");
  EXPECT_EQ(q->state["you"], 1);

  // Seats 1 and 3 of On Top were free: the next two players get them, and the game starts.
  auto e = connect(port, "E"), f = connect(port, "F");
  ASSERT_NO_FATAL_FAILURE(join(*e, gap));
  ASSERT_NO_FATAL_FAILURE(join(*f, gap));
  EXPECT_EQ(e->state["you"], 1);
  EXPECT_EQ(f->state["you"], 3);
  ASSERT_TRUE(e->reach(f->version));
  EXPECT_EQ(e->state["status"], "playing");
  std::vector<std::string> names;
  for (const auto& seat : e->state["seats"]) names.push_back(seat["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"Dan", "E", "Cy", "F"}));
}

// A table whose game just ended comes back too, with its final board, and its players can
// still play their rematch; the rematch's moves survive the next kill -9 in turn.
TEST(Durability, AFinishedTableComesBackAndItsRematchIsPlayed) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  testing::Table t;  // the shared one (client_seat.hpp), not this file's
  ASSERT_NO_FATAL_FAILURE(open_table(port, "quantik", 2, t));
  ASSERT_NO_FATAL_FAILURE(play_out(t.players(), *t.eve, 5, false));
  // Seat 0 asks for the next round and seat 1 drops (shown away at once: no grace here). Both
  // are versions the spectator sees; the restart must keep the request and start above them.
  t.seats[0]->ws.send({{"type", "rematch"}, {"room", t.room}});
  ASSERT_TRUE(t.eve->shows([&](const json& st) { return st["rematch"] == json({0}); }));
  t.seats[1]->ws.close();
  ASSERT_TRUE(t.eve->shows([&](const json& st) { return st["seats"][1]["connected"] == false; }));
  const json final_state = without_presence(t.eve->state);
  const auto last_shown = t.eve->version;
  server.kill(SIGKILL);

  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  EXPECT_NE(server.log().find("event=recovered rooms=1 quarantined=0"), std::string::npos)
      << server.log();
  // Before the players are back, whose return takes versions of its own.
  auto eve = connect(port, "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*eve, t.room, true));
  EXPECT_EQ(without_presence(eve->state), final_state) << "the rematch request included";
  EXPECT_EQ(eve->state["status"], "over");
  EXPECT_GT(eve->version, last_shown) << "a rebuilt room starts above every version it showed";
  std::vector<std::unique_ptr<Seat>> back;
  for (const auto& p : t.seats)
    ASSERT_NO_FATAL_FAILURE(come_back(port, "again", p->token, t.room, back.emplace_back()));

  // Seat 0 asked before the restart: seat 1's request starts the next round.
  back[1]->ws.send({{"type", "rematch"}, {"room", t.room}});
  for (auto& s : back) ASSERT_TRUE(s->shows([&](const json& st) { return st["round"] == 2; }));
  ASSERT_TRUE(eve->reach(back[1]->version));
  EXPECT_EQ(eve->state["status"], "playing");
  auto& mover = *back[eve->state["to_move"].get<int>()];
  ASSERT_TRUE(mover.reach(eve->version));
  const auto v = mover.version;
  mover.ws.send({{"type", "move"},
                 {"room", t.room},
                 {"version", v},
                 {"move", mover.state["legal_moves"][0]}});
  ASSERT_TRUE(eve->reach(v + 1));
  const json after_move = without_presence(eve->state);
  server.kill(SIGKILL);

  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto eve2 = connect(port, "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*eve2, t.room, true));
  EXPECT_EQ(eve2->state["round"], 2);
  EXPECT_EQ(eve2->state["board"], after_move["board"]) << "the rematch's move survived";
}

// A server started, and on it Ada and Bob at a Quantik table that seat `first` starts, Eve
// watching, every copy at the same version. Call as ASSERT_NO_FATAL_FAILURE(quantik_for_two(...)).
struct ForTwo {
  std::unique_ptr<Seat> ada, bob, eve;
  std::string room;
  unsigned short port = 0;
};
void quantik_for_two(ServerProcess& server, const char* first, ForTwo& t) {
  t.port = server.start();
  ASSERT_NE(t.port, 0);
  const auto port = t.port;
  t.ada = connect(port, "Ada");
  t.bob = connect(port, "Bob");
  t.eve = connect(port, "Eve");
  t.room = create(*t.ada, "quantik", {{"first", first}});
  ASSERT_FALSE(t.room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*t.ada, t.room));
  ASSERT_NO_FATAL_FAILURE(join(*t.bob, t.room));
  ASSERT_NO_FATAL_FAILURE(join(*t.eve, t.room, true));
  ASSERT_TRUE(t.eve->reach(t.bob->version));
  ASSERT_TRUE(t.ada->reach(t.bob->version));
}

TEST(Durability, ADroppedPlayerShowsAwayComesBackWithTheTokenAndNobodyElseTakesTheSeat) {
  ServerProcess server;
  ForTwo t;
  ASSERT_NO_FATAL_FAILURE(quantik_for_two(server, "1", t));
  auto& [ada, bob, eve, room, port] = t;
  const std::string token = bob->token;
  bob->ws.close();
  ASSERT_TRUE(eve->shows([&](const json& st) { return st["seats"][1]["connected"] == false; }))
      << "the seat shows disconnected";
  auto mallory = connect(port, "Mallory");
  mallory->ws.send({{"type", "join"}, {"room", room}, {"as", "player"}, {"seat", 1}});
  auto e = mallory->ws.recv_type("error");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["code"], "room/seat_taken");
  std::unique_ptr<Seat> bob2;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "Bob", token, room, bob2));
  EXPECT_EQ(bob2->state["you"], 1);
  ASSERT_TRUE(eve->shows([&](const json& st) { return st["seats"][1]["connected"] == true; }));
  // The whole state he came back to is the room's latest: he may move against it at once.
  const auto v = bob2->version;
  const std::string move = bob2->state["legal_moves"][0];
  bob2->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", move}});
  ASSERT_TRUE(eve->shows([&](const json& st) { return st["board"]["last"] == move; }))
      << "the player resumes";
  EXPECT_EQ(eve->version, v + 1);
}

// What a client held of its room when its connection dropped.
struct Copy {
  std::string room;
  json state;
  std::int64_t version;
};
Copy copy_of(const Seat& s) { return {s.room, s.state, s.version}; }

// A new connection starting from the copy `was` held when it dropped (as the browser does): it
// sends `hello`, then `then` if any, and reads what the room sends up to its `crowd`. Returns
// the types read after the welcome (empty if something timed out).
std::vector<std::string> back_with_copy(unsigned short port, const Copy& was, const json& hello,
                                        const json& then, Seat& back, json& welcome) {
  back.room = was.room;
  back.state = was.state;
  back.version = was.version;
  if (back.ws.connect("127.0.0.1", port) != "") return {};
  back.ws.send(hello);
  const auto w = back.ws.recv_type("welcome");
  if (!w) return {};
  welcome = *w;
  if (!then.is_null()) back.ws.send(then);
  std::vector<std::string> types;
  const auto crowd = back.ws.recv_until([&](const json& m) { return m["type"] == "crowd"; }, 5s,
                                        [&](const json& m) {
                                          types.push_back(m["type"]);
                                          back.take(m);
                                        });
  return crowd ? types : std::vector<std::string>{};
}

// The browser comes back with the copy it held: the hello names its version, and the room sends
// only the versions the seat missed (each written to the store before it went out), no full.
TEST(Durability, ADroppedPlayerBackWithItsVersionGetsOnlyThePatchesItMissed) {
  ServerProcess server;
  ForTwo t;
  ASSERT_NO_FATAL_FAILURE(quantik_for_two(server, "0", t));
  auto& [ada, bob, eve, room, port] = t;
  ada->ws.send(
      {{"type", "move"}, {"room", room}, {"version", ada->version}, {"move", "sphere@a1"}});
  ASSERT_TRUE(bob->reach(ada->version + 1));
  ASSERT_TRUE(ada->reach(bob->version));
  // Ada drops; Bob moves while she is away.
  const Copy held = copy_of(*ada);
  ada->ws.close();
  ASSERT_TRUE(eve->shows([&](const json& st) { return st["seats"][0]["connected"] == false; }));
  ASSERT_TRUE(bob->reach(eve->version));
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", bob->version}, {"move", "cube@d4"}});
  ASSERT_TRUE(eve->reach(bob->version + 1));

  Seat back;
  json welcome;
  const auto types = back_with_copy(port, held,
                                    {{"type", "hello"},
                                     {"name", "Ada"},
                                     {"token", ada->token},
                                     {"resume", {{room, held.version}}}},
                                    nullptr, back, welcome);
  EXPECT_EQ(welcome["tables"], json::array({{{"room", room}, {"seat", 0}}}));
  EXPECT_EQ(types, (std::vector<std::string>{"joined", "patch", "patch", "patch", "crowd"}))
      << "away, Bob's move, back: no whole state";
  EXPECT_EQ(back.state["board"]["last"], "cube@d4");
  ASSERT_TRUE(eve->reach(back.version));
  EXPECT_EQ(eve->state["seats"][0]["connected"], true);
  const json copy = back.state;
  EXPECT_EQ(copy, fresh_sync(back)) << "her patched copy is the state";
  back.ws.send({{"type", "move"},
                {"room", room},
                {"version", back.version},
                {"move", back.state["legal_moves"][0]}});
  ASSERT_TRUE(eve->reach(back.version + 1)) << "she plays on";
}

// A spectator's page watches again from the copy it held: its join names the version, and the
// room sends the patches it kept since a spectator dropped, no full.
TEST(Durability, ADroppedSpectatorBackWithItsVersionGetsOnlyThePatchesItMissed) {
  ServerProcess server;
  ForTwo t;
  ASSERT_NO_FATAL_FAILURE(quantik_for_two(server, "0", t));
  auto& [ada, bob, eve, room, port] = t;
  const Copy held = copy_of(*eve);
  eve->ws.close();
  ASSERT_TRUE(
      ada->ws.recv_until([](const json& m) { return m["type"] == "crowd" && m["spectators"] == 0; },
                         5s, [&](const json& m) { ada->take(m); }));
  ada->ws.send(
      {{"type", "move"}, {"room", room}, {"version", ada->version}, {"move", "sphere@a1"}});
  ASSERT_TRUE(bob->reach(ada->version + 1));
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", bob->version}, {"move", "cube@d4"}});
  ASSERT_TRUE(ada->reach(bob->version + 1));

  Seat back;
  json welcome;
  const auto types = back_with_copy(
      port, held, {{"type", "hello"}, {"name", "Eve"}, {"token", eve->token}},
      {{"type", "join"}, {"room", room}, {"as", "spectator"}, {"version", held.version}}, back,
      welcome);
  EXPECT_EQ(welcome["tables"], json::array()) << "she sits nowhere";
  EXPECT_EQ(types, (std::vector<std::string>{"joined", "patch", "patch", "crowd"}))
      << "both moves: no whole state";
  EXPECT_EQ(back.version, ada->version);
  EXPECT_EQ(back.state["board"]["last"], "cube@d4");
  const json copy = back.state;
  EXPECT_EQ(copy, fresh_sync(back)) << "her patched copy is the state";
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", ada->version}, {"move", "cone@b2"}});
  ASSERT_TRUE(back.shows([](const json& st) { return st["board"]["last"] == "cone@b2"; }))
      << "she watches on";
}

TEST(Durability, ARoomWhoseLogDisagreesWithTheRulesIsQuarantinedNotChanged) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0);
  std::string good, bad;
  {
    auto ada = connect(port, "Ada"), bob = connect(port, "Bob");
    for (auto* room : {&good, &bad}) {
      *room = create(*ada, "quantik", {{"first", "0"}});
      join(*ada, *room);
      join(*bob, *room);
      ASSERT_TRUE(ada->reach(bob->version));
      ada->ws.send(
          {{"type", "move"}, {"room", *room}, {"version", ada->version}, {"move", "cube@a1"}});
      ASSERT_TRUE(bob->reach(ada->version + 1));
      ada->room.clear();
      ada->state = nullptr;
      bob->state = nullptr;
      ada->version = bob->version = 0;
    }
  }
  ASSERT_EQ(server.stop(), 0);
  // Someone edits the log by hand: the move is no longer a legal one.
  const auto db = server.data() / "plateau.db";
  // (A round in play has its moves in the log; `moves` holds them once it ends or is pruned.)
  const std::string sql = "UPDATE move_log SET move = 'cube@z9' WHERE room = '" + bad +
                          "'; UPDATE moves SET move = "
                          "'cube@z9' WHERE room = '" +
                          bad + "';";
  ASSERT_EQ(std::system(("sqlite3 '" + db.string() + "' \"" + sql + "\"").c_str()), 0);
  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  EXPECT_NE(server.log().find("event=room_quarantined room=" + bad), std::string::npos)
      << server.log();
  EXPECT_NE(server.log().find("event=recovered rooms=1 quarantined=1"), std::string::npos)
      << server.log();
  auto eve = connect(port, "Eve");
  eve->ws.send({{"type", "join"}, {"room", bad}, {"as", "spectator"}});
  auto e = eve->ws.recv_type("error");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["code"], "room/not_found") << "a quarantined room is not served";
  join(*eve, good, true);
  EXPECT_EQ(eve->state["board"]["last"], "cube@a1") << "the others are";
  ASSERT_EQ(server.stop(), 0);
  // Its log is kept as it was, for someone to look at.
  const auto moves = [&] {
    std::string out;
    FILE* p = ::popen(("sqlite3 '" + db.string() + "' \"SELECT move FROM move_log WHERE room = '" +
                       bad + "' UNION ALL SELECT move FROM moves WHERE room = '" + bad + "'\"")
                          .c_str(),
                      "r");
    char buf[256];
    while (p && fgets(buf, sizeof buf, p)) out += buf;
    if (p) ::pclose(p);
    return out;
  }();
  EXPECT_EQ(moves, "cube@z9\n");
}

TEST(Durability, ACorruptDatabaseIsRefusedAtStartAndLeftUntouched) {
  ServerProcess server;
  const auto db = server.data() / "plateau.db";
  std::string garbage(64 * 1024, '\0');
  rules::Rng r(5);
  for (auto& c : garbage) c = static_cast<char>(r.below(256));
  std::ofstream(db, std::ios::binary) << garbage;
  EXPECT_EQ(server.start(std::chrono::seconds(10)), 0) << "the server must not start on it";
  EXPECT_EQ(server.stop(), 1) << "a clear failure exit";
  EXPECT_NE(server.log().find("event=store_open_failed"), std::string::npos) << server.log();
  EXPECT_NE(server.log().find("left as it is"), std::string::npos);
  EXPECT_EQ(read_file(db), garbage) << "never overwritten";
}

TEST(Durability, ATruncatedDatabaseIsRefusedAtStartAndLeftUntouched) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0);
  {
    // Enough rows to span many pages.
    std::vector<std::unique_ptr<Seat>> people;
    for (int i = 0; i < 40; ++i) {
      people.push_back(connect(port, "P" + std::to_string(i)));
      create(*people.back(), "quantik");
    }
  }
  ASSERT_EQ(server.stop(), 0);
  const auto db = server.data() / "plateau.db";
  const auto size = std::filesystem::file_size(db);
  ASSERT_GT(size, 8192u);
  std::filesystem::resize_file(db, size / 2 + 100);  // cut through a page
  const auto cut = read_file(db);
  EXPECT_EQ(server.start(std::chrono::seconds(10)), 0);
  EXPECT_EQ(server.stop(), 1);
  EXPECT_NE(server.log().find("event=store_open_failed"), std::string::npos) << server.log();
  EXPECT_EQ(read_file(db), cut) << "never overwritten";
}

}  // namespace
}  // namespace plateau::testing
