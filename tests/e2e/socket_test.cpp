// End to end over real sockets on 127.0.0.1, against the real server binary (DESIGN.md §5,
// ring 5): whole games with a spectator whose patched copy equals a fresh sync, bad input of
// every kind, and a clean shutdown.
#include <gtest/gtest.h>

#include <fcntl.h>

#include "client_seat.hpp"

namespace plateau::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class Sockets : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = server_.start();
    ASSERT_NE(port_, 0) << server_.log();
  }
  ServerProcess server_;
  unsigned short port_ = 0;
};

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
