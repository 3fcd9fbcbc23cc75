// The server as an attacker on the internet sees it, over real sockets to the real binary: no
// file outside the web root, the same security headers on every answer, the Origin of a
// WebSocket checked, the import and admin APIs closed to strangers.
#include <gtest/gtest.h>

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
  const auto answer = raw_exchange(port, "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  if (!answer.starts_with("HTTP/1.1 ")) return {0, answer};
  const auto body = answer.find("\r\n\r\n");
  return {std::stoi(answer.substr(9, 3)), body == std::string::npos ? "" : answer.substr(body + 4)};
}

// What an attacker tries to reach a file outside the web root, sent byte for byte.
const std::vector<std::string> kEscapes = {
    "//etc/passwd", "///etc/passwd", "/..%2f..%2fetc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
    "/../../../../etc/passwd", "/..\\..\\etc\\passwd", "/\\etc\\passwd", std::string("/index.html\0/etc/passwd", 23),
    "/%00/etc/passwd", "//proc/self/cmdline", "//proc/self/environ", "/.%2e/.%2e/etc/passwd"};

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
  for (const std::string& t : std::vector<std::string>{"/plateau.db", "//" + (server.data() / "plateau.db").string(),
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
  const fs::path root = fs::temp_directory_path() / ("plateau-webroot-" + std::to_string(::getpid()));
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
    for (const std::string t : {"/passwd", "/secret.txt", "/outside/secret.txt", "/.env", "/data/plateau.db",
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
  for (const std::string target : {"/", "/app.js", "/healthz", "/metrics", "/api/history", "/nope", "/admin/rooms"}) {
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

}  // namespace
}  // namespace plateau::testing
