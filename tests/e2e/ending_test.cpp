// Rounds that end outside the rules, over real sockets against the real binary: a resignation
// and a draw agreed reach every player and spectator, export and replay with their result, and
// come back after kill -9 exactly as they ended; a draw offered comes back while it stands.
#include <gtest/gtest.h>

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
  m.ws.send({{"type", "move"}, {"room", t.room}, {"version", v}, {"move", m.state["legal_moves"][0]}});
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
  ASSERT_NO_FATAL_FAILURE(act(*r.seats[0], {{"type", "draw"}, {"action", "offer"}}, all,
                              offered_by(0)));
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
  ASSERT_NO_FATAL_FAILURE(act(*d.seats[1], {{"type", "draw"}, {"action", "offer"}}, all_d,
                              offered_by(1)));
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
  ASSERT_NO_FATAL_FAILURE(act(*o.seats[1], {{"type", "draw"}, {"action", "offer"}}, all_o,
                              offered_by(1)));

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
  }))
      << p0->state;
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace plateau::testing
