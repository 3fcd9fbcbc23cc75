// A test client that keeps its copy of one room the way a browser does (full, then patches in
// version order), with helpers to create, join, sync and play random games over real sockets.
// Seat runs over ws://; the helpers are templates on the client, so that a wss:// seat
// (tls_support.hpp) runs the very same code.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server_process.hpp"
#include "ws_client.hpp"

namespace plateau::testing {

using client::WsClient;
using nlohmann::json;
using namespace std::chrono_literals;

// A client that keeps its copy of one room the way a browser does.
template <class Ws>
struct BasicSeat {
  // `args` go to the client (a wss:// client takes its TLS context).
  template <class... Args>
  explicit BasicSeat(Args&&... args) : ws(std::forward<Args>(args)...) {}

  Ws ws;
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
    return ws
        .recv_until([&](const json&) { return version >= v; }, timeout,
                    [&](const json& m) { take(m); })
        .has_value();
  }
  // Reads until this client's copy satisfies `shown`.
  bool shows(const std::function<bool(const json& state)>& shown,
             std::chrono::milliseconds timeout = 5s) {
    if (!state.is_null() && shown(state)) return true;
    return ws
        .recv_until([&](const json&) { return !state.is_null() && shown(state); }, timeout,
                    [&](const json& m) { take(m); })
        .has_value();
  }
  std::optional<json> expect(const std::string& type) {
    return ws.recv_until([&](const json& m) { return m["type"] == type; }, 5s,
                         [&](const json& m) { take(m); });
  }
};

using Seat = BasicSeat<WsClient>;

// Connects a seat to 127.0.0.1:port and says hello; the seat keeps the token it is given.
template <class Ws>
void greet(BasicSeat<Ws>& s, unsigned short port, const std::string& name,
           const std::string& token = "") {
  EXPECT_EQ(s.ws.connect("127.0.0.1", port), "");
  json hello{{"type", "hello"}, {"name", name}};
  if (!token.empty()) hello["token"] = token;
  s.ws.send(hello);
  auto w = s.expect("welcome");
  EXPECT_TRUE(w.has_value());
  if (w) s.token = (*w)["token"];
}

inline std::unique_ptr<Seat> connect(unsigned short port, const std::string& name,
                                     const std::string& token = "") {
  auto s = std::make_unique<Seat>();
  greet(*s, port, name, token);
  return s;
}

template <class Ws>
std::string create(BasicSeat<Ws>& s, const std::string& game, json options = json::object()) {
  s.ws.send({{"type", "create"}, {"game", game}, {"options", options}});
  auto c =
      s.ws.recv_until([](const json& m) { return m["type"] == "created" || m["type"] == "error"; });
  EXPECT_TRUE(c && (*c)["type"] == "created") << (c ? c->dump() : "nothing");
  return c && (*c)["type"] == "created" ? (*c)["room"].template get<std::string>() : "";
}

template <class Ws>
void join(BasicSeat<Ws>& s, const std::string& room, bool spectator = false) {
  s.room = room;
  s.ws.send({{"type", "join"}, {"room", room}, {"as", spectator ? "spectator" : "player"}});
  ASSERT_TRUE(s.expect("joined").has_value());
  ASSERT_TRUE(s.ws.recv_until([&](const json&) { return !s.state.is_null(); }, 5s,
                              [&](const json& m) { s.take(m); }));
}

// Ada and Bob at a new table of Quantik, Ada to move first, Ada's copy as new as Bob's. Call as
// ASSERT_NO_FATAL_FAILURE(ada_and_bob(...)).
struct AdaAndBob {
  std::string room;
  std::unique_ptr<Seat> ada, bob;
};
inline void ada_and_bob(unsigned short port, AdaAndBob& t) {
  t.ada = connect(port, "Ada");
  t.bob = connect(port, "Bob");
  t.room = create(*t.ada, "quantik", {{"first", "0"}});
  ASSERT_FALSE(t.room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*t.ada, t.room));
  ASSERT_NO_FATAL_FAILURE(join(*t.bob, t.room));
  ASSERT_TRUE(t.ada->reach(t.bob->version));
}

// A player back with their token: hello alone puts them at their seat in `room` (joined, then
// full). Call as ASSERT_NO_FATAL_FAILURE(come_back(...)).
inline void come_back(unsigned short port, const std::string& name, const std::string& token,
                      const std::string& room, std::unique_ptr<Seat>& out) {
  out = connect(port, name, token);
  out->room = room;
  ASSERT_TRUE(out->expect("joined").has_value()) << "back at the seat by the token alone";
  Seat& s = *out;
  ASSERT_TRUE(s.ws.recv_until([&](const json&) { return !s.state.is_null(); }, 5s,
                              [&](const json& m) { s.take(m); }));
}

template <class Ws>
json fresh_sync(BasicSeat<Ws>& s) {
  s.ws.send({{"type", "sync"}, {"room", s.room}, {"id", "probe"}});
  auto f = s.ws.recv_until(
      [](const json& m) { return m["type"] == "full" && m.value("id", json()) == "probe"; }, 5s,
      [&](const json& m) {
        if (m.value("id", json()) != "probe") s.take(m);
      });
  EXPECT_TRUE(f.has_value());
  return f ? (*f)["state"] : json();
}

// A table of `game` for `n` players P0, P1, ... (P0 creates it) with Eve watching from before
// the first move. Call as ASSERT_NO_FATAL_FAILURE(open_table(...)).
struct Table {
  std::string room;
  std::vector<std::unique_ptr<Seat>> seats;
  std::unique_ptr<Seat> eve;
  std::vector<Seat*> players() const {
    std::vector<Seat*> out;
    for (const auto& s : seats) out.push_back(s.get());
    return out;
  }
};

inline void open_table(unsigned short port, const std::string& game, int n, Table& t) {
  for (int i = 0; i < n; ++i) t.seats.push_back(connect(port, "P" + std::to_string(i)));
  t.eve = connect(port, "Eve");
  t.room = create(*t.seats[0], game, {{"players", n}});
  ASSERT_FALSE(t.room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*t.eve, t.room, true));
  for (auto& s : t.seats) ASSERT_NO_FATAL_FAILURE(join(*s, t.room));
  ASSERT_TRUE(t.eve->reach(t.seats.back()->version));
}

// Plays random legal moves until the game ends; checks every viewer's copy on the way.
template <class Ws>
void play_out(std::vector<BasicSeat<Ws>*> players, BasicSeat<Ws>& spectator, std::uint64_t seed,
              bool check_every_step) {
  rules::Rng pick(seed);
  int moves = 0;
  for (;;) {
    auto& any = *players[0];
    for (auto* p : players) ASSERT_TRUE(p->reach(spectator.version));
    if (any.state["status"] != "playing") break;
    const int mover = any.state["to_move"];
    auto& m = *players[mover];
    const auto& legal = m.state["legal_moves"];
    ASSERT_FALSE(legal.empty());
    const auto v = m.version;
    m.ws.send({{"type", "move"},
               {"room", m.room},
               {"version", v},
               {"move", legal[pick.below(legal.size())]}});
    ASSERT_TRUE(spectator.reach(v + 1)) << "the spectator sees the move";
    for (auto* p : players) ASSERT_TRUE(p->reach(v + 1));
    if (check_every_step || moves % 25 == 0) {
      ASSERT_EQ(spectator.state, fresh_sync(spectator));
    }
    ASSERT_LT(++moves, 5000);
  }
  EXPECT_EQ(spectator.state["status"], "over");
  EXPECT_EQ(spectator.state, fresh_sync(spectator));
  for (auto* p : players)
    EXPECT_EQ(p->state["board"], spectator.state["board"]) << "all see the same final board";
}

// Creates `rooms` rooms from `owner`, so that each "rooms" reply is a few kilobytes, and
// returns the size of one.
template <class Ws>
std::size_t fill_lobby(BasicSeat<Ws>& owner, int rooms) {
  for (int i = 0; i < rooms; ++i) create(owner, "quantik");
  owner.ws.send({{"type", "rooms"}});
  const auto list = owner.ws.recv_type("rooms");
  EXPECT_TRUE(list.has_value());
  return list ? list->dump().size() : 0;
}

// Asks for the room list `n` times without reading a reply, ids 0 to n-1, and returns how many
// requests went out: a client that reads nothing may be dropped by the server before it has
// sent them all (the sooner, the slower the client), and then the rest cannot be sent.
template <class Ws>
int ask_rooms(BasicSeat<Ws>& s, int n) {
  for (int i = 0; i < n; ++i)
    if (!s.ws.send({{"type", "rooms"}, {"id", i}})) return i;
  return n;
}

// `deaf` asks for about 16 MB of replies (each `reply_bytes`) and reads none: past the 8 MB a
// reader may fall behind, it must be cut off at once, not sent its backlog, while `other` is
// still served. `get(path)` reads the server's HTTP endpoints.
template <class Ws>
void expect_slow_reader_cut(BasicSeat<Ws>& deaf, BasicSeat<Ws>& other, std::size_t reply_bytes,
                            const std::function<std::string(const std::string&)>& get) {
  ask_rooms(deaf, static_cast<int>((16u << 20) / reply_bytes));
  // The wait is for the server to build 8 MB of replies: under 1 s normally, 5 to 10 s under
  // ASan, over 40 s under ASan on a 2-core machine busy with other work. "At once" is checked
  // below, by what reaches the client.
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  std::string metrics;
  while (std::chrono::steady_clock::now() < deadline) {
    metrics = get("/metrics");
    if (metrics.find("plateau_slow_readers_dropped_total 1") != std::string::npos) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(metrics.find("plateau_slow_readers_dropped_total 1"), std::string::npos) << metrics;
  other.ws.send({{"type", "rooms"}, {"id", "still"}});
  const auto reply = other.ws.recv_type("rooms");
  ASSERT_TRUE(reply.has_value()) << "the others are still served";
  EXPECT_EQ((*reply)["id"], "still");
  // What the kernel already held still arrives; then the connection ends.
  std::size_t read = 0;
  while (deaf.ws.recv(5s).has_value()) ++read;
  EXPECT_TRUE(deaf.ws.closed()) << "after " << read << " replies";
  EXPECT_LT(read * reply_bytes, 8u << 20) << "the backlog was dropped, not delivered";
  EXPECT_NE(get("/healthz").find(R"("connections":1)"), std::string::npos);
}

}  // namespace plateau::testing
