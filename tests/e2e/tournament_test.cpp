// A whole tournament over real sockets: the host sets up a 3-round Swiss of Quantik over HTTP,
// six players (each its own connection and thread, playing random legal moves) register by
// WebSocket, the server seats every round's tables itself and each player plays the table it is
// told of. In round 2 the server is killed with SIGKILL and started again on the same data:
// the players come back with their tokens, the event resumes where it was, and it finishes with
// every game stored, no pairing repeated and the round before the kill unchanged.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "entrant.hpp"
#include "server_process.hpp"

namespace plateau::testing {
namespace {

using boost::beast::http::verb;

TEST(Tournament, ASixPlayerSwissIsPlayedOverSocketsAndSurvivesAKillInTheMiddleOfARound) {
  ServerProcess server({}, {"--admin-token", kTestAdminToken});
  std::atomic<unsigned short> port{server.start()};
  ASSERT_NE(port.load(), 0) << server.log();
  const auto made = http_request(port, verb::post, "/api/tournaments/create",
                                 json{{"name", "Friday Swiss"},
                                      {"game", "quantik"},
                                      {"format", "swiss"},
                                      {"rounds", 3},
                                      {"starts", std::int64_t{1} << 45}}
                                     .dump(),
                                 admin_header());
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string id = json::parse(made.body)["id"];

  std::atomic<bool> open{false};
  {
    // The host takes a player off the list before the start.
    WsClient guest;
    ASSERT_EQ(guest.connect("127.0.0.1", port.load()), "");
    guest.send({{"type", "hello"}, {"name", "Late"}});
    const auto welcome = guest.recv_type("welcome");
    ASSERT_TRUE(welcome);
    guest.send({{"type", "tournament"}, {"action", "register"}, {"tournament", id}});
    ASSERT_TRUE(guest.recv_type("tournament"));
    ASSERT_EQ(get_detail(port, id)["players"].size(), 1u);
    const json off{{"id", id}, {"player", (*welcome)["player"]}};
    EXPECT_EQ(http_request(port, verb::post, "/api/tournaments/remove", off.dump()).status, 401);
    ASSERT_EQ(http_request(port, verb::post, "/api/tournaments/remove", off.dump(), admin_header())
                  .status,
              200);
    ASSERT_EQ(get_detail(port, id)["players"].size(), 0u);
  }
  std::vector<std::unique_ptr<Entrant>> players;
  for (int i = 0; i < 6; ++i)
    players.push_back(
        std::make_unique<Entrant>("P" + std::to_string(i), id, port, 1000 + i, 2, open));
  const auto registered =
      wait_for(port, id, [](const json& d) { return d["players"].size() == 6; }, 30s);
  ASSERT_EQ(registered["players"].size(), 6u) << registered.dump();
  // Nobody but the host (or an organiser) starts it.
  EXPECT_EQ(
      http_request(port, verb::post, "/api/tournaments/start", json{{"id", id}}.dump()).status,
      401);
  ASSERT_EQ(http_request(port, verb::post, "/api/tournaments/start", json{{"id", id}}.dump(),
                         admin_header())
                .status,
            200);

  // Round 2 under way: kill the server in the middle of it, and start it again.
  const auto second = wait_for(
      port, id, [](const json& d) { return d["round"] == 2 || d["status"] != "running"; }, 120s);
  ASSERT_EQ(second["round"], 2) << second.dump();
  const json round_one = second["rounds_played"][0];
  // Every table of round 2 taken and under way (its first moves played), none finished.
  const auto playing = wait_for(
      port, id,
      [](const json& d) {
        return std::ranges::all_of(d["rounds_played"][1]["tables"],
                                   [](const json& t) { return t["status"] == "playing"; });
      },
      30s);
  ASSERT_EQ(playing["round"], 2) << playing.dump();
  std::this_thread::sleep_for(500ms);
  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port.load(), 0) << server.log();
  open = true;

  const auto done =
      wait_for(port, id, [](const json& d) { return d["status"] == "finished"; }, 180s);
  ASSERT_EQ(done["status"], "finished") << done.dump();
  EXPECT_EQ(done["rounds_played"][0], round_one) << "the round before the kill is as it was";
  ASSERT_EQ(done["rounds_played"].size(), 3u);
  std::set<std::set<std::string>> met;
  double total = 0;
  for (const auto& r : done["rounds_played"]) {
    ASSERT_EQ(r["tables"].size(), 3u);
    EXPECT_TRUE(r["byes"].empty());
    for (const auto& t : r["tables"]) {
      EXPECT_EQ(t["status"], "over");
      EXPECT_EQ(t["forfeit"], json({false, false})) << "everyone came to every game";
      const double points = t["points"][0].get<double>() + t["points"][1].get<double>();
      EXPECT_DOUBLE_EQ(points, 1.0);
      total += points;
      const std::set<std::string> pair{t["seats"][0]["player"].get<std::string>(),
                                       t["seats"][1]["player"].get<std::string>()};
      EXPECT_TRUE(met.insert(pair).second) << "a repeat pairing";
      // The game itself is stored, and its result is the one the standings counted.
      const auto rec = http_request(
          port, verb::get, "/api/export?room=" + t["room"].get<std::string>() + "&round=1");
      ASSERT_EQ(rec.status, 200) << rec.body;
      const auto winners = json::parse(rec.body)["result"]["winners"];
      ASSERT_EQ(winners.size(), 1u) << "Quantik has no draws";
      EXPECT_EQ(t["points"][winners[0].get<int>()], 1.0);
    }
  }
  EXPECT_DOUBLE_EQ(total, 9.0);
  double standings = 0;
  for (const auto& s : done["standings"]) standings += s["score"].get<double>();
  EXPECT_DOUBLE_EQ(standings, 9.0);
  EXPECT_EQ(done["standings"][0]["rank"], 1);
  for (auto& p : players) {
    EXPECT_TRUE(p->registered());
    EXPECT_GT(p->moves(), 0);
    EXPECT_EQ(p->errors(), std::vector<std::string>{});
  }
}

}  // namespace
}  // namespace plateau::testing
