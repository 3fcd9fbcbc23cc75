// A cluster of three plateau-server processes on 127.0.0.1 (issue 47), sharing a throwaway
// PostgreSQL and a private redis-server: players on different nodes, spectators on a third,
// a holder killed with SIGKILL under load, a holder paused past its lease, Redis restarted.
#include <signal.h>

#include <array>
#include <regex>
#include <set>

#include "../server/temp_postgres.hpp"
#include "../server/temp_redis.hpp"
#include "client_seat.hpp"
#include "entrant.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

using test::TempPostgres;
using test::TempRedis;

constexpr const char* kLeaseMs =
    "4000";  // renewed every 800 ms: a busy machine's stalls stay under it

struct Cluster {
  std::unique_ptr<TempPostgres> pg;
  std::unique_ptr<TempRedis> redis;
  std::string store;
  std::array<std::unique_ptr<ServerProcess>, 3> nodes;
  std::array<unsigned short, 3> ports{};

  // Starts node i (again); false when it did not come up.
  bool start(int i) {
    if (!nodes[i])
      nodes[i] = std::make_unique<ServerProcess>(
          std::filesystem::path{},
          std::vector<std::string>{"--store", store, "--cluster", redis->uri(), "--lease-ms",
                                   kLeaseMs, "--unload-after", "3600", "--password-memory-kib",
                                   "64", "--password-ops", "1", "--logins-per-minute", "1000",
                                   "--max-held-requests", "40", "--admin-token", kTestAdminToken});
    ports[i] = nodes[i]->start();
    return ports[i] != 0;
  }
  std::string logs() const {
    std::string out;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]) {
        // Its start, and its last lines (where a failure usually is).
        const std::string log = nodes[i]->log();
        out += "--- node " + std::to_string(i) + "\n" +
               (log.size() <= 8000
                    ? log
                    : log.substr(0, 2000) + "\n[...]\n" + log.substr(log.size() - 6000));
      }
    return out;
  }
};

// Call as ASSERT_NO_FATAL_FAILURE(make_cluster(c)).
void make_cluster(Cluster& c) {
  auto pg = TempPostgres::start();
  ASSERT_TRUE(pg.has_value()) << pg.error();
  c.pg = std::move(*pg);
  auto redis = TempRedis::start();
  ASSERT_TRUE(redis.has_value()) << redis.error();
  c.redis = std::move(*redis);
  c.store = c.pg->fresh_database();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c.start(i)) << c.logs();
}

std::string metrics(unsigned short port) { return http_get(port, "/metrics").body; }

// The value of an unlabelled metric in /metrics text (-1 when absent).
double metric(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + name.size() + 2));
}

// A client back on another node with its token: a player joins its seat again (the node
// relays it, or takes the room once its holder's lease is over), a spectator watches again.
// Call as ASSERT_NO_FATAL_FAILURE(...).
void rejoin(unsigned short port, const std::string& token, const std::string& room, bool spectator,
            std::unique_ptr<Seat>& out) {
  std::optional<json> joined;
  // A holder just killed: the node waits for its lease (4 s here) before it takes the room. A
  // holder that stopped answering: the node ends its clients there once it sees it gone, and
  // they connect again, as a browser does.
  for (int attempt = 0; attempt < 4 && !joined; ++attempt) {
    out = connect(port, "again", token);
    out->room = room;
    out->ws.send({{"type", "join"}, {"room", room}, {"as", spectator ? "spectator" : "player"}});
    joined = out->ws.recv_until(
        [](const json& m) { return m["type"] == "joined" || m["type"] == "error"; }, 20s,
        [&](const json& m) { out->take(m); });
  }
  ASSERT_TRUE(joined.has_value());
  ASSERT_EQ((*joined)["type"], "joined") << joined->dump();
  Seat& s = *out;
  ASSERT_TRUE(s.ws.recv_until([&](const json&) { return !s.state.is_null(); }, 10s,
                              [&](const json& m) { s.take(m); }));
}

json without_presence(json st) {
  for (auto& s : st["seats"]) {
    s.erase("connected");
    s.erase("name");
  }
  st.erase("gone");
  return st;
}

// Ann on node `a` makes a table of `game` for two, and sits with Bob on node `b` (Eve, if given,
// watching from before the first move). Call as ASSERT_NO_FATAL_FAILURE(...).
struct Two {
  std::string room;
  std::unique_ptr<Seat> ann, bob, eve;
};
void seat_two(const Cluster& c, int a, int b, const std::string& game, Two& t, int eve = -1) {
  t.ann = connect(c.ports[a], "Ann");
  t.bob = connect(c.ports[b], "Bob");
  t.room = create(*t.ann, game, {{"players", 2}});
  ASSERT_FALSE(t.room.empty());
  if (eve >= 0) {
    t.eve = connect(c.ports[eve], "Eve");
    ASSERT_NO_FATAL_FAILURE(join(*t.eve, t.room, true));
  }
  ASSERT_NO_FATAL_FAILURE(join(*t.ann, t.room));
  ASSERT_NO_FATAL_FAILURE(join(*t.bob, t.room));
  ASSERT_TRUE(t.ann->reach(t.bob->version));
  ASSERT_TRUE(t.bob->reach(t.ann->version));
  if (t.eve) {
    ASSERT_TRUE(t.eve->reach(t.bob->version));
  }
}

// Two players on two nodes and a spectator on the third play every game to the end; the
// spectator's patched copy equals a fresh sync at every step.
TEST(Cluster, PlayersOnTwoNodesAndASpectatorOnTheThirdPlayEveryGame) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  std::uint64_t seed = 7;
  for (const rules::Game* g : rules::all_games()) {
    SCOPED_TRACE(std::string(g->id()));
    Two t;
    ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 1, std::string(g->id()), t, 2));
    ASSERT_NO_FATAL_FAILURE(play_out({t.ann.get(), t.bob.get()}, *t.eve, seed++, true));
  }
  // The lobby of any node lists the rooms held by the others.
  auto visitor = connect(c.ports[2], "Visitor");
  visitor->ws.send({{"type", "rooms"}});
  std::optional<json> list;
  for (int i = 0; i < 30; ++i) {  // the lists are shared once a heartbeat (800 ms here)
    visitor->ws.send({{"type", "rooms"}});
    list = visitor->ws.recv_type("rooms");
    if (list && (*list)["rooms"].size() >= rules::all_games().size()) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(list.has_value());
  EXPECT_GE((*list)["rooms"].size(), rules::all_games().size()) << list->dump();
  // A private table too: never in the public list, but among its players' own tables on
  // every node, with whose turn it is.
  Two p;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 1, "quantik", p));
  p.ann->ws.send({{"type", "create"}, {"game", "quantik"}, {"private", true}});
  const auto made = p.ann->ws.recv_type("created");
  ASSERT_TRUE(made.has_value());
  const std::string secret = (*made)["room"];
  p.bob->room = secret;
  ASSERT_NO_FATAL_FAILURE(join(*p.bob, secret));
  std::optional<json> bobs;
  for (int i = 0; i < 30; ++i) {
    p.bob->ws.send({{"type", "rooms"}});
    bobs = p.bob->ws.recv_type("rooms");
    if (bobs && (*bobs)["mine"].size() >= 2) break;
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(bobs.has_value());
  std::set<std::string> his;
  for (const auto& t : (*bobs)["mine"]) his.insert(t["room"].get<std::string>());
  EXPECT_TRUE(his.contains(secret) && his.contains(p.room))
      << "node 1 lists Bob's tables that node 0 holds: " << bobs->dump();
  for (const auto& t : (*bobs)["rooms"]) EXPECT_NE(t["room"], secret) << "private";
  const auto m0 = metrics(c.ports[0]), m1 = metrics(c.ports[1]), m2 = metrics(c.ports[2]);
  EXPECT_GE(metric(m0, "plateau_cluster_rooms_held"), 1) << m0;
  EXPECT_GT(metric(m0, "plateau_cluster_relayed_in_total"), 0) << m0;
  EXPECT_GT(metric(m1, "plateau_cluster_relayed_out_total"), 0) << m1;
  EXPECT_GT(metric(m2, "plateau_cluster_frames_in_total"), 0) << m2;
  EXPECT_EQ(metric(m1, "plateau_cluster_rooms_held"), 0) << m1;
}

// kill -9 the node holding 50 running games: every acknowledged move is still there, every
// game finishes on the other nodes, and versions go on with no gap.
TEST(Cluster, KillNineTheHolderOfFiftyGamesLosesNoMoveAndTheGamesFinishElsewhere) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  struct Game {
    std::string room;
    std::unique_ptr<Seat> p0, p1;
    json acked;
    std::int64_t version = 0;
  };
  std::vector<Game> games(50);
  rules::Rng pick(47);
  const auto& ids = rules::all_games();
  for (std::size_t i = 0; i < games.size(); ++i) {
    auto& g = games[i];
    g.p0 = connect(c.ports[0], "A" + std::to_string(i));  // node 0 creates: it holds them
    g.p1 = connect(c.ports[1], "B" + std::to_string(i));
    g.room = create(*g.p0, std::string(ids[i % ids.size()]->id()), {{"players", 2}});
    ASSERT_FALSE(g.room.empty());
    ASSERT_NO_FATAL_FAILURE(join(*g.p0, g.room));
    ASSERT_NO_FATAL_FAILURE(join(*g.p1, g.room));
    ASSERT_TRUE(g.p0->reach(g.p1->version));
    const int moves = 1 + static_cast<int>(pick.below(5));
    for (int k = 0; k < moves && g.p0->state["status"] == "playing"; ++k) {
      Seat& m = g.p0->state["to_move"] == 0 ? *g.p0 : *g.p1;
      const auto& legal = m.state["legal_moves"];
      const auto v = m.version;
      m.ws.send({{"type", "move"},
                 {"room", g.room},
                 {"version", v},
                 {"move", legal[pick.below(legal.size())]}});
      ASSERT_TRUE(g.p0->reach(v + 1));
      ASSERT_TRUE(g.p1->reach(v + 1)) << "acknowledged: both saw it";
    }
    g.acked = g.p1->state;
    g.version = g.p1->version;
  }
  EXPECT_EQ(metric(metrics(c.ports[0]), "plateau_cluster_rooms_held"), 50);
  c.nodes[0]->kill(SIGKILL);
  // Node 1 sees node 0's heartbeat go and ends its clients that were in node 0's rooms.
  for (auto& g : games) {
    g.p1->ws.recv_until([](const json&) { return false; }, 100ms);
    if (!g.p1->ws.closed()) g.p1->ws.recv_until([](const json&) { return false; }, 15s);
    EXPECT_TRUE(g.p1->ws.closed()) << "node 1 ended its client of a room held by the dead node";
    g.p0->ws.close();
  }
  for (std::size_t i = 0; i < games.size(); ++i) {
    auto& g = games[i];
    SCOPED_TRACE("room " + g.room);
    std::unique_ptr<Seat> a, b;
    ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[1 + i % 2], g.p0->token, g.room, false, a));
    ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2 - i % 2], g.p1->token, g.room, false, b));
    ASSERT_TRUE(a->reach(b->version));
    ASSERT_TRUE(b->reach(a->version));
    EXPECT_EQ(without_presence(b->state), without_presence(g.acked))
        << "every acknowledged move is there";
    EXPECT_GT(b->version, g.version) << "the new holder starts above every version shown";
    auto eve = connect(c.ports[1 + (i + 1) % 2], "Eve");
    ASSERT_NO_FATAL_FAILURE(join(*eve, g.room, true));
    ASSERT_NO_FATAL_FAILURE(play_out({a.get(), b.get()}, *eve, 100 + i, false));
  }
  const auto m1 = metrics(c.ports[1]), m2 = metrics(c.ports[2]);
  EXPECT_EQ(
      metric(m1, "plateau_cluster_takeovers_total") + metric(m2, "plateau_cluster_takeovers_total"),
      50)
      << m1 << m2;
  EXPECT_GE(metric(m1, "plateau_cluster_peers_lost_total"), 1) << m1;
}

// A holder paused (SIGSTOP) past its lease while another node takes its room and plays on:
// once resumed, it cannot write to the room, and its clients never see their stale moves
// acknowledged.
TEST(Cluster, AStaleHolderPausedPastItsLeaseCannotWrite) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  Two t;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 0, "quantik", t));
  auto& p0 = t.ann;
  auto& p1 = t.bob;
  const auto& room = t.room;
  // The player to move is the one who plays on both sides of the pause.
  const bool swapped = p0->state["to_move"] != 0;
  if (swapped) std::swap(p0, p1);
  const json stale_move = p0->state["legal_moves"][0];
  const json fresh_move = p0->state["legal_moves"].back();
  ASSERT_NE(stale_move, fresh_move);

  ::kill(c.nodes[0]->pid(), SIGSTOP);
  // The mover comes back through node 1, which takes the room once node 0's lease is over.
  std::unique_ptr<Seat> ann;
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[1], p0->token, room, false, ann));
  const auto v = ann->version;
  ann->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", fresh_move}});
  ASSERT_TRUE(ann->reach(v + 1)) << c.logs();

  ::kill(c.nodes[0]->pid(), SIGCONT);
  // The stale holder's client moves at once, as the room it still has in memory allows.
  p0->ws.send({{"type", "move"}, {"room", room}, {"version", p0->version}, {"move", stale_move}});
  const auto stale_version = p0->version;
  p0->ws.recv_until([](const json&) { return false; }, 4s, [&](const json& m) { p0->take(m); });
  EXPECT_EQ(p0->version, stale_version) << "the stale move was never acknowledged";
  // The store has the new holder's move alone, and node 0 let the room go.
  auto watcher = connect(c.ports[2], "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*watcher, room, true));
  EXPECT_EQ(watcher->state["board"], ann->state["board"]);
  EXPECT_EQ(watcher->state, fresh_sync(*watcher));
  const auto m0 = metrics(c.ports[0]);
  EXPECT_EQ(metric(m0, "plateau_cluster_rooms_held"), 0) << m0 << c.logs();
  EXPECT_GE(metric(m0, "plateau_cluster_leases_lost_total"), 1) << m0;
  // And the game goes on at the new holder.
  const auto v2 = ann->version;
  auto bob = std::unique_ptr<Seat>();
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2], p1->token, room, false, bob));
  ASSERT_TRUE(bob->reach(v2));
  // In seat order.
  std::vector<Seat*> seats{ann.get(), bob.get()};
  if (swapped) std::swap(seats[0], seats[1]);
  ASSERT_NO_FATAL_FAILURE(play_out(seats, *watcher, 5, false));
}

// Redis restarted during play: the nodes connect and subscribe again, the clients that were
// relayed are ended and come back, and the game finishes with no version lost.
TEST(Cluster, RedisRestartedDuringPlayNodesReconnectAndClientsResume) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  Two t;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 1, "kwinty", t, 2));
  auto& p0 = t.ann;
  auto& p1 = t.bob;
  auto& eve = t.eve;
  const auto& room = t.room;
  rules::Rng pick(3);
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(p0->reach(eve->version));
    ASSERT_TRUE(p1->reach(eve->version));
    Seat& m = p0->state["to_move"] == 0 ? *p0 : *p1;
    const auto v = m.version;
    m.ws.send({{"type", "move"},
               {"room", room},
               {"version", v},
               {"move", m.state["legal_moves"][pick.below(m.state["legal_moves"].size())]}});
    ASSERT_TRUE(eve->reach(v + 1));
  }
  const json before = eve->state;
  ASSERT_TRUE(c.redis->restart()) << c.redis->log();
  // The relayed clients (Bob on node 1, Eve on node 2) are ended; they come back.
  for (auto* s : {p1.get(), eve.get()}) {
    s->ws.recv_until([](const json&) { return false; }, 8s);
    EXPECT_TRUE(s->ws.closed()) << "a relayed client is ended when Redis drops";
  }
  std::unique_ptr<Seat> bob, watcher;
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[1], p1->token, room, false, bob));
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2], eve->token, room, true, watcher));
  EXPECT_EQ(without_presence(watcher->state), without_presence(before));
  ASSERT_TRUE(p0->reach(watcher->version));
  ASSERT_NO_FATAL_FAILURE(play_out({p0.get(), bob.get()}, *watcher, 11, true));
  for (int i = 1; i < 3; ++i)
    EXPECT_GE(metric(metrics(c.ports[i]), "plateau_cluster_redis_drops_total"), 1);
}

// A spectator's node paused past its heartbeat: the holder counts it gone and lets its
// clients go. When the node wakes, its spectator is ended (and comes back), never left
// connected to a room that no longer feeds it.
TEST(Cluster, ANodeThatWakesAfterBeingCountedGoneEndsItsClientsThere) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  Two t;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 0, "quantik", t, 2));
  auto& eve = t.eve;
  ::kill(c.nodes[2]->pid(), SIGSTOP);
  bool counted = false;
  for (int i = 0; i < 150 && !counted; ++i) {
    counted = metric(metrics(c.ports[0]), "plateau_cluster_peers_lost_total") >= 1;
    if (!counted) std::this_thread::sleep_for(100ms);
  }
  ::kill(c.nodes[2]->pid(), SIGCONT);
  ASSERT_TRUE(counted) << "the holder saw the paused node gone\n" << c.logs();
  eve->ws.recv_until([](const json&) { return false; }, 10s, [&](const json& m) { eve->take(m); });
  EXPECT_TRUE(eve->ws.closed()) << "the woken node ended the client the holder let go";
  std::unique_ptr<Seat> watcher;
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2], eve->token, t.room, true, watcher));
  ASSERT_TRUE(t.ann->reach(watcher->version));
  ASSERT_TRUE(t.bob->reach(watcher->version));
  ASSERT_NO_FATAL_FAILURE(play_out({t.ann.get(), t.bob.get()}, *watcher, 5, true));
}

// How many times a node's public list shows `room`.
int times_listed(Seat& s, const std::string& room) {
  s.ws.send({{"type", "rooms"}});
  const auto list = s.ws.recv_type("rooms");
  if (!list) return -1;
  int n = 0;
  for (const auto& r : (*list)["rooms"])
    if (r.value("room", std::string()) == room) ++n;
  return n;
}

// A node killed with a table waiting for a player: the table stays in every node's list after
// the dead node's own list has expired, and once a player opens it elsewhere, the node that
// took it lists it, once.
TEST(Cluster, ADeadNodesTablesStayListedUntilAnotherNodeTakesThem) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  auto ann = connect(c.ports[0], "Ann");
  const auto room = create(*ann, "quantik", {{"players", 2}});
  ASSERT_FALSE(room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*ann, room));
  auto visitor = connect(c.ports[1], "Visitor");
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    seen = times_listed(*visitor, room) == 1;
    if (!seen) std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(seen) << "node 1 lists node 0's table";
  c.nodes[0]->kill(SIGKILL);
  // Node 0's list expires one lease (4 s) after its last heartbeat; well past that, the table
  // is still listed on both other nodes.
  std::this_thread::sleep_for(7s);
  EXPECT_EQ(times_listed(*visitor, room), 1) << "an orphan, still listed";
  auto other = connect(c.ports[2], "Other");
  EXPECT_EQ(times_listed(*other, room), 1);
  // Bob opens it through node 2, which takes the room; the game starts.
  auto bob = connect(c.ports[2], "Bob");
  std::unique_ptr<Seat> back;
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2], bob->token, room, false, back));
  ASSERT_EQ(back->state["status"], "playing") << back->state.dump();
  bool once = false;
  for (int i = 0; i < 50 && !once; ++i) {
    once = times_listed(*visitor, room) == 1;
    if (!once) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(once) << "listed once, by the node that took it";
  EXPECT_GE(metric(metrics(c.ports[2]), "plateau_cluster_takeovers_total"), 1);
}

// SIGTERM hands the node's rooms over at once: another node takes each at the next request,
// with no wait for a lease to end.
TEST(Cluster, SigtermHandsTheRoomsOverAtOnce) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  Two t;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 1, "quantik", t));
  auto& p0 = t.ann;
  auto& p1 = t.bob;
  const auto& room = t.room;
  EXPECT_EQ(c.nodes[0]->stop(SIGTERM), 0);
  p1->ws.recv_until([](const json&) { return false; }, 3s);
  EXPECT_TRUE(p1->ws.closed()) << "the stopping holder ended the client relayed to it";
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<Seat> ann, bob;
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[2], p0->token, room, false, ann));
  ASSERT_NO_FATAL_FAILURE(rejoin(c.ports[1], p1->token, room, false, bob));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3000ms) << "no wait for the 4 s lease to end";
  auto eve = connect(c.ports[1], "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*eve, room, true));
  ASSERT_NO_FATAL_FAILURE(play_out({ann.get(), bob.get()}, *eve, 1, false));
}

// A lease lookup, a heartbeat, a room's creation or the read of a room taken over, held up in
// the store (here: a row or a table locked by another transaction), holds up nothing else: the
// node's loop goes on with every other room.
TEST(Cluster, ARoundTripHeldUpInTheStoreHoldsUpNoOtherRoom) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  auto cy = connect(c.ports[0], "Cy");
  const std::string held_up = create(*cy, "quantik", {{"players", 2}});  // node 0's
  ASSERT_FALSE(held_up.empty());
  Two t;  // Ann and Bob on node 1, at a table node 1 holds
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 1, 1, "quantik", t));
  std::smatch id;
  const std::string log = c.nodes[1]->log();
  ASSERT_TRUE(std::regex_search(log, id, std::regex("event=cluster_node node=([0-9a-f]+)")));
  const std::string node1 = id[1];

  PGconn* db = PQconnectdb(c.store.c_str());
  ASSERT_EQ(PQstatus(db), CONNECTION_OK) << PQerrorMessage(db);
  const auto exec = [&](const char* sql, std::vector<const char*> params = {}) {
    PGresult* r = PQexecParams(db, sql, static_cast<int>(params.size()), nullptr, params.data(),
                               nullptr, nullptr, 0);
    const auto status = PQresultStatus(r);
    std::string out = PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK ? out : "error";
  };
  // Until node 1 waits on a lock for a statement on `table`.
  const auto waits_on = [&](const std::string& table) {
    const std::string pattern = "%" + table + "%";
    for (int i = 0; i < 100; ++i) {
      // (A transaction reads pg_stat_activity once: its snapshot is cleared before each look.)
      if (exec("SELECT pg_stat_clear_snapshot()") != "error" &&
          exec("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query "
               "LIKE $1",
               {pattern.c_str()}) != "0")
        return true;
      std::this_thread::sleep_for(30ms);
    }
    return false;
  };
  // A move on node 1's own table is taken and broadcast within 3 s.
  const auto moves = [&] {
    // Both first read what is on the way (a move held up earlier may have been broadcast late):
    // the mover moves from the current version.
    for (Seat* s : {t.ann.get(), t.bob.get()})
      s->ws.recv_until([](const json&) { return false; }, 100ms,
                       [&](const json& m) { s->take(m); });
    Seat& mover = t.ann->state["legal_moves"].empty() ? *t.bob : *t.ann;
    Seat& other = &mover == t.ann.get() ? *t.bob : *t.ann;
    if (mover.state["legal_moves"].empty()) return false;
    mover.ws.send({{"type", "move"},
                   {"room", t.room},
                   {"version", mover.version},
                   {"move", mover.state["legal_moves"][0]}});
    return other.reach(mover.version + 1, 3s) && mover.reach(other.version, 3s);
  };

  // 1. Dee asks node 1 for node 0's table: node 1's lookup of its lease waits for the row.
  ASSERT_EQ(exec("BEGIN"), "");
  ASSERT_EQ(exec("SELECT room FROM room_leases WHERE room = $1 FOR UPDATE", {held_up.c_str()}),
            held_up);
  auto dee = connect(c.ports[1], "Dee");
  dee->ws.send({{"type", "join"}, {"room", held_up}, {"as", "spectator"}});
  ASSERT_TRUE(waits_on("room_leases")) << "node 1's lookup is held up on the row";
  // Meanwhile node 1 serves its own table (a lookup on its loop would hold the move until the
  // row is let go).
  const bool moved = moves();
  const auto answered = [](const json& m) { return m["type"] == "joined" || m["type"] == "error"; };
  const bool still_waiting = !dee->ws.recv_until(answered, 50ms).has_value();
  ASSERT_EQ(exec("COMMIT"), "");
  EXPECT_TRUE(moved) << "the move was held up by another room's lookup" << c.logs();
  EXPECT_TRUE(still_waiting) << "Dee heard back before the row was let go";
  // And Dee's request, held in order, goes on once the lookup is back: relayed to node 0.
  const auto joined = dee->ws.recv_until(answered, 10s);
  ASSERT_TRUE(joined.has_value());
  EXPECT_EQ((*joined)["type"], "joined") << joined->dump();

  // 2. Node 1's heartbeat row locked (for less than the rest of its lease: 4 s, renewed every
  // 0.8 s): its next beat waits, and node 1 serves on. A room created there meanwhile is made
  // (its lease goes with its first write, which leaves the heartbeat row alone).
  ASSERT_EQ(exec("BEGIN"), "");
  ASSERT_EQ(exec("SELECT node FROM node_heartbeats WHERE node = $1 FOR UPDATE", {node1.c_str()}),
            node1);
  const bool beat_waits = waits_on("node_heartbeats");
  const bool moved_again = beat_waits && moves();
  auto eve = connect(c.ports[1], "Eve");
  eve->ws.send({{"type", "create"}, {"game", "quantik"}, {"options", {{"players", 2}}}});
  const auto created = eve->ws.recv_until(
      [](const json& m) { return m["type"] == "created" || m["type"] == "error"; }, 3s);
  ASSERT_EQ(exec("COMMIT"), "");
  ASSERT_TRUE(beat_waits) << "node 1's heartbeat is held up on its row";
  EXPECT_TRUE(moved_again) << "the move was held up by the heartbeat" << c.logs();
  EXPECT_TRUE(created && (*created)["type"] == "created")
      << "the room was not made while the heartbeat waited: "
      << (created ? created->dump() : "no answer");
  EXPECT_TRUE(moves()) << "and after it" << c.logs();

  // 3. Node 0 hands its rooms over (SIGTERM), and the chat table is locked: Fay asks node 1 for
  // Cy's table, node 1 takes it over, and its read of the room's rows waits on the lock. Node 1
  // serves its own table meanwhile (that read on its loop would hold the move up).
  ASSERT_EQ(c.nodes[0]->stop(SIGTERM), 0);
  ASSERT_EQ(exec("BEGIN"), "");
  ASSERT_EQ(exec("LOCK TABLE chat IN ACCESS EXCLUSIVE MODE"), "");
  auto fay = connect(c.ports[1], "Fay");
  fay->ws.send({{"type", "join"}, {"room", held_up}, {"as", "spectator"}});
  const bool read_waits = waits_on("chat");
  const bool moved_meanwhile = read_waits && moves();
  const bool fay_waits = !fay->ws.recv_until(answered, 50ms).has_value();
  ASSERT_EQ(exec("COMMIT"), "");
  ASSERT_TRUE(read_waits) << "node 1's read of the room is held up on the table" << c.logs();
  EXPECT_TRUE(moved_meanwhile) << "the move was held up by the read of a room taken over"
                               << c.logs();
  EXPECT_TRUE(fay_waits) << "Fay heard back before the table was let go";
  const auto watching = fay->ws.recv_until(answered, 10s);
  ASSERT_TRUE(watching.has_value());
  EXPECT_EQ((*watching)["type"], "joined") << watching->dump();
  const auto full = fay->ws.recv_until([](const json& m) { return m["type"] == "full"; }, 5s);
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ((*full)["state"]["status"], "waiting") << "Cy's table, read from the store";

  // 4. Gil, made on node 2, says hello to node 1 with his token while the players table is
  // locked: node 1's read of him waits, node 1 serves on, and once the table is let go Gil is
  // welcomed as himself, then answered what he asked for after his hello, in order. What he
  // sends meanwhile waits, up to --max-held-requests (40 here); those past that are refused at
  // once.
  auto gil = connect(c.ports[2], "Gil");
  ASSERT_FALSE(create(*gil, "quantik", {{"players", 2}}).empty());  // Gil is stored
  ASSERT_EQ(exec("BEGIN"), "");
  ASSERT_EQ(exec("LOCK TABLE players IN ACCESS EXCLUSIVE MODE"), "");
  WsClient again;
  ASSERT_EQ(again.connect("127.0.0.1", c.ports[1]), "");
  again.send({{"type", "hello"}, {"name", "Gil"}, {"token", gil->token}});
  constexpr int kSent = 70, kHeld = 40;  // the nodes' --max-held-requests
  for (int i = 0; i < kSent; ++i) again.send({{"type", "rooms"}, {"id", i}});
  const bool player_read_waits = waits_on("players");
  const bool moved_then = player_read_waits && moves();
  // Until the table is let go, Gil hears only the refusals of what did not fit.
  std::vector<int> refused;
  bool answered_early = false;
  while (const auto m = again.recv_until([](const json&) { return true; }, 100ms)) {
    if ((*m)["type"] == "error" && (*m)["code"] == "proto/rate_limited")
      refused.push_back((*m)["id"].get<int>());
    else
      answered_early = true;
  }
  ASSERT_EQ(exec("COMMIT"), "");
  PQfinish(db);
  ASSERT_TRUE(player_read_waits) << "node 1's read of Gil is held up on the table" << c.logs();
  EXPECT_TRUE(moved_then) << "the move was held up by the read of a player" << c.logs();
  EXPECT_FALSE(answered_early) << "Gil heard back before the table was let go";
  std::vector<int> past_the_bound;
  for (int i = kHeld; i < kSent; ++i) past_the_bound.push_back(i);
  EXPECT_EQ(refused, past_the_bound);
  const auto first = again.recv_until([](const json&) { return true; }, 10s);
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ((*first)["type"], "welcome") << first->dump();
  EXPECT_EQ((*first)["token"], gil->token) << "Gil is himself on node 1 (not a new player)";
  for (int i = 0; i < kHeld; ++i) {
    const auto listed = again.recv_until([](const json& m) { return m.contains("id"); }, 5s);
    ASSERT_TRUE(listed.has_value()) << i;
    EXPECT_EQ((*listed)["type"], "rooms") << listed->dump();
    EXPECT_EQ((*listed)["id"], i) << "the requests after the hello, answered after it in order";
  }
}

// A player whose own node went away comes back through another one with the version it holds:
// the holder sends only the patches it missed, as one node would.
TEST(Cluster, APlayerBackThroughAnotherNodeGetsOnlyThePatchesItMissed) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  Two t;
  ASSERT_NO_FATAL_FAILURE(seat_two(c, 0, 1, "quantik", t, 2));
  const auto move = [&](Seat& s) {
    const auto v = s.version;
    s.ws.send(
        {{"type", "move"}, {"room", t.room}, {"version", v}, {"move", s.state["legal_moves"][0]}});
    ASSERT_TRUE(t.eve->reach(v + 1));
    ASSERT_TRUE(t.ann->reach(v + 1));
    ASSERT_TRUE(t.bob->reach(v + 1));
  };
  // Ann (seat 0) is to move once Bob drops.
  if (t.ann->state["to_move"] != 0) {
    ASSERT_NO_FATAL_FAILURE(move(*t.bob));
  }
  const json held = t.bob->state;
  const auto held_version = t.bob->version;
  c.nodes[1]->kill(SIGKILL);  // Bob's node is gone; the room's holder, node 0, is not
  t.bob->ws.close();
  ASSERT_TRUE(
      t.eve->shows([](const json& st) { return st["seats"][1]["connected"] == false; }, 10s));
  const auto v = t.ann->version;
  t.ann->ws.send({{"type", "move"},
                  {"room", t.room},
                  {"version", v},
                  {"move", t.ann->state["legal_moves"][0]}});
  ASSERT_TRUE(t.eve->reach(v + 1));

  Seat back;
  back.room = t.room;
  back.state = held;
  back.version = held_version;
  ASSERT_EQ(back.ws.connect("127.0.0.1", c.ports[2]), "");
  back.ws.send({{"type", "hello"},
                {"name", "Bob"},
                {"token", t.bob->token},
                {"resume", {{t.room, held_version}}}});
  ASSERT_TRUE(back.expect("welcome").has_value());
  back.ws.send({{"type", "join"}, {"room", t.room}, {"as", "player"}, {"version", held_version}});
  std::vector<std::string> types;
  ASSERT_TRUE(back.ws.recv_until([&](const json&) { return back.version >= t.eve->version; }, 10s,
                                 [&](const json& m) {
                                   types.push_back(m.value("type", ""));
                                   back.take(m);
                                 }))
      << "types so far: " << json(types).dump();
  EXPECT_EQ(std::ranges::count(types, "full"), 0) << json(types).dump();
  EXPECT_GE(std::ranges::count(types, "patch"), 1) << json(types).dump();
  EXPECT_EQ(back.state["board"], t.eve->state["board"]);
  EXPECT_EQ(back.state, fresh_sync(back)) << "the patched copy is the state";
}

// Accounts and their sessions are the store's, on every node: an account made on one node
// signs in on another, and a session ended on one is ended on the others at once.
TEST(Cluster, AnAccountMadeOnOneNodeSignsInOnAnotherAndALogoutEndsItEverywhere) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  using boost::beast::http::verb;
  const auto made = http_request(c.ports[0], verb::post, "/api/accounts/register",
                                 json{{"name", "Ada"}, {"password", "correct horse"}}.dump());
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string token = json::parse(made.body)["token"];
  const std::map<std::string, std::string> bearer{{"Authorization", "Bearer " + token}};
  // Node 1 heard of it (a notice through Redis, then a read of the store).
  HttpReply me;
  for (int i = 0; i < 50; ++i) {
    me = http_request(c.ports[1], verb::get, "/api/accounts/me", "", bearer);
    if (me.status == 200) break;
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(json::parse(me.body)["name"], "Ada");
  // The name is taken on every node.
  const auto again = http_request(c.ports[2], verb::post, "/api/accounts/register",
                                  json{{"name", "ada"}, {"password", "another horse"}}.dump());
  EXPECT_EQ(again.status, 409) << again.body;
  // Signed in on node 2's WebSocket, as the account.
  auto ws = std::make_unique<Seat>();
  ASSERT_EQ(ws->ws.connect("127.0.0.1", c.ports[2]), "");
  ws->ws.send({{"type", "hello"}, {"name", "whoever"}, {"token", token}});
  const auto welcome = ws->expect("welcome");
  ASSERT_TRUE(welcome.has_value());
  EXPECT_EQ((*welcome)["account"], "Ada") << welcome->dump();
  // Logged out on node 1: node 2 signs its connection out, and node 0 refuses the token.
  EXPECT_EQ(http_request(c.ports[1], verb::post, "/api/accounts/logout", "{}", bearer).status, 200);
  const auto out = ws->ws.recv_until(
      [](const json& m) { return m.value("code", "") == "account/signed_out"; }, 5s);
  EXPECT_TRUE(out.has_value()) << "node 2 heard that the session ended";
  int status = 0;
  for (int i = 0; i < 50 && status != 401; ++i) {
    status = http_request(c.ports[0], verb::get, "/api/accounts/me", "", bearer).status;
    if (status != 401) std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(status, 401);
  EXPECT_GE(metric(metrics(c.ports[2]), "plateau_cluster_notices_total"), 2);
}

// The node directing the tournaments (its metric says so); -1 if none within `limit`.
int director(Cluster& c, std::chrono::seconds limit, int not_this = -1) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 3; ++i)
      if (i != not_this && c.nodes[i] && !c.nodes[i]->exited() &&
          metric(metrics(c.ports[i]), "plateau_cluster_tournament_director") == 1)
        return i;
    std::this_thread::sleep_for(100ms);
  }
  return -1;
}

// A Swiss of Quantik created by the admin through `port`, with `more` fields (rounds, starts...);
// its id, or "" after a failed expectation.
std::string create_swiss(unsigned short port, const std::string& name, json more) {
  more["name"] = name;
  more["game"] = "quantik";
  more["format"] = "swiss";
  const auto made = http_request(port, boost::beast::http::verb::post, "/api/tournaments/create",
                                 more.dump(), admin_header());
  EXPECT_EQ(made.status, 201) << made.body;
  return made.status == 201 ? json::parse(made.body)["id"].get<std::string>() : "";
}

// A tournament in a cluster: one node directs it, the others send it every change and keep a
// copy for the reads. Created and started through nodes that do not direct it, with players on
// every node; in round 2, with every table under way, the director is killed with SIGKILL:
// another node takes the event over, the tables move to the nodes their players come back
// through, and the event finishes with every game counted once.
TEST(Cluster, ATournamentRunsAcrossTheNodesAndSurvivesTheDeathOfItsDirector) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  using boost::beast::http::verb;
  const int d = director(c, 15s);
  ASSERT_GE(d, 0) << c.logs();
  const int other = (d + 1) % 3, third = (d + 2) % 3;
  const std::string id = create_swiss(c.ports[other], "Cluster Swiss",
                                      json{{"rounds", 2}, {"starts", std::int64_t{1} << 45}});
  ASSERT_FALSE(id.empty()) << c.logs();
  // Anyone else is refused there too, with the director's answer.
  EXPECT_EQ(
      http_request(c.ports[third], verb::post, "/api/tournaments/start", json{{"id", id}}.dump())
          .status,
      401);

  // Two players on a node that does not direct, one on the other, one on the director.
  std::array<std::atomic<unsigned short>, 4> port;
  const std::array<int, 4> on{other, other, third, d};
  for (int i = 0; i < 4; ++i) port[i] = c.ports[on[i]];
  std::atomic<bool> open{false};
  std::vector<std::unique_ptr<Entrant>> players;
  for (int i = 0; i < 4; ++i)
    players.push_back(
        std::make_unique<Entrant>("P" + std::to_string(i), id, port[i], 2000 + i, 2, open));
  std::atomic<unsigned short> read_port{c.ports[third]};  // a copy's reads
  const auto registered =
      wait_for(read_port, id, [](const json& e) { return e["players"].size() == 4; }, 30s);
  ASSERT_EQ(registered["players"].size(), 4u) << registered.dump() << c.logs();
  ASSERT_EQ(http_request(c.ports[other], verb::post, "/api/tournaments/start",
                         json{{"id", id}}.dump(), admin_header())
                .status,
            200);

  const auto second = wait_for(
      read_port, id,
      [](const json& e) {
        // (The copy may still say "registering" for a moment after the start.)
        return e["round"] == 2 || e["status"] == "finished" || e["status"] == "cancelled";
      },
      120s);
  ASSERT_EQ(second["round"], 2) << second.dump() << c.logs();
  const json round_one = second["rounds_played"][0];
  const auto playing = wait_for(
      read_port, id,
      [](const json& e) {
        return e["round"] == 2 &&
               std::ranges::all_of(e["rounds_played"][1]["tables"],
                                   [](const json& t) { return t["status"] == "playing"; });
      },
      30s);
  ASSERT_EQ(playing["round"], 2) << playing.dump();
  std::this_thread::sleep_for(500ms);
  c.nodes[d]->kill(SIGKILL);
  port[3] = c.ports[other];  // the director's player comes back through another node
  open = true;

  const int next = director(c, 20s, d);
  ASSERT_GE(next, 0) << "another node directs the event" << c.logs();
  std::atomic<unsigned short> survivor{c.ports[next]};
  const auto done =
      wait_for(survivor, id, [](const json& e) { return e["status"] == "finished"; }, 180s);
  ASSERT_EQ(done["status"], "finished") << done.dump() << c.logs();
  EXPECT_EQ(done["rounds_played"][0], round_one) << "round 1 is as it was";
  ASSERT_EQ(done["rounds_played"].size(), 2u);
  double total = 0;
  std::set<std::set<std::string>> met;
  for (const auto& r : done["rounds_played"]) {
    ASSERT_EQ(r["tables"].size(), 2u);
    for (const auto& t : r["tables"]) {
      EXPECT_EQ(t["status"], "over");
      EXPECT_EQ(t["forfeit"], json({false, false})) << "everyone came to every game";
      total += t["points"][0].get<double>() + t["points"][1].get<double>();
      EXPECT_TRUE(met.insert({t["seats"][0]["player"].get<std::string>(),
                              t["seats"][1]["player"].get<std::string>()})
                      .second)
          << "a repeat pairing";
      const auto rec =
          http_request(c.ports[next], verb::get,
                       "/api/export?room=" + t["room"].get<std::string>() + "&round=1");
      ASSERT_EQ(rec.status, 200) << rec.body;
      const auto winners = json::parse(rec.body)["result"]["winners"];
      ASSERT_EQ(winners.size(), 1u);
      EXPECT_EQ(t["points"][winners[0].get<int>()], 1.0) << "the stored result is the one counted";
    }
  }
  EXPECT_DOUBLE_EQ(total, 4.0);
  // The copy on the third node agrees with the director.
  const int copy = 3 - d - next;
  std::atomic<unsigned short> copy_port{c.ports[copy]};
  const auto seen =
      wait_for(copy_port, id, [&](const json& e) { return e["status"] == "finished"; }, 10s);
  EXPECT_EQ(seen["standings"], done["standings"]);
  EXPECT_GE(metric(metrics(c.ports[next]), "plateau_cluster_tournament_takeovers_total"), 1);
  for (auto& p : players) {
    EXPECT_TRUE(p->registered());
    EXPECT_GT(p->moves(), 0);
    EXPECT_EQ(p->errors(), std::vector<std::string>{}) << c.logs();
  }
}

// A no-show at a table another node holds (the director died and the table moved): the new
// director reads who sat from the store, scores the forfeit, and the table's holder closes it.
// Runs for over a minute: a no-show is timed in whole minutes, afresh from the takeover.
TEST(Cluster, ANoShowAtATableAnotherNodeHoldsIsForfeitedAndTheTableClosedThere) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  using boost::beast::http::verb;
  const int d = director(c, 15s);
  ASSERT_GE(d, 0) << c.logs();
  const std::string id =
      create_swiss(c.ports[(d + 1) % 3], "No Show",
                   json{{"rounds", 1}, {"no_show_minutes", 1}, {"starts", std::int64_t{1} << 45}});
  ASSERT_FALSE(id.empty()) << c.logs();
  // Ann plays from the director's node; Nick registers elsewhere and never sits down.
  std::atomic<unsigned short> ann_port{c.ports[d]};
  std::atomic<bool> open{false};
  Entrant ann("Ann", id, ann_port, 77, 1, open);
  auto nick = connect(c.ports[(d + 2) % 3], "Nick");
  nick->ws.send({{"type", "tournament"}, {"action", "register"}, {"tournament", id}});
  ASSERT_TRUE(nick->expect("tournament").has_value());
  std::atomic<unsigned short> read_port{c.ports[(d + 1) % 3]};
  ASSERT_EQ(
      wait_for(
          read_port, id, [](const json& e) { return e["players"].size() == 2; }, 30s)["players"]
          .size(),
      2u);
  ASSERT_EQ(http_request(c.ports[d], verb::post, "/api/tournaments/start", json{{"id", id}}.dump(),
                         admin_header())
                .status,
            200);
  // Ann at her seat (stored), Nick nowhere; then the director dies.
  const auto seated = wait_for(
      read_port, id,
      [](const json& e) {
        return e["round"] == 1 && !e["rounds_played"].empty() &&
               e["rounds_played"][0]["tables"][0]["room"] != "" &&
               e["rounds_played"][0]["tables"][0]["status"] == "waiting";
      },
      30s);
  const std::string room = seated["rounds_played"][0]["tables"][0]["room"];
  std::this_thread::sleep_for(1s);  // Ann's join reaches the table
  c.nodes[d]->kill(SIGKILL);
  const int next = director(c, 20s, d);
  ASSERT_GE(next, 0) << c.logs();
  const int holder = 3 - d - next;
  ann_port = c.ports[holder];  // Ann comes back through the node that does not direct
  std::atomic<unsigned short> director_port{c.ports[next]};
  const auto done =
      wait_for(director_port, id, [](const json& e) { return e["status"] == "finished"; }, 120s);
  ASSERT_EQ(done["status"], "finished") << done.dump() << c.logs();
  const auto& table = done["rounds_played"][0]["tables"][0];
  const int ann_seat = table["seats"][0]["name"] == "Ann" ? 0 : 1;
  EXPECT_EQ(table["points"][ann_seat], 1.0) << table.dump();
  EXPECT_EQ(table["points"][1 - ann_seat], 0.0);
  EXPECT_EQ(table["forfeit"][ann_seat], false);
  EXPECT_EQ(table["forfeit"][1 - ann_seat], true);
  // The table is closed where it was held (once the director's word reaches its holder, which
  // may be just after the event reads finished): whoever watched is sent away, and nobody may
  // come in again.
  auto late = connect(c.ports[holder], "Late");
  late->ws.send({{"type", "join"}, {"room", room}, {"as", "spectator"}});
  const auto closed = late->ws.recv_until([](const json& m) { return m["type"] == "error"; }, 10s);
  ASSERT_TRUE(closed.has_value()) << c.logs();
  EXPECT_EQ((*closed)["code"], "room/not_found") << closed->dump();
  auto later = connect(c.ports[holder], "Later");
  later->ws.send({{"type", "join"}, {"room", room}, {"as", "spectator"}});
  const auto refused = later->ws.recv_until(
      [](const json& m) { return m["type"] == "error" || m["type"] == "joined"; }, 10s);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ((*refused)["type"], "error") << refused->dump();
}

// A director paused (SIGSTOP) past its lease while another node takes the tournaments over and
// starts an event on schedule. Woken, the stale director still thinks the event waits to start;
// it must not start it again: no table of its own, no player sent to one. Each player hears of
// one table only, the new director's, and the woken node keeps a copy of the event as written.
TEST(Cluster, AStaleDirectorWokenAfterItsLeaseOpensNoTableOfItsOwn) {
  Cluster c;
  ASSERT_NO_FATAL_FAILURE(make_cluster(c));
  const int d = director(c, 15s);
  ASSERT_GE(d, 0) << c.logs();
  const int a = (d + 1) % 3, b = (d + 2) % 3;
  const std::int64_t starts = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count() +
                              15'000;
  const std::string id =
      create_swiss(c.ports[a], "On Schedule", json{{"rounds", 1}, {"starts", starts}});
  ASSERT_FALSE(id.empty()) << c.logs();
  std::array<std::unique_ptr<Seat>, 2> players{connect(c.ports[a], "Ann"),
                                               connect(c.ports[b], "Bob")};
  for (auto& p : players) {
    p->ws.send({{"type", "tournament"}, {"action", "register"}, {"tournament", id}});
    const auto r = p->expect("tournament");
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ((*r)["registered"], true) << r->dump();
  }
  ::kill(c.nodes[d]->pid(), SIGSTOP);
  const int next = director(c, 20s, d);
  ASSERT_GE(next, 0) << c.logs();
  // The new director starts it on time: one table, and both players are told of it.
  std::string room;
  for (auto& p : players) {
    const auto t = p->ws.recv_until([](const json& m) { return m["type"] == "tournament_table"; },
                                    40s, [](const json&) {});
    ASSERT_TRUE(t.has_value()) << c.logs();
    if (room.empty()) room = (*t)["room"];
    EXPECT_EQ((*t)["room"], room);
  }
  ::kill(c.nodes[d]->pid(), SIGCONT);
  // The woken node ticks, beats, learns it lost the lease and reads the event as written. Any
  // table frame it sent meanwhile would reach the players within these seconds.
  std::atomic<unsigned short> woken{c.ports[d]};
  const auto copy = wait_for(
      woken, id,
      [&](const json& e) {
        return e["status"] == "running" && e["rounds_played"].size() == 1 &&
               e["rounds_played"][0]["tables"][0]["room"] == room;
      },
      15s);
  EXPECT_EQ(copy["rounds_played"][0]["tables"][0]["room"], room) << copy.dump() << c.logs();
  std::this_thread::sleep_for(2s);
  for (auto& p : players) {
    const auto again = p->ws.recv_until(
        [](const json& m) { return m["type"] == "tournament_table"; }, 500ms, [](const json&) {});
    EXPECT_FALSE(again.has_value()) << "told of another table: " << again->dump();
  }
  EXPECT_EQ(metric(metrics(c.ports[d]), "plateau_cluster_tournament_director"), 0);
  EXPECT_EQ(metric(metrics(c.ports[next]), "plateau_cluster_tournament_director"), 1);
}

}  // namespace
}  // namespace plateau::testing
