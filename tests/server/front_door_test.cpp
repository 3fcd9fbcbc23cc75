// The front door (server/net/front_door.hpp), over real sockets on 127.0.0.1: /healthz is
// answered on the door's own thread while the loop does nothing at all, and every other
// connection reaches the loop with its bytes unread.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

#include "../e2e/http_client.hpp"
#include "fakes.hpp"
#include "server/net/front_door.hpp"
#include "server/net/net.hpp"

namespace plateau::server {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
using plateau::testing::http_get;
using plateau::testing::http_request;
using plateau::testing::raw_exchange;

const tcp::endpoint kLoopback{asio::ip::make_address("127.0.0.1"), 0};

// Runs the loop until `done` holds or `limit` passes; returns whether it held.
bool run_until(asio::io_context& loop, const std::function<bool()>& done,
               std::chrono::milliseconds limit = 10s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    loop.restart();
    loop.run_for(20ms);
  }
  return true;
}

// Every connection admitted, as a server with no limits would (the slots are counted here).
struct Places {
  Places() : table(new ConnectionTable) {}
  ~Places() { table->orphan(); }
  FrontDoor::Count count() {
    return [this](const asio::ip::address& peer) {
      ConnectionTable::Refusal why{};
      return table->admit(peer, 1000, 1000, why);
    };
  }
  ConnectionTable* table;
};

// A client socket connected to the door (blocking).
std::unique_ptr<tcp::socket> dial(asio::io_context& ioc, unsigned short port) {
  auto s = std::make_unique<tcp::socket>(ioc);
  s->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

TEST(FrontDoor, KnowsAHealthRequestByItsFirstBytes) {
  EXPECT_TRUE(asks_for_health("GET /healthz HTTP/1.1\r\n"));
  EXPECT_TRUE(asks_for_health("GET /healthz?verbose HTTP/1.1"));
  EXPECT_TRUE(asks_for_health("HEAD /healthz HTTP/1.0"));
  EXPECT_FALSE(asks_for_health("GET /healthz")) << "not yet known to end there";
  EXPECT_FALSE(asks_for_health("GET /healthzz HTTP/1.1"));
  EXPECT_FALSE(asks_for_health("GET /healthz/x HTTP/1.1"));
  EXPECT_FALSE(asks_for_health("POST /healthz HTTP/1.1"));
  EXPECT_FALSE(asks_for_health("get /healthz HTTP/1.1"));
  EXPECT_FALSE(asks_for_health("GET /ws HTTP/1.1"));
  EXPECT_FALSE(asks_for_health(""));
}

TEST(FrontDoor, AnswersHealthFromThePublishedFiguresWhileTheLoopDoesNothing) {
  asio::io_context loop;  // never run here: nothing the loop would do can answer
  Health health;
  health.rooms = [] { return std::size_t{3}; };
  health.connections = [] { return std::size_t{7}; };
  std::atomic<bool> writable{true};
  health.writable = [&] { return writable.load(); };
  std::atomic<bool> draining{false};
  health.draining = [&] { return draining.load(); };
  int admitted = 0;
  Places places;
  FrontDoor door(loop, health, true, places.count(),
                 [&](tcp::socket, ConnectionSlot) { ++admitted; });
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  auto ok = http_get(door.port(), "/healthz");
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(nlohmann::json::parse(ok.body),
            (nlohmann::json{{"status", "ok"}, {"rooms", 3}, {"connections", 7}}));
  EXPECT_EQ(ok.headers["x-content-type-options"], "nosniff") << "the usual headers";
  EXPECT_NE(ok.headers["content-security-policy"].find("frame-ancestors 'none'"),
            std::string::npos);
  EXPECT_EQ(ok.headers["connection"], "close");
  writable = false;
  auto down = http_get(door.port(), "/healthz?x=1");
  EXPECT_EQ(down.status, 503);
  EXPECT_EQ(nlohmann::json::parse(down.body)["status"], "store_unavailable");
  const auto head = raw_exchange(door.port(), "HEAD /healthz HTTP/1.1\r\nHost: a\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 503", 0), 0u) << head;
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "") << "a HEAD answer has no body";
  EXPECT_EQ(door.health_answers(), 3u);
  EXPECT_EQ(admitted, 0);
  // A malformed request that starts like one gets nothing, and the door goes on.
  EXPECT_EQ(raw_exchange(door.port(), "GET /healthz HTTP/9\r\n\r\n", 5s), "");
  EXPECT_EQ(http_get(door.port(), "/healthz").status, 503);
  // Draining (told to stop, --drain-seconds) says so before anything else, store or not.
  writable = true;
  draining = true;
  auto leaving = http_get(door.port(), "/healthz");
  EXPECT_EQ(leaving.status, 503);
  EXPECT_EQ(nlohmann::json::parse(leaving.body)["status"], "draining");
  writable = false;
  EXPECT_EQ(nlohmann::json::parse(http_get(door.port(), "/healthz").body)["status"], "draining");
  door.stop();
}

TEST(FrontDoor, HandsEveryOtherConnectionToTheLoopWithItsBytesUnread) {
  asio::io_context loop;
  Health health;
  std::vector<tcp::socket> admitted;
  Places places;
  FrontDoor door(loop, health, true, places.count(),
                 [&](tcp::socket s, ConnectionSlot) { admitted.push_back(std::move(s)); });
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  asio::io_context client_ioc;
  const std::string request = "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n";
  auto client = dial(client_ioc, door.port());
  asio::write(*client, asio::buffer(request));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 1; }));
  std::string got(request.size(), '\0');
  asio::read(admitted[0], asio::buffer(got));
  EXPECT_EQ(got, request) << "the door peeked; it read nothing";
  // A client that says nothing yet is handed on too, once the door has waited for it.
  auto silent = dial(client_ioc, door.port());
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 2; }));
  // So is a WebSocket upgrade, and a request for /healthz that arrives on a socket the loop
  // already holds is the loop's to answer (the door only looks at a connection's start).
  auto ws = dial(client_ioc, door.port());
  asio::write(*ws, asio::buffer(std::string("GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n")));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 3; }));
  EXPECT_EQ(door.health_answers(), 0u);
  door.stop();
}

TEST(FrontDoor, ACrowdedDoorHandsConnectionsStraightToTheLoop) {
  asio::io_context loop;
  Health health;
  std::vector<tcp::socket> admitted;
  Places places;
  // Silent connections are held for a minute here, so that the door stays full for the test.
  FrontDoor door(
      loop, health, true, places.count(),
      [&](tcp::socket s, ConnectionSlot) { admitted.push_back(std::move(s)); }, 60s);
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  asio::io_context client_ioc;
  std::vector<std::unique_ptr<tcp::socket>> crowd;
  for (std::size_t i = 0; i < FrontDoor::kMaxAtTheDoor; ++i)
    crowd.push_back(dial(client_ioc, door.port()));
  const auto end = std::chrono::steady_clock::now() + 20s;
  while (door.at_the_door() < FrontDoor::kMaxAtTheDoor && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(door.at_the_door(), FrontDoor::kMaxAtTheDoor);
  EXPECT_TRUE(admitted.empty());
  // The next one, a health request though it is, goes to the loop (which answers it there).
  auto late = dial(client_ioc, door.port());
  asio::write(*late, asio::buffer(std::string("GET /healthz HTTP/1.1\r\n\r\n")));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 1; }));
  EXPECT_EQ(door.health_answers(), 0u);
  // When the crowd leaves, the door looks again.
  crowd.clear();
  while (door.at_the_door() > 0 && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(door.at_the_door(), 0u);
  EXPECT_EQ(http_get(door.port(), "/healthz").status, 200);
  EXPECT_EQ(door.health_answers(), 1u);
  door.stop();
}

TEST(FrontDoor, AConnectionOverALimitIsClosedBeforeAByteIsRead) {
  asio::io_context loop;
  Health health;
  std::atomic<int> asked{0};
  int admitted = 0;
  FrontDoor door(
      loop, health, true,
      [&](const asio::ip::address& peer) {
        EXPECT_EQ(peer.to_string(), "127.0.0.1");
        ++asked;
        return ConnectionSlot();
      },
      [&](tcp::socket, ConnectionSlot) { ++admitted; });
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  EXPECT_EQ(raw_exchange(door.port(), "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", 5s), "");
  EXPECT_EQ(raw_exchange(door.port(), "GET / HTTP/1.1\r\nHost: a\r\n\r\n", 5s), "");
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(door.health_answers(), 0u);
  loop.run_for(50ms);
  EXPECT_EQ(admitted, 0);
  door.stop();
}

// The server itself: with its loop stuck, /healthz still answers, and the rest waits for it.
TEST(FrontDoor, TheServerAnswersHealthWhileItsLoopIsStuck) {
  asio::io_context loop;
  NullStore store;
  Lobby lobby(store, [] { return 1u; });
  Config config;
  config.host = "127.0.0.1";
  config.port = 0;
  Server server(config, loop, lobby, nullptr);
  ASSERT_TRUE(server.start());
  EXPECT_EQ(http_get(server.port(), "/healthz").status, 200);
  EXPECT_EQ(raw_exchange(server.port(), "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n", 1s), "")
      << "the files are the loop's to serve";
  std::thread running([&] { loop.run(); });
  EXPECT_EQ(http_get(server.port(), "/index.html").status, 200) << "and it does once it runs";
  EXPECT_EQ(http_request(server.port(), boost::beast::http::verb::post, "/healthz").status, 405)
      << "a POST is not the door's";
  EXPECT_EQ(server.health_answers_at_door(), 1u);
  asio::post(loop, [&] { server.shutdown([&] { loop.stop(); }); });
  running.join();
}

// Behind a balancer that speaks the PROXY protocol (--proxy-protocol-from): its connections are
// counted as the client its header names, the header is read and the request after it is not,
// and a connection from it without a good header in time is closed.
TEST(FrontDoor, ATrustedBalancersConnectionCountsAsTheClientItNames) {
  asio::io_context loop;
  Health health;
  struct Admitted {
    tcp::socket socket;
    std::string address;
  };
  std::vector<Admitted> admitted;
  Places places;
  FrontDoor door(loop, health, true, places.count(), [&](tcp::socket s, ConnectionSlot slot) {
    admitted.push_back({std::move(s), slot.address().to_string()});
  });
  door.trust_proxies(*AddressBlocks::parse("127.0.0.0/8"), 3s);
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  asio::io_context client_ioc;
  const std::string request = "GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n";
  const auto read_request = [&](tcp::socket& s) {
    std::string got(request.size(), '\0');
    asio::read(s, asio::buffer(got));
    return got;
  };
  // The header and the request in one write.
  auto one = dial(client_ioc, door.port());
  asio::write(*one, asio::buffer("PROXY TCP4 203.0.113.7 127.0.0.1 5000 80\r\n" + request));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 1; }));
  EXPECT_EQ(admitted[0].address, "203.0.113.7");
  EXPECT_EQ(read_request(admitted[0].socket), request) << "the header read, and nothing more";
  // The header in pieces, the request after a pause.
  const std::string header = "PROXY TCP4 198.51.100.1 127.0.0.1 5001 80\r\n";
  auto two = dial(client_ioc, door.port());
  asio::write(*two, asio::buffer(header.substr(0, 9)));
  std::this_thread::sleep_for(50ms);
  asio::write(*two, asio::buffer(header.substr(9)));
  std::this_thread::sleep_for(50ms);
  asio::write(*two, asio::buffer(request));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 2; }));
  EXPECT_EQ(admitted[1].address, "198.51.100.1");
  EXPECT_EQ(read_request(admitted[1].socket), request);
  // A health check behind a header (HAProxy's checks send LOCAL) is answered at the door.
  const std::string local("\r\n\r\n\0\r\nQUIT\n\x20\x00\x00\x00", 16);
  const auto answer = raw_exchange(door.port(), local + "GET /healthz HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  EXPECT_EQ(door.health_answers(), 1u);
  // No header, a bad one, or none in time: closed, never handed on. A bad one is closed as soon
  // as it is seen, even when the door had to wait for it.
  EXPECT_EQ(raw_exchange(door.port(), request), "");
  auto late = dial(client_ioc, door.port());
  std::this_thread::sleep_for(100ms);
  const auto t0 = std::chrono::steady_clock::now();
  asio::write(*late, asio::buffer("PROXY TCP4 nonsense\r\n" + request));
  boost::system::error_code late_ec;
  char late_byte = 0;
  late->read_some(asio::buffer(&late_byte, 1), late_ec);
  EXPECT_TRUE(late_ec == asio::error::eof || late_ec == asio::error::connection_reset)
      << late_ec.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << "closed at once, not at the wait's end";
  auto silent = dial(client_ioc, door.port());
  char byte = 0;
  boost::system::error_code ec;
  silent->read_some(asio::buffer(&byte, 1), ec);  // returns when the door closes it
  EXPECT_EQ(ec, asio::error::eof);
  EXPECT_EQ(door.proxy_refused(), 3u);
  EXPECT_EQ(admitted.size(), 2u);
  EXPECT_EQ(door.at_the_door(), 0u);
  door.stop();
}

// A header from anyone else is not believed: the connection counts as its peer, and the header
// stays in its bytes for the HTTP parser to refuse.
TEST(FrontDoor, AHeaderFromAnUntrustedPeerIsNotRead) {
  asio::io_context loop;
  Health health;
  std::vector<std::pair<tcp::socket, std::string>> admitted;
  Places places;
  FrontDoor door(loop, health, true, places.count(), [&](tcp::socket s, ConnectionSlot slot) {
    admitted.emplace_back(std::move(s), slot.address().to_string());
  });
  door.trust_proxies(*AddressBlocks::parse("10.0.0.0/8"), 300ms);
  ASSERT_TRUE(door.listen(kLoopback));
  door.start();
  asio::io_context client_ioc;
  const std::string bytes = "PROXY TCP4 203.0.113.7 127.0.0.1 5000 80\r\nGET / HTTP/1.1\r\n\r\n";
  auto c = dial(client_ioc, door.port());
  asio::write(*c, asio::buffer(bytes));
  ASSERT_TRUE(run_until(loop, [&] { return admitted.size() == 1; }));
  EXPECT_EQ(admitted[0].second, "127.0.0.1");
  std::string got(bytes.size(), '\0');
  asio::read(admitted[0].first, asio::buffer(got));
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(door.proxy_refused(), 0u);
  door.stop();
}

}  // namespace
}  // namespace plateau::server
