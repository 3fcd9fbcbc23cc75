// Limits that hold under abuse, where they cross the network: the address the lobby counts by is
// the socket's own, an unloaded game comes back from the real store, and the admin API closes
// rooms in bulk over HTTP (issue 42, section 2). The limits themselves are tested at their edges
// in tests/server/room_test.cpp.
#include <gtest/gtest.h>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The error a request gets, or "" when the next message is not an error.
std::string refusal(Seat& s) {
  const auto m = s.ws.recv_until([](const json& m) {
    return m["type"] == "error" || m["type"] == "created" || m["type"] == "welcome";
  });
  return m && (*m)["type"] == "error" ? (*m)["code"].get<std::string>() : "";
}

TEST(Limits, OneAddressIsRefusedPastItsRoomsAndItsNewPlayersAMinute) {
  ServerProcess server({}, {"--creates-per-minute", "2", "--new-players-per-minute", "3"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = connect(port, "Ada"), bob = connect(port, "Bob");
  connect(port, "Cy");
  Seat dee;
  ASSERT_EQ(dee.ws.connect("127.0.0.1", port), "");
  dee.ws.send({{"type", "hello"}, {"name", "Dee"}});
  EXPECT_EQ(refusal(dee), "rate/hello") << "a fourth new player from 127.0.0.1 within the minute";
  connect(port, "Ada", ada->token);  // a known token is no new player
  EXPECT_FALSE(ada->token.empty());

  EXPECT_FALSE(create(*ada, "quantik").empty());
  EXPECT_FALSE(create(*bob, "quantik").empty());
  ada->ws.send({{"type", "create"}, {"game", "quantik"}});
  EXPECT_EQ(refusal(*ada), "rate/creates") << "a third room from the same address, whoever asks";
  const auto metrics = http_get(port, "/metrics");
  EXPECT_NE(metrics.body.find(R"(plateau_refused_total{code="rate/creates"} 1)"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find(R"(plateau_refused_total{code="rate/hello"} 1)"), std::string::npos);
}

// The rooms a player created are stored with them: after a restart (here a kill -9) they still
// count against --max-rooms-per-player, which a restart must not reset.
TEST(Limits, APlayersOpenRoomsStillCountAfterARestart) {
  ServerProcess server({}, {"--max-rooms-per-player", "2"});
  auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = connect(port, "Ada");
  EXPECT_FALSE(create(*ada, "quantik").empty());
  EXPECT_FALSE(create(*ada, "kwinty").empty());
  ada->ws.send({{"type", "create"}, {"game", "quantik"}});
  EXPECT_EQ(refusal(*ada), "room/too_many_yours");
  const std::string token = ada->token;
  ada->ws.close();
  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto back = connect(port, "Ada", token);
  back->ws.send({{"type", "create"}, {"game", "quantik"}});
  EXPECT_EQ(refusal(*back), "room/too_many_yours")
      << "the two rooms from before the restart still count";
  auto bob = connect(port, "Bob");
  EXPECT_FALSE(create(*bob, "quantik").empty()) << "another player's count is their own";
}

TEST(Limits, AGameWhosePlayersAllLeftLeavesMemoryAndComesBackFromTheStore) {
  ServerProcess server({}, {"--unload-after", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  AdaAndBob t;
  ASSERT_NO_FATAL_FAILURE(ada_and_bob(port, t));
  auto &ada = t.ada, &bob = t.bob;
  const auto& room = t.room;
  ada->ws.send(
      {{"type", "move"}, {"room", room}, {"version", ada->version}, {"move", "sphere@a1"}});
  ASSERT_TRUE(bob->reach(ada->version + 1));
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", bob->version}, {"move", "cube@d4"}});
  ASSERT_TRUE(ada->reach(bob->version + 1));
  const json board = ada->state["board"];
  const auto version = ada->version;
  const std::string ada_token = ada->token, bob_token = bob->token;
  ada->ws.close();
  bob->ws.close();

  // Both away for a second: at a tick after that the room leaves memory (bounded wait).
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  json health;
  do {
    std::this_thread::sleep_for(100ms);
    health = json::parse(http_get(port, "/healthz").body, nullptr, false);
  } while (health.value("rooms", -1) != 0 && std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(health.value("rooms", -1), 0) << "unloaded";

  std::unique_ptr<Seat> back;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "Ada", ada_token, room, back));
  EXPECT_EQ(back->state["board"], board) << "read back from the store";
  EXPECT_GT(back->version, version);
  EXPECT_EQ(back->state["to_move"], 0);
  EXPECT_EQ(back->state["seats"][1]["name"], "Bob");
  EXPECT_EQ(json::parse(http_get(port, "/healthz").body)["rooms"], 1);
  back->ws.send(
      {{"type", "move"}, {"room", room}, {"version", back->version}, {"move", "cone@b2"}});
  ASSERT_TRUE(back->reach(back->version + 1));
  EXPECT_EQ(back->state["board"]["last"], "cone@b2") << "and it goes on";
  std::unique_ptr<Seat> bob_back;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "Bob", bob_token, room, bob_back));
  EXPECT_EQ(bob_back->state["board"], back->state["board"]);
  EXPECT_EQ(bob_back->state["legal_moves"].empty(), false) << "his turn";
}

TEST(Limits, TheAdminClosesEveryRoomOfAPlayerInOneCall) {
  ServerProcess server({}, {"--admin-token", "s3cret"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  Seat ada;
  ASSERT_EQ(ada.ws.connect("127.0.0.1", port), "");
  ada.ws.send({{"type", "hello"}, {"name", "Ada"}});
  const auto welcome = ada.ws.recv_type("welcome");
  ASSERT_TRUE(welcome);
  const std::string ada_id = (*welcome)["player"];
  auto bob = connect(port, "Bob");
  std::vector<std::string> adas{create(ada, "quantik"), create(ada, "kwinty")};
  const auto bobs = create(*bob, "quantik");
  ASSERT_NO_FATAL_FAILURE(join(*bob, adas[0]));  // Bob sits at one of Ada's: it closes with hers

  using boost::beast::http::verb;
  auto admin = [&](const std::string& token, const std::string& body) {
    namespace beast = boost::beast;
    boost::asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(5));
    stream.connect(
        boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    beast::http::request<beast::http::string_body> req{verb::post, "/admin/rooms/close", 11};
    req.set(beast::http::field::host, "127.0.0.1");
    if (!token.empty()) req.set(beast::http::field::authorization, "Bearer " + token);
    req.body() = body;
    req.prepare_payload();
    beast::http::write(stream, req);
    beast::flat_buffer buf;
    beast::http::response<beast::http::string_body> res;
    beast::http::read(stream, buf, res);
    return std::pair<int, json>(res.result_int(), json::parse(res.body(), nullptr, false));
  };
  EXPECT_EQ(admin("", R"({"player":")" + ada_id + R"("})").first, 401);
  for (const char* bad :
       {"", "[]", "{}", R"({"player":7})", R"({"older_than_seconds":-1})", R"({"who":"x"})"}) {
    const auto refused = admin("s3cret", bad);
    EXPECT_EQ(refused.first, 400) << bad;
    EXPECT_EQ(refused.second["code"], "admin/bad_body") << bad;
  }
  EXPECT_EQ(admin("s3cret", R"({"older_than_seconds":100000})"),
            (std::pair<int, json>(200, {{"closed", json::array()}})))
      << "nothing is that old";
  auto closed = admin("s3cret", R"({"player":")" + ada_id + R"("})");
  ASSERT_EQ(closed.first, 200);
  auto ids = closed.second["closed"].get<std::vector<std::string>>();
  std::ranges::sort(ids);
  std::ranges::sort(adas);
  EXPECT_EQ(ids, adas);
  const auto told = bob->ws.recv_type("error");
  ASSERT_TRUE(told);
  EXPECT_EQ((*told)["code"], "room/not_found");
  bob->ws.send({{"type", "rooms"}});
  const auto listed = bob->ws.recv_type("rooms");
  ASSERT_TRUE(listed);
  ASSERT_EQ((*listed)["rooms"].size(), 1u) << "Bob's own room is left";
  EXPECT_EQ((*listed)["rooms"][0]["room"], bobs);
}

}  // namespace
}  // namespace plateau::testing
