// TempPostgres, the throwaway PostgreSQL server of the store's tests: its databases are separate,
// it listens on no TCP port, and nothing of it is left after it, whether the destructor runs or
// the test process dies without running it.
#include "temp_postgres.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace plateau::test {
namespace {

// One connection; closed with the object.
class Connection {
 public:
  explicit Connection(const std::string& uri) : c_(PQconnectdb(uri.c_str())) {}
  ~Connection() { PQfinish(c_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  bool ok() const { return PQstatus(c_) == CONNECTION_OK; }
  std::string error() const { return PQerrorMessage(c_); }
  // Runs `sql`; returns the first row's first value ("" when there is none), or "ERROR: ...".
  std::string query(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    std::string out;
    const auto status = PQresultStatus(r);
    if (status == PGRES_TUPLES_OK) {
      if (PQntuples(r) > 0 && PQnfields(r) > 0)
        out = PQgetisnull(r, 0, 0) ? "NULL" : PQgetvalue(r, 0, 0);
    } else if (status != PGRES_COMMAND_OK) {
      out = "ERROR: " + std::string(PQerrorMessage(c_));
    }
    PQclear(r);
    return out;
  }

 private:
  PGconn* c_;
};

TEST(TempPostgres, FreshDatabasesAreSeparateAndNothingIsLeftAfter) {
  const auto t0 = std::chrono::steady_clock::now();
  auto pg = TempPostgres::start();
  ASSERT_TRUE(pg.has_value()) << pg.error();
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  std::printf("TempPostgres::start() took %lld ms\n", static_cast<long long>(took.count()));
  RecordProperty("start_ms", static_cast<int>(took.count()));

  const std::string dir = (*pg)->dir();
  const std::string admin_uri = (*pg)->admin_uri();
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  {
    const std::string a = (*pg)->fresh_database();
    const std::string b = (*pg)->fresh_database();
    EXPECT_NE(a, b);
    Connection ca(a), cb(b), admin(admin_uri);
    ASSERT_TRUE(ca.ok()) << ca.error();
    ASSERT_TRUE(cb.ok()) << cb.error();
    ASSERT_TRUE(admin.ok()) << admin.error();

    // A Unix socket only: no TCP listener, and this connection has no server address.
    EXPECT_EQ(admin.query("SHOW listen_addresses"), "");
    EXPECT_EQ(admin.query("SELECT inet_server_addr()"), "NULL");
    EXPECT_EQ(admin.query("SHOW server_version_num").substr(0, 2), "15");

    EXPECT_EQ(ca.query("CREATE TABLE only_in_a (x integer)"), "");
    EXPECT_EQ(ca.query("INSERT INTO only_in_a VALUES (7)"), "");
    EXPECT_EQ(ca.query("SELECT x FROM only_in_a"), "7");
    EXPECT_EQ(ca.query("SELECT to_regclass('only_in_a') IS NULL"), "f");
    EXPECT_EQ(cb.query("SELECT to_regclass('only_in_a') IS NULL"), "t");
    EXPECT_EQ(cb.query("SELECT count(*) FROM pg_class WHERE relname = 'only_in_a'"), "0");
  }

  pg->reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
  Connection after(admin_uri);
  EXPECT_FALSE(after.ok());
}

// The test process dies without the destructor (as a crash would): the watchdog stops the
// server and removes the folder.
TEST(TempPostgres, NothingIsLeftAfterTheTestProcessDies) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(report[0]);
    auto pg = TempPostgres::start();
    std::string line = "failed\n";
    if (pg) {
      std::ifstream pid_file((*pg)->dir() + "/data/postmaster.pid");
      long postmaster = 0;
      pid_file >> postmaster;
      line = (*pg)->dir() + " " + std::to_string(postmaster) + "\n";
    }
    (void)!::write(report[1], line.data(), line.size());
    ::_exit(0);  // no destructors
  }
  ::close(report[1]);
  std::string line;
  char buf[256];
  for (ssize_t n; (n = ::read(report[0], buf, sizeof buf)) > 0;) line.append(buf, n);
  ::close(report[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  std::istringstream in(line);
  std::string dir;
  long postmaster = 0;
  in >> dir >> postmaster;
  ASSERT_TRUE(dir.starts_with("/tmp/plateau-pg-")) << line;
  ASSERT_GT(postmaster, 0) << line;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while ((std::filesystem::exists(dir) || ::kill(static_cast<pid_t>(postmaster), 0) == 0) &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_NE(::kill(static_cast<pid_t>(postmaster), 0), 0) << "postmaster " << postmaster;
}

}  // namespace
}  // namespace plateau::test
