// Bots over real sockets against the real binary: a person plays a whole game of every game
// against `normal` bots while a spectator's patched copy is checked against a sync at every
// step; and a server killed with SIGKILL mid-game comes back with its bot, which finishes the
// game. The bots think for at most 30 ms here (--bot-think-ms): these tests are about the
// table, and bench/bot_arena measures their strength.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "build_paths.hpp"

#include "client_seat.hpp"
#include "http_client.hpp"
#include "server_process.hpp"

namespace plateau::testing {
namespace {

const std::vector<std::string> kFastBots{"--bot-think-ms", "30", "--workers", "1"};

// The person at `ada` plays their first legal move at each of their turns, and waits for the
// bots' replies, until the game is over; `eve` (watching) is compared with a sync after every
// move. Returns the person's moves.
int play_against_bots(Seat& ada, Seat& eve) {
  int mine = 0;
  for (int step = 0; step < 1'000; ++step) {
    // Whoever is to move, the person's copy shows it once the bots have had their turns.
    EXPECT_TRUE(ada.shows(
        [](const json& st) {
          return st["status"] == "over" ||
                 (st["status"] == "playing" && st["to_move"] == st["you"]);
        },
        30s))
        << "the bots did not move: " << ada.state.dump().substr(0, 300);
    if (::testing::Test::HasFailure()) return mine;
    EXPECT_TRUE(eve.reach(ada.version, 10s));
    const json synced = fresh_sync(eve);
    EXPECT_EQ(eve.state, synced) << "the spectator's patched copy is the state a sync gives";
    if (ada.state["status"] == "over") return mine;
    const std::int64_t v = ada.version;
    ada.ws.send({{"type", "move"},
                 {"room", ada.room},
                 {"version", v},
                 {"move", ada.state["legal_moves"][0]}});
    EXPECT_TRUE(ada.reach(v + 1)) << "the person's move was accepted";
    ++mine;
  }
  ADD_FAILURE() << "the game did not end";
  return mine;
}

// Ada creates a table of `game`, sits at seat 0, Eve watches, and bots take the other seats.
void open_bot_table(unsigned short port, const std::string& game, const json& options,
                    const std::string& level, std::unique_ptr<Seat>& ada,
                    std::unique_ptr<Seat>& eve) {
  ada = connect(port, "Ada");
  eve = connect(port, "Eve");
  const auto room = create(*ada, game, options);
  ASSERT_FALSE(room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*ada, room));
  ASSERT_NO_FATAL_FAILURE(join(*eve, room, true));
  const int seats = static_cast<int>(ada->state["seats"].size());
  for (int s = 1; s < seats; ++s) {
    ada->ws.send({{"type", "add_bot"}, {"room", room}, {"seat", s}, {"level", level}, {"id", s}});
    const auto added = ada->ws.recv_until(
        [](const json& m) { return m["type"] == "bot_added" || m["type"] == "error"; }, 5s,
        [&](const json& m) { ada->take(m); });
    ASSERT_TRUE(added && (*added)["type"] == "bot_added") << (added ? added->dump() : "nothing");
    ASSERT_EQ((*added)["seat"], s);
  }
  ASSERT_TRUE(ada->shows([](const json& st) { return st["status"] != "waiting"; }));
  for (int s = 1; s < seats; ++s) {
    EXPECT_EQ(ada->state["seats"][s]["bot"], level);
    EXPECT_EQ(ada->state["seats"][s]["connected"], true);
  }
}

TEST(BotsOverSockets, APersonPlaysAWholeGameOfEachGameAgainstNormalBots) {
  ServerProcess server({}, kFastBots);
  const auto port = server.start();
  ASSERT_NE(port, 0);
  const std::vector<std::pair<std::string, json>> tables{
      {"quantik", json::object()},  {"kwinty", json::object()},   {"turris", json::object()},
      {"quirky", {{"players", 3}}}, {"on_top", {{"players", 4}}}, {"ltiles", json::object()}};
  for (const auto& [game, options] : tables) {
    SCOPED_TRACE(game);
    std::unique_ptr<Seat> ada, eve;
    ASSERT_NO_FATAL_FAILURE(open_bot_table(port, game, options, "normal", ada, eve));
    const int mine = play_against_bots(*ada, *eve);
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(ada->state["status"], "over");
    EXPECT_GT(mine, 0);
    EXPECT_FALSE(ada->state["outcome"]["reason"].get<std::string>().empty());
  }
  // /metrics counts the bots' moves among the accepted ones.
  const auto metrics = http_get(port, "/metrics").body;
  EXPECT_NE(metrics.find("plateau_bot_moves_total "), std::string::npos);
  EXPECT_EQ(metrics.find("plateau_bot_moves_total 0\n"), std::string::npos) << "bots moved";
  EXPECT_NE(metrics.find("plateau_bot_failures_total 0\n"), std::string::npos);
}

TEST(BotsOverSockets, AfterKillNineTheBotSitsAgainAndFinishesTheGame) {
  ServerProcess server({}, kFastBots);
  auto port = server.start();
  ASSERT_NE(port, 0);
  std::unique_ptr<Seat> ada, eve;
  // L-Tiles: a game long enough that two moves each never end it (a Kwinty played by first
  // moves could end before the kill, and then there would be nothing left to finish).
  ASSERT_NO_FATAL_FAILURE(open_bot_table(port, "ltiles", json::object(), "normal", ada, eve));
  const std::string room = ada->room, token = ada->token;
  // Two moves each, then the person moves and the server dies at once: the bot's reply is
  // lost with it, or made and stored; either way the room comes back with the bot at its seat.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ada->shows([](const json& st) { return st["to_move"] == st["you"]; }, 30s));
    ASSERT_EQ(ada->state["status"], "playing");
    const std::int64_t v = ada->version;
    ada->ws.send(
        {{"type", "move"}, {"room", room}, {"version", v}, {"move", ada->state["legal_moves"][0]}});
    ASSERT_TRUE(ada->reach(v + 1));
  }
  ASSERT_EQ(ada->state["status"], "playing");
  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port, 0);
  std::unique_ptr<Seat> back;
  ASSERT_NO_FATAL_FAILURE(come_back(port, "Ada", token, room, back));
  EXPECT_EQ(back->state["seats"][1]["bot"], "normal");
  std::unique_ptr<Seat> eve2 = connect(port, "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*eve2, room, true));
  const int mine = play_against_bots(*back, *eve2);
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_EQ(back->state["status"], "over");
  EXPECT_GT(mine, 0) << "the game went on after the restart";
}

// Runs `command` (a shell command line made here, from fixed words) and returns all it printed,
// standard error included.
std::string run(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (const auto n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ::pclose(p);
  return out;
}

// plateau-cli plays with the server's engine from "another machine": it knows only what its
// seat is shown, rebuilds positions from it (from_view), and each of its moves is the engine's
// (it says so on standard error when it has to fall back to a random one).
TEST(BotsOverSockets, TheTerminalClientPlaysEveryGameWithTheEngineFromItsSeatsView) {
  ServerProcess server({}, kFastBots);
  const auto port = server.start();
  ASSERT_NE(port, 0);
  const std::string cli =
      std::string(cli_binary()) + " --host 127.0.0.1 --port " + std::to_string(port);
  for (const std::string game : {"quantik", "kwinty", "turris", "quirky", "on_top", "ltiles"}) {
    SCOPED_TRACE(game);
    // The engine's player creates the table; a random one joins it from a second process.
    // Each client is bounded, generously: under ASan on a busy 2-core machine an L-Tiles game of
    // the engine's took past 120 s once (about 15 s alone).
    const std::string host = "timeout 300 " + cli + " --name Engine bot --game " + game +
                             " --level easy --seed 3 > /tmp/plateau-cli-" +
                             std::to_string(::getpid()) + ".out 2>&1 &";
    const std::string out_file = "/tmp/plateau-cli-" + std::to_string(::getpid()) + ".out";
    ASSERT_EQ(std::system(host.c_str()), 0);
    std::string room;
    for (int i = 0; i < 100 && room.empty(); ++i) {
      std::this_thread::sleep_for(50ms);
      std::ifstream in(out_file);
      std::string word;
      if (in >> word && word == "room") in >> room;
    }
    ASSERT_FALSE(room.empty()) << "the engine's client made no table";
    const auto guest = run("timeout 300 " + cli + " --name Guest bot --seed 5 --room " + room);
    EXPECT_NE(guest.find("over: "), std::string::npos) << guest;
    std::string host_out;
    for (int i = 0; i < 200; ++i) {  // it ends when it sees the end, as the guest did
      std::ifstream in(out_file);
      host_out.assign(std::istreambuf_iterator<char>(in), {});
      if (host_out.find("over: ") != std::string::npos) break;
      std::this_thread::sleep_for(50ms);
    }
    EXPECT_NE(host_out.find("over: "), std::string::npos) << host_out;
    EXPECT_EQ(host_out.find("random"), std::string::npos) << "every move was the engine's:\n"
                                                          << host_out;
    std::filesystem::remove(out_file);
  }
}

}  // namespace
}  // namespace plateau::testing
