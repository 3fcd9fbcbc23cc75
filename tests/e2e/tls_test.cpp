// Direct TLS (--tls-cert/--tls-key) against the real server binary on 127.0.0.1: HTTPS serves
// what plain HTTP does, wss:// plays a whole game with a spectator, plain clients and silent
// peers are dropped without harm, SIGTERM still ends cleanly, and a bad certificate or key
// stops the server at start with a clear error. Certificates are made by the test itself.
#include <gtest/gtest.h>

#include "tls_support.hpp"

namespace plateau::testing {
namespace {

using boost::beast::http::verb;
using nlohmann::json;
using namespace std::chrono_literals;

class Tls : public ::testing::Test {
 protected:
  void SetUp() override {
    cert_ = make_self_signed(dir_.path, "server");
    ASSERT_FALSE(cert_.cert.empty()) << "OpenSSL made no certificate";
    std::vector<std::string> args{"--tls-cert", cert_.cert, "--tls-key", cert_.key};
    for (auto& a : extra_args()) args.push_back(std::move(a));
    server_ = std::make_unique<ServerProcess>(std::filesystem::path{}, std::move(args));
    port_ = server_->start();
    ASSERT_NE(port_, 0) << server_->log();
    ctx_ = trusting(cert_.cert);
  }
  // Options for the server beyond its certificate.
  virtual std::vector<std::string> extra_args() const { return {}; }
  // Whatever the test did to it, the server ends cleanly on SIGTERM (under ASan: leaks included).
  void TearDown() override {
    if (!server_ || server_->exited()) return;
    const auto status = server_->stop(SIGTERM);
    EXPECT_EQ(status, std::optional<int>(0)) << server_->log();
    EXPECT_EQ(server_->log().find("Sanitizer"), std::string::npos) << server_->log();
  }

  TempDir dir_;
  CertFiles cert_;
  std::unique_ptr<ServerProcess> server_;
  unsigned short port_ = 0;
  std::unique_ptr<boost::asio::ssl::context> ctx_;
};

TEST_F(Tls, HttpsServesTheClientHealthMetricsAndTheApi) {
  EXPECT_NE(server_->log().find("tls=on"), std::string::npos) << server_->log();
  const auto health = https_get(*ctx_, port_, "/healthz");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(health.content_type, "application/json");
  EXPECT_EQ(json::parse(health.body)["status"], "ok");
  const auto page = https_get(*ctx_, port_, "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.body.rfind("<!doctype html>", 0), 0u) << page.body.substr(0, 80);
  const auto script = https_get(*ctx_, port_, "/app.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_NE(script.body.find("new WebSocket("), std::string::npos);
  const auto metrics = https_get(*ctx_, port_, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("plateau_connections 0"), std::string::npos) << metrics.body;
  // (all_games() also links the game registry in: the protocol library reaches it only
  // through rules_core, which static linking does not resolve on its own.)
  for (const rules::Game* g : rules::all_games()) {
    const auto line = "plateau_rooms{game=\"" + std::string(g->id()) + "\",status=\"waiting\"} 0";
    EXPECT_NE(metrics.body.find(line), std::string::npos) << line;
  }
  const auto history = https_get(*ctx_, port_, "/api/history");
  ASSERT_EQ(history.status, 200);
  EXPECT_TRUE(json::parse(history.body)["games"].is_array()) << history.body;
  const auto admin = https_get(*ctx_, port_, "/admin/rooms");
  EXPECT_EQ(admin.status, 404)
      << "no admin token: the admin API is off, over TLS as over plain HTTP";
  EXPECT_EQ(https_request(*ctx_, port_, verb::post, "/api/import", "{").status, 404)
      << "importing needs the admin token";
}

TEST_F(Tls, AClientThatDoesNotTrustTheCertificateGetsNothing) {
  const auto other = make_self_signed(dir_.path, "other");
  ASSERT_FALSE(other.cert.empty());
  EXPECT_EQ(https_get(*trusting(other.cert), port_, "/healthz").status, 0);
  EXPECT_EQ(https_get(*ctx_, port_, "/healthz").status, 200)
      << "the test's own check is not vacuous";
}

TEST_F(Tls, TwoPlayersAndASpectatorPlayQuantikOverWss) {
  auto ada = connect_tls(*ctx_, port_, "Ada"), bob = connect_tls(*ctx_, port_, "Bob"),
       eve = connect_tls(*ctx_, port_, "Eve");
  ASSERT_FALSE(ada->token.empty());
  const auto room = create(*ada, "quantik");
  ASSERT_FALSE(room.empty());
  join(*ada, room);
  join(*eve, room, true);
  join(*bob, room);
  ASSERT_TRUE(eve->reach(bob->version));
  const auto health = https_get(*ctx_, port_, "/healthz");
  ASSERT_EQ(health.status, 200);
  EXPECT_EQ(json::parse(health.body)["connections"], 3) << "the server counts wss:// sessions";
  // Every move reaches the spectator as a patch, and its patched copy equals a fresh sync.
  play_out({ada.get(), bob.get()}, *eve, 3, true);
  EXPECT_EQ(eve->state["status"], "over");
  EXPECT_GT(eve->version, 4);
}

TEST_F(Tls, PlainClientsFailTheHandshakeAndTheServerGoesOn) {
  EXPECT_EQ(http_get(port_, "/healthz").status, 0) << "no clear-text answer on a TLS port";
  client::WsClient plain;
  EXPECT_NE(plain.connect("127.0.0.1", port_, 5s), "");
  {
    // Garbage where a ClientHello belongs.
    boost::asio::io_context ioc;
    boost::beast::tcp_stream raw(ioc);
    boost::beast::error_code ec;
    ASSERT_TRUE(connect_loopback(ioc, raw, port_, ec)) << ec.message();
    const std::string junk(4096, '\x16');
    char byte = 0;
    boost::asio::async_write(
        raw, boost::asio::buffer(junk), [&](boost::beast::error_code e, std::size_t) {
          if (e) return void(ec = e);
          raw.async_read_some(boost::asio::buffer(&byte, 1),
                              [&](boost::beast::error_code e2, std::size_t) { ec = e2; });
        });
    run_all(ioc);
    EXPECT_TRUE(ec) << "the server closes it";
    EXPECT_NE(ec, boost::beast::error::timeout) << "the server closes it at once";
  }
  EXPECT_FALSE(server_->exited()) << server_->log();
  const auto health = https_get(*ctx_, port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  auto ada = connect_tls(*ctx_, port_, "Ada");
  ada->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(ada->ws.recv_type("rooms").has_value());
}

TEST_F(Tls, APeerThatNeverStartsTheHandshakeIsDropped) {
  boost::asio::io_context ioc;
  boost::beast::tcp_stream silent(ioc);
  boost::beast::error_code ec;
  ASSERT_TRUE(connect_loopback(ioc, silent, port_, ec, 30s)) << ec.message();
  const auto t0 = std::chrono::steady_clock::now();
  char byte = 0;
  silent.async_read_some(boost::asio::buffer(&byte, 1),
                         [&](boost::beast::error_code e, std::size_t) { ec = e; });
  run_all(ioc);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_NE(ec, boost::beast::error::timeout) << "the server still held the connection after 30 s";
  EXPECT_TRUE(ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset)
      << ec.message();
  EXPECT_GT(waited, 5s) << "dropped by the handshake timeout, not at once";
  EXPECT_LT(waited, 20s);
  EXPECT_EQ(https_get(*ctx_, port_, "/healthz").status, 200);
}

TEST_F(Tls, SigtermTellsWssClientsAndExitsCleanly) {
  auto ada = connect_tls(*ctx_, port_, "Ada");
  const auto room = create(*ada, "quantik");
  join(*ada, room);
  const auto t0 = std::chrono::steady_clock::now();
  const auto status = server_->stop(SIGTERM);
  ASSERT_TRUE(status.has_value()) << "exits by itself";
  EXPECT_EQ(*status, 0) << server_->log();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(ada->expect("announce").has_value()) << "clients are told";
  EXPECT_FALSE(ada->ws.recv(2s).has_value());
  EXPECT_TRUE(ada->ws.closed());
  EXPECT_NE(server_->log().find("event=stopped"), std::string::npos);
}

// Over TLS too, a reader that falls 8 MB behind is cut off at once, and nobody else notices.
class TlsBacklog : public Tls {
 protected:
  std::vector<std::string> extra_args() const override { return {"--rate", "100000"}; }
};

TEST_F(TlsBacklog, AReaderThatFallsTooFarBehindIsCutOffAloneAndAtOnce) {
  auto owner = connect_tls(*ctx_, port_, "Owner"), deaf = connect_tls(*ctx_, port_, "Deaf");
  const auto reply_bytes = fill_lobby(*owner, 40);
  ASSERT_GT(reply_bytes, 4000u);
  expect_slow_reader_cut(*deaf, *owner, reply_bytes, [&](const std::string& path) {
    return https_get(*ctx_, port_, path).body;
  });
}

// The server must not come up, must say why, and must exit 1 (not crash, not serve clear text).
// --max-per-ip over TLS: failed handshakes, HTTPS requests and wss:// connections each hold a
// place while open and give it back however they end.
class TlsPerIp : public Tls {
  std::vector<std::string> extra_args() const override { return {"--max-per-ip", "2"}; }
};

bool eventually_true(const std::function<bool()>& ok) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!ok()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

TEST_F(TlsPerIp, EveryKindOfConnectionGivesItsPlaceBackWhenItEnds) {
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(http_get(port_, "/healthz").status, 0) << "a failed handshake";
  EXPECT_TRUE(eventually_true([&] { return https_get(*ctx_, port_, "/healthz").status == 200; }))
      << "failed handshakes and HTTPS requests do not keep their places";
  auto ada = connect_tls(*ctx_, port_, "Ada");
  std::unique_ptr<TlsSeat> bob;
  ASSERT_TRUE(eventually_true([&] {
    auto s = std::make_unique<TlsSeat>(*ctx_);
    if (s->ws.connect("127.0.0.1", port_) != "") return false;
    bob = std::move(s);
    return true;
  }));
  EXPECT_EQ(https_get(*ctx_, port_, "/healthz").status, 0)
      << "two wss:// connections fill the places";
  ada->ws.close();
  EXPECT_TRUE(eventually_true([&] { return https_get(*ctx_, port_, "/healthz").status == 200; }))
      << "a wss:// connection's end frees its place";
}

void expect_refused_start(const std::vector<std::string>& args, const std::string& says) {
  ServerProcess server({}, args);
  EXPECT_EQ(server.start(), 0) << server.log();
  const auto status = server.stop(SIGKILL, 5s);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 1) << server.log();
  const auto log = server.log();
  EXPECT_NE(log.find("event=tls_failed"), std::string::npos) << log;
  EXPECT_NE(log.find(says), std::string::npos) << log;
  EXPECT_EQ(log.find("event=listening"), std::string::npos) << log;
}

TEST(TlsStart, AMissingKeyFileStopsTheServer) {
  TempDir dir;
  const auto cert = make_self_signed(dir.path, "server");
  ASSERT_FALSE(cert.cert.empty());
  const auto missing = (dir.path / "nowhere.key").string();
  expect_refused_start({"--tls-cert", cert.cert, "--tls-key", missing}, "cannot read " + missing);
}

TEST(TlsStart, AKeyOfAnotherCertificateStopsTheServer) {
  TempDir dir;
  const auto cert = make_self_signed(dir.path, "server"),
             other = make_self_signed(dir.path, "other");
  ASSERT_FALSE(cert.cert.empty() || other.cert.empty());
  expect_refused_start({"--tls-cert", cert.cert, "--tls-key", other.key}, other.key.string());
}

TEST(TlsStart, AFileThatIsNoCertificateStopsTheServer) {
  TempDir dir;
  const auto cert = make_self_signed(dir.path, "server");
  ASSERT_FALSE(cert.cert.empty());
  expect_refused_start({"--tls-cert", cert.key, "--tls-key", cert.key},
                       "certificate chain " + cert.key.string());
}

TEST(TlsStart, WithoutACertificateTheListeningLineSaysTlsOff) {
  ServerProcess server;
  ASSERT_NE(server.start(), 0) << server.log();
  EXPECT_NE(server.log().find("tls=off"), std::string::npos) << server.log();
  EXPECT_EQ(server.stop(), 0);
}

}  // namespace
}  // namespace plateau::testing
