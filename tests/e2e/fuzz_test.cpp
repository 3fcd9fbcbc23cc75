// Seeded fuzzing of the real binary over real sockets: clients that send mutated and malformed
// messages among two players who play every game. Whatever comes in, every frame out is JSON
// with a type, every error carries a documented code, every patched copy equals a fresh sync,
// and after kill -9 every room comes back exactly as it was shown, one version up. Mutated game
// records posted to /api/import are refused with a code or replay, and never stop the server.
// Bounded in messages and time; 127.0.0.1 only.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "http_client.hpp"
#include "protocol/errors.hpp"
#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server_process.hpp"
#include "ws_client.hpp"

namespace plateau::testing {
namespace {

using client::WsClient;
using nlohmann::json;
using namespace std::chrono_literals;

// Every game the server offers: the binary under test is built from the same registry.
const std::vector<std::string>& game_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const rules::Game* g : rules::all_games()) out.emplace_back(g->id());
    return out;
  }();
  return ids;
}

struct Rng {
  std::mt19937_64 gen;
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(gen() % n); }
  bool chance(double p) { return static_cast<double>(gen() % 1'000'000) < p * 1'000'000; }
  template <class C>
  const auto& pick(const C& c) {
    return c[below(c.size())];
  }
};

// What every frame the server sends must be: JSON with a type, and an error with a documented
// code and a message.
struct FrameCheck {
  std::set<std::string> codes;  // the documented ones
  std::map<std::string, int> seen;
  std::vector<std::string> problems;
  FrameCheck() {
    for (int c = 0; c <= static_cast<int>(protocol::Code::internal); ++c)
      codes.emplace(protocol::code_string(static_cast<protocol::Code>(c)));
  }
  void operator()(const json& m) {
    if (m.is_discarded() || !m.is_object() || !m.contains("type") || !m["type"].is_string()) {
      problems.push_back("a frame that is not a typed JSON object: " + m.dump().substr(0, 200));
      return;
    }
    if (m["type"] != "error") return;
    const std::string code =
        m.value("code", json()).is_string() ? m["code"].get<std::string>() : "";
    if (!codes.contains(code) || code == "server/internal" || !m.contains("message") ||
        !m["message"].is_string() || m["message"].get<std::string>().empty())
      problems.push_back("an error without a documented code and a message: " +
                         m.dump().substr(0, 200));
    ++seen[code];
  }
};

// A client keeping a copy of every room it gets frames for, as a browser does for one.
struct Player {
  std::unique_ptr<WsClient> ws = std::make_unique<WsClient>();
  std::string token;
  struct Copy {
    std::int64_t version = 0;
    json state;
  };
  std::map<std::string, Copy> copies;
  int synced = 0;                  // copies found equal to a fresh full state
  int resumed = 0;                 // rooms a reconnection brought up to date by patches alone
  std::set<std::string> rejoined;  // rooms whose `joined` came, and nothing since
  std::vector<std::string> problems;

  void take(const json& m) {
    if (!m.is_object() || !m.contains("room") || !m["room"].is_string()) return;
    const std::string room = m["room"];
    if (m["type"] == "joined")
      rejoined.insert(room);
    else if (rejoined.erase(room) && m["type"] == "patch")
      ++resumed;
    if (m["type"] == "full") {
      auto& c = copies[room];
      if (m.value("id", json()) == "check" && c.version == m["version"] && c.state != m["state"])
        problems.push_back("room " + room + " v" + std::to_string(c.version) +
                           ": the patched copy differs from a sync");
      else if (m.value("id", json()) == "check" && c.version == m["version"])
        ++synced;
      c = {m["version"], m["state"]};
    } else if (m["type"] == "patch" && copies.contains(room)) {
      auto& c = copies[room];
      const std::int64_t v = m["version"];
      if (v <= c.version) return;
      if (v != c.version + 1) {
        problems.push_back("room " + room + ": version " + std::to_string(v) + " after " +
                           std::to_string(c.version));
        return;
      }
      auto next = protocol::apply_patch(c.state, m["ops"]);
      if (!next) {
        problems.push_back("room " + room +
                           ": a patch that does not apply: " + m.dump().substr(0, 200));
        return;
      }
      c = {v, std::move(*next)};
    }
  }
};

json weird(Rng& rng) {
  static const std::vector<json> values{nullptr,
                                        true,
                                        false,
                                        0,
                                        -1,
                                        1,
                                        json(std::numeric_limits<std::int64_t>::max()),
                                        json(std::numeric_limits<std::int64_t>::min()),
                                        json(std::numeric_limits<std::uint64_t>::max()),
                                        1.5,
                                        -0.0,
                                        1e308,
                                        "",
                                        "x",
                                        "é",
                                        "\u202e",
                                        std::string(1, '\0'),
                                        std::string(600, 'a'),
                                        json::array(),
                                        json::array({1, 2}),
                                        json::object(),
                                        json{{"a", 1}},
                                        "quantik",
                                        "player",
                                        "spectator",
                                        "1",
                                        " 1",
                                        "cube@c3",
                                        "../../etc",
                                        json::array({json::array()})};
  return rng.pick(values);
}

json mutate(json m, Rng& rng, const std::vector<std::string>& rooms,
            const std::vector<std::string>& moves) {
  static const std::vector<std::string> keys{
      "type", "room",   "version", "move",    "seat",
      "as",   "id",     "token",   "name",    "options",
      "game", "offset", "limit",   "private", "spectator_delay",
      "zz"};
  for (std::size_t n = 1 + rng.below(3); n > 0; --n) {
    std::vector<std::string> present;
    for (const auto& [k, v] : m.items()) present.push_back(k);
    const auto r = rng.below(100);
    if (r < 35 && !present.empty())
      m[rng.pick(present)] = weird(rng);
    else if (r < 50 && !present.empty())
      m.erase(rng.pick(present));
    else if (r < 65)
      m[rng.pick(keys)] = weird(rng);
    else if (r < 80 && !rooms.empty())
      m["room"] = rng.pick(rooms);
    else if (!moves.empty())
      m["move"] = rng.pick(moves);
  }
  return m;
}

std::string garbage(Rng& rng) {
  switch (rng.below(5)) {
    case 0:
      return std::string(rng.below(200), '[') + std::string(rng.below(200), ']');
    case 1:
      return R"({"type":"hello","name":")" + std::string(rng.below(70'000), 'x') + R"("})";
    case 2:
      return R"({"type":"move","room":"zz","version":1e999,"move":"a"})";
    case 3:
      return R"({"type":"rooms","limit":)" + std::string(rng.chance(0.5) ? "1e30" : "-1") + "}";
    default: {
      std::string s;
      for (std::size_t i = rng.below(100); i > 0; --i) s += static_cast<char>(32 + rng.below(95));
      return s;
    }
  }
}

// Every room a fresh spectator is shown: its version and its state without who is connected
// (nor who is gone, which follows from it).
std::map<std::string, std::pair<std::int64_t, json>> snapshot(
    unsigned short port, const std::vector<std::string>& rooms) {
  std::map<std::string, std::pair<std::int64_t, json>> out;
  WsClient ws;
  EXPECT_EQ(ws.connect("127.0.0.1", port), "");
  ws.send({{"type", "hello"}, {"name", "Snap"}});
  EXPECT_TRUE(ws.recv_type("welcome"));
  for (const auto& room : rooms) {
    ws.send({{"type", "join"}, {"room", room}, {"as", "spectator"}});
    auto f = ws.recv_until([&](const json& m) {
      return (m["type"] == "full" && m["room"] == room) || m["type"] == "error";
    });
    EXPECT_TRUE(f && (*f)["type"] == "full") << room << ": " << (f ? f->dump() : "nothing");
    if (!f || (*f)["type"] != "full") continue;
    json st = (*f)["state"];
    for (auto& s : st["seats"]) s.erase("connected");
    st.erase("gone");
    out[room] = {(*f)["version"].get<std::int64_t>(), st};
    ws.send({{"type", "leave"}, {"room", room}});
  }
  return out;
}

class Fuzz : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(Fuzz, BadInputNeverHurtsTheGamesAndEveryRoomSurvivesAKill) {
  Rng rng{std::mt19937_64(GetParam())};
  ServerProcess server;  // --grace 0: a dropped player shows away at once
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  FrameCheck check;

  Player pa, pb, pv;  // Ada and Bob play; Vic watches every table
  bool vic_away = false;
  for (auto* p : {&pa, &pb, &pv}) {
    ASSERT_EQ(p->ws->connect("127.0.0.1", port), "");
    p->ws->send({{"type", "hello"}, {"name", p == &pa ? "Ada" : p == &pb ? "Bob" : "Vic"}});
    auto w = p->ws->recv_type("welcome");
    ASSERT_TRUE(w);
    p->token = (*w)["token"];
  }
  std::vector<std::string> rooms;
  std::vector<std::string> moves{"cube@c3", "a1"};
  auto pump = [&](WsClient& ws, Player* p, std::chrono::milliseconds wait) {
    while (auto m = ws.recv(wait)) {
      wait = 1ms;
      check(*m);
      if (!m->is_object()) continue;
      if (p) p->take(*m);
      if ((*m)["type"] == "created") {
        // The players sit at every table Ada opens and at some of the others (private ones,
        // delayed ones).
        const std::string room = (*m)["room"];
        rooms.push_back(room);
        if (!vic_away) pv.ws->send({{"type", "join"}, {"room", room}, {"as", "spectator"}});
        if (p == &pa || rng.chance(0.3)) {
          pa.ws->send({{"type", "join"}, {"room", room}, {"as", "player"}});
          pb.ws->send({{"type", "join"}, {"room", room}, {"as", "player"}});
        }
      }
      if (m->contains("state") && (*m)["state"].is_object())
        for (const auto& mv : (*m)["state"].value("legal_moves", json::array()))
          if (mv.is_string() && moves.size() < 400) moves.push_back(mv);
    }
  };

  std::vector<std::unique_ptr<WsClient>> chaos;
  // About 10 s of chaos, or more while too little has been played to check what the test checks
  // below (a machine busy with other work, or the sanitizer build, gets through fewer rounds in
  // 10 s), never more than 90 s.
  const auto start = std::chrono::steady_clock::now();
  const auto enough = [&] {
    int ended = 0;
    for (const auto& [room, copy] : pa.copies)
      ended += copy.state.value("status", "") == "over" || copy.state.value("round", 1) != 1;
    return rooms.size() >= 5 && pa.synced + pb.synced >= 20 && ended >= 2;
  };
  const auto go_on = [&] {
    const auto spent = std::chrono::steady_clock::now() - start;
    return spent < 10s || (spent < 90s && !enough());
  };
  int sent = 0, played = 0, reconnects = 0;
  int vic_back_at = 0;  // the round Vic comes back at, while he is away
  for (int round = 0; round < 1200 && go_on(); ++round) {
    // Four clients that send anything; one closed for what it sent is replaced.
    std::erase_if(chaos, [](const auto& c) { return c->closed(); });
    while (chaos.size() < 4) {
      auto c = std::make_unique<WsClient>();
      ASSERT_EQ(c->connect("127.0.0.1", port), "") << "the server still takes connections";
      if (rng.chance(0.9))
        c->send({{"type", "hello"}, {"name", "c" + std::to_string(rng.below(1000))}});
      chaos.push_back(std::move(c));
    }
    auto& c = *chaos[rng.below(chaos.size())];
    const std::string some_room = rooms.empty() ? "zz" : rng.pick(rooms);
    const std::vector<json> base{
        {{"type", "create"}, {"game", rng.pick(game_ids())}, {"id", rng.below(100)}},
        {{"type", "create"},
         {"game", rng.pick(game_ids())},
         {"private", rng.chance(0.5)},
         {"spectator_delay", rng.below(3)}},
        {{"type", "join"}, {"room", some_room}, {"as", rng.chance(0.5) ? "player" : "spectator"}},
        {{"type", "move"},
         {"room", some_room},
         {"version", rng.below(30)},
         {"move", rng.pick(moves)}},
        {{"type", "sync"}, {"room", some_room}},
        {{"type", "leave"}, {"room", some_room}},
        {{"type", "rooms"}, {"offset", rng.below(5)}, {"limit", rng.below(50)}},
        {{"type", "rematch"}, {"room", some_room}},
    };
    const auto r = rng.below(100);
    if (r < 45)
      c.send(rng.pick(base));
    else if (r < 90)
      c.send(mutate(rng.pick(base), rng, rooms, moves));
    else
      c.send_text(garbage(rng));
    ++sent;
    pump(c, nullptr, 3ms);
    for (auto& other : chaos)
      if (other.get() != &c) pump(*other, nullptr, 0ms);

    // The players: legal moves mostly, some stale, out of turn or mangled; rematches; Bob
    // drops now and then and comes back with his token.
    if (rng.chance(0.015)) pa.ws->send({{"type", "create"}, {"game", rng.pick(game_ids())}});
    for (auto* p : {&pa, &pb}) {
      if (p->copies.empty()) continue;
      // One of its rooms a turn, as a player with several tables open would.
      // Mostly the same few, so that games end and rematches start.
      const auto n =
          rng.chance(0.7) ? std::min<std::size_t>(3, p->copies.size()) : p->copies.size();
      const auto at = std::next(p->copies.begin(), static_cast<std::ptrdiff_t>(rng.below(n)));
      {
        const auto& [room, copy] = *at;
        const auto& legal = copy.state.value("legal_moves", json::array());
        if (copy.state.value("status", "") == "over" && rng.chance(0.2))
          p->ws->send({{"type", "rematch"}, {"room", room}});
        if (legal.empty()) continue;
        json mv{{"type", "move"},
                {"room", room},
                {"version", copy.version},
                {"move", legal[rng.below(legal.size())]}};
        const auto q = rng.below(100);
        if (q < 8)
          mv["version"] = copy.version - 1 - static_cast<std::int64_t>(rng.below(3));
        else if (q < 12)
          mv["move"] = mv["move"].get<std::string>() + "x";
        else if (q < 16)
          mv = mutate(mv, rng, rooms, moves);
        (q >= 16 && q < 20 ? (p == &pa ? pb : pa) : *p).ws->send(mv);
        ++played;
        if (rng.chance(0.05)) p->ws->send({{"type", "sync"}, {"room", room}, {"id", "check"}});
      }
    }
    if (rng.chance(0.01)) {
      // Half the time Bob comes back with his copies and names their versions, as the browser
      // does: each room sends only what he missed, or the whole state.
      pb.ws->close();
      json hello{
          {"type", "hello"}, {"name", rng.chance(0.5) ? "Bob" : "Bobby"}, {"token", pb.token}};
      if (rng.chance(0.5)) {
        pb.copies.clear();
      } else {
        hello["resume"] = json::object();
        for (const auto& [room, copy] : pb.copies)
          if (hello["resume"].size() < 32) hello["resume"][room] = copy.version;
      }
      pb.ws = std::make_unique<WsClient>();
      ASSERT_EQ(pb.ws->connect("127.0.0.1", port), "");
      pb.ws->send(hello);
      ++reconnects;
    }
    if (!vic_away && !pv.copies.empty() && rng.chance(0.03)) {
      const auto& room =
          std::next(pv.copies.begin(), static_cast<std::ptrdiff_t>(rng.below(pv.copies.size())))
              ->first;
      pv.ws->send({{"type", "sync"}, {"room", room}, {"id", "check"}});
    }
    // Vic's connection drops too, for a few rounds while the games go on. Then half the time
    // he watches each table again from his copy, naming its version: the room sends what it
    // kept since a spectator dropped, or the whole state.
    if (!vic_away && rng.chance(0.015)) {
      pv.ws->close();
      vic_away = true;
      vic_back_at = round + 5 + static_cast<int>(rng.below(40));
    }
    if (vic_away && round >= vic_back_at) {
      vic_away = false;
      pv.ws = std::make_unique<WsClient>();
      ASSERT_EQ(pv.ws->connect("127.0.0.1", port), "");
      pv.ws->send({{"type", "hello"}, {"name", "Vic"}, {"token", pv.token}});
      const bool with_versions = rng.chance(0.5);
      for (const auto& [room, copy] : pv.copies) {
        json join{{"type", "join"}, {"room", room}, {"as", "spectator"}};
        if (with_versions) join["version"] = copy.version;
        pv.ws->send(join);
      }
      if (!with_versions) pv.copies.clear();
      ++reconnects;
    }
    if (rng.chance(0.01))  // Ada says hello again on the same connection, maybe renamed
      pa.ws->send(
          {{"type", "hello"}, {"name", rng.chance(0.5) ? "Ada" : "Ada L."}, {"token", pa.token}});
    pump(*pa.ws, &pa, 2ms);
    pump(*pb.ws, &pb, 2ms);
    if (!vic_away) pump(*pv.ws, &pv, 1ms);
  }
  // Let everything in flight arrive.
  for (auto& c : chaos) pump(*c, nullptr, 50ms);
  pump(*pa.ws, &pa, 200ms);
  pump(*pb.ws, &pb, 200ms);
  if (!vic_away) pump(*pv.ws, &pv, 200ms);

  for (const auto& p : check.problems) ADD_FAILURE() << p;
  for (auto* p : {&pa, &pb, &pv})
    for (const auto& e : p->problems) ADD_FAILURE() << e;
  std::string codes;
  for (const auto& [code, n] : check.seen) codes += " " + code + "=" + std::to_string(n);
  std::printf(
      "seed %llu: %d chaos messages, %d player moves, %d reconnects (rooms resumed by patches: %d "
      "seated, "
      "%d watched), %zu rooms, %d copies checked (%d watched);%s\n",
      static_cast<unsigned long long>(GetParam()), sent, played, reconnects, pb.resumed, pv.resumed,
      rooms.size(), pa.synced + pb.synced + pv.synced, pv.synced, codes.c_str());
  // Not a vacuous pass: games were played, copies checked, and bad input refused in many ways.
  EXPECT_GE(rooms.size(), 5u);
  EXPECT_GE(pa.synced + pb.synced, 20);
  EXPECT_GE(check.seen.size(), 8u) << codes;
  EXPECT_EQ(http_get(port, "/healthz").status, 200);

  const auto before = snapshot(port, rooms);
  int ended = 0;
  for (const auto& [room, shown] : before)
    ended += shown.second["status"] == "over" || shown.second["round"] != 1;
  std::printf("  %d of %zu rooms had a game end\n", ended, before.size());
  EXPECT_GE(ended, 2) << "games ended, and rematches were asked for";
  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const auto after = snapshot(port, rooms);
  ASSERT_EQ(after.size(), before.size());
  for (const auto& [room, shown] : before) {
    ASSERT_TRUE(after.contains(room)) << room;
    EXPECT_EQ(after.at(room).second, shown.second) << room << ": the state after kill -9";
    EXPECT_EQ(after.at(room).first, shown.first + 1)
        << room << ": one version above the last one shown";
  }
}

// Records of the games that ended, mutated and posted to /api/import: each gets a JSON answer,
// a refusal carries a code, nothing answers 5xx, and what is accepted replays.
TEST_P(Fuzz, MutatedRecordsAreRefusedOrReplayAndTheServerGoesOn) {
  Rng rng{std::mt19937_64(GetParam())};
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "100000"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  std::vector<json> records;
  for (const std::string& game : game_ids()) {
    WsClient a, b;
    for (auto* c : {&a, &b}) {
      ASSERT_EQ(c->connect("127.0.0.1", port), "");
      c->send({{"type", "hello"}, {"name", c == &a ? "Ada" : "Bob"}});
      ASSERT_TRUE(c->recv_type("welcome"));
    }
    a.send({{"type", "create"}, {"game", game}});
    auto created = a.recv_type("created");
    ASSERT_TRUE(created);
    const std::string room = (*created)["room"];
    Player pa, pb;  // only their copies: the clients are a and b
    for (auto* c : {&a, &b}) c->send({{"type", "join"}, {"room", room}, {"as", "player"}});
    for (int turn = 0; turn < 3000; ++turn) {
      for (auto [c, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}}) {
        while (auto m = c->recv(1ms)) p->take(*m);
        if (!p->copies.contains(room)) continue;
        const auto& copy = p->copies[room];
        const auto& legal = copy.state.value("legal_moves", json::array());
        if (!legal.empty())
          c->send({{"type", "move"},
                   {"room", room},
                   {"version", copy.version},
                   {"move", legal[rng.below(legal.size())]}});
      }
      if (pa.copies.contains(room) && pa.copies[room].state["status"] == "over") break;
    }
    ASSERT_EQ(pa.copies[room].state["status"], "over") << game;
    const auto exported = http_get(port, "/api/export?room=" + room + "&round=1");
    ASSERT_EQ(exported.status, 200) << exported.body;
    records.push_back(json::parse(exported.body));
  }
  const std::vector<std::string> keys{"format",  "game",  "options", "seed",
                                      "players", "moves", "result",  "zz"};
  int accepted = 0;
  std::map<std::string, int> codes;
  for (int i = 0; i < 300; ++i) {
    json r = rng.pick(records);
    std::string body;
    if (rng.chance(0.1)) {
      body = r.dump().substr(0, rng.below(300));
    } else {
      for (std::size_t n = 1 + rng.below(3); n > 0; --n) {
        const auto k = rng.below(100);
        auto& moves = r["moves"];
        if (k < 30)
          r[rng.pick(keys)] = weird(rng);
        else if (k < 40)
          r.erase(rng.pick(keys));
        else if (k < 75 && moves.is_array() && !moves.empty()) {
          const auto at = rng.below(moves.size());
          const auto q = rng.below(4);
          if (q == 0)
            moves[at] = weird(rng);
          else if (q == 1)
            moves.erase(at);
          else if (q == 2)
            moves.insert(moves.begin() + static_cast<std::ptrdiff_t>(at),
                         moves[rng.below(moves.size())]);
          else if (moves[at].is_object())
            moves[at][rng.pick(std::vector<std::string>{"seat", "move", "at", "zz"})] = weird(rng);
        } else if (r["options"].is_object()) {
          r["options"]
           [rng.pick(std::vector<std::string>{"players", "first", "variant", "strict", "zz"})] =
               weird(rng);
        }
      }
      body = r.dump(-1, ' ', false, json::error_handler_t::replace);
    }
    const auto answer = import_record(port, body);
    const json j = json::parse(answer.body, nullptr, false);
    ASSERT_TRUE(answer.status != 0 && answer.status < 500)
        << answer.status << " for " << body.substr(0, 300);
    ASSERT_TRUE(j.is_object()) << answer.body;
    if (answer.status == 201) {
      ++accepted;
      const auto replay = http_get(port, "/api/replay?room=" + j["room"].get<std::string>());
      EXPECT_EQ(replay.status, 200) << "an accepted record replays: " << replay.body;
    } else {
      ASSERT_TRUE(j.contains("code") && j["code"].is_string()) << answer.body;
      ++codes[j["code"].get<std::string>()];
    }
  }
  std::string seen;
  for (const auto& [code, n] : codes) seen += " " + code + "=" + std::to_string(n);
  std::printf("seed %llu: 300 records posted, %d accepted;%s\n",
              static_cast<unsigned long long>(GetParam()), accepted, seen.c_str());
  EXPECT_GE(codes.size(), 3u) << seen;
  EXPECT_EQ(http_get(port, "/healthz").status, 200);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Fuzz, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace plateau::testing
