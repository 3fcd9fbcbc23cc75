// Behind a load balancer (--proxy-protocol-from): every per-address limit counts the client the
// balancer names in its PROXY header, not the balancer. First with headers written by the test,
// then behind a real HAProxy (send-proxy-v2, as docker/haproxy.cfg does), with clients coming
// from two loopback addresses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../server/child_process.hpp"
#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

using plateau::test::free_port;

const std::string kLocal("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16);

std::string v1(const std::string& client) {
  return "PROXY TCP4 " + client + " 127.0.0.1 40000 8080\r\n";
}

// A version 2 header for an IPv4 client.
std::string v2(std::array<unsigned char, 4> client) {
  std::string h("\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0c", 16);
  for (const auto b : client) h += static_cast<char>(b);
  h += std::string("\x7f\x00\x00\x01\x9c\x40\x1f\x90", 8);
  return h;
}

// A player whose connection opens with `preamble` (a PROXY header) or comes from `source`;
// null if the server refused it.
std::unique_ptr<Seat> seat(unsigned short port, const std::string& name,
                           const std::string& preamble, const char* source = nullptr,
                           const char* forwarded_for = nullptr) {
  auto s = std::make_unique<Seat>();
  s->ws.preamble(preamble);
  if (forwarded_for) s->ws.header("X-Forwarded-For", forwarded_for);
  if (source) s->ws.connect_from(boost::asio::ip::make_address(source));
  if (s->ws.connect("127.0.0.1", port) != "") return nullptr;
  s->ws.send({{"type", "hello"}, {"name", name}});
  const auto w = s->expect("welcome");
  if (!w) return nullptr;
  s->token = (*w)["token"];
  return s;
}

std::string refusal(Seat& s) {
  const auto m =
      s.ws.recv_until([](const json& m) { return m["type"] == "error" || m["type"] == "created"; });
  return m && (*m)["type"] == "error" ? (*m)["code"].get<std::string>() : "";
}

// /metrics over a connection that says it is the balancer's own (LOCAL).
std::string metrics_via_local(unsigned short port) {
  const auto answer =
      raw_exchange(port, kLocal + "GET /metrics HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
  return answer;
}

double metric_in(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

TEST(Proxy, EachClientNamedByTheBalancerHasItsOwnLimits) {
  ServerProcess server(
      {}, {"--proxy-protocol-from", "127.0.0.1", "--max-per-ip", "1", "--creates-per-minute", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = seat(port, "Ada", v1("203.0.113.1"));
  ASSERT_TRUE(ada) << server.log();
  EXPECT_FALSE(seat(port, "Ada2", v1("203.0.113.1"))) << "a second from the same client";
  auto bob = seat(port, "Bob", v2({198, 51, 100, 2}));
  ASSERT_TRUE(bob) << "another client, through the same balancer (version 2)";
  EXPECT_FALSE(create(*ada, "quantik").empty());
  ada->ws.send({{"type", "create"}, {"game", "quantik"}});
  EXPECT_EQ(refusal(*ada), "rate/creates");
  EXPECT_FALSE(create(*bob, "quantik").empty()) << "Bob's address has its own minute";
  // The balancer must speak first: a connection from it with no header is closed.
  EXPECT_EQ(http_get(port, "/healthz").status, 0);
  const auto m = metrics_via_local(port);
  EXPECT_EQ(metric_in(m, "plateau_proxy_headers_refused_total"), 1) << m;
  EXPECT_EQ(metric_in(m, R"(plateau_connections_refused_total{limit="max_per_ip"})"), 1) << m;
}

// Behind a reverse proxy that speaks HTTP (nginx, Caddy: --forwarded-for-from), each request
// counts as the client the proxy appended to X-Forwarded-For; nobody else's header is read.
TEST(Proxy, BehindAReverseProxyEachForwardedClientHasItsOwnLimits) {
  ServerProcess server(
      {}, {"--forwarded-for-from", "127.0.0.1", "--max-per-ip", "1", "--creates-per-minute", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = seat(port, "Ada", "", nullptr, "203.0.113.1");
  ASSERT_TRUE(ada) << server.log();
  EXPECT_FALSE(seat(port, "Ada2", "", nullptr, "203.0.113.1")) << "a second from that client";
  // A client's own entry, left of the one the proxy appended, is not believed.
  auto bob = seat(port, "Bob", "", nullptr, "203.0.113.1, 198.51.100.2");
  ASSERT_TRUE(bob) << "counted as 198.51.100.2, not as Ada's address";
  EXPECT_FALSE(seat(port, "Bob2", "", nullptr, "198.51.100.2"));
  EXPECT_FALSE(create(*ada, "quantik").empty());
  ada->ws.send({{"type", "create"}, {"game", "quantik"}});
  EXPECT_EQ(refusal(*ada), "rate/creates");
  EXPECT_FALSE(create(*bob, "quantik").empty()) << "Bob's address has its own minute";
  // From anywhere but the proxy the header is ignored: 127.0.0.2 is one client, whatever it says.
  auto eve = seat(port, "Eve", "", "127.0.0.2", "192.0.2.1");
  ASSERT_TRUE(eve);
  EXPECT_FALSE(seat(port, "Eve2", "", "127.0.0.2", "192.0.2.2"));
  // The proxy itself, naming nobody, is no client: it is held to no per-address limit while
  // its connections say whom they are for (a third and a fourth connection from it, here).
  const auto metrics = http_get(port, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(http_get(port, "/healthz").status, 200);
  EXPECT_EQ(metric_in(metrics.body, R"(plateau_connections_refused_total{limit="max_per_ip"})"), 3)
      << metrics.body;
}

// A proxy on IPv6 is trusted by its own address (not by the /64 clients are counted by).
TEST(Proxy, AnIPv6ReverseProxyIsTrustedByItsAddress) {
  {
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor probe(ioc);
    boost::system::error_code ec;
    probe.open(boost::asio::ip::tcp::v6(), ec);
    if (!ec) probe.bind({boost::asio::ip::make_address("::1"), 0}, ec);
    if (ec) GTEST_SKIP() << "no IPv6 loopback on this machine: " << ec.message();
  }
  ServerProcess server({}, {"--host", "::1", "--forwarded-for-from", "::1", "--max-per-ip", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto connect6 = [&](const char* name, const char* forwarded) {
    auto s = std::make_unique<Seat>();
    s->ws.header("X-Forwarded-For", forwarded);
    if (s->ws.connect("::1", port) != "") return std::unique_ptr<Seat>();
    s->ws.send({{"type", "hello"}, {"name", name}});
    return s->expect("welcome") ? std::move(s) : std::unique_ptr<Seat>();
  };
  auto ada = connect6("Ada", "2001:db8:1::5");
  ASSERT_TRUE(ada) << server.log();
  EXPECT_FALSE(connect6("Ada2", "2001:db8:1::6")) << "the same /64: the same client";
  EXPECT_TRUE(connect6("Bob", "2001:db8:2::5")) << "another client through the same proxy";
}

// A private HAProxy in front of the server, as docker/haproxy.cfg has it: HTTP mode, health
// checks on /healthz, send-proxy-v2. Killed with the test.
class TempHaproxy {
 public:
  static constexpr const char* kProgram = "/usr/sbin/haproxy";
  explicit TempHaproxy(unsigned short server_port) {
    dir_ = std::filesystem::temp_directory_path() /
           ("plateau-haproxy-" + std::to_string(::getpid()) + "-" + std::to_string(server_port));
    std::filesystem::create_directories(dir_);
    for (int attempt = 0; attempt < 5 && pid_ < 0; ++attempt) {
      port_ = free_port();
      std::ofstream(dir_ / "haproxy.cfg")
          << "global\n  maxconn 100\n"
          << "defaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n"
          << "  timeout server 30s\n  timeout tunnel 60s\n"
          << "frontend www\n  bind 127.0.0.1:" << port_ << "\n  default_backend nodes\n"
          << "backend nodes\n  option httpchk\n"
          << "  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host localhost\n"
          << "  http-check expect status 200\n"
          << "  server node1 127.0.0.1:" << server_port << " check inter 200ms send-proxy-v2\n";
      pid_ = plateau::test::spawn_child(kProgram,
                                        {kProgram, "-db", "-f", (dir_ / "haproxy.cfg").string()},
                                        (dir_ / "log").string());
      if (pid_ > 0 && !plateau::test::wait_for_port(pid_, port_)) plateau::test::kill_child(pid_);
    }
  }
  ~TempHaproxy() {
    plateau::test::kill_child(pid_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  bool running() const { return pid_ > 0; }
  unsigned short port() const { return static_cast<unsigned short>(port_); }
  std::string log() const { return plateau::test::tail_of((dir_ / "log").string()); }

 private:
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST(Proxy, BehindARealHaproxyClientsFromTwoAddressesAreCountedApart) {
  ASSERT_EQ(::access(TempHaproxy::kProgram, X_OK), 0)
      << TempHaproxy::kProgram << " is missing: apt-get install haproxy";
  ServerProcess server({}, {"--proxy-protocol-from", "127.0.0.1", "--max-per-ip", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  TempHaproxy haproxy(port);
  ASSERT_TRUE(haproxy.running()) << haproxy.log();
  // HAProxy's health checks reach the server with their header, and are answered.
  bool checked = false;
  for (int i = 0; i < 100 && !checked; ++i) {
    checked = metric_in(metrics_via_local(port), "plateau_health_answers_at_door_total") >= 2;
    if (!checked) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(checked) << haproxy.log();
  auto ada = seat(haproxy.port(), "Ada", "", "127.0.0.2");
  ASSERT_TRUE(ada) << haproxy.log() << server.log();
  EXPECT_FALSE(seat(haproxy.port(), "Ada2", "", "127.0.0.2"))
      << "127.0.0.2 holds its one connection";
  auto bob = seat(haproxy.port(), "Bob", "", "127.0.0.3");
  ASSERT_TRUE(bob) << "127.0.0.3 is another client, though HAProxy made both connections";
  // And they play through it.
  const auto room = create(*ada, "quantik");
  ASSERT_FALSE(room.empty());
  ASSERT_NO_FATAL_FAILURE(join(*ada, room));
  ASSERT_NO_FATAL_FAILURE(join(*bob, room));
  ASSERT_TRUE(ada->reach(bob->version));
  const auto m = metrics_via_local(port);
  EXPECT_EQ(metric_in(m, "plateau_proxy_headers_refused_total"), 0) << m;
  // (HAProxy tries a connection the server closed at once again, up to its "retries".)
  EXPECT_GE(metric_in(m, R"(plateau_connections_refused_total{limit="max_per_ip"})"), 1) << m;
}

}  // namespace
}  // namespace plateau::testing
