// Configuration: every flag has an environment variable, --help and the README list them all with
// their defaults, a flag wins over its variable, and a bad value is refused with its name.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "build_paths.hpp"
#include "server/config.hpp"
#include "server/store/open_store.hpp"

namespace plateau::server {
namespace {

std::map<std::string, std::string> g_env;
const char* fake_env(const char* name) {
  const auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

// (flag, variable) pairs as --help lists them.
std::vector<std::pair<std::string, std::string>> listed_flags() {
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex line(R"(^  (--[a-z-]+) VALUE +(PLATEAU_[A-Z_]+) )");
  std::istringstream in(usage());
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_search(l, m, line)) out.emplace_back(m[1], m[2]);
  return out;
}

TEST(Config, HelpListsEveryFlagWithItsVariableAndTheReadmeToo) {
  const auto flags = listed_flags();
  ASSERT_GE(flags.size(), 14u) << usage();
  std::ifstream readme(std::string(plateau::testing::source_dir()) + "/README.md");
  ASSERT_TRUE(readme) << "README.md not found";
  std::string table;  // the README's table rows
  for (std::string l; std::getline(readme, l);)
    if (l.starts_with("| `--")) table += l + "\n";
  for (const auto& [flag, env] : flags) {
    EXPECT_NE(table.find("`" + flag + "`"), std::string::npos)
        << flag << " is missing from the README's table";
    EXPECT_NE(table.find("`" + env + "`"), std::string::npos)
        << env << " is missing from the README's table";
  }
  EXPECT_NE(usage().find("--idle-timeout VALUE"), std::string::npos);
  EXPECT_NE(usage().find("[default: 300]"), std::string::npos) << "defaults are shown";
}

TEST(Config, EveryVariableSetsItsFlagAndAFlagWins) {
  g_env = {{"PLATEAU_PORT", "9000"},
           {"PLATEAU_IDLE_TIMEOUT", "60"},
           {"PLATEAU_RATE", "7"},
           {"PLATEAU_MAX_CONNECTIONS", "123"},
           {"PLATEAU_DATA", "/srv/plateau"}};
  auto c = parse_config({"--port", "9100", "--rate=9"}, fake_env);
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->port, 9100) << "the flag wins over PLATEAU_PORT";
  EXPECT_EQ(c->rate, 9);
  EXPECT_EQ(c->idle_timeout_seconds, 60);
  EXPECT_EQ(c->max_connections, 123u);
  EXPECT_EQ(c->data, "/srv/plateau");
  g_env.clear();
  const auto d = parse_config({}, fake_env);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->port, 8080);
  EXPECT_EQ(d->data, "./data");
  EXPECT_EQ(d->idle_timeout_seconds, 300);
}

// --store names the store; without it, --data is the SQLite folder (or none), as before.
TEST(Config, TheStoreIsSqliteInTheDataFolderUnlessNamedAndAPostgresUriIsNeverShownWithItsPassword) {
  g_env.clear();
  EXPECT_EQ(parse_config({}, fake_env)->store, "sqlite:./data");
  EXPECT_EQ(parse_config({"--data", "none"}, fake_env)->store, "none");
  const auto named = parse_config({"--store", "sqlite:/srv/p"}, fake_env);
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->store, "sqlite:/srv/p");
  EXPECT_EQ(named->data, "/srv/p") << "the folder the web root never serves";
  g_env = {{"PLATEAU_STORE", "postgres://plateau:s3cret@db:5432/plateau"},
           {"PLATEAU_DATA", "/ignored"}};
  const auto pg = parse_config({}, fake_env);
  ASSERT_TRUE(pg.has_value()) << pg.error();
  EXPECT_EQ(pg->store, "postgres://plateau:s3cret@db:5432/plateau") << "it wins over --data";
  EXPECT_EQ(shown_store_spec(pg->store), "postgres://plateau:***@db:5432/plateau");
  EXPECT_EQ(shown_store_spec("postgresql://db/plateau"), "postgresql://db/plateau");
  g_env.clear();
  for (const char* bad : {"sqlite:", "mysql://db", "./data", ""}) {
    const auto c = parse_config({"--store", bad}, fake_env);
    ASSERT_FALSE(c.has_value()) << bad;
    EXPECT_NE(c.error().find("--store expects sqlite:DIR"), std::string::npos) << c.error();
  }
}

// --cluster turns cluster mode on: a redis:// address, and a PostgreSQL store every node shares.
TEST(Config, ClusterModeNeedsARedisAddressAndAPostgresStore) {
  g_env.clear();
  EXPECT_EQ(parse_config({}, fake_env)->cluster, "") << "off by default: one node alone";
  const auto on = parse_config(
      {"--store", "postgres://db/plateau", "--cluster", "redis://r:6379", "--lease-ms", "3000"},
      fake_env);
  ASSERT_TRUE(on.has_value()) << on.error();
  EXPECT_EQ(on->cluster, "redis://r:6379");
  EXPECT_EQ(on->lease_ms, 3000);
  const auto sqlite = parse_config({"--cluster", "redis://r:6379"}, fake_env);
  ASSERT_FALSE(sqlite.has_value());
  EXPECT_NE(sqlite.error().find("--cluster needs a --store postgres://"), std::string::npos);
  const auto not_redis =
      parse_config({"--store", "postgres://db/p", "--cluster", "http://r"}, fake_env);
  ASSERT_FALSE(not_redis.has_value());
  EXPECT_FALSE(
      parse_config({"--store", "postgres://db/p", "--lease-ms", "100"}, fake_env).has_value())
      << "a lease under 500 ms is refused";
  g_env = {{"PLATEAU_CLUSTER", "redis://r:1"}, {"PLATEAU_STORE", "postgres://db/p"}};
  EXPECT_EQ(parse_config({}, fake_env)->cluster, "redis://r:1");
  g_env.clear();
}

TEST(Config, TheRequestsHeldBehindAHelloAreBounded) {
  g_env.clear();
  EXPECT_EQ(parse_config({}, fake_env)->max_held_requests, 64);
  EXPECT_EQ(parse_config({"--max-held-requests", "8"}, fake_env)->max_held_requests, 8);
  g_env = {{"PLATEAU_MAX_HELD_REQUESTS", "10000"}};
  EXPECT_EQ(parse_config({}, fake_env)->max_held_requests, 10'000);
  g_env.clear();
  EXPECT_FALSE(parse_config({"--max-held-requests", "0"}, fake_env).has_value());
  EXPECT_FALSE(parse_config({"--max-held-requests", "10001"}, fake_env).has_value());
}

TEST(Config, TheDrainBeforeAStopIsOffByDefaultAndBounded) {
  g_env.clear();
  EXPECT_EQ(parse_config({}, fake_env)->drain_seconds, 0) << "a lone server stops at once";
  EXPECT_EQ(parse_config({"--drain-seconds", "6"}, fake_env)->drain_seconds, 6);
  g_env = {{"PLATEAU_DRAIN_SECONDS", "300"}};
  EXPECT_EQ(parse_config({}, fake_env)->drain_seconds, 300);
  g_env.clear();
  for (const char* bad : {"301", "-1", "5s", ""})
    EXPECT_FALSE(parse_config({"--drain-seconds", bad}, fake_env).has_value()) << bad;
}

TEST(Config, TheBalancersWhosePROXYHeadersAreBelievedAreAddressBlocks) {
  g_env.clear();
  EXPECT_EQ(parse_config({}, fake_env)->proxy_protocol_from, "") << "none by default";
  const auto on = parse_config({"--proxy-protocol-from", "10.0.0.0/8,fd00::7"}, fake_env);
  ASSERT_TRUE(on.has_value()) << on.error();
  EXPECT_EQ(on->proxy_protocol_from, "10.0.0.0/8,fd00::7");
  for (const char* bad : {"10.0.0.0/40", "haproxy", "10.0.0.1/"}) {
    const auto c = parse_config({"--proxy-protocol-from", bad}, fake_env);
    ASSERT_FALSE(c.has_value()) << bad;
    EXPECT_NE(c.error().find("--proxy-protocol-from"), std::string::npos) << c.error();
  }
  g_env = {{"PLATEAU_PROXY_PROTOCOL_FROM", "172.30.60.250"}};
  EXPECT_EQ(parse_config({}, fake_env)->proxy_protocol_from, "172.30.60.250");
  g_env.clear();
}

TEST(Config, BadValuesAreRefusedByName) {
  g_env.clear();
  auto bad = [](std::vector<std::string> args) {
    const auto c = parse_config(args, fake_env);
    return c.has_value() ? std::string() : c.error();
  };
  EXPECT_NE(bad({"--port", "70000"}).find("--port"), std::string::npos);
  EXPECT_NE(bad({"--idle-timeout", "1"}).find("--idle-timeout"), std::string::npos)
      << "two seconds at least";
  EXPECT_NE(bad({"--rate", "fast"}).find("--rate"), std::string::npos);
  EXPECT_NE(bad({"--nope", "1"}).find("unknown flag"), std::string::npos);
  EXPECT_NE(bad({"--port"}).find("needs a value"), std::string::npos);
  EXPECT_NE(bad({"--tls-cert", "a.pem"}).find("go together"), std::string::npos);
  g_env = {{"PLATEAU_MAX_FRAME", "-5"}};
  EXPECT_NE(bad({}).find("PLATEAU_MAX_FRAME"), std::string::npos) << "a bad variable is named too";
  g_env.clear();
}

TEST(Config, TheLimitsOfConnectionsMessagesAndQueuesHaveSaneDefaultsAndBounds) {
  g_env.clear();
  const auto d = parse_config({}, fake_env);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->max_per_ip, 256u) << "a club behind one NAT fits";
  EXPECT_EQ(d->message_timeout_seconds, 30);
  EXPECT_EQ(d->max_connection_queue, 8u << 20);
  EXPECT_EQ(d->max_queued_bytes, std::size_t{512} << 20);
  g_env = {{"PLATEAU_MAX_PER_IP", "3"},
           {"PLATEAU_MESSAGE_TIMEOUT", "2"},
           {"PLATEAU_MAX_QUEUED_BYTES", "1048576"},
           {"PLATEAU_MAX_CONNECTION_QUEUE", "65536"}};
  const auto c = parse_config({}, fake_env);
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->max_per_ip, 3u);
  EXPECT_EQ(c->message_timeout_seconds, 2);
  EXPECT_EQ(c->max_queued_bytes, 1048576u);
  EXPECT_EQ(c->max_connection_queue, 65536u);
  g_env.clear();
  auto bad = [](std::vector<std::string> args) {
    const auto r = parse_config(args, fake_env);
    return r.has_value() ? std::string() : r.error();
  };
  EXPECT_NE(bad({"--max-per-ip", "0"}).find("--max-per-ip"), std::string::npos);
  EXPECT_NE(bad({"--message-timeout", "0"}).find("--message-timeout"), std::string::npos);
  EXPECT_NE(bad({"--max-queued-bytes", "1000"}).find("--max-queued-bytes"), std::string::npos)
      << "64 KiB at least";
  EXPECT_NE(bad({"--max-connection-queue", "1000"}).find("--max-connection-queue"),
            std::string::npos);
}

}  // namespace
}  // namespace plateau::server
