// The server as an attacker on the internet sees it, over real sockets to the real binary: no
// file outside the web root, the same security headers on every answer, the Origin of a
// WebSocket checked, the import and admin APIs closed to strangers.
#include <gtest/gtest.h>

#include <openssl/sha.h>

#include <filesystem>
#include <fstream>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

namespace fs = std::filesystem;
using boost::beast::http::verb;

// The status line and body of a raw request sent with `target` exactly as given.
std::pair<int, std::string> raw_get(unsigned short port, const std::string& target) {
  const auto answer = raw_exchange(
      port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  if (!answer.starts_with("HTTP/1.1 ")) return {0, answer};
  const auto body = answer.find("\r\n\r\n");
  return {std::stoi(answer.substr(9, 3)), body == std::string::npos ? "" : answer.substr(body + 4)};
}

// What an attacker tries to reach a file outside the web root, sent byte for byte.
const std::vector<std::string> kEscapes = {"//etc/passwd",
                                           "///etc/passwd",
                                           "/..%2f..%2fetc/passwd",
                                           "/%2e%2e/%2e%2e/etc/passwd",
                                           "/../../../../etc/passwd",
                                           "/..\\..\\etc\\passwd",
                                           "/\\etc\\passwd",
                                           std::string("/index.html\0/etc/passwd", 23),
                                           "/%00/etc/passwd",
                                           "//proc/self/cmdline",
                                           "//proc/self/environ",
                                           "/.%2e/.%2e/etc/passwd"};

// Nothing from outside the web root comes back: no 200, and no line of the files aimed at.
void expect_nothing_leaks(unsigned short port, const std::string& secret) {
  for (const auto& target : kEscapes) {
    const auto [status, body] = raw_get(port, target);
    EXPECT_NE(status, 200) << target;
    EXPECT_TRUE(status == 404 || status == 400) << target << " answered " << status;
    EXPECT_EQ(body.find("root:"), std::string::npos) << target;
    EXPECT_EQ(body.find(secret), std::string::npos) << target;
  }
}

TEST(Security, NoRequestTargetReachesAFileOutsideTheBuiltInWebRoot) {
  ServerProcess server({}, {"--admin-token", "admin-secret-in-argv"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  expect_nothing_leaks(port, "admin-secret-in-argv");
  // The store lies in the data directory: its files are never served, under any name.
  for (const std::string& t :
       std::vector<std::string>{"/plateau.db", "//" + (server.data() / "plateau.db").string(),
                                "/" + (server.data() / "plateau.db").string()})
    EXPECT_EQ(raw_get(port, t).first, 404) << t;
  // The client itself is still served.
  const auto index = raw_get(port, "/");
  EXPECT_EQ(index.first, 200);
  EXPECT_NE(index.second.find("<html"), std::string::npos);
  EXPECT_EQ(raw_get(port, "/app.js?v=3").first, 200);
}

// A web root set by the host, with what a careless host leaves in it: links pointing outside,
// hidden files, and the data directory itself.
TEST(Security, LinksHiddenFilesAndTheDataDirectoryInsideAWebRootAreNotServed) {
  const fs::path root =
      fs::temp_directory_path() / ("plateau-webroot-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "sub");
  const fs::path secret_dir = root.string() + "-outside";
  fs::create_directories(secret_dir);
  std::ofstream(secret_dir / "secret.txt") << "TOP-SECRET-OUTSIDE";
  std::ofstream(root / "index.html") << "<html>club</html>";
  std::ofstream(root / "sub" / "page.js") << "let x = 1;";
  std::ofstream(root / ".env") << "TOP-SECRET-HIDDEN";
  fs::create_symlink("/etc/passwd", root / "passwd");
  fs::create_symlink(secret_dir / "secret.txt", root / "secret.txt");
  fs::create_directory_symlink(secret_dir, root / "outside");
  fs::create_symlink(root / "sub" / "page.js", root / "alias.js");  // inside: fine
  {
    ServerProcess server(root / "data", {"--web-root", root.string()});
    const auto port = server.start();
    ASSERT_NE(port, 0) << server.log();
    EXPECT_EQ(raw_get(port, "/").second, "<html>club</html>");
    EXPECT_EQ(raw_get(port, "/sub/page.js").second, "let x = 1;");
    EXPECT_EQ(raw_get(port, "/alias.js").second, "let x = 1;");
    for (const std::string t :
         {"/passwd", "/secret.txt", "/outside/secret.txt", "/.env", "/data/plateau.db",
          "/data/plateau.db-wal", "/data/server-1.log", "/sub/../.env", "/sub/%2e%2e/.env"}) {
      const auto [status, body] = raw_get(port, t);
      EXPECT_EQ(status, 404) << t;
      EXPECT_EQ(body.find("TOP-SECRET"), std::string::npos) << t;
      EXPECT_EQ(body.find("root:"), std::string::npos) << t;
    }
    expect_nothing_leaks(port, "TOP-SECRET");
  }
  fs::remove_all(root);
  fs::remove_all(secret_dir);
}

TEST(Security, EveryAnswerCarriesTheSecurityHeaders) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  for (const std::string target :
       {"/", "/app.js", "/healthz", "/metrics", "/api/history", "/nope", "/admin/rooms"}) {
    auto r = http_get(port, target);
    ASSERT_NE(r.status, 0) << target;
    EXPECT_EQ(r.headers["x-content-type-options"], "nosniff") << target;
    EXPECT_EQ(r.headers["referrer-policy"], "no-referrer") << target;
    const auto& csp = r.headers["content-security-policy"];
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << target;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << target;
    EXPECT_NE(csp.find("connect-src 'self'"), std::string::npos) << target;
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << target;
  }
}

// The status of a WebSocket upgrade request carrying `origin` ("" for none) and `host`.
int upgrade_status(unsigned short port, const std::string& origin, const std::string& host) {
  std::string req = "GET /ws HTTP/1.1\r\nHost: " + host +
                    "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";
  if (!origin.empty()) req += "Origin: " + origin + "\r\n";
  const auto answer = raw_exchange(port, req + "\r\n", std::chrono::seconds(2));
  return answer.starts_with("HTTP/1.1 ") ? std::stoi(answer.substr(9, 3)) : 0;
}

TEST(Security, AWebSocketFromAnotherSitesPageIsRefused) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const std::string host = "127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(upgrade_status(port, "", host), 101)
      << "not a browser: no page of another site behind it";
  EXPECT_EQ(upgrade_status(port, "http://" + host, host), 101) << "the server's own page";
  EXPECT_EQ(upgrade_status(port, "HTTP://" + host, host), 101) << "names compare in any case";
  EXPECT_EQ(upgrade_status(port, "http://evil.example", host), 403);
  EXPECT_EQ(upgrade_status(port, "http://evil.example", "evil.example"), 101)
      << "a page of the host the request names (a proxy in front passes its Host on)";
  EXPECT_EQ(upgrade_status(port, "null", host), 403) << "a sandboxed or file: page";
  EXPECT_EQ(upgrade_status(port, "http://127.0.0.1:1", host), 403)
      << "another port is another origin";
  EXPECT_EQ(upgrade_status(port, "http://" + host + ".evil.example", host), 403);
  EXPECT_NE(server.log().find("event=ws_refused reason=origin peer=127.0.0.1"), std::string::npos);
}

TEST(Security, OriginsTheHostAllowsMayOpenAWebSocket) {
  ServerProcess server(
      {}, {"--allowed-origins", "https://club.example.org, https://games.example.org/"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const std::string host = "127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(upgrade_status(port, "https://club.example.org", host), 101);
  EXPECT_EQ(upgrade_status(port, "https://games.example.org", host), 101);
  EXPECT_EQ(upgrade_status(port, "http://club.example.org", host), 403)
      << "the scheme is part of the origin";
  EXPECT_EQ(upgrade_status(port, "https://evil.example", host), 403);
}

std::pair<int, std::string> refusal(const HttpReply& r) {
  const json body = json::parse(r.body, nullptr, false);
  return {r.status, body.is_object() && body.contains("code") ? body["code"].get<std::string>()
                                                              : "(none) " + r.body};
}
using Refusal = std::pair<int, std::string>;

// A finished Quantik game (Bob wins in four moves) with its dates set by the uploader.
std::string quantik_record(std::int64_t finished, std::int64_t at) {
  json moves = json::array();
  int seat = 0;
  for (const char* m : {"sphere@a1", "cylinder@b1", "cube@c1", "cone@d1"}) {
    moves.push_back({{"seat", seat}, {"move", m}, {"at", at}});
    seat = 1 - seat;
  }
  return json{{"format", "plateau-game/1"},  {"game", "quantik"},
              {"options", {{"first", "0"}}}, {"seed", "1"},
              {"players", {"Ada", "Bob"}},   {"moves", moves},
              {"finished", finished}}
      .dump();
}

TEST(Security, ImportingNeedsTheAdminTokenIsRateLimitedAndCannotDateGamesInTheFuture) {
  {
    ServerProcess server;
    const auto port = server.start();
    ASSERT_NE(port, 0);
    EXPECT_EQ(refusal(import_record(port, quantik_record(0, 0))), Refusal(404, "import/off"))
        << "no admin token set: nobody may import";
  }
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--imports-per-minute", "3"});
  const auto port = server.start();
  ASSERT_NE(port, 0);
  EXPECT_EQ(refusal(http_request(port, verb::post, "/api/import", quantik_record(0, 0))),
            Refusal(401, "import/unauthorized"));
  const std::int64_t far_future = 4'000'000'000'000;  // the year 2096
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const auto first = import_record(port, quantik_record(far_future, far_future));
  ASSERT_EQ(first.status, 201) << first.body;
  const std::string room = json::parse(first.body)["room"];
  const json record = json::parse(http_get(port, "/api/export?room=" + room).body);
  const auto after = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count() +
                     1000;
  EXPECT_GE(record["finished"].get<std::int64_t>(), before);
  EXPECT_LE(record["finished"].get<std::int64_t>(), after)
      << "a finish in the future is clamped to now";
  for (const auto& m : record["moves"]) EXPECT_LE(m["at"].get<std::int64_t>(), after);
  // Three imports a minute from one address, then a wait (a refused token counted against the
  // admin token's own limit instead).
  EXPECT_EQ(import_record(port, quantik_record(1000, 500)).status, 201);
  EXPECT_EQ(import_record(port, quantik_record(1000, 500)).status, 201);
  EXPECT_EQ(refusal(import_record(port, quantik_record(1000, 500))), Refusal(429, "import/rate"));
}

TEST(Security, WrongAdminTokensAreLoggedWithTheAddressAndSlowedDown) {
  ServerProcess server({}, {"--admin-token", "the-real-admin-token"});
  const auto port = server.start();
  ASSERT_NE(port, 0);
  auto admin = [&](const std::string& token) {
    return refusal(
        http_request(port, verb::get, "/admin/rooms", "", {{"Authorization", "Bearer " + token}}));
  };
  EXPECT_EQ(admin("the-real-admin-token").first, 200);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(admin("guess-" + std::to_string(i)), Refusal(401, "admin/unauthorized")) << i;
  // Past three free failures, the address waits, whatever it sends: even the right token.
  const auto slowed = http_request(port, verb::get, "/admin/rooms", "",
                                   {{"Authorization", "Bearer the-real-admin-token"}});
  EXPECT_EQ(refusal(slowed), Refusal(429, "admin/slow_down"));
  EXPECT_FALSE(slowed.headers.at("retry-after").empty());
  EXPECT_NE(server.log().find("event=admin_refused reason=bad_token peer=127.0.0.1"),
            std::string::npos)
      << server.log();
  EXPECT_NE(server.log().find("event=admin_refused reason=slow_down peer=127.0.0.1"),
            std::string::npos);
}

// Fair chance, end to end: a finished round of each game with chance reveals a seed and salt
// that open the commitment every viewer saw from the start, and replaying the round's moves
// from that seed, through the rules core alone, draws exactly what the table drew.
TEST(Security, AFinishedRoundReplaysFromItsRevealedSeedAndOpensItsCommitment) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  for (const std::string game : {"quirky", "on_top"}) {
    SCOPED_TRACE(game);
    const rules::Game* g = rules::find_game(game);
    ASSERT_NE(g, nullptr);
    Table t;
    ASSERT_NO_FATAL_FAILURE(open_table(port, game, g->max_seats(), t));
    const json committed = t.eve->state["fairness"];
    ASSERT_TRUE(committed.is_object()) << t.eve->state.dump().substr(0, 300);
    EXPECT_TRUE(committed["seed"].is_null() && committed["salt"].is_null())
        << "sealed while played";
    play_out(t.players(), *t.eve, 777, false);
    const json final = t.eve->state;
    ASSERT_EQ(final["status"], "over");
    const json f = final["fairness"];
    ASSERT_TRUE(f["seed"].is_string() && f["salt"].is_string()) << f;
    EXPECT_EQ(f["commitment"], committed["commitment"]) << "the commitment never changed";
    // Opened here with OpenSSL, apart from the server's code.
    const std::string text =
        "plateau-seed/1:" + f["seed"].get<std::string>() + ":" + f["salt"].get<std::string>();
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
    std::string hex;
    for (unsigned char b : digest)
      hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
    EXPECT_EQ(hex, f["commitment"]);
    // The export names the same seed, salt and commitment.
    const json record = json::parse(http_get(port, "/api/export?room=" + t.room).body);
    EXPECT_EQ(record["seed"], f["seed"]);
    EXPECT_EQ(record["salt"], f["salt"]);
    EXPECT_EQ(record["commitment"], f["commitment"]);
    // Replayed from the revealed seed, the same draws: every viewer's board is the table's.
    auto state =
        std::move(*g->create(record["options"], std::stoull(f["seed"].get<std::string>())));
    for (const auto& m : record["moves"])
      ASSERT_TRUE(state->apply(m["seat"], rules::Move{m["move"]}).has_value());
    EXPECT_EQ(state->view(std::nullopt), final["board"]);
    for (std::size_t s = 0; s < t.seats.size(); ++s)
      EXPECT_EQ(state->view(static_cast<rules::Seat>(s)), t.seats[s]->state["board"])
          << "seat " << s;
    // A different seed would have drawn differently: the check is not vacuous.
    auto other =
        std::move(*g->create(record["options"], std::stoull(f["seed"].get<std::string>()) + 1));
    bool same = true;
    for (const auto& m : record["moves"])
      same = same && other->apply(m["seat"], rules::Move{m["move"]}).has_value();
    EXPECT_FALSE(same && other->view(std::nullopt) == final["board"]);
  }
}

// Accounts over real HTTP: the origin check, the answers' codes, the host's calls, and an
// account and its session across a kill -9.
TEST(Accounts, OverHttpFromRegistrationToDeletionAndAcrossACrash) {
  ServerProcess server({}, {"--admin-token", kTestAdminToken, "--password-memory-kib", "64",
                            "--password-ops", "1", "--logins-per-minute", "1000"});
  auto port = server.start();
  ASSERT_NE(port, 0);
  using nlohmann::json;
  const auto post = [&](const std::string& target, const json& body,
                        std::map<std::string, std::string> headers = {}) {
    return http_request(port, verb::post, target, body.dump(), headers);
  };
  const auto code = [](const HttpReply& r) {
    const auto j = json::parse(r.body, nullptr, false);
    return j.is_object() ? j.value("code", "") : std::string("?");
  };
  const json ada{{"name", "Ada"}, {"password", "correct horse"}};
  // A page of another site may not register its visitors here.
  const auto evil = post("/api/accounts/register", ada, {{"Origin", "https://evil.example"}});
  EXPECT_EQ(evil.status, 403);
  EXPECT_EQ(code(evil), "account/origin");
  const auto made = post("/api/accounts/register", ada);
  ASSERT_EQ(made.status, 201) << made.body;
  const std::string token = json::parse(made.body)["token"];
  EXPECT_EQ(made.body.find("correct horse"), std::string::npos);
  EXPECT_EQ(code(post("/api/accounts/register", {{"name", "ADA"}, {"password", "another one"}})),
            "account/name_taken");
  EXPECT_EQ(code(post("/api/accounts/register", {{"name", "Bob"}, {"password", 5}})),
            "account/bad_body");
  const auto wrong = post("/api/accounts/login", {{"name", "ada"}, {"password", "wrong horse"}});
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(code(wrong), "account/wrong_password");
  const std::map<std::string, std::string> bearer{{"Authorization", "Bearer " + token}};
  const auto me = http_request(port, verb::get, "/api/accounts/me", "", bearer);
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_EQ(json::parse(me.body)["name"], "Ada");
  EXPECT_EQ(http_request(port, verb::get, "/api/accounts/me").status, 401);
  EXPECT_EQ(code(http_request(port, verb::get, "/api/leaderboard?game=chess")), "api/bad_game");
  EXPECT_EQ(http_request(port, verb::get, "/api/profile?name=ada").status, 200);
  EXPECT_EQ(http_request(port, verb::get, "/api/profile?name=Nobody%20Here").status, 404);

  // kill -9: the account and its session were durable before they were answered.
  server.kill(SIGKILL);
  port = server.start();
  ASSERT_NE(port, 0);
  EXPECT_EQ(http_request(port, verb::get, "/api/accounts/me", "", bearer).status, 200);
  EXPECT_EQ(post("/api/accounts/login", ada).status, 200);

  // The host's calls.
  const auto admin = admin_header();
  EXPECT_EQ(http_request(port, verb::get, "/admin/accounts").status, 401);
  const auto listed = http_request(port, verb::get, "/admin/accounts", "", admin);
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(json::parse(listed.body)["accounts"][0]["name"], "Ada");
  EXPECT_EQ(post("/admin/accounts/disable", {{"name", "ada"}}, admin).status, 200);
  EXPECT_EQ(code(post("/api/accounts/login", ada)), "account/disabled");
  EXPECT_EQ(post("/admin/accounts/enable", {{"name", "Ada"}}, admin).status, 200);
  EXPECT_EQ(post("/admin/accounts/mute", {{"name", "Ada"}}, admin).status, 200);
  EXPECT_EQ(
      json::parse(
          http_request(port, verb::get, "/admin/accounts", "", admin).body)["accounts"][0]["muted"],
      true);
  const auto invite = post("/admin/invites", json::object(), admin);
  ASSERT_EQ(invite.status, 201);
  EXPECT_EQ(json::parse(invite.body)["code"].get<std::string>().size(), 32u);
  EXPECT_EQ(code(post("/admin/chat/delete", {{"room", "nope"}, {"seq", 1}}, admin)),
            "admin/no_such_message");
  EXPECT_EQ(post("/admin/accounts/delete", {{"name", "Ada"}}, admin).status, 200);
  EXPECT_EQ(code(post("/api/accounts/login", ada)), "account/wrong_password");
  EXPECT_EQ(http_request(port, verb::get, "/api/accounts/me", "", bearer).status, 401);
  EXPECT_EQ(code(post("/admin/accounts/delete", {{"name", "Ada"}}, admin)),
            "account/no_such_account");
}

}  // namespace
}  // namespace plateau::testing
