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
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "1000"});
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
    auto state =
        std::move(*g->create(record["options"], std::stoull(record["seed"].get<std::string>())));
    for (const auto& m : record["moves"])
      ASSERT_TRUE(state->apply(m["seat"], rules::Move{m["move"]}).has_value());
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
    auto imported = import_record(port, record.dump());
    ASSERT_EQ(imported.status, 201) << imported.body;
    const std::string copy = json::parse(imported.body)["room"];
    EXPECT_NE(copy, room);
    auto again = http_get(port, "/api/replay?room=" + copy);
    ASSERT_EQ(again.status, 200);
    EXPECT_EQ(json::parse(again.body)["frames"].back()["board"], live["board"]);
  }
  const json history = json::parse(http_get(port, "/api/history?limit=100").body)["games"];
  EXPECT_EQ(history.size(), 2 * rules::all_games().size())
      << "every finished and imported game is listed";
}

// An error answer's status and stable code.
std::pair<int, std::string> refusal(const HttpReply& r) {
  const json body = json::parse(r.body, nullptr, false);
  return {r.status, body.is_object() && body.contains("code") ? body["code"].get<std::string>()
                                                              : "(none) " + r.body};
}
using Refusal = std::pair<int, std::string>;

TEST(History, BadRecordsAreRefusedWithAReason) {
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "1000"});
  const auto port = server.start();
  ASSERT_NE(port, 0);
  auto post = [&](const std::string& body) { return refusal(import_record(port, body)); };
  EXPECT_EQ(post("{nope"), Refusal(400, "import/bad_json"));
  EXPECT_EQ(post(std::string(40, '[') + std::string(40, ']')), Refusal(400, "import/bad_json"));
  EXPECT_EQ(post("[]"), Refusal(400, "import/bad_record"));
  // Fields of the wrong type are refused, never read as something else (nor do they stop the
  // server: a number for "format" once did).
  const std::string head = R"({"game":"quantik","options":{"first":"0"},"players":["a","b"],)";
  for (
      const std::string& bad :
      {head + R"("format":1,"seed":"1","moves":[]})",
       head + R"("format":"plateau-game/1","seed":-1,"moves":[]})",
       head +
           R"("format":"plateau-game/1","seed":"1","moves":[{"seat":4294967296,"move":"cube@a1"}]})",
       head +
           R"("format":"plateau-game/1","seed":"1","moves":[{"seat":0,"move":"cube@a1","at":"noon"}]})",
       head + R"("format":"plateau-game/1","seed":"1","moves":[7]})"})
    EXPECT_EQ(post(bad), Refusal(400, "import/bad_record")) << bad;
  EXPECT_EQ(
      post(
          R"({"format":"plateau-game/1","game":"chess","seed":"1","players":["a","b"],"moves":[]})"),
      Refusal(422, "import/illegal"));
  EXPECT_EQ(
      post(
          R"({"format":"plateau-game/1","game":"quantik","options":{"first":"0"},"seed":"1","players":["a","b"],"moves":[{"seat":1,"move":"cube@a1"}]})"),
      Refusal(422, "import/illegal"))
      << "a move out of turn";
  EXPECT_EQ(
      post(
          R"({"format":"plateau-game/1","game":"quantik","options":{"first":"0"},"seed":"1","players":["a","b"],"moves":[{"seat":0,"move":"cube@a1"}]})"),
      Refusal(422, "import/not_over"))
      << "an unfinished game";
  EXPECT_EQ(refusal(http_get(port, "/api/replay?room=zzzzz")), Refusal(404, "api/not_found"));
  EXPECT_EQ(refusal(http_get(port, "/api/replay")), Refusal(400, "api/bad_room"));
  EXPECT_EQ(refusal(http_get(port, "/api/replay?room=" + std::string(65, 'a'))),
            Refusal(400, "api/bad_room"));
  EXPECT_EQ(refusal(http_get(port, "/api/export?room=a&round=x")), Refusal(400, "api/bad_round"));
  EXPECT_EQ(refusal(http_get(port, "/api/import")), Refusal(405, "api/method"));
  EXPECT_EQ(refusal(http_request(port, verb::delete_, "/api/history")), Refusal(405, "api/method"));
  EXPECT_EQ(refusal(http_get(port, "/api/nothing")), Refusal(404, "api/no_such_call"));
  EXPECT_EQ(refusal(http_get(port, "/admin/rooms")), Refusal(401, "admin/unauthorized"));
  EXPECT_EQ(http_get(port, "/healthz").status, 200) << "still serving";
}

// The page runs only its own scripts, talks only to its server and cannot be framed; no answer
// may be sniffed as another type than it says.
TEST(History, ThePageAndEveryAnswerCarryTheirSecurityHeaders) {
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "1000"});
  const auto port = server.start();
  ASSERT_NE(port, 0);
  const auto page = http_get(port, "/");
  ASSERT_EQ(page.status, 200);
  const auto csp = page.headers.count("content-security-policy")
                       ? page.headers.at("content-security-policy")
                       : "";
  for (const char* part : {"default-src 'self'", "script-src 'self'", "connect-src 'self'",
                           "frame-ancestors 'none'", "object-src 'none'"})
    EXPECT_NE(csp.find(part), std::string::npos) << part << " in " << csp;
  EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos);
  EXPECT_EQ(page.headers.count("x-frame-options") ? page.headers.at("x-frame-options") : "",
            "DENY");
  for (const char* path :
       {"/", "/app.js", "/games/quantik.js", "/api/history", "/api/nothing", "/healthz", "/nope"}) {
    const auto r = http_get(port, path);
    EXPECT_EQ(
        r.headers.count("x-content-type-options") ? r.headers.at("x-content-type-options") : "",
        "nosniff")
        << path;
  }
}

// What cannot be read as a request still gets an answer that says why, with a stable code, and
// the server goes on serving everyone else.
TEST(History, RequestsTooLargeOrNotHttpGetAClearAnswer) {
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "1000"});
  const auto port = server.start();
  ASSERT_NE(port, 0);
  const std::string past_limit(3 << 20, ' ');
  // The whole body is sent before the answer is read: the server reads the rest and drops it,
  // so that closing its side does not reset the connection under the answer.
  EXPECT_EQ(refusal(http_request(port, verb::post, "/api/import", past_limit)),
            Refusal(413, "http/too_large"));

  // A client that asks first is refused before it sends anything.
  const std::string asking =
      "POST /api/import HTTP/1.1\r\nHost: x\r\nContent-Length: 3145728\r\nExpect: "
      "100-continue\r\n\r\n";
  auto answer = raw_exchange(port, asking);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer;
  EXPECT_NE(answer.find(R"("code":"http/too_large")"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("100 Continue"), std::string::npos) << answer;

  // One asking with a body within the limit is told to go on, and its body is read.
  const std::string small = "{}";
  answer = raw_exchange(
      port,
      "POST /api/import HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n"
      "Authorization: Bearer " +
          kTestAdminToken + "\r\nExpect: 100-continue\r\n\r\n" + small);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400")) << answer;
  EXPECT_NE(answer.find(R"("code":"import/bad_record")"), std::string::npos) << answer;

  answer = raw_exchange(port, "GET / HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 431")) << answer;
  EXPECT_NE(answer.find(R"("code":"http/header_too_large")"), std::string::npos) << answer;

  for (const std::string& bytes :
       std::vector<std::string>{"GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: zz\r\n\r\n",
                                "GET / HTTP/7.0\r\n\r\n",
                                std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) +
                                    std::string(64, '\0')}) {
    answer = raw_exchange(port, bytes);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
    EXPECT_NE(answer.find(R"("code":"http/bad_request")"), std::string::npos) << answer;
  }
  EXPECT_EQ(http_get(port, "/healthz").status, 200) << "the server goes on";
  EXPECT_EQ(http_get(port, "/api/history").status, 200);
}

}  // namespace
}  // namespace plateau::testing
