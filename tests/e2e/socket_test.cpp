// End to end over real sockets on 127.0.0.1, against the real server binary (DESIGN.md §5,
// ring 5): whole games with a spectator whose patched copy equals a fresh sync, bad input of
// every kind, and a clean shutdown.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <fstream>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The harness: a test process that dies before its ServerProcess is destroyed (a crash, a
// ctest timeout) takes its server with it, instead of leaving it running with its port.
TEST(Harness, AServerDiesWithTheTestProcessThatStartedIt) {
  const auto data = std::filesystem::temp_directory_path() /
                    ("plateau-test-harness-" + std::to_string(::getpid()));
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t test = ::fork();
  ASSERT_GE(test, 0);
  if (test == 0) {
    ::close(fds[0]);
    auto* server = new ServerProcess(data);  // never destroyed: the process just ends
    const pid_t pid = server->start() != 0 ? server->pid() : -1;
    (void)!::write(fds[1], &pid, sizeof pid);
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t server = -1;
  ASSERT_EQ(::read(fds[0], &server, sizeof server), static_cast<ssize_t>(sizeof server));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(test, &status, 0);
  ASSERT_GT(server, 0) << "the server started";
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    // Reaped by init (or a subreaper) once killed; until then it may show as a zombie.
    std::ifstream stat("/proc/" + std::to_string(server) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    gone = text.empty() || text.find(") Z") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(gone) << "server " << server << " outlived the test process";
  if (!gone) ::kill(server, SIGKILL);
  std::error_code ec;
  std::filesystem::remove_all(data, ec);
}

class Sockets : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = server_.start();
    ASSERT_NE(port_, 0) << server_.log();
  }
  ServerProcess server_;
  unsigned short port_ = 0;
};

TEST_F(Sockets, TwoPlayersAndASpectatorPlayQuantikToTheEnd) {
  auto ada = connect(port_, "Ada"), bob = connect(port_, "Bob"), eve = connect(port_, "Eve");
  const auto room = create(*ada, "quantik");
  join(*ada, room);
  join(*eve, room, true);
  join(*bob, room);
  ASSERT_TRUE(eve->reach(bob->version));
  play_out({ada.get(), bob.get()}, *eve, 1, true);
  EXPECT_FALSE(eve->state["outcome"]["reason"].get<std::string>().empty());
}

TEST_F(Sockets, RandomGamesOfEveryGameEndWithASpectator) {
  for (const rules::Game* g : rules::all_games()) {
    for (int n = g->min_seats(); n <= g->max_seats(); ++n) {
      SCOPED_TRACE(std::string(g->id()) + " with " + std::to_string(n));
      Table t;
      ASSERT_NO_FATAL_FAILURE(open_table(port_, std::string(g->id()), n, t));
      play_out(t.players(), *t.eve, 7 + static_cast<std::uint64_t>(n), false);
    }
  }
}

TEST_F(Sockets, BadInputGetsAStableErrorAndNobodyElseNotices) {
  auto ada = connect(port_, "Ada"), bob = connect(port_, "Bob"), eve = connect(port_, "Eve");
  const auto room = create(*ada, "quantik", {{"first", "0"}});
  join(*ada, room);
  join(*bob, room);
  join(*eve, room, true);
  const auto v = eve->version;
  auto mallory = connect(port_, "Mallory");
  auto expect_error = [&](const std::string& frame, const std::string& code) {
    ASSERT_TRUE(mallory->ws.send_text(frame));
    auto e = mallory->ws.recv_type("error");
    ASSERT_TRUE(e.has_value()) << frame.substr(0, 80);
    EXPECT_EQ((*e)["code"], code) << frame.substr(0, 80);
  };
  expect_error("{not json", "proto/bad_json");
  expect_error("[]", "proto/bad_json");
  expect_error(R"({"type":"teleport"})", "proto/unknown_type");
  expect_error(R"({"type":"move","room":")" + room + R"("})", "proto/bad_field");
  expect_error(R"({"type":"move","room":")" + room + R"(","version":"x","move":"cube@a1"})",
               "proto/bad_field");
  expect_error(R"({"type":"join","room":"zzzzz","as":"player"})", "room/not_found");
  expect_error(R"({"type":"create","game":"go"})", "room/unknown_game");
  expect_error(R"({"type":"join","room":")" + room + R"(","as":"player"})", "room/full");
  expect_error(R"({"type":"move","room":")" + room + R"(","version":)" + std::to_string(v) +
                   R"(,"move":"cube@a1"})",
               "move/not_a_player");
  expect_error(std::string(1000, '[') + std::string(1000, ']'), "proto/too_deep");
  // Moves by the players themselves.
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@a1"}, {"id", 1}});
  auto e = bob->expect("error");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["code"], "move/not_your_turn");
  EXPECT_EQ((*e)["id"], 1);
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v - 1}, {"move", "cube@a1"}});
  EXPECT_EQ((*ada->expect("error"))["code"], "move/stale_version");
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@z9"}});
  EXPECT_EQ((*ada->expect("error"))["code"], "move/illegal");
  // A message over --max-frame is refused, and its connection closed (limits_test checks the
  // close).
  auto oversize = connect(port_, "Oversize");
  ASSERT_TRUE(
      oversize->ws.send_text(R"({"type":"hello","name":")" + std::string(100'000, 'x') + R"("})"));
  auto too_large = oversize->ws.recv_type("error");
  ASSERT_TRUE(too_large.has_value());
  EXPECT_EQ((*too_large)["code"], "proto/too_large");
  // Nothing changed, the bad client still works, and the game goes on.
  EXPECT_EQ(fresh_sync(*eve)["board"]["last"], nullptr);
  EXPECT_EQ(eve->version, v);
  mallory->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(mallory->ws.recv_type("rooms").has_value());
  ada->ws.send({{"type", "move"}, {"room", room}, {"version", v}, {"move", "cube@a1"}});
  ASSERT_TRUE(eve->reach(v + 1));
  EXPECT_EQ(eve->state["board"]["last"], "cube@a1");
}

TEST_F(Sockets, AHugeFrameClosesOnlyItsOwnConnection) {
  auto ada = connect(port_, "Ada");
  auto mallory = connect(port_, "Mallory");
  mallory->ws.send_text(std::string(2 << 20, ' '));
  EXPECT_FALSE(mallory->ws.recv_type("rooms", 3s).has_value());
  ada->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(ada->ws.recv_type("rooms").has_value()) << "the server still serves everyone else";
}

TEST_F(Sockets, SigtermTellsClientsAndExitsCleanly) {
  auto ada = connect(port_, "Ada");
  const auto room = create(*ada, "quantik");
  join(*ada, room);
  const auto t0 = std::chrono::steady_clock::now();
  const auto status = server_.stop(SIGTERM);
  ASSERT_TRUE(status.has_value()) << "exits by itself";
  EXPECT_EQ(*status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(ada->expect("announce").has_value()) << "clients are told";
  EXPECT_NE(server_.log().find("event=stopped"), std::string::npos);
}

// /healthz once it answers 503 (a server just told to stop), or its last answer after a second.
HttpReply draining_health(unsigned short port) {
  HttpReply h;
  for (int i = 0; i < 100 && h.status != 503; ++i) {
    h = http_get(port, "/healthz");
    if (h.status != 503) std::this_thread::sleep_for(10ms);
  }
  return h;
}

// --drain-seconds: after SIGTERM, /healthz says "draining" (a balancer takes the server out)
// while the server goes on serving its clients, new ones included; then it stops as before.
TEST(Operations, ADrainingServerFailsItsHealthCheckButServesUntilItStops) {
  ServerProcess server({}, {"--drain-seconds", "3"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  AdaAndBob t;
  ASSERT_NO_FATAL_FAILURE(ada_and_bob(port, t));
  auto &ada = t.ada, &bob = t.bob;
  const auto& room = t.room;
  ASSERT_EQ(http_get(port, "/healthz").status, 200);

  const auto t0 = std::chrono::steady_clock::now();
  server.signal(SIGTERM);
  const HttpReply h = draining_health(port);
  ASSERT_EQ(h.status, 503) << h.body;
  EXPECT_EQ(json::parse(h.body)["status"], "draining");
  // Still serving: a move is taken and broadcast, and a newcomer gets in and watches.
  ada->ws.send({{"type", "move"},
                {"room", room},
                {"version", ada->version},
                {"move", ada->state["legal_moves"][0]}});
  ASSERT_TRUE(bob->reach(ada->version + 1)) << server.log();
  auto eve = connect(port, "Eve");
  ASSERT_NO_FATAL_FAILURE(join(*eve, room, true));
  EXPECT_EQ(eve->version, bob->version);
  EXPECT_FALSE(server.exited()) << "it drains before it stops";

  const auto status = server.wait_exit(10s);
  ASSERT_TRUE(status.has_value()) << "exits by itself once drained";
  EXPECT_EQ(*status, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 2900ms) << "not before the drain's end";
  EXPECT_TRUE(ada->expect("announce").has_value()) << "clients are told, as without a drain";
  EXPECT_NE(server.log().find("event=draining"), std::string::npos);
  // The move made while draining was stored before it was acknowledged.
  ASSERT_NE(server.start(), 0);
  std::unique_ptr<Seat> back;
  ASSERT_NO_FATAL_FAILURE(come_back(server.port(), "Ada", ada->token, room, back));
  EXPECT_EQ(back->state["board"], bob->state["board"]) << "the move made while draining is kept";
  EXPECT_NE(back->state["board"]["last"], nullptr);
}

// A second signal cuts a drain short: an operator who wants it gone now has it gone now.
TEST(Operations, ASecondSignalStopsADrainingServerAtOnce) {
  ServerProcess server({}, {"--drain-seconds", "120"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  server.signal(SIGTERM);
  const HttpReply h = draining_health(port);
  ASSERT_EQ(h.status, 503);
  const auto t0 = std::chrono::steady_clock::now();
  const auto status = server.stop(SIGINT, 10s);
  ASSERT_TRUE(status.has_value()) << server.log();
  EXPECT_EQ(*status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(Operations, AdminApiListsClosesAndAnnouncesOnlyWithTheToken) {
  ServerProcess server({}, {"--admin-token", "s3cret"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto ada = connect(port, "Ada");
  ada->ws.send({{"type", "create"}, {"game", "quantik"}, {"private", true}});
  const std::string room = (*ada->ws.recv_type("created"))["room"];
  join(*ada, room);
  using boost::beast::http::verb;
  auto admin = [&](verb method, const std::string& target, const std::string& token,
                   const std::string& body = "") {
    namespace beast = boost::beast;
    boost::asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(5));
    stream.connect(
        boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    beast::http::request<beast::http::string_body> req{method, target, 11};
    req.set(beast::http::field::host, "127.0.0.1");
    if (!token.empty()) req.set(beast::http::field::authorization, "Bearer " + token);
    req.body() = body;
    req.prepare_payload();
    beast::http::write(stream, req);
    beast::flat_buffer buf;
    beast::http::response<beast::http::string_body> res;
    beast::http::read(stream, buf, res);
    return std::pair<int, std::string>(res.result_int(), res.body());
  };
  EXPECT_EQ(admin(verb::get, "/admin/rooms", "").first, 401);
  EXPECT_EQ(admin(verb::get, "/admin/rooms", "wrong").first, 401);
  const auto list = admin(verb::get, "/admin/rooms", "s3cret");
  ASSERT_EQ(list.first, 200);
  EXPECT_EQ(json::parse(list.second)["rooms"][0]["room"], room) << "private rooms too";
  EXPECT_EQ(
      admin(verb::post, "/admin/announce", "s3cret", R"({"message":"Club night at 8"})").first,
      200);
  auto a = ada->ws.recv_type("announce");
  ASSERT_TRUE(a);
  EXPECT_EQ((*a)["message"], "Club night at 8");
  EXPECT_EQ(admin(verb::post, "/admin/announce", "s3cret", R"({"msg":1})").first, 400);
  EXPECT_EQ(admin(verb::post, "/admin/rooms/" + room + "/close", "s3cret").first, 200);
  auto e = ada->ws.recv_type("error");
  ASSERT_TRUE(e);
  EXPECT_EQ((*e)["code"], "room/not_found");
  EXPECT_EQ(admin(verb::post, "/admin/rooms/" + room + "/close", "s3cret").first, 404);
  // A closed room does not come back at the next start.
  ASSERT_EQ(server.stop(), 0);
  ASSERT_NE(server.start(), 0);
  EXPECT_NE(server.log().find("event=recovered rooms=0"), std::string::npos) << server.log();
}

TEST_F(Sockets, MetricsCountConnectionsRoomsMovesAndRefusals) {
  AdaAndBob t;
  ASSERT_NO_FATAL_FAILURE(ada_and_bob(port_, t));
  auto &ada = t.ada, &bob = t.bob;
  const auto& room = t.room;
  ada->ws.send({{"type", "move"},
                {"room", room},
                {"version", ada->version},
                {"move", ada->state["legal_moves"][0]}});
  ASSERT_TRUE(bob->reach(ada->version + 1));
  bob->ws.send({{"type", "move"}, {"room", room}, {"version", 1}, {"move", "x"}});
  ASSERT_TRUE(bob->ws.recv_type("error"));
  const auto m = http_get(port_, "/metrics");
  ASSERT_EQ(m.status, 200);
  for (const char* line :
       {"plateau_connections 2", "plateau_rooms{game=\"quantik\",status=\"playing\"} 1",
        "plateau_moves_accepted_total 1", "plateau_refused_total{code=\"move/stale_version\"} 1",
        "plateau_store_commit_seconds_count", "plateau_store_queue_seconds_count",
        "plateau_store_return_seconds_count", "plateau_recovery_seconds",
        "plateau_broadcast_bytes_total"})
    EXPECT_NE(m.body.find(line), std::string::npos) << line << "\n" << m.body;
  const auto h = http_get(port_, "/healthz");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(json::parse(h.body)["status"], "ok");
}

}  // namespace
}  // namespace plateau::testing

namespace plateau::testing {
namespace {

using namespace std::chrono_literals;

// A spectator of a slow game sends nothing for minutes: the server must ping it rather than cut
// it off, and must still let go of a peer that answers nothing at all.
TEST(KeepAlive, ASilentPeerIsPingedAndOneThatNeverAnswersIsDropped) {
  // Pinged after 2 s of silence; dropped 2 s after a ping that gets no answer.
  ServerProcess server({}, {"--idle-timeout", "4"});
  const auto port = server.start();
  ASSERT_NE(port, 0) << server.log();
  auto listener = connect(port, "Listener");
  auto deaf = connect(port, "Deaf");  // never reads again, so never answers a ping
  // Twice the timeout of silence from the listener; its client answers the pings as it reads.
  EXPECT_FALSE(listener->ws.recv(8s).has_value()) << "nobody sent it anything";
  EXPECT_FALSE(listener->ws.closed()) << "a peer that answers pings stays";
  listener->ws.send({{"type", "rooms"}});
  EXPECT_TRUE(listener->ws.recv_type("rooms").has_value());
  (void)deaf->ws.recv(2s);
  EXPECT_TRUE(deaf->ws.closed()) << "a peer that never answers is let go";
  const auto health = http_get(port, "/healthz");
  EXPECT_NE(health.body.find(R"("connections":1)"), std::string::npos) << health.body;
}

// These fill a client's socket, so that the server must queue what it writes and wait for room,
// and check what arrives and what is let go.
class Backlog : public ::testing::Test {
 protected:
  void SetUp() override {
    port_ = server_.start();
    ASSERT_NE(port_, 0) << server_.log();
    owner_ = connect(port_, "Owner");
    reply_bytes_ = fill_lobby(*owner_, 40);
    ASSERT_GT(reply_bytes_, 4000u);
  }
  ServerProcess server_{{}, {"--rate", "100000"}};
  unsigned short port_ = 0;
  std::unique_ptr<Seat> owner_;
  std::size_t reply_bytes_ = 0;
};

// About 6 MB for a client that reads nothing for a second: more than the kernel's buffers hold
// on loopback (4.3 MB here, both ends together), so the server queues the rest, and less
// than the 8 MB of queue a slow reader is allowed. It all arrives, whole and in order.
TEST_F(Backlog, RepliesQueuedPastTheSocketBuffersArriveWholeAndInOrder) {
  auto late = connect(port_, "Late");
  const int n = static_cast<int>((6u << 20) / reply_bytes_);
  ASSERT_EQ(ask_rooms(*late, n), n);
  std::this_thread::sleep_for(1s);
  for (int i = 0; i < n; ++i) {
    const auto m = late->ws.recv(10s);
    ASSERT_TRUE(m.has_value()) << "reply " << i << " of " << n;
    ASSERT_EQ((*m)["type"], "rooms") << m->dump();
    ASSERT_EQ((*m)["id"], i);
    ASSERT_EQ((*m)["rooms"].size(), 40u);
  }
  EXPECT_FALSE(late->ws.closed());
  const auto metrics = http_get(port_, "/metrics");
  EXPECT_NE(metrics.body.find("plateau_slow_readers_dropped_total 0"), std::string::npos)
      << metrics.body;
}

TEST_F(Backlog, AReaderThatFallsTooFarBehindIsCutOffAloneAndAtOnce) {
  auto deaf = connect(port_, "Deaf");
  expect_slow_reader_cut(*deaf, *owner_, reply_bytes_,
                         [&](const std::string& path) { return http_get(port_, path).body; });
}

// A client's ping is answered with its payload, between the replies.
TEST_F(Sockets, APingIsAnsweredWithItsPong) {
  auto ada = connect(port_, "Ada");
  ASSERT_TRUE(ada->ws.ping("are you there"));
  ada->ws.send({{"type", "rooms"}, {"id", 1}});
  ASSERT_TRUE(ada->ws.recv_type("rooms").has_value());
  ASSERT_EQ(ada->ws.pongs().size(), 1u);
  EXPECT_EQ(ada->ws.pongs()[0], "are you there");
}

}  // namespace
}  // namespace plateau::testing
