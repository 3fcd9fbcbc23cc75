// Limits that hold under abuse, over real sockets against the real binary on 127.0.0.1: every
// connection counts at accept (HTTP too) and by address, running out of file descriptors, messages
// too large or left unfinished, the output queues (one connection's, all together), and a store
// that cannot write.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <sys/resource.h>

#include <filesystem>
#include <regex>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using beast::http::verb;
using nlohmann::json;
using namespace std::chrono_literals;

// Polls `ok` until it holds or `limit` is over.
bool eventually(const std::function<bool()>& ok, std::chrono::seconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (ok()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
}

// A counter or gauge read from /metrics (-1: not there, or no answer).
double metric(unsigned short port, const std::string& name) {
  const auto m = http_get(port, "/metrics");
  const std::regex line("(^|\n)" + std::regex_replace(name, std::regex(R"([{}"])"), R"(\$&)") +
                        R"( ([0-9.e+]+))");
  std::smatch found;
  return std::regex_search(m.body, found, line) ? std::stod(found[2]) : -1;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// An HTTP/1.1 connection kept open between requests. (Not for /healthz: the front door answers
// it off the loop and closes the connection.)
struct KeptAlive {
  asio::io_context ioc;
  beast::tcp_stream stream{ioc};
  int get(unsigned short port, const std::string& target) {
    beast::error_code ec;
    if (!stream.socket().is_open() && !connect_loopback(ioc, stream, port, ec, 30s)) return 0;
    return http_exchange(ioc, stream, verb::get, target).status;
  }
  void close() { stream.socket().close(); }
};

// --max-connections counts every accepted socket: two idle HTTP connections fill a limit of two,
// and the next connection, HTTP or WebSocket, is closed as it is accepted.
TEST(Connections, EveryAcceptedSocketCountsAgainstMaxConnectionsHttpIncluded) {
  ServerProcess server({}, {"--max-connections", "2"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  KeptAlive a, b;
  ASSERT_EQ(a.get(port, "/metrics"), 200);
  ASSERT_EQ(b.get(port, "/metrics"), 200);
  EXPECT_EQ(http_get(port, "/healthz").status, 0) << "a third HTTP connection is closed at accept";
  WsClient ws;
  EXPECT_NE(ws.connect("127.0.0.1", port), "") << "and so is a WebSocket";
  a.close();
  EXPECT_TRUE(eventually([&] { return http_get(port, "/healthz").status == 200; }))
      << "an ended one frees its place";
  EXPECT_EQ(b.get(port, "/metrics"), 200) << "the other was never disturbed";
}

// --max-per-ip: one address holds at most that many connections, and every kind of connection
// that ends (HTTP, WebSocket) gives its place back.
TEST(Connections, OneAddressHoldsAtMostMaxPerIpAndEveryEndGivesItsPlaceBack) {
  ServerProcess server({}, {"--max-per-ip", "2"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  KeptAlive http;
  ASSERT_EQ(http.get(port, "/metrics"), 200);
  auto ada = connect(port, "Ada");
  EXPECT_EQ(http_get(port, "/healthz").status, 0)
      << "a third connection from 127.0.0.1 is closed at accept";
  WsClient refused;
  EXPECT_NE(refused.connect("127.0.0.1", port), "");
  ada->ws.close();
  EXPECT_TRUE(eventually([&] { return http_get(port, "/healthz").status == 200; }))
      << "a WebSocket's end frees it";
  // HTTP and a new WebSocket fill the two places again; the HTTP one's end frees one.
  std::unique_ptr<Seat> bob;
  ASSERT_TRUE(eventually([&] {
    auto s = std::make_unique<Seat>();
    if (s->ws.connect("127.0.0.1", port) != "") return false;
    bob = std::move(s);
    return true;
  }));
  EXPECT_EQ(http_get(port, "/healthz").status, 0);
  http.close();
  EXPECT_TRUE(eventually([&] { return http_get(port, "/healthz").status == 200; }))
      << "an HTTP connection's end frees it";
  bob->ws.close();
  EXPECT_TRUE(eventually([&] {
    return metric(port, R"(plateau_connections_refused_total{limit="max_per_ip"})") >= 2;
  }));
}

// Seconds of CPU the process has used (user and system).
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::istringstream rest(text.substr(text.rfind(')') + 2));  // after the command's name
  std::vector<std::string> fields{std::istream_iterator<std::string>(rest), {}};
  if (fields.size() < 13) return -1;
  return static_cast<double>(std::stoll(fields[11]) + std::stoll(fields[12])) /
         static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The server is left with three free file descriptors, and ten clients connect: it accepts what it
// can, logs once that it is out of descriptors, tries again every 100 ms rather than spinning, and
// serves again once descriptors are free.
TEST(Connections, OutOfFileDescriptorsTheServerWaitsAndServesAgainAfter) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const auto fds = std::distance(
      std::filesystem::directory_iterator("/proc/" + std::to_string(server.pid()) + "/fd"),
      std::filesystem::directory_iterator());
  const rlimit lim{static_cast<rlim_t>(fds + 3), static_cast<rlim_t>(fds + 3)};
  ASSERT_EQ(::prlimit(server.pid(), RLIMIT_NOFILE, &lim, nullptr), 0) << std::strerror(errno);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds(server.pid());
  {
    asio::io_context ioc;
    std::vector<std::unique_ptr<tcp::socket>> clients;
    for (int i = 0; i < 10; ++i) {
      auto s = std::make_unique<tcp::socket>(ioc);
      beast::error_code ec;
      s->connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                 ec);  // the backlog takes it
      ASSERT_FALSE(ec) << ec.message();
      clients.push_back(std::move(s));
    }
    ASSERT_TRUE(eventually([&] {
      return server.log().find("event=accept_paused") != std::string::npos;
    })) << server.log();
    std::this_thread::sleep_for(1500ms);
    EXPECT_LT(cpu_seconds(server.pid()) - cpu0, 0.15) << "it waits; it does not spin";
    EXPECT_EQ(count(server.log(), "event=accept_paused"), 1u) << "logged once";
  }  // the clients leave, and their descriptors on the server's side are freed
  EXPECT_TRUE(eventually([&] { return http_get(port, "/healthz").status == 200; }, 20s))
      << server.log();
  const double failures = metric(port, "plateau_accept_failures_total");
  const double tenths =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 10;
  EXPECT_GE(failures, 1);
  EXPECT_LE(failures, tenths + 2) << "one attempt per 100 ms at most";
  EXPECT_NE(server.log().find("event=accept_resumed"), std::string::npos);
  auto ada = connect(port, "Ada");
  EXPECT_FALSE(create(*ada, "quantik").empty()) << "and plays";
}

// How a connection that sent one message ended: the error it got, and the close code.
struct Ending {
  std::string error;    // the code of the error frame received, if any
  int close_code = -1;  // the code of the server's close frame, if one arrived
  std::string problem;  // anything else (a reset, a timeout)
};

// Sends one text message of `bytes` (in `fragments` frames) and reads until the connection ends.
Ending send_message(unsigned short port, std::size_t bytes, int fragments = 1) {
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws(ioc);
  beast::get_lowest_layer(ws).expires_after(30s);  // bounds every step below
  Ending end;
  beast::flat_buffer buffer;
  const std::string message(bytes, ' ');
  std::function<void()> read = [&] {
    ws.async_read(buffer, [&](beast::error_code ec, std::size_t) {
      if (ec == websocket::error::closed) return void(end.close_code = ws.reason().code);
      if (ec) return void(end.problem = "read: " + ec.message());
      const auto m = json::parse(beast::buffers_to_string(buffer.data()), nullptr, false);
      buffer.consume(buffer.size());
      if (m.value("type", "") == "error") end.error = m.value("code", "");
      read();
    });
  };
  std::size_t sent = 0;
  const std::size_t piece = bytes / static_cast<std::size_t>(fragments);
  std::function<void()> write = [&] {
    const std::size_t n = sent + 2 * piece > bytes ? bytes - sent : piece;
    const bool last = sent + n == bytes;
    ws.async_write_some(last, asio::buffer(message.data() + sent, n),
                        [&, n](beast::error_code ec, std::size_t) {
                          if (ec) return void(end.problem = "write: " + ec.message());
                          sent += n;
                          if (sent < bytes)
                            write();
                          else
                            read();
                        });
  };
  beast::get_lowest_layer(ws).async_connect(
      tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](beast::error_code ec) {
        if (ec) return void(end.problem = "connect: " + ec.message());
        ws.async_handshake("127.0.0.1", "/ws", [&](beast::error_code e) {
          if (e) return void(end.problem = "handshake: " + e.message());
          ws.text(true);
          write();
        });
      });
  ioc.run();
  return end;
}

// Twenty messages over --max-frame, from just over it to 80 times it, whole or in fragments: each
// gets proto/too_large, then a close with code 1009 that really arrives (not a reset).
TEST(Messages, AMessageOverTheLimitGetsItsErrorAndACleanClose1009) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  const std::size_t sizes[] = {64 * 1024 + 1, 100'000, 1 << 20, 5 << 20};
  for (int i = 0; i < 20; ++i) {
    const std::size_t bytes = sizes[i % 4];
    const int fragments = i % 3 == 2 ? 7 : 1;
    SCOPED_TRACE("message " + std::to_string(i) + ": " + std::to_string(bytes) + " bytes in " +
                 std::to_string(fragments) + " frames");
    const auto end = send_message(port, bytes, fragments);
    EXPECT_EQ(end.problem, "");
    EXPECT_EQ(end.error, "proto/too_large");
    EXPECT_EQ(end.close_code, 1009);
  }
  EXPECT_EQ(metric(port, "plateau_too_large_total"), 20);
  auto ada = connect(port, "Ada");
  EXPECT_FALSE(create(*ada, "quantik").empty()) << "the others are served";
}

// A WebSocket whose raw bytes the test writes itself, after a normal handshake.
struct RawWs {
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  bool open(unsigned short port) {
    beast::error_code result;
    beast::get_lowest_layer(ws).expires_after(10s);
    beast::get_lowest_layer(ws).async_connect(
        tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), [&](beast::error_code ec) {
          if (ec) return void(result = ec);
          ws.async_handshake("127.0.0.1", "/ws", [&](beast::error_code e) { result = e; });
        });
    ioc.run();
    beast::get_lowest_layer(ws).expires_never();
    return !result;
  }
  // Client frames are masked: a zero mask leaves the payload as it is.
  void write_raw(const std::string& bytes) {
    asio::write(beast::get_lowest_layer(ws).socket(), asio::buffer(bytes));
  }
  // True when the connection ends within `limit`.
  bool ends_within(std::chrono::seconds limit) {
    bool ended = false;
    beast::flat_buffer buffer;
    ws.async_read(buffer, [&](beast::error_code ec, std::size_t) { ended = ec.failed(); });
    ioc.restart();
    ioc.run_for(limit);
    return ended;
  }
};

// --message-timeout 1: a frame whose header promises 1,000 bytes and brings 10, and a message
// whose first fragment never has a next, each end their connection; a quiet client stays.
TEST(Messages, AMessageLeftUnfinishedEndsItsConnection) {
  ServerProcess server({}, {"--message-timeout", "1"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto quiet = connect(port, "Quiet");
  RawWs short_frame, open_fragments;
  ASSERT_TRUE(short_frame.open(port));
  ASSERT_TRUE(open_fragments.open(port));
  short_frame.write_raw(std::string("\x81\xfe\x03\xe8\0\0\0\0", 8) + std::string(10, 'x'));
  open_fragments.write_raw(std::string("\x01\x85\0\0\0\0", 6) + "hello");
  EXPECT_TRUE(short_frame.ends_within(10s)) << "a frame shorter than its header said";
  EXPECT_TRUE(open_fragments.ends_within(10s)) << "fragments never finished";
  EXPECT_EQ(metric(port, "plateau_unfinished_dropped_total"), 2);
  quiet->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(quiet->ws.recv_type("rooms").has_value())
      << "a client with no message under way stays";
}

class Queues : public ::testing::Test {
 protected:
  void start(std::vector<std::string> flags) {
    server_ = std::make_unique<ServerProcess>(std::filesystem::path{}, std::move(flags));
    port_ = server_->start();
    ASSERT_NE(port_, 0) << server_->log();
    owner_ = connect(port_, "Owner");
    reply_bytes_ = fill_lobby(*owner_, 40);  // each `rooms` reply is a few kilobytes
    ASSERT_GT(reply_bytes_, 4000u);
  }
  std::unique_ptr<ServerProcess> server_;
  unsigned short port_ = 0;
  std::unique_ptr<Seat> owner_;
  std::size_t reply_bytes_ = 0;
};

// --max-connection-queue 1 MiB: a client that reads nothing is dropped before the frame that
// would take its queue past the limit, so the queue never holds more than it.
TEST_F(Queues, OneConnectionsQueueNeverPassesItsLimit) {
  ASSERT_NO_FATAL_FAILURE(start({"--max-connection-queue", "1048576"}));
  auto deaf = connect(port_, "Deaf");
  ask_rooms(*deaf, static_cast<int>((12u << 20) / reply_bytes_));
  ASSERT_TRUE(
      eventually([&] { return metric(port_, "plateau_slow_readers_dropped_total") == 1; }, 40s));
  const double peak = metric(port_, "plateau_connection_queue_peak_bytes");
  EXPECT_LE(peak, 1048576);
  EXPECT_GT(peak, 1048576 / 2) << "the queue did fill up to near its limit";
  owner_->ws.send({{"type", "rooms"}, {"id", "still"}});
  EXPECT_TRUE(owner_->ws.recv_type("rooms").has_value());
}

// --max-queued-bytes 6 MiB for all connections together. B stops reading with at most 2.5 MiB
// asked for; A stops reading with 16 MiB asked for. When the total reaches the budget, A has
// more queued than B can ever have, so A goes, and B (once it reads again) gets all its replies.
TEST_F(Queues, PastTheOutputBudgetTheSlowestReaderIsDroppedFirstAndTheOthersAreServed) {
  ASSERT_NO_FATAL_FAILURE(
      start({"--max-queued-bytes", "6291456", "--max-connection-queue", "67108864"}));
  auto b = connect(port_, "B"), a = connect(port_, "A");
  const int asked_b = static_cast<int>((5u << 19) / reply_bytes_);
  const int asked_a = static_cast<int>((16u << 20) / reply_bytes_);
  ASSERT_EQ(ask_rooms(*b, asked_b), asked_b)
      << "B, which asked for less than its queue holds, is not dropped";
  ask_rooms(*a, asked_a);
  ASSERT_TRUE(
      eventually([&] { return metric(port_, "plateau_over_budget_dropped_total") >= 1; }, 60s));
  owner_->ws.send({{"type", "rooms"}, {"id", "still"}});
  const auto reply = owner_->ws.recv_type("rooms");
  ASSERT_TRUE(reply.has_value()) << "a reader is still served";
  EXPECT_EQ((*reply)["id"], "still");
  std::size_t read_a = 0;
  while (a->ws.recv(5s).has_value()) ++read_a;
  EXPECT_TRUE(a->ws.closed()) << "A, with the most queued, is dropped";
  EXPECT_LT(read_a, static_cast<std::size_t>(asked_a));
  for (int i = 0; i < asked_b; ++i) {
    const auto m = b->ws.recv(10s);
    ASSERT_TRUE(m.has_value()) << "B's reply " << i << " of " << asked_b;
    ASSERT_EQ((*m)["id"], i);
  }
  EXPECT_FALSE(b->ws.closed());
  EXPECT_EQ(metric(port_, "plateau_over_budget_dropped_total"), 1);
  EXPECT_EQ(metric(port_, "plateau_slow_readers_dropped_total"), 0);
  EXPECT_LE(metric(port_, "plateau_queued_bytes"), 6291456);
}

// Another program holds the database's write lock longer than the store's busy timeout (5 s):
// the store cannot write. The move made meanwhile is refused with store/unavailable and never
// shown, /healthz answers 503, and once the lock is gone the store writes again; after a restart
// the room has every acknowledged move and not the refused one.
//
// (Why a lock: the tests run as root, for whom a read-only file or directory does not stop a
// write, and a full disk needs a mount. A lock held by another connection is a real failure of
// the real store, from outside the server, and it ends when the test says.)
TEST(Store, AStoreThatCannotWriteRefusesMovesWithStoreUnavailableAndLosesNothing) {
  ServerProcess server;
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  AdaAndBob t;
  ASSERT_NO_FATAL_FAILURE(ada_and_bob(port, t));
  auto &ada = t.ada, &bob = t.bob;
  const auto& room = t.room;
  const auto v = ada->version;
  const std::string first = ada->state["legal_moves"][0];
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", first}});
  ASSERT_TRUE(bob->reach(v + 1));
  ASSERT_TRUE(ada->reach(v + 1));

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((server.data() / "plateau.db").c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 10'000);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  const std::string second = bob->state["legal_moves"][0];
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", v + 1}, {"move", second}, {"id", 5}});
  const auto refused = bob->ws.recv_until([](const json& m) { return m["type"] == "error"; }, 20s,
                                          [&](const json& m) { bob->take(m); });
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ((*refused)["code"], "store/unavailable");
  const auto told = ada->ws.recv_until([](const json& m) { return m["type"] == "error"; }, 5s,
                                       [&](const json& m) { ada->take(m); });
  ASSERT_TRUE(told.has_value());
  EXPECT_EQ((*told)["code"], "store/unavailable");
  EXPECT_EQ(ada->version, v + 1) << "the refused move was never shown";
  EXPECT_EQ(bob->version, v + 1);
  const auto health = http_get(port, "/healthz");
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(json::parse(health.body, nullptr, false).value("status", ""), "store_unavailable");
  EXPECT_TRUE(eventually([&] {
    return server.log().find("event=store_unavailable") != std::string::npos;
  })) << "logged";
  sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(db);

  // The next write (a newcomer's table: a hello alone stores nothing) goes through, and the
  // store is well again.
  auto carol = connect(port, "Carol");
  EXPECT_TRUE(eventually(
      [&] {
        carol->ws.send({{"type", "create"}, {"game", "quantik"}});
        return http_get(port, "/healthz").status == 200;
      },
      20s));
  carol.reset();
  const std::string token = ada->token;
  ada.reset();
  bob.reset();
  ASSERT_EQ(server.stop(), 0);
  ASSERT_NE(server.start(), 0) << server.log();
  std::unique_ptr<Seat> back;
  ASSERT_NO_FATAL_FAILURE(come_back(server.port(), "Ada", token, room, back));
  EXPECT_EQ(back->state["board"]["last"], first)
      << "the acknowledged move is kept, the refused one never made";
  EXPECT_EQ(back->state["to_move"], 1);
}

}  // namespace
}  // namespace plateau::testing
