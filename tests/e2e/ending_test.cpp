// Rounds that end outside the rules, over real sockets against the real binary: a resignation
// and a draw agreed reach every player and spectator, export and replay with their result, and
// come back after kill -9 exactly as they ended; a draw offered comes back while it stands.
// Clocks: a flag falls by the server's timer, with nobody sending anything, and a live clock
// comes back from kill -9 with no time charged for the downtime; the lag a clock forgives is
// measured from each connection's own pongs.
#include <gtest/gtest.h>

#include <thread>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

// Sends `msg` for the seat's room and waits until every copy shows `shown`.
void act(Seat& s, json msg, std::vector<Seat*> all, const std::function<bool(const json&)>& shown) {
  msg["room"] = s.room;
  s.ws.send(msg);
  for (auto* c : all) ASSERT_TRUE(c->shows(shown)) << c->state.dump();
}

// Whether a state shows a draw offered by `seat`.
std::function<bool(const json&)> offered_by(int seat) {
  return [seat](const json& s) { return s["offer"].is_object() && s["offer"]["by"] == seat; };
}

// One move of the seat to move, seen by all.
void one_move(Table& t) {
  Seat& m = *t.seats[t.eve->state["to_move"].get<int>()];
  ASSERT_TRUE(m.reach(t.eve->version));
  const auto v = m.version;
  m.ws.send(
      {{"type", "move"}, {"room", t.room}, {"version", v}, {"move", m.state["legal_moves"][0]}});
  ASSERT_TRUE(t.eve->reach(v + 1));
  for (auto* p : t.players()) ASSERT_TRUE(p->reach(v + 1));
}

TEST(Ending, AResignationAndADrawAgreedReachEveryoneExportAndSurviveKillNine) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();

  // Resigned, after a draw offered and declined.
  Table r;
  ASSERT_NO_FATAL_FAILURE(open_table(port, "quantik", 2, r));
  std::vector<Seat*> all{r.seats[0].get(), r.seats[1].get(), r.eve.get()};
  ASSERT_NO_FATAL_FAILURE(one_move(r));
  ASSERT_NO_FATAL_FAILURE(
      act(*r.seats[0], {{"type", "draw"}, {"action", "offer"}}, all, offered_by(0)));
  ASSERT_NO_FATAL_FAILURE(act(*r.seats[1], {{"type", "draw"}, {"action", "decline"}}, all,
                              [](const json& s) { return s["offer"].is_null(); }));
  ASSERT_NO_FATAL_FAILURE(act(*r.seats[1], {{"type", "resign"}}, all,
                              [](const json& s) { return s["status"] == "over"; }));
  const json resigned = r.eve->state;
  EXPECT_EQ(resigned["outcome"]["end"], "resigned");
  EXPECT_EQ(resigned["outcome"]["winners"], json({0}));
  EXPECT_EQ(resigned["outcome"]["reason"], "P1 resigned");
  EXPECT_EQ(resigned, fresh_sync(*r.eve));
  // Its record and replay carry the result; the last frame shows it over.
  const auto exported = http_get(port, "/api/export?room=" + r.room + "&round=1");
  ASSERT_EQ(exported.status, 200) << exported.body;
  EXPECT_EQ(json::parse(exported.body)["result"], resigned["outcome"]);
  const auto replay = http_get(port, "/api/replay?room=" + r.room);
  ASSERT_EQ(replay.status, 200) << replay.body;
  const json frames = json::parse(replay.body)["frames"];
  ASSERT_EQ(frames.size(), 2u) << "one move: two positions";
  EXPECT_EQ(frames.back()["status"], "over");
  EXPECT_EQ(frames.back()["outcome"], resigned["outcome"]);
  EXPECT_EQ(frames.back()["board"], resigned["board"]);
  EXPECT_EQ(frames.front()["status"], "playing");

  // Agreed drawn.
  Table d;
  ASSERT_NO_FATAL_FAILURE(open_table(port, "kwinty", 2, d));
  std::vector<Seat*> all_d{d.seats[0].get(), d.seats[1].get(), d.eve.get()};
  ASSERT_NO_FATAL_FAILURE(
      act(*d.seats[1], {{"type", "draw"}, {"action", "offer"}}, all_d, offered_by(1)));
  ASSERT_NO_FATAL_FAILURE(act(*d.seats[0], {{"type", "draw"}, {"action", "accept"}}, all_d,
                              [](const json& s) { return s["status"] == "over"; }));
  const json drawn = d.eve->state;
  EXPECT_EQ(drawn["outcome"]["end"], "agreed_draw");
  EXPECT_EQ(drawn["outcome"]["winners"], json::array());

  // An offer standing when the server dies.
  Table o;
  ASSERT_NO_FATAL_FAILURE(open_table(port, "turris", 2, o));
  std::vector<Seat*> all_o{o.seats[0].get(), o.seats[1].get(), o.eve.get()};
  ASSERT_NO_FATAL_FAILURE(one_move(o));
  ASSERT_NO_FATAL_FAILURE(
      act(*o.seats[1], {{"type", "draw"}, {"action", "offer"}}, all_o, offered_by(1)));

  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const auto back = [&](Table& t) {
    auto w = connect(port, "Wil");
    join(*w, t.room, true);
    return w->state;
  };
  const auto same = [](json a, json b) {
    for (auto* j : {&a, &b})
      for (auto& seat : (*j)["seats"]) seat.erase("connected");
    return a == b;
  };
  EXPECT_TRUE(same(back(r), resigned)) << back(r);
  EXPECT_TRUE(same(back(d), drawn)) << back(d);
  const json standing = back(o);
  EXPECT_EQ(standing["status"], "playing");
  EXPECT_EQ(standing["offer"], (json{{"kind", "draw"}, {"by", 1}}));
  // P0 comes back and accepts it.
  std::unique_ptr<Seat> p0;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "P0", o.seats[0]->token, o.room, p0));
  ASSERT_TRUE(p0->shows(offered_by(1)));
  p0->ws.send({{"type", "draw"}, {"room", o.room}, {"action", "accept"}});
  EXPECT_TRUE(p0->shows([](const json& s) {
    return s["outcome"].is_object() && s["outcome"]["end"] == "agreed_draw";
  })) << p0->state;
  EXPECT_EQ(server.stop(), 0);
}

// A table of quantik with a clock, P0 to move first, Eve watching.
void clocked_table(unsigned short port, const json& clock, Table& t) {
  for (int i = 0; i < 2; ++i) t.seats.push_back(connect(port, "P" + std::to_string(i)));
  t.eve = connect(port, "Eve");
  t.seats[0]->ws.send(
      {{"type", "create"}, {"game", "quantik"}, {"options", {{"first", "0"}}}, {"clock", clock}});
  const auto created = t.seats[0]->expect("created");
  ASSERT_TRUE(created.has_value());
  t.room = (*created)["room"];
  ASSERT_NO_FATAL_FAILURE(join(*t.eve, t.room, true));
  for (auto& s : t.seats) ASSERT_NO_FATAL_FAILURE(join(*s, t.room));
  ASSERT_TRUE(t.eve->reach(t.seats.back()->version));
}

TEST(Clock, AFlagFallsByTheServersTimerAndALiveClockSurvivesKillNineUncharged) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();

  // Nobody moves: the flag falls with no message from anyone.
  Table f;
  ASSERT_NO_FATAL_FAILURE(
      clocked_table(port, {{"kind", "live"}, {"base_ms", 1'000}, {"increment_ms", 0}}, f));
  const auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(f.eve->state["clock"]["running"], 0);
  for (auto* c : {f.seats[0].get(), f.seats[1].get(), f.eve.get()})
    ASSERT_TRUE(c->shows([](const json& s) { return s["status"] == "over"; }, 10s));
  EXPECT_GE(std::chrono::steady_clock::now() - started, 800ms) << "not before the time is up";
  EXPECT_EQ(f.eve->state["outcome"]["end"], "flagged");
  EXPECT_EQ(f.eve->state["outcome"]["reason"], "P0 ran out of time");
  EXPECT_EQ(f.eve->state["outcome"]["winners"], json({1}));
  EXPECT_EQ(f.eve->state["clock"]["left_ms"], json({0, 1'000}));
  EXPECT_EQ(f.eve->state, fresh_sync(*f.eve));
  // Its record keeps the time control, and its replay ends on the clocks as they fell.
  const auto exported = http_get(port, "/api/export?room=" + f.room + "&round=1");
  ASSERT_EQ(exported.status, 200) << exported.body;
  const json record = json::parse(exported.body);
  EXPECT_EQ(record["time_control"], f.eve->state["clock"]["control"]);
  EXPECT_EQ(record["result"], f.eve->state["outcome"]);
  const auto replay = http_get(port, "/api/replay?room=" + f.room);
  ASSERT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(json::parse(replay.body)["frames"].back()["clock"]["left_ms"], json({0, 1'000}));

  // A live game with a move made, then the server dies while P1 thinks.
  Table k;
  ASSERT_NO_FATAL_FAILURE(
      clocked_table(port, {{"kind", "live"}, {"base_ms", 600'000}, {"increment_ms", 5'000}}, k));
  ASSERT_NO_FATAL_FAILURE(one_move(k));
  const json before = k.eve->state["clock"];
  ASSERT_EQ(before["running"], 1);
  const auto p0_left = before["left_ms"][0].get<std::int64_t>();
  EXPECT_GT(p0_left, 600'000) << "the increment, less a few milliseconds";
  EXPECT_LE(p0_left, 605'000);
  std::this_thread::sleep_for(300ms);  // P1 thinks a little
  server.kill(SIGKILL);
  std::this_thread::sleep_for(700ms);  // down a while
  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto w = connect(port, "Wil");
  w->ws.send({{"type", "join"}, {"room", k.room}, {"as", "spectator"}});
  const auto full = w->ws.recv_type("full");
  ASSERT_TRUE(full.has_value());
  ASSERT_TRUE((*full)["server_time"].is_number_integer()) << "a full says the server's time";
  const json after = (*full)["state"]["clock"];
  EXPECT_EQ(after["left_ms"], json({p0_left, 600'000}))
      << "P1 has all his time: neither his thinking before the crash nor the downtime is charged";
  EXPECT_EQ(after["running"], 1);
  EXPECT_GE(after["since"].get<std::int64_t>(), before["since"].get<std::int64_t>() + 900);
  // P1 comes back and resigns: the record has each move's clock, and the replay shows them.
  std::unique_ptr<Seat> p1;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "P1", k.seats[1]->token, k.room, p1));
  p1->ws.send({{"type", "resign"}, {"room", k.room}});
  ASSERT_TRUE(p1->shows([](const json& s) { return s["status"] == "over"; }));
  const json kept = json::parse(http_get(port, "/api/export?room=" + k.room + "&round=1").body);
  EXPECT_EQ(kept["moves"].at(0)["clock"], p0_left);
  const json frames = json::parse(http_get(port, "/api/replay?room=" + k.room).body)["frames"];
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0]["clock"]["left_ms"], json({600'000, 600'000}));
  EXPECT_EQ(frames[1]["clock"]["left_ms"], json({p0_left, 600'000}));
  EXPECT_EQ(server.stop(), 0);
}

// The lag a live clock forgives is measured from real pongs: a client that answers the server's
// ping at once shows a short one-way lag, one that leaves it unread for 2.4 s a long one.
// (/metrics has every pong's one-way lag as a histogram.)
TEST(Clock, TheLagCreditedIsMeasuredFromThePongsOfEachConnection) {
  ServerProcess server;
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const auto lags = [&]() {
    const auto metrics = http_get(port, "/metrics").body;
    const auto count_of = [&](const std::string& line) -> long {
      const auto at = metrics.find(line);
      return at == std::string::npos ? -1 : std::stol(metrics.substr(at + line.size()));
    };
    return std::pair(count_of("plateau_client_lag_seconds_count "),
                     count_of("plateau_client_lag_seconds_bucket{le=\"1\"} "));
  };
  EXPECT_EQ(lags(), std::pair(0L, 0L)) << "no pong yet";
  // A player who has just sent a message is pinged at the next sweep (each second).
  auto prompt = connect(port, "Ada");
  prompt->ws.send({{"type", "rooms"}});
  for (int i = 0; i < 50 && lags().first < 1; ++i) (void)prompt->ws.recv(100ms);
  const auto [answered, quick] = lags();
  EXPECT_GE(answered, 1) << "a pong measured";
  EXPECT_EQ(quick, answered) << "answered at once: under a second one way";

  // The slow one, once greeted, reads nothing: the server's ping waits unread (it comes at the
  // next sweep, or at the next probe should one have slipped in before the welcome was read),
  // and is left 2.4 s more before the read that answers it.
  auto slow = connect(port, "Bob");
  bool pinged = false;
  for (int i = 0; i < 240 && !(pinged = slow->ws.unread_bytes() > 0); ++i)
    std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(pinged) << "the server pinged a player who had just spoken";
  const auto before = lags().first;
  std::this_thread::sleep_for(2400ms);
  (void)slow->ws.recv(200ms);  // the read answers the ping
  for (int i = 0; i < 50 && lags().first <= before; ++i) std::this_thread::sleep_for(100ms);
  const auto [count, fast] = lags();
  EXPECT_EQ(count, before + 1) << "its pong is measured";
  EXPECT_EQ(fast, before) << "and its lag, over 1.2 s one way, is not a fast one";
}

}  // namespace
}  // namespace plateau::testing
