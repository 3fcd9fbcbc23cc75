// The network edge's own rules, without sockets: a handler that throws answers internal/error and
// the server goes on, and the output budget drops the connections with the most queued first.
#include <gtest/gtest.h>

#include "fakes.hpp"
#include "server/net/metrics.hpp"
#include "server/net/net.hpp"

namespace plateau::server {
namespace {

using testing::FakeConnection;

// A store whose room creation throws, as an allocation failing in it would.
class ThrowingStore final : public NullStore {
 public:
  void create_room(const RoomRecord&, Done) override {
    throw std::runtime_error("no memory for the write");
  }
};

TEST(Edge, AHandlerThatThrowsAnswersInternalErrorAndTheServerGoesOn) {
  boost::asio::io_context ioc;
  ThrowingStore store;
  std::uint64_t n = 0;
  Lobby lobby(store, [&n] { return ++n; });
  Server server(Config{}, ioc, lobby, nullptr);
  auto ada = std::make_shared<FakeConnection>();
  server.on_message(ada, R"({"type":"hello","name":"Ada"})", true, true);
  ASSERT_EQ(ada->take("welcome").size(), 1u);
  EXPECT_NO_THROW(
      server.on_message(ada, R"({"type":"create","game":"quantik","id":7})", true, true));
  const auto errors = ada->take("error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["code"], "internal/error");
  EXPECT_EQ(server.stats().internal_errors, 1u);
  server.on_message(ada, R"({"type":"rooms","id":8})", true, true);
  const auto rooms = ada->take("rooms");
  ASSERT_EQ(rooms.size(), 1u) << "the same connection is still served";
  EXPECT_EQ(rooms[0]["id"], 8);
  EXPECT_NE(metrics_text(server).find("plateau_internal_errors_total 1"), std::string::npos);
}

// A connection as the budget sees it: so many bytes queued, dropped or not.
class QueuedSession final : public WsConnection {
 public:
  QueuedSession(Server& server, std::size_t queued) : server_(server), queued_(queued) {
    server.queued(queued, queued);
  }
  void send(const Frame&) override {}
  void close(boost::beast::websocket::close_code) override {}
  void keep_alive(std::chrono::steady_clock::time_point, std::chrono::seconds) override {}
  std::size_t queued_bytes() const override { return queued_; }
  std::string address() const override { return "127.0.0.1"; }
  void drop_over_budget() override {
    dropped = true;
    server_.unqueued(queued_);
    queued_ = 0;
  }
  bool dropped = false;

 private:
  Server& server_;
  std::size_t queued_;
};

TEST(Edge, PastTheOutputBudgetTheConnectionsWithTheMostQueuedAreDroppedFirst) {
  boost::asio::io_context ioc;
  NullStore store;
  Lobby lobby(store, [] { return 1u; });
  Config config;
  config.max_queued_bytes = 1000;
  Server server(config, ioc, lobby, nullptr);
  auto small = std::make_shared<QueuedSession>(server, 100);
  auto large = std::make_shared<QueuedSession>(server, 500);
  auto middle = std::make_shared<QueuedSession>(server, 300);
  for (const auto& s : {small, large, middle}) server.add(s);
  EXPECT_TRUE(server.make_room(small.get(), 100)) << "1,000 bytes fit the budget";
  EXPECT_FALSE(large->dropped);
  EXPECT_TRUE(server.make_room(small.get(), 200))
      << "past it: the largest queue goes, and the frame fits";
  EXPECT_TRUE(large->dropped);
  EXPECT_FALSE(middle->dropped);
  EXPECT_FALSE(small->dropped);
  EXPECT_EQ(server.stats().queued_bytes, 400u);
  EXPECT_FALSE(server.make_room(middle.get(), 800)) << "the sender itself had the most: it goes";
  EXPECT_TRUE(middle->dropped);
  EXPECT_FALSE(small->dropped);
}

}  // namespace
}  // namespace plateau::server
