// End to end over real sockets on 127.0.0.1, against the real server binary (DESIGN.md §5,
// ring 5): whole games with a spectator whose patched copy equals a fresh sync, bad input of
// every kind, and a clean shutdown.
#include <gtest/gtest.h>

#include <fcntl.h>

#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server_process.hpp"
#include "ws_client.hpp"

namespace plateau::testing {
namespace {

using client::WsClient;
using nlohmann::json;
using namespace std::chrono_literals;

// A client that keeps its copy of one room the way a browser does.
struct Seat {
  WsClient ws;
  json state;
  std::int64_t version = 0;
  std::string token;
  std::string room;

  void take(const json& m) {
    if (m["type"] == "full" && m["room"] == room) {
      state = m["state"];
      version = m["version"];
    } else if (m["type"] == "patch" && m["room"] == room && !state.is_null()) {
      if (m["version"].get<std::int64_t>() <= version) return;
      ASSERT_EQ(m["version"].get<std::int64_t>(), version + 1) << "a version was skipped";
      auto next = protocol::apply_patch(state, m["ops"]);
      ASSERT_TRUE(next.has_value()) << m.dump();
      state = *next;
      version = m["version"];
    }
  }
  // Reads until this client has reached version `v`.
  bool reach(std::int64_t v, std::chrono::milliseconds timeout = 5s) {
    if (version >= v) return true;
    return ws.recv_until([&](const json&) { return version >= v; }, timeout, [&](const json& m) { take(m); })
        .has_value();
  }
  std::optional<json> expect(const std::string& type) {
    return ws.recv_until([&](const json& m) { return m["type"] == type; }, 5s, [&](const json& m) { take(m); });
  }
};

std::unique_ptr<Seat> connect(unsigned short port, const std::string& name, const std::string& token = "") {
  auto s = std::make_unique<Seat>();
  EXPECT_EQ(s->ws.connect("127.0.0.1", port), "");
  json hello{{"type", "hello"}, {"name", name}};
  if (!token.empty()) hello["token"] = token;
  s->ws.send(hello);
  auto w = s->expect("welcome");
  EXPECT_TRUE(w.has_value());
  if (w) s->token = (*w)["token"];
  return s;
}

std::string create(Seat& s, const std::string& game, json options = json::object()) {
  s.ws.send({{"type", "create"}, {"game", game}, {"options", options}});
  auto c = s.ws.recv_until([](const json& m) { return m["type"] == "created" || m["type"] == "error"; });
  EXPECT_TRUE(c && (*c)["type"] == "created") << (c ? c->dump() : "nothing");
  return c && (*c)["type"] == "created" ? (*c)["room"].get<std::string>() : "";
}

void join(Seat& s, const std::string& room, bool spectator = false) {
  s.room = room;
  s.ws.send({{"type", "join"}, {"room", room}, {"as", spectator ? "spectator" : "player"}});
  ASSERT_TRUE(s.expect("joined").has_value());
  ASSERT_TRUE(s.ws.recv_until([&](const json&) { return !s.state.is_null(); }, 5s, [&](const json& m) { s.take(m); }));
}

json fresh_sync(Seat& s) {
  s.ws.send({{"type", "sync"}, {"room", s.room}, {"id", "probe"}});
  auto f = s.ws.recv_until([](const json& m) { return m["type"] == "full" && m.value("id", json()) == "probe"; }, 5s,
                           [&](const json& m) {
                             if (m.value("id", json()) != "probe") s.take(m);
                           });
  EXPECT_TRUE(f.has_value());
  return f ? (*f)["state"] : json();
}

class Sockets : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = server_.start();
    ASSERT_NE(port_, 0) << server_.log();
  }
  ServerProcess server_;
  unsigned short port_ = 0;
};

// Plays random legal moves until the game ends; checks every viewer's copy on the way.
void play_out(std::vector<Seat*> players, Seat& spectator, std::uint64_t seed, bool check_every_step) {
  rules::Rng pick(seed);
  int moves = 0;
  for (;;) {
    Seat& any = *players[0];
    for (Seat* p : players) ASSERT_TRUE(p->reach(spectator.version));
    if (any.state["status"] != "playing") break;
    const int mover = any.state["to_move"];
    Seat& m = *players[mover];
    const auto& legal = m.state["legal_moves"];
    ASSERT_FALSE(legal.empty());
    const auto v = m.version;
    m.ws.send({{"type", "move"}, {"room", m.room}, {"version", v}, {"move", legal[pick.below(legal.size())]}});
    ASSERT_TRUE(spectator.reach(v + 1)) << "the spectator sees the move";
    for (Seat* p : players) ASSERT_TRUE(p->reach(v + 1));
    if (check_every_step || moves % 25 == 0) {
      ASSERT_EQ(spectator.state, fresh_sync(spectator));
    }
    ASSERT_LT(++moves, 5000);
  }
  EXPECT_EQ(spectator.state["status"], "over");
  EXPECT_EQ(spectator.state, fresh_sync(spectator));
  for (Seat* p : players) EXPECT_EQ(p->state["board"], spectator.state["board"]) << "all see the same final board";
}

TEST_F(Sockets, TwoPlayersAndASpectatorPlayQuantikToTheEnd) {
  auto ada = connect(port_, "Ada"), bob = connect(port_, "Bob"), eve = connect(port_, "Eve");
  const auto room = create(*ada, "quantik");
  join(*ada, room);
  join(*eve, room, true);
  join(*bob, room);
  ASSERT_TRUE(eve->reach(bob->version));
  play_out({ada.get(), bob.get()}, *eve, 1, true);
  EXPECT_FALSE(eve->state["outcome"]["reason"].get<std::string>().empty());
}

TEST_F(Sockets, RandomGamesOfEveryGameEndWithASpectator) {
  for (const rules::Game* g : rules::all_games()) {
    for (int n = g->min_seats(); n <= g->max_seats(); ++n) {
      SCOPED_TRACE(std::string(g->id()) + " with " + std::to_string(n));
      std::vector<std::unique_ptr<Seat>> seats;
      for (int i = 0; i < n; ++i) seats.push_back(connect(port_, "P" + std::to_string(i)));
      auto eve = connect(port_, "Eve");
      const auto room = create(*seats[0], std::string(g->id()), {{"players", n}});
      join(*eve, room, true);
      std::vector<Seat*> ptrs;
      for (auto& s : seats) {
        join(*s, room);
        ptrs.push_back(s.get());
      }
      ASSERT_TRUE(eve->reach(seats.back()->version));
      play_out(ptrs, *eve, 7 + static_cast<std::uint64_t>(n), false);
    }
  }
}

TEST_F(Sockets, BadInputGetsAStableErrorAndNobodyElseNotices) {
  auto ada = connect(port_, "Ada"), bob = connect(port_, "Bob"), eve = connect(port_, "Eve");
  const auto room = create(*ada, "quantik", {{"first", "0"}});
  join(*ada, room);
  join(*bob, room);
  join(*eve, room, true);
  const auto v = eve->version;
  auto mallory = connect(port_, "Mallory");
  auto expect_error = [&](const std::string& frame, const std::string& code) {
    ASSERT_TRUE(mallory->ws.send_text(frame));
    auto e = mallory->ws.recv_type("error");
    ASSERT_TRUE(e.has_value()) << frame.substr(0, 80);
    EXPECT_EQ((*e)["code"], code) << frame.substr(0, 80);
  };
  expect_error("{not json", "proto/bad_json");
  expect_error("[]", "proto/bad_json");
  expect_error(R"({"type":"teleport"})", "proto/unknown_type");
  expect_error(R"({"type":"move","room":")" + room + R"("})", "proto/bad_field");
  expect_error(R"({"type":"move","room":")" + room + R"(","version":"x","move":"cube@a1"})", "proto/bad_field");
  expect_error(R"({"type":"join","room":"zzzzz","as":"player"})", "room/not_found");
  expect_error(R"({"type":"create","game":"go"})", "room/unknown_game");
  expect_error(R"({"type":"join","room":")" + room + R"(","as":"player"})", "room/full");
  expect_error(R"({"type":"move","room":")" + room + R"(","version":)" + std::to_string(v) + R"(,"move":"cube@a1"})",
               "move/not_a_player");
  expect_error(R"({"type":"hello","name":")" + std::string(100'000, 'x') + R"("})", "proto/too_large");
  expect_error(std::string(1000, '[') + std::string(1000, ']'), "proto/too_deep");
  // Moves by the players themselves.
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@a1"}, {"id", 1}});
  auto e = bob->expect("error");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["code"], "move/not_your_turn");
  EXPECT_EQ((*e)["id"], 1);
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v - 1}, {"move", "cube@a1"}});
  EXPECT_EQ((*ada->expect("error"))["code"], "move/stale_version");
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@z9"}});
  EXPECT_EQ((*ada->expect("error"))["code"], "move/illegal");
  // Nothing changed, the bad client still works, and the game goes on.
  EXPECT_EQ(fresh_sync(*eve)["board"]["last"], nullptr);
  EXPECT_EQ(eve->version, v);
  mallory->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(mallory->ws.recv_type("rooms").has_value());
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@a1"}});
  ASSERT_TRUE(eve->reach(v + 1));
  EXPECT_EQ(eve->state["board"]["last"], "cube@a1");
}

TEST_F(Sockets, AHugeFrameClosesOnlyItsOwnConnection) {
  auto ada = connect(port_, "Ada");
  auto mallory = connect(port_, "Mallory");
  mallory->ws.send_text(std::string(2 << 20, ' '));
  EXPECT_FALSE(mallory->ws.recv_type("rooms", 3s).has_value());
  ada->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(ada->ws.recv_type("rooms").has_value()) << "the server still serves everyone else";
}

TEST_F(Sockets, SigtermTellsClientsAndExitsCleanly) {
  auto ada = connect(port_, "Ada");
  const auto room = create(*ada, "quantik");
  join(*ada, room);
  const auto t0 = std::chrono::steady_clock::now();
  const auto status = server_.stop(SIGTERM);
  ASSERT_TRUE(status.has_value()) << "exits by itself";
  EXPECT_EQ(*status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(ada->expect("announce").has_value()) << "clients are told";
  EXPECT_NE(server_.log().find("event=stopped"), std::string::npos);
}

}  // namespace
}  // namespace plateau::testing
