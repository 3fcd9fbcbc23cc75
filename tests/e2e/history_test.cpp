// History and replays over HTTP against the real binary: every game's finished record replays to
// exactly the final state everyone saw, imports as a game of its own, and an unfinished game
// keeps its seed to itself.
#include <gtest/gtest.h>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

using boost::beast::http::verb;

TEST(History, EveryGamesRecordReplaysToTheFinalStateAndImportsAsItsOwnGame) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  for (const rules::Game* g : rules::all_games()) {
    SCOPED_TRACE(std::string(g->id()));
    const int n = g->max_seats();
    Table t;
    ASSERT_NO_FATAL_FAILURE(open_table(port, std::string(g->id()), n, t));
    const auto& room = t.room;
    auto& eve = t.eve;
    // Mid-game the record is not given out: the seed would tell every draw to come.
    auto early = http_get(port, "/api/export?room=" + room);
    EXPECT_EQ(early.status, 409) << early.body;
    play_out(t.players(), *eve, 4242, false);
    const json live = eve->state;
    ASSERT_EQ(live["status"], "over");

    auto exported = http_get(port, "/api/export?room=" + room + "&round=1");
    ASSERT_EQ(exported.status, 200) << exported.body;
    const json record = json::parse(exported.body);
    EXPECT_EQ(record["game"], g->id());
    EXPECT_EQ(record["players"].size(), static_cast<std::size_t>(n));
    EXPECT_EQ(record["result"], live["outcome"]);

    // Replayed here, through the rules core alone, the record gives the board everyone saw.
    auto state = std::move(*g->create(record["options"], std::stoull(record["seed"].get<std::string>())));
    for (const auto& m : record["moves"]) ASSERT_TRUE(state->apply(m["seat"], rules::Move{m["move"]}).has_value());
    EXPECT_EQ(state->view(std::nullopt), live["board"]);
    EXPECT_EQ(rules::to_json(*state->outcome()), live["outcome"]);

    // The server's replay steps through every position, ending on the same board.
    auto replay = http_get(port, "/api/replay?room=" + room);
    ASSERT_EQ(replay.status, 200);
    const json frames = json::parse(replay.body)["frames"];
    EXPECT_EQ(frames.size(), record["moves"].size() + 1);
    EXPECT_EQ(frames.back()["board"], live["board"]);
    EXPECT_EQ(frames.back()["outcome"], live["outcome"]);
    EXPECT_TRUE(frames.front()["outcome"].is_null());

    // Imported, it is a finished game of its own with the same replay.
    auto imported = http_request(port, verb::post, "/api/import", record.dump());
    ASSERT_EQ(imported.status, 201) << imported.body;
    const std::string copy = json::parse(imported.body)["room"];
    EXPECT_NE(copy, room);
    auto again = http_get(port, "/api/replay?room=" + copy);
    ASSERT_EQ(again.status, 200);
    EXPECT_EQ(json::parse(again.body)["frames"].back()["board"], live["board"]);
  }
  const json history = json::parse(http_get(port, "/api/history?limit=100").body)["games"];
  EXPECT_EQ(history.size(), 2 * rules::all_games().size()) << "every finished and imported game is listed";
}

TEST(History, BadRecordsAreRefusedWithAReason) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0);
  auto post = [&](const std::string& body) { return http_request(port, verb::post, "/api/import", body); };
  EXPECT_EQ(post("{nope").status, 400);
  EXPECT_EQ(post(R"({"format":"plateau-game/1","game":"chess","seed":"1","players":["a","b"],"moves":[]})").status, 422);
  EXPECT_EQ(post(R"({"format":"plateau-game/1","game":"quantik","options":{"first":"0"},"seed":"1","players":["a","b"],"moves":[{"seat":1,"move":"cube@a1"}]})").status,
            422)
      << "a move out of turn";
  EXPECT_EQ(post(R"({"format":"plateau-game/1","game":"quantik","options":{"first":"0"},"seed":"1","players":["a","b"],"moves":[{"seat":0,"move":"cube@a1"}]})").status,
            422)
      << "an unfinished game";
  EXPECT_EQ(http_get(port, "/api/replay?room=zzzzz").status, 404);
  EXPECT_EQ(http_get(port, "/api/replay").status, 400);
}

}  // namespace
}  // namespace plateau::testing
