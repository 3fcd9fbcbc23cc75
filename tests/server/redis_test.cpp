// The Redis client of the cluster (server/cluster/): its protocol parser on its own, fed in
// pieces of every size, and the client against a real redis-server on 127.0.0.1: commands in
// order, publish and subscribe, and a Redis killed and restarted under it.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "server/cluster/redis.hpp"
#include "server/cluster/resp.hpp"
#include "tests/server/temp_redis.hpp"

namespace plateau::server::redis {
namespace {

using Type = Reply::Type;

// Several replies of every kind, back to back, as Redis would send them.
constexpr char kStreamBytes[] =
    "+OK\r\n-ERR wrong\r\n:42\r\n:-7\r\n$5\r\nhe\r\nl\r\n$0\r\n\r\n$-1\r\n*-1\r\n"
    "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n*2\r\n:1\r\n$1\r\n\0\r\n*0\r\n";
const std::string kStream(kStreamBytes, sizeof kStreamBytes - 1);  // with its NUL byte

std::vector<Reply> parse_all(const std::string& bytes, std::size_t piece) {
  Parser p;
  std::vector<Reply> out;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    p.feed(std::string_view(bytes).substr(at, piece));
    while (auto r = p.next()) out.push_back(std::move(*r));
  }
  EXPECT_FALSE(p.failed()) << p.error();
  EXPECT_EQ(p.buffered(), 0u);
  return out;
}

TEST(Resp, RepliesComeOutWholeWhateverPiecesTheBytesArriveIn) {
  const std::string& stream = kStream;
  const auto whole = parse_all(stream, stream.size());
  ASSERT_EQ(whole.size(), 10u);
  EXPECT_EQ(whole[0].type, Type::status);
  EXPECT_EQ(whole[0].str, "OK");
  EXPECT_TRUE(whole[1].is_error());
  EXPECT_EQ(whole[1].str, "ERR wrong");
  EXPECT_EQ(whole[2].integer, 42);
  EXPECT_EQ(whole[3].integer, -7);
  EXPECT_EQ(whole[4].str, "he\r\nl") << "a bulk string is binary safe";
  EXPECT_EQ(whole[5].type, Type::bulk);
  EXPECT_EQ(whole[5].str, "");
  EXPECT_EQ(whole[6].type, Type::nil);
  EXPECT_EQ(whole[7].type, Type::nil);
  ASSERT_EQ(whole[8].type, Type::array);
  ASSERT_EQ(whole[8].elements.size(), 3u);
  EXPECT_EQ(whole[8].elements[0].str, "message");
  ASSERT_EQ(whole[8].elements[2].elements.size(), 2u);
  EXPECT_EQ(whole[8].elements[2].elements[1].str, std::string(1, '\0'));
  EXPECT_EQ(whole[9].type, Type::array);
  EXPECT_TRUE(whole[9].elements.empty());
  for (std::size_t piece = 1; piece < stream.size(); ++piece) {
    const auto again = parse_all(stream, piece);
    ASSERT_EQ(again.size(), whole.size()) << "in pieces of " << piece;
    for (std::size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(again[i].type, whole[i].type);
      EXPECT_EQ(again[i].str, whole[i].str);
      EXPECT_EQ(again[i].elements.size(), whole[i].elements.size());
    }
  }
}

TEST(Resp, GarbageAndRepliesOverTheLimitsFailTheParserForGood) {
  for (const std::string& bad :
       std::vector<std::string>{"?what\r\n", "$99999999999\r\n", "*99999999999\r\n", ":12x\r\n",
                                "$3\r\nabcde\r\n", "$-2\r\n", "\r\n", std::string(70'000, 'x')}) {
    Parser p(1024, 16);
    p.feed(bad);
    EXPECT_FALSE(p.next().has_value()) << bad.substr(0, 20);
    EXPECT_TRUE(p.failed()) << bad.substr(0, 20);
    p.feed("+OK\r\n");
    EXPECT_FALSE(p.next().has_value()) << "nothing more after an error";
  }
  Parser deep;
  std::string nested;
  for (int i = 0; i < 12; ++i) nested += "*1\r\n";
  deep.feed(nested + ":1\r\n");
  EXPECT_FALSE(deep.next().has_value());
  EXPECT_TRUE(deep.failed()) << "nested too deep";
  Parser status;
  status.feed("-" + std::string(200, 'e') + "\r\n");
  const auto r = status.next();
  ASSERT_TRUE(r.has_value()) << "an error message of 200 bytes is fine";
  EXPECT_EQ(r->str.size(), 200u);
}

TEST(Resp, ACommandIsAnArrayOfBinarySafeBulkStrings) {
  constexpr char kWant[] = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\r\n\0b\r\n";
  EXPECT_EQ(encode({"SET", "k", std::string("a\r\n\0b", 5)}), std::string(kWant, sizeof kWant - 1));
}

TEST(RedisUri, HostAndPortAreReadAndAnythingElseIsRefused) {
  EXPECT_EQ(parse_uri("redis://10.0.0.5:6380")->host, "10.0.0.5");
  EXPECT_EQ(parse_uri("redis://10.0.0.5:6380")->port, "6380");
  EXPECT_EQ(parse_uri("redis://cache")->port, "6379");
  EXPECT_EQ(parse_uri("redis://[::1]:7000")->host, "::1");
  EXPECT_EQ(parse_uri("redis://cache:6379/")->host, "cache");
  for (const char* bad :
       {"http://x", "redis://", "redis://:6379", "redis://h:0", "redis://h:70000", "redis://h:x",
        "redis://user@h:1", "redis://:@h", "redis://:%zz@h", "redis://[::1"})
    EXPECT_FALSE(parse_uri(bad).has_value()) << bad;
  // A password (and a user, Redis 6's ACLs), percent-encoded as in any URI.
  const auto auth = parse_uri("redis://:s3cret%40x@cache:6380");
  ASSERT_TRUE(auth.has_value());
  EXPECT_EQ(auth->password, "s3cret@x");
  EXPECT_EQ(auth->user, "");
  EXPECT_EQ(auth->host, "cache");
  EXPECT_EQ(parse_uri("redis://plateau:pw@h")->user, "plateau");
}

class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = test::TempRedis::start();
    ASSERT_TRUE(started.has_value()) << started.error();
    server_ = std::move(*started);
  }
  std::shared_ptr<Client> client() {
    auto o = parse_uri(server_->uri());
    o->retry_min = std::chrono::milliseconds(20);
    o->retry_max = std::chrono::milliseconds(200);
    auto c = Client::make(io_, *o);
    c->start();
    return c;
  }
  // Runs the loop until `done` holds (at most 10 s).
  bool run_until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(std::chrono::milliseconds(5));
    }
    return done();
  }

  boost::asio::io_context io_;
  std::unique_ptr<test::TempRedis> server_;
};

TEST_F(RedisTest, CommandsAreAnsweredInOrderWithEveryKindOfReply) {
  auto c = client();
  std::vector<Reply> got;
  auto keep = [&](const Reply& r) { got.push_back(r); };
  c->command({"SET", "k", "v"}, keep);  // sent as soon as the connection is made
  c->command({"GET", "k"}, keep);
  c->command({"GET", "absent"}, keep);
  c->command({"LPUSH", "k", "x"}, keep);  // a string is not a list
  c->command({"RPUSH", "l", "a", "b"}, keep);
  c->command({"LRANGE", "l", "0", "-1"}, keep);
  ASSERT_TRUE(run_until([&] { return got.size() == 6; }));
  EXPECT_EQ(got[0].str, "OK");
  EXPECT_EQ(got[1].str, "v");
  EXPECT_EQ(got[2].type, Type::nil);
  EXPECT_TRUE(got[3].is_error());
  EXPECT_EQ(got[4].integer, 2);
  ASSERT_EQ(got[5].elements.size(), 2u);
  EXPECT_EQ(got[5].elements[1].str, "b");
  // A thousand commands pipelined: each callback gets its own reply, in order.
  std::vector<std::int64_t> counts;
  for (int i = 0; i < 1000; ++i)
    c->command({"INCR", "n"}, [&](const Reply& r) { counts.push_back(r.integer); });
  ASSERT_TRUE(run_until([&] { return counts.size() == 1000; }));
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(counts[static_cast<std::size_t>(i)], i + 1);
  c->stop();
}

TEST_F(RedisTest, ASubscriberGetsEveryMessageOfItsChannelsInOrderAndNoneAfterLeavingOne) {
  auto pub = client();
  auto sub = client();
  std::vector<std::pair<std::string, std::string>> heard;
  int connects = 0;
  sub->on_message([&](const std::string& ch, const std::string& m) { heard.emplace_back(ch, m); });
  sub->on_connect([&](int) { ++connects; });
  sub->subscribe("room:a");
  sub->subscribe("room:b");
  ASSERT_TRUE(run_until([&] { return connects == 1; })) << sub->last_error();
  const std::string binary("x\r\n\0y", 5);
  for (int i = 0; i < 100; ++i) pub->command({"PUBLISH", "room:a", std::to_string(i)});
  pub->command({"PUBLISH", "room:b", binary});
  pub->command({"PUBLISH", "room:c", "not subscribed"});
  ASSERT_TRUE(run_until([&] { return heard.size() == 101; }));
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(heard[static_cast<std::size_t>(i)],
              (std::pair<std::string, std::string>{"room:a", std::to_string(i)}));
  EXPECT_EQ(heard[100].second, binary);
  sub->unsubscribe("room:a");
  std::int64_t receivers = -1;
  // Once Redis counts no subscriber on room:a, nothing published there arrives.
  ASSERT_TRUE(run_until([&] {
    pub->command({"PUBSUB", "NUMSUB", "room:a"},
                 [&](const Reply& r) { receivers = r.elements.at(1).integer; });
    io_.run_for(std::chrono::milliseconds(20));
    return receivers == 0;
  }));
  pub->command({"PUBLISH", "room:a", "late"});
  pub->command({"PUBLISH", "room:b", "still"});
  ASSERT_TRUE(run_until([&] { return heard.size() == 102; }));
  EXPECT_EQ(heard.back(), (std::pair<std::string, std::string>{"room:b", "still"}));
}

// Redis killed and started again: both connections are made again by themselves, the
// subscriber's channels too, and commands sent meanwhile run once it is back.
TEST_F(RedisTest, AfterRedisRestartsTheClientsConnectAgainAndSubscribeAgain) {
  auto pub = client();
  auto sub = client();
  std::vector<std::string> heard;
  std::vector<int> connects;
  sub->on_message([&](const std::string&, const std::string& m) { heard.push_back(m); });
  sub->on_connect([&](int times) { connects.push_back(times); });
  sub->subscribe("room:a");
  ASSERT_TRUE(run_until([&] { return connects.size() == 1; }));
  pub->command({"PUBLISH", "room:a", "before"});
  ASSERT_TRUE(run_until([&] { return heard.size() == 1; }));

  server_->kill();
  ASSERT_TRUE(run_until([&] { return !pub->connected() && !sub->connected(); }));
  std::vector<Reply> waited;
  pub->command({"SET", "k", "after"}, [&](const Reply& r) { waited.push_back(r); });
  io_.run_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(waited.empty()) << "it waits for Redis";
  ASSERT_TRUE(server_->restart()) << server_->log();
  ASSERT_TRUE(run_until([&] { return connects.size() == 2 && !waited.empty(); }))
      << sub->last_error();
  EXPECT_EQ(connects.back(), 2);
  EXPECT_EQ(waited[0].str, "OK");
  pub->command({"PUBLISH", "room:a", "after"});
  ASSERT_TRUE(run_until([&] { return heard.size() == 2; }));
  EXPECT_EQ(heard.back(), "after");
  EXPECT_EQ(sub->reconnections(), 1u);
  // Stopped, a client fails what still waits, at once.
  pub->stop();
  std::vector<Reply> after_stop;
  pub->command({"GET", "k"}, [&](const Reply& r) { after_stop.push_back(r); });
  ASSERT_TRUE(run_until([&] { return !after_stop.empty(); }));
  EXPECT_TRUE(after_stop[0].is_error());
}

}  // namespace
// A Redis with a password: a client that gives it (AUTH first on each connection) is served,
// commands and subscriptions alike; one with a wrong password is refused and says why.
TEST_F(RedisTest, APasswordIsSentFirstOnEveryConnectionAndAWrongOneIsRefused) {
  auto admin = client();
  std::optional<Reply> set;
  admin->command({"CONFIG", "SET", "requirepass", "s3cret word"}, [&](const Reply& r) { set = r; });
  ASSERT_TRUE(run_until([&] { return set.has_value(); }));
  ASSERT_EQ(set->str, "OK");
  auto with = [&](const std::string& password) {
    auto o = parse_uri("redis://:" + password + "@127.0.0.1:" + std::to_string(server_->port()));
    o->retry_min = std::chrono::milliseconds(20);
    o->retry_max = std::chrono::milliseconds(200);
    return Client::make(io_, *o);
  };
  auto good = with("s3cret%20word");
  auto sub = with("s3cret%20word");
  std::vector<std::string> heard;
  sub->on_message([&](const std::string&, const std::string& m) { heard.push_back(m); });
  bool subscribed = false;
  sub->on_connect([&](int) { subscribed = true; });
  sub->subscribe("ch");
  good->start();
  sub->start();
  ASSERT_TRUE(run_until([&] { return subscribed; }));
  std::optional<Reply> pong, published;
  good->command({"PING"}, [&](const Reply& r) { pong = r; });
  good->command({"PUBLISH", "ch", "hi"}, [&](const Reply& r) { published = r; });
  ASSERT_TRUE(run_until([&] { return heard.size() == 1 && pong && published; }));
  EXPECT_EQ(pong->str, "PONG");
  EXPECT_EQ(published->integer, 1);
  EXPECT_EQ(heard[0], "hi");

  auto bad = with("wrong");
  bad->start();
  std::optional<Reply> never;
  bad->command({"PING"}, [&](const Reply& r) { never = r; });
  ASSERT_TRUE(run_until([&] {
    return bad->last_error().find("AUTH refused") != std::string::npos;
  })) << bad->last_error();
  EXPECT_TRUE(!never || never->is_error()) << "nothing runs without the password";
  bad->stop();
  good->stop();
  sub->stop();
}

}  // namespace plateau::server::redis
