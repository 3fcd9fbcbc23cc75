// The PostgreSQL store's own matters (its contract with the rooms is storage_test.cpp's): its
// schema's migrations, from empty and from the version before; a database newer than the
// server; several nodes opening one database at once; a connection lost and made again; and
// `migrate`, a club's SQLite database into PostgreSQL and back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <limits>
#include <set>
#include <string>
#include <thread>

#include "server/store/open_store.hpp"
#include "server/store/pg_conn.hpp"
#include "server/store/pg_store.hpp"
#include "server/store/sqlite_store.hpp"
#include "tests/server/post_queue.hpp"
#include "tests/server/temp_postgres.hpp"

namespace plateau::server {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t kEverything = std::numeric_limits<std::int64_t>::max();

class PgStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto started = test::TempPostgres::start();
    if (started)
      server_ = std::move(*started).release();
    else
      why_ = started.error();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr) << "cannot start PostgreSQL: " << why_;
    uri_ = server_->fresh_database();
    dir_ = fs::temp_directory_path() /
           ("plateau-pg-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static Storage::Post inline_post() {
    return [](std::function<void()> f) { f(); };
  }
  std::unique_ptr<PgStore> open(int up_to = 0) {
    auto store = PgStore::open(uri_, inline_post(), up_to);
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error());
    return store ? std::move(*store) : nullptr;
  }
  // Waits for one write to be durable; each such write is a commit of its own.
  template <typename Write>
  static bool wait(Write write) {
    return test::wait_for_write(std::move(write));
  }
  std::int64_t number(const std::string& query, const std::string& uri = {}) {
    auto db = pg::Conn::open(uri.empty() ? uri_ : uri);
    if (!db) return -1;
    pg::Stmt q(*db, query);
    return q.row() ? q.i64(0) : -1;
  }

  static inline test::TempPostgres* server_ = nullptr;
  static inline std::string why_;
  std::string uri_;
  fs::path dir_;
};

TEST_F(PgStoreTest, AnEmptyDatabaseGetsTheWholeSchemaAndTheVersionBeforeUpgradesWithItsRooms) {
  {
    auto store = open(1);  // a database as the first release of this store left it
    ASSERT_TRUE(store);
    store->close();
  }
  EXPECT_EQ(number("SELECT version FROM plateau_schema"), 1);
  EXPECT_EQ(number("SELECT count(*) FROM information_schema.tables WHERE table_name = "
                   "'accounts'"),
            0);
  {
    // Rows as that release wrote them (its columns, not today's).
    auto db = pg::Conn::open(uri_);
    ASSERT_TRUE(db.has_value());
    ASSERT_TRUE(db->exec(
        "INSERT INTO players(id, token_hash, name) VALUES('ada', 'hash-ada', 'Ada');"
        "INSERT INTO rooms(id, game, options, seed, created_ms, creator) VALUES('r1', 'quantik', "
        "'{}', 7, 1, 'ada');"
        "INSERT INTO seats(room, seat, player) VALUES('r1', 0, 'ada');"
        "INSERT INTO rounds(room, round, options, seed, salt) VALUES('r1', 1, '{}', 7, 's');"
        "INSERT INTO moves(room, round, idx, seat, move, version, at_ms) VALUES('r1', 1, 0, 0, "
        "'m0', 2, 5);"));
  }
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(number("SELECT version FROM plateau_schema"), PgStore::schema_version());
  EXPECT_EQ(number("SELECT count(*) FROM plateau_schema"), 1) << "one row: the version";
  const auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->players.size(), 1u);
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].seats.at(0), "ada");
  EXPECT_EQ(loaded->rooms[0].rounds.at(0).moves.size(), 1u);
  EXPECT_FALSE(loaded->rooms[0].room.rated) << "the column added by schema 2 has its default";
  // What schema 2 added works on the upgraded database.
  ASSERT_TRUE(
      wait([&](Done d) { store->put_account({"ada", "Ada", "$argon2id$x", 100, false}, "", d); }));
  const auto accounts = store->load_accounts();
  ASSERT_TRUE(accounts.has_value()) << accounts.error();
  EXPECT_EQ(accounts->accounts.size(), 1u);
}

TEST_F(PgStoreTest, ADatabaseOfANewerServerIsRefusedAndLeftAsItIs) {
  ASSERT_TRUE(open());
  auto db = pg::Conn::open(uri_);
  ASSERT_TRUE(db.has_value());
  ASSERT_TRUE(db->exec("UPDATE plateau_schema SET version = 99"));
  auto again = PgStore::open(uri_, inline_post());
  ASSERT_FALSE(again.has_value());
  EXPECT_NE(again.error().find("newer than this server's"), std::string::npos) << again.error();
  EXPECT_EQ(number("SELECT version FROM plateau_schema"), 99);
}

// Nodes of a cluster start together on one new database: the migrations run once, under a lock,
// and every node opens.
TEST_F(PgStoreTest, NodesOpeningOneNewDatabaseAtOnceAllOpenAndMigrateItOnce) {
  std::vector<std::future<std::string>> nodes;
  for (int i = 0; i < 4; ++i)
    nodes.push_back(std::async(std::launch::async, [this] {
      auto store = PgStore::open(uri_, inline_post());
      return store ? std::string() : store.error();
    }));
  for (auto& n : nodes) EXPECT_EQ(n.get(), "");
  EXPECT_EQ(number("SELECT count(*) FROM plateau_schema"), 1);
  EXPECT_EQ(number("SELECT version FROM plateau_schema"), PgStore::schema_version());
}

// The database drops the store's connections (a restart, a failover, an admin): the next
// writes and reads connect again, and the store says it is available once a commit succeeds.
TEST_F(PgStoreTest, ConnectionsTheDatabaseDroppedAreMadeAgainByTheNextWriteAndRead) {
  auto store = open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(wait([&](Done d) {
    store->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  }));
  const auto dropped = number(
      "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
      "current_database() AND pid <> pg_backend_pid()");
  EXPECT_EQ(dropped, 2) << "the writer's connection and the reader's";
  // The first write may find its connection gone (it fails, and the store says so); the next
  // one connects again.
  int attempts = 0;
  bool ok = false;
  for (int i = 0; i < 3 && !ok; ++i) {
    ++attempts;
    ok = wait([&](Done d) {
      store->put_player({"p" + std::to_string(i), "h" + std::to_string(i), "P"}, d);
    });
    if (!ok) {
      EXPECT_FALSE(store->available());
    }
  }
  ASSERT_TRUE(ok) << "still failing after " << attempts << " writes";
  EXPECT_LE(attempts, 2);
  EXPECT_TRUE(store->available());
  std::optional<StoredRoom> room;
  for (int i = 0; i < 2 && !room; ++i)
    if (auto r = store->load_room("r1", 0); r.has_value()) room = std::move(*r);
  ASSERT_TRUE(room.has_value()) << "the reader connects again too";
  EXPECT_EQ(room->room.game, "quantik");
  EXPECT_EQ(store->load(kEverything)->players.size(), 1u) << "the write that succeeded, alone";
}

// A batch goes to PostgreSQL as one pipeline when every write in it succeeds; one that holds a
// failing write (here in its second chunk of statements) or a write that reads rows is run again
// write by write, where the failure stays alone and the others all land.
TEST_F(PgStoreTest, ABatchIsOnePipelineAndAFailingWriteInItFailsAloneAfterAll) {
  test::PostQueue rooms;
  auto opened = PgStore::open(uri_, rooms.post());
  ASSERT_TRUE(opened.has_value()) << opened.error();
  auto& store = **opened;
  // Queued in one pass of the rooms' thread: one batch of 301 writes.
  const auto batch = [&](int first, int bad_at) {
    std::vector<int> results;
    for (int i = first; i < first + 301; ++i) {
      const std::string id = i == bad_at ? "p" + std::to_string(first) : "p" + std::to_string(i);
      const std::string token = i == bad_at ? "t" + std::to_string(first) : "t" + std::to_string(i);
      // At bad_at: the first write's token again, which the table's key refuses.
      store.put_player({id + (i == bad_at ? "x" : ""), token, "P"},
                       [&results](bool ok) { results.push_back(ok ? 1 : 0); });
    }
    EXPECT_TRUE(rooms.run_next());  // the hand-off
    EXPECT_TRUE(rooms.run_next());  // the completions
    return results;
  };
  const auto clean = batch(0, -1);
  ASSERT_EQ(clean.size(), 301u);
  EXPECT_EQ(std::count(clean.begin(), clean.end(), 1), 301);
  EXPECT_EQ(store.pipelined_batches(), 1u);
  EXPECT_EQ(store.ordinary_batches(), 0u);
  const auto dirty = batch(1000, 1280);
  ASSERT_EQ(dirty.size(), 301u);
  EXPECT_EQ(std::count(dirty.begin(), dirty.end(), 1), 300);
  EXPECT_EQ(dirty[280], 0) << "the write with a token taken already";
  EXPECT_EQ(store.ordinary_batches(), 1u);
  EXPECT_EQ(number("SELECT count(*) FROM players"), 601);
  EXPECT_EQ(store.exceptions().first, 0u);
  // A write that reads rows (a rated game checks it was not rated already) goes write by write.
  store.put_rated_game({{"p1", "quantik", 1500, 300, 0.06, 1, 1, 0, 0, 9}},
                       {{"r", 1, "p1", "quantik", 9, 1500, 300, 0}},
                       [](bool ok) { ASSERT_TRUE(ok); });
  EXPECT_TRUE(rooms.run_next());
  EXPECT_TRUE(rooms.run_next());
  EXPECT_EQ(store.ordinary_batches(), 2u);
  EXPECT_EQ(number("SELECT count(*) FROM rating_history"), 1);
  store.close();
}

// Leases (cluster mode): a room is one node's until its lease expires; the next owner gets the
// next epoch; its holder renews it keeping its epoch; a node stopping gives it up at once.
TEST_F(PgStoreTest, ARoomsLeaseIsOneNodesUntilItExpiresAndEachNewOwnerGetsTheNextEpoch) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  constexpr std::int64_t kLong = 60'000, kShort = 100;
  EXPECT_EQ(a->take_lease("r1", kLong).value(), std::optional<std::int64_t>(1));
  EXPECT_EQ(b->take_lease("r1", kLong).value(), std::nullopt) << "a's, for a minute";
  EXPECT_EQ(a->take_lease("r1", kLong).value(), std::optional<std::int64_t>(1))
      << "renewed by its holder, same epoch";
  // Given up (a node stopping): the next node takes it at once, with the next epoch.
  ASSERT_TRUE(a->release_leases({"r1"}).has_value());
  EXPECT_EQ(a->lease("r1"), std::nullopt);
  EXPECT_EQ(b->take_lease("r1", kShort).value(), std::optional<std::int64_t>(2));
  // Expired (b went quiet): a takes it back, with the epoch after b's.
  std::this_thread::sleep_for(std::chrono::milliseconds(4 * kShort));
  EXPECT_EQ(a->take_lease("r1", kLong).value(), std::optional<std::int64_t>(3));
  // b learns at its heartbeat that it lost the room; a renews what it holds.
  const auto lost = b->renew_leases(kLong);
  ASSERT_TRUE(lost.has_value()) << lost.error();
  EXPECT_EQ(*lost, std::vector<std::string>{"r1"});
  EXPECT_EQ(b->lease("r1"), std::nullopt);
  EXPECT_EQ(a->renew_leases(kLong).value(), std::vector<std::string>{});
  EXPECT_EQ(number("SELECT epoch FROM room_leases WHERE room = 'r1' AND node = 'node-a'"), 3);
}

// The fencing token at work: a node paused past its lease (here: its lease just ran out) while
// another took the room over can never write to the room again, whatever it had queued.
TEST_F(PgStoreTest, AStaleOwnerCannotWriteARoomAnotherNodeTookOver) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  EXPECT_FALSE(wait([&](Done d) {
    a->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  })) << "no lease, no write";
  ASSERT_EQ(a->take_lease("r1", 150).value(), std::optional<std::int64_t>(1));
  ASSERT_TRUE(wait([&](Done d) {
    a->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  }));
  ASSERT_TRUE(wait([&](Done d) { a->append_move(MoveRecord{"r1", 1, 0, 0, "a0", 1, 5}, d); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a's lease runs out
  ASSERT_EQ(b->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(2));
  const auto room = b->load_room("r1", 0);
  ASSERT_TRUE(room.has_value() && room->has_value());
  EXPECT_EQ((*room)->rounds.at(0).moves.size(), 1u) << "b takes the room up with a's move";
  ASSERT_TRUE(wait([&](Done d) { b->append_move(MoveRecord{"r1", 1, 1, 1, "b1", 2, 6}, d); }));
  // a wakes up and writes what it had: every write of the room is refused.
  EXPECT_FALSE(wait([&](Done d) { a->append_move(MoveRecord{"r1", 1, 1, 1, "a1", 2, 7}, d); }));
  EXPECT_FALSE(wait([&](Done d) { a->put_seat("r1", 0, "mallory", 3, d); }));
  EXPECT_FALSE(wait([&](Done d) { a->close_room("r1", d); }));
  EXPECT_TRUE(a->available()) << "a fenced write fails alone: the store is fine";
  EXPECT_TRUE(wait([&](Done d) { a->put_player({"p", "h", "P"}, d); }))
      << "writes of no room are not fenced";
  const auto after = b->load_room("r1", 0);
  ASSERT_TRUE(after.has_value() && after->has_value());
  EXPECT_EQ((*after)->rounds.at(0).moves,
            (std::vector<std::pair<int, std::string>>{{0, "a0"}, {1, "b1"}}));
  EXPECT_TRUE((*after)->seats.empty() || !(*after)->seats.at(0).has_value());
  EXPECT_EQ(number("SELECT finished FROM rooms WHERE id = 'r1'"), 0);
}

// A node's lease lookup, off the rooms' thread (Node::look_up): it takes a free lease of a stored
// room or names the holder, leaves nothing for a room the store does not hold, and changes
// nothing the rooms' thread owns until it is told (note_lease).
TEST_F(PgStoreTest, ALeaseLookupTakesAFreeLeaseOrNamesItsHolderAndTouchesNoRoomsThreadState) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  ASSERT_TRUE(b->renew_leases(60'000).has_value()) << "b beats before it serves, as a node does";
  ASSERT_EQ(a->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(1));
  ASSERT_TRUE(wait([&](Done d) {
    a->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  }));
  const auto look_up = [&](const std::string& room) {
    PgStore::LeaseLookup found{std::optional<std::int64_t>{}};
    std::thread([&] { found = b->look_up_lease(room, 60'000, 0); }).join();  // another thread's
    return found;
  };
  const auto none = look_up("nope");
  ASSERT_TRUE(none.took.has_value() && none.holder.has_value());
  EXPECT_EQ(*none.took, std::nullopt);
  EXPECT_EQ(*none.holder, std::nullopt) << "nobody holds a room the store does not hold";
  EXPECT_EQ(number("SELECT count(*) FROM room_leases WHERE room = 'nope'"), 0) << "no row left";
  const auto held = look_up("r1");
  ASSERT_TRUE(held.took.has_value() && held.holder.has_value());
  EXPECT_EQ(*held.took, std::nullopt);
  EXPECT_EQ(*held.holder, std::optional<std::string>("node-a"));
  // a lets it go: b's lookup takes it, with the next epoch, but b writes it only once told.
  ASSERT_TRUE(a->release_leases({"r1"}).has_value());
  EXPECT_FALSE(none.rows.has_value() || held.rows.has_value()) << "rows only with a lease taken";
  auto free = look_up("r1");
  ASSERT_TRUE(free.took.has_value());
  EXPECT_EQ(*free.took, std::optional<std::int64_t>(2));
  EXPECT_EQ(b->lease("r1"), std::nullopt) << "the rooms' thread's leases are as they were";
  EXPECT_FALSE(wait([&](Done d) { b->put_seat("r1", 0, "bob", 2, d); }));
  // With the lease, the room's rows were read on that thread: load_room returns them without a
  // read of its own (the rooms table changed behind its back shows which it returned).
  ASSERT_TRUE(free.rows.has_value() && free.rows->has_value() && free.rows->value().has_value());
  EXPECT_EQ((*free.rows)->value().room.room.game, "quantik");
  b->note_lease("r1", *free.took, std::move(free.rows));
  EXPECT_EQ(b->lease("r1"), std::optional<std::int64_t>(2));
  ASSERT_EQ(number("WITH u AS (UPDATE rooms SET seed = 8 WHERE id = 'r1' RETURNING 1) SELECT "
                   "count(*) FROM u"),
            1);
  const auto prefetched = b->load_room("r1", 0);
  ASSERT_TRUE(prefetched.has_value() && prefetched->has_value());
  EXPECT_EQ((*prefetched)->room.seed, 7u) << "the rows read with the lease";
  const auto again = b->load_room("r1", 0);
  ASSERT_TRUE(again.has_value() && again->has_value());
  EXPECT_EQ((*again)->room.seed, 8u) << "used once: the next load reads the store";
  EXPECT_TRUE(wait([&](Done d) { b->put_seat("r1", 0, "bob", 2, d); }));
  EXPECT_EQ(a->lease_holder("r1").value(), std::optional<std::string>("node-b"));
  b->note_lease("r1", std::nullopt);
  EXPECT_EQ(b->lease("r1"), std::nullopt);
}

// A room created in a cluster takes its lease with no round trip of its own (Node's claim_new):
// the room's first write makes the lease row in its transaction, and fails if the id has one.
TEST_F(PgStoreTest, ARoomClaimedNewTakesItsLeaseWithItsFirstWriteWhichFailsIfTheIdIsHeld) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  ASSERT_TRUE(a->renew_leases(60'000).has_value() && b->renew_leases(60'000).has_value());
  const RoomRecord r1{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""};
  a->claim_new("r1");
  EXPECT_EQ(a->lease("r1"), std::optional<std::int64_t>(1)) << "a writes it from now on";
  EXPECT_EQ(number("SELECT count(*) FROM room_leases WHERE room = 'r1'"), 0) << "no round trip";
  EXPECT_TRUE(a->held_leases().empty()) << "no beat judges it before its row is there";
  ASSERT_TRUE(wait([&](Done d) { a->create_room(r1, d); }));
  EXPECT_EQ(number("SELECT epoch FROM room_leases WHERE room = 'r1' AND node = 'node-a'"), 1);
  EXPECT_EQ(b->lease_holder("r1").value(), std::optional<std::string>("node-a"));
  ASSERT_EQ(a->held_leases(), (PgStore::HeldLeases{{"r1", 1}}));
  EXPECT_EQ(a->renew_leases(60'000).value(), std::vector<std::string>{}) << "held, and renewed";
  EXPECT_TRUE(wait([&](Done d) { a->put_seat("r1", 0, "ada", 1, d); }));
  // b makes a room with the same id (it never does: ids are random): its writes all fail.
  b->claim_new("r1");
  auto other = r1;
  other.seed = 8;
  EXPECT_FALSE(wait([&](Done d) { b->create_room(other, d); }));
  EXPECT_FALSE(wait([&](Done d) { b->put_seat("r1", 0, "mallory", 2, d); }));
  EXPECT_TRUE(b->available()) << "a fenced write fails alone";
  EXPECT_EQ(number("SELECT seed FROM rooms WHERE id = 'r1'"), 7);
  EXPECT_EQ(number("SELECT count(*) FROM seats WHERE room = 'r1' AND player = 'ada'"), 1);
  EXPECT_EQ(b->renew_leases(60'000).value(), std::vector<std::string>{"r1"}) << "found lost";
  EXPECT_EQ(b->lease("r1"), std::nullopt);
  EXPECT_EQ(a->lease_holder("r1").value(), std::optional<std::string>("node-a"));
}

// A room leaving a node's memory lets its lease go in two parts (Node's `released`): at once on
// the rooms' thread (no write of it from then on), then its row freed on the lookup thread.
TEST_F(PgStoreTest, ALeaseLetGoOnTheRoomsThreadIsFreedOnTheLookupThread) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  ASSERT_TRUE(b->renew_leases(60'000).has_value());
  ASSERT_EQ(a->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(1));
  ASSERT_TRUE(wait([&](Done d) {
    a->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  }));
  const auto held = a->let_go({"r1", "never-held"});
  EXPECT_EQ(held, (PgStore::HeldLeases{{"r1", 1}})) << "only what it held";
  EXPECT_EQ(a->lease("r1"), std::nullopt);
  EXPECT_FALSE(wait([&](Done d) { a->put_seat("r1", 0, "ada", 1, d); })) << "written no more";
  EXPECT_EQ(b->lease_holder("r1").value(), std::optional<std::string>("node-a"))
      << "its row still names a until the lookup thread frees it";
  std::expected<void, std::string> freed;
  std::thread([&] { freed = a->release_let_go(held); }).join();  // the lookup thread's
  ASSERT_TRUE(freed.has_value()) << freed.error();
  EXPECT_EQ(b->lease_holder("r1").value(), std::nullopt);
  EXPECT_EQ(b->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(2)) << "next epoch";
}

// The heartbeat in parts (Node::heartbeat runs beat() off the rooms' thread): what it found lost
// is let go, unless the room was taken again since, at a new epoch.
TEST_F(PgStoreTest, AHeartbeatOffTheRoomsThreadLetsGoOnlyWhatItFoundLostAtTheEpochItSaw) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  ASSERT_EQ(a->take_lease("r1", 150).value(), std::optional<std::int64_t>(1));
  ASSERT_EQ(a->take_lease("r2", 150).value(), std::optional<std::int64_t>(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));  // a's heartbeat runs out
  ASSERT_EQ(b->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(2));
  ASSERT_EQ(b->take_lease("r2", 60'000).value(), std::optional<std::int64_t>(2));
  const auto held = a->held_leases();
  std::expected<std::vector<std::string>, std::string> lost;
  std::thread([&] { lost = a->beat(held, 60'000); }).join();  // the heartbeat thread's
  ASSERT_TRUE(lost.has_value()) << lost.error();
  EXPECT_EQ(std::set<std::string>(lost->begin(), lost->end()), (std::set<std::string>{"r1", "r2"}));
  EXPECT_EQ(a->lease("r1"), std::optional<std::int64_t>(1)) << "nothing let go yet";
  // Before the rooms' thread hears of it, b lets r1 go and a takes it again (epoch 3).
  ASSERT_TRUE(b->release_leases({"r1"}).has_value());
  ASSERT_EQ(a->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(3));
  EXPECT_EQ(a->drop_lost(held, *lost), std::vector<std::string>{"r2"});
  EXPECT_EQ(a->lease("r1"), std::optional<std::int64_t>(3)) << "taken again since: kept";
  EXPECT_EQ(a->lease("r2"), std::nullopt);
  EXPECT_EQ(a->renew_leases(60'000).value(), std::vector<std::string>{}) << "a holds r1";
}

// A cluster's tournaments: only the node holding their lease writes them (a director paused past
// it, then woken, writes nothing), and the other nodes' copies read one event, or a table's
// seats, as stored.
TEST_F(PgStoreTest, OnlyTheTournamentsDirectorWritesThemAndCopiesReadWhatItWrote) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  a->fence_as("node-a");
  b->fence_as("node-b");
  EXPECT_FALSE(wait([&](Done d) { a->put_tournament({"t1", R"({"v":0})"}, 1, d); }))
      << "no lease, no write";
  EXPECT_FALSE(wait([&](Done d) { a->put_organiser("p1", true, d); }));
  ASSERT_EQ(a->take_lease(kTournamentLease, 150).value(), std::optional<std::int64_t>(1));
  EXPECT_EQ(b->take_lease(kTournamentLease, 60'000).value(), std::nullopt) << "a directs";
  ASSERT_TRUE(wait([&](Done d) { a->put_tournament({"t1", R"({"v":1})"}, 2, d); }));
  ASSERT_TRUE(wait([&](Done d) { a->put_organiser("p1", true, d); }));
  EXPECT_EQ(b->tournament_doc("t1").value(), R"({"v":1})");
  EXPECT_EQ(b->tournament_doc("t2").value(), "") << "no such event";
  // a's lease runs out (it was paused); b directs now, and a's late writes are refused.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_EQ(b->take_lease(kTournamentLease, 60'000).value(), std::optional<std::int64_t>(2));
  ASSERT_TRUE(wait([&](Done d) { b->put_tournament({"t1", R"({"v":2})"}, 3, d); }));
  EXPECT_FALSE(wait([&](Done d) { a->put_tournament({"t1", R"({"v":"stale"})"}, 4, d); }));
  EXPECT_FALSE(wait([&](Done d) { a->put_organiser("p2", true, d); }));
  EXPECT_EQ(a->tournament_doc("t1").value(), R"({"v":2})");
  const auto loaded = a->load_tournaments();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->organisers, std::vector<std::string>{"p1"});
  // A table's seats as stored: the second taken, the first empty; no such room, nothing.
  ASSERT_EQ(b->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(1));
  ASSERT_TRUE(wait([&](Done d) {
    b->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", ""}, d);
  }));
  ASSERT_TRUE(wait([&](Done d) { b->put_player({"p2", "h2", "P2"}, d); }));
  ASSERT_TRUE(wait([&](Done d) { b->put_seat("r1", 1, "p2", 1, d); }));
  EXPECT_EQ(a->seats_taken("r1", 2).value(), (std::vector<bool>{false, true}));
  EXPECT_EQ(a->seats_taken("nowhere", 2).value(), std::vector<bool>{});
}

// Two nodes rate the same player at once (a cluster): each computed from the row stored before
// both games, so the second write would undo the first. It is refused instead, and the node
// rates its game again from the row now stored. A lone server's writes are never refused.
TEST_F(PgStoreTest, ARatingComputedFromARowAnotherNodeHasSinceReplacedIsRefused) {
  auto a = open(), b = open(), alone = open();
  ASSERT_TRUE(a && b && alone);
  a->fence_as("node-a");
  b->fence_as("node-b");
  const auto row = [](double rating, int games) {
    RatingRow r{"ann", "quantik"};
    r.rating = rating;
    r.games = games;
    r.wins = games;
    return r;
  };
  const auto change = [](const std::string& room) {
    return RatingChange{room, 1, "ann", "quantik", 5, 1600, 300, 100};
  };
  ASSERT_TRUE(wait([&](Done d) { a->put_rated_game({row(1600, 1)}, {change("g1")}, d); }));
  // Both nodes read games = 1; a writes first.
  ASSERT_TRUE(wait([&](Done d) { a->put_rated_game({row(1650, 2)}, {change("g2")}, d); }));
  EXPECT_FALSE(wait([&](Done d) { b->put_rated_game({row(1640, 2)}, {change("g3")}, d); }))
      << "computed from the row before g2: refused";
  EXPECT_EQ(number("SELECT count(*) FROM rating_history WHERE room = 'g3'"), 0)
      << "nothing of the refused game is written";
  // b reads the row again (games = 2) and rates g3 once more.
  ASSERT_TRUE(wait([&](Done d) { b->put_rated_game({row(1690, 3)}, {change("g3")}, d); }));
  EXPECT_EQ(number("SELECT games FROM ratings WHERE player = 'ann'"), 3);
  EXPECT_EQ(number("SELECT rating::bigint FROM ratings WHERE player = 'ann'"), 1690);
  // A first game on two nodes at once: the second finds a row and is refused too.
  RatingRow bob{"bob", "quantik"};
  bob.games = 1;
  ASSERT_TRUE(wait([&](Done d) { a->put_rated_game({bob}, {}, d); }));
  EXPECT_FALSE(wait([&](Done d) { b->put_rated_game({bob}, {}, d); }));
  // One server alone writes what it computed.
  EXPECT_TRUE(wait([&](Done d) { alone->put_rated_game({bob}, {}, d); }));
}

// A heartbeat never waits for a write in flight: a fenced write holds its rooms' lease rows (FOR
// SHARE) until it commits, and renewing every row each beat deadlocked with such writes (a
// second each, until PostgreSQL broke the cycle). A node's heartbeat is a row of its own.
TEST_F(PgStoreTest, AHeartbeatNeverWaitsForAFencedWriteInFlight) {
  auto a = open();
  ASSERT_TRUE(a);
  a->fence_as("node-a");
  ASSERT_EQ(a->take_lease("r1", 60'000).value(), std::optional<std::int64_t>(1));
  ASSERT_EQ(a->take_lease("r2", 60'000).value(), std::optional<std::int64_t>(1));
  // Another transaction, as the writer's would be, holds both rows, and stays open.
  auto writer = pg::Conn::open(uri_);
  ASSERT_TRUE(writer.has_value());
  ASSERT_TRUE(writer->exec("BEGIN"));
  ASSERT_TRUE(
      writer->exec("SELECT plateau_fence('r1', 'node-a', 1); "
                   "SELECT plateau_fence('r2', 'node-a', 1)"));
  const auto t0 = std::chrono::steady_clock::now();
  const auto lost = a->renew_leases(60'000);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(lost.has_value()) << lost.error();
  EXPECT_TRUE(lost->empty());
  EXPECT_LT(took, std::chrono::milliseconds(500)) << "the heartbeat waited for the write";
  ASSERT_TRUE(writer->exec("COMMIT"));
  EXPECT_EQ(number("SELECT count(*) FROM node_heartbeats WHERE node = 'node-a' AND expires_at > "
                   "clock_timestamp() + interval '50 seconds'"),
            1);
}

// A club's SQLite database moves into PostgreSQL whole: every room as a start rebuilds it (a
// round in play, its moves still in SQLite's log), finished games, accounts, ratings, events;
// then back into SQLite, the same again.
TEST_F(PgStoreTest, MigrateMovesAClubsDatabaseIntoPostgresAndBackWithoutLosingARow) {
  const auto outcome =
      nlohmann::json{{"winners", {0}}, {"scores", nlohmann::json::array()}, {"reason", "r"}};
  const std::string club = "sqlite:" + (dir_ / "club").string();
  {
    auto opened = open_store(club, inline_post());
    ASSERT_TRUE(opened.has_value()) << opened.error();
    auto& s = **opened;
    for (const char* p : {"ada", "bob"})
      ASSERT_TRUE(wait([&](Done d) { s.put_player({p, std::string("h-") + p, p}, d); }));
    for (const char* id : {"playing", "ended"}) {
      ASSERT_TRUE(wait([&](Done d) {
        s.create_room({id, "quantik", nlohmann::json::object(), 0xF000000000000001ull, false, 0, 1,
                       "salt", "ada"},
                      d);
      }));
      ASSERT_TRUE(wait([&](Done d) { s.put_seat(id, 0, "ada", 1, d); }));
      ASSERT_TRUE(wait([&](Done d) { s.put_seat(id, 1, "bob", 2, d); }));
      for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(wait([&](Done d) {
          s.append_move(MoveRecord{id, 1, i, i % 2, "m" + std::to_string(i), 3 + i, 10 + i,
                                   i == 1 ? std::optional<std::int64_t>(4500) : std::nullopt},
                        d);
        }));
    }
    ASSERT_TRUE(wait([&](Done d) { s.finish_round("ended", 1, outcome, 99, d); }));
    ASSERT_TRUE(wait(
        [&](Done d) { s.put_account({"ada", "Ada", "$argon2id$x", 100, false, true}, "", d); }));
    ASSERT_TRUE(wait([&](Done d) {
      s.put_rated_game({{"ada", "quantik", 1512.3456789012345, 301.5, 0.0600001, 1, 1, 0, 0, 99}},
                       {{"ended", 1, "ada", "quantik", 99, 1512.3456789012345, 301.5, 12.25}}, d);
    }));
    ASSERT_TRUE(wait([&](Done d) { s.put_tournament({"t1", R"({"v":1})"}, 10, d); }));
    s.close();
  }
  auto copied = migrate_store(club, uri_);
  ASSERT_TRUE(copied.has_value()) << copied.error();
  std::map<std::string, std::int64_t> rows;
  for (const auto& [table, n] : *copied) rows[table] += n;
  EXPECT_EQ(rows["rooms"], 2);
  EXPECT_EQ(rows["players"], 2);
  EXPECT_EQ(rows["moves"] + rows["move_log"], 6) << "a round in play's moves are in the log";
  EXPECT_EQ(number("SELECT count(*) FROM moves"), 6);

  const auto check = [&](Storage& s, const char* which) {
    SCOPED_TRACE(which);
    const auto loaded = s.load(0);
    ASSERT_TRUE(loaded.has_value()) << loaded.error();
    ASSERT_EQ(loaded->rooms.size(), 2u);
    for (const auto& r : loaded->rooms) {
      EXPECT_EQ(r.room.seed, 0xF000000000000001ull) << "all 64 bits of the seed";
      EXPECT_EQ(r.seats, (std::vector<std::optional<std::string>>{"ada", "bob"}));
      ASSERT_EQ(r.rounds.size(), 1u);
      EXPECT_EQ(r.rounds[0].moves.size(), 3u);
      EXPECT_EQ(r.rounds[0].clocks.at(1), std::optional<std::int64_t>(4500));
      EXPECT_EQ(r.rounds[0].salt, "salt");
      EXPECT_EQ(r.version, 5);
      EXPECT_EQ(r.rounds[0].outcome.is_null(), r.room.id == "playing");
    }
    const auto accounts = s.load_accounts();
    ASSERT_TRUE(accounts.has_value());
    ASSERT_EQ(accounts->accounts.size(), 1u);
    EXPECT_TRUE(accounts->accounts[0].muted);
    const auto ratings = s.load_ratings();
    ASSERT_TRUE(ratings.has_value());
    ASSERT_EQ(ratings->size(), 1u);
    EXPECT_EQ((*ratings)[0].rating, 1512.3456789012345) << "a double is copied exactly";
    EXPECT_EQ((*ratings)[0].volatility, 0.0600001);
    EXPECT_EQ(s.rating_history("ada").at(0).change, 12.25);
    EXPECT_EQ(s.load_tournaments()->tournaments.size(), 1u);
    const auto games = s.finished_games(10);
    ASSERT_EQ(games.size(), 1u);
    EXPECT_EQ(games[0].room, "ended");
    // The round in play goes on where it stood: its fourth move is the next, not another third.
    EXPECT_FALSE(
        wait([&](Done d) { s.append_move(MoveRecord{"playing", 1, 2, 0, "again", 9, 20}, d); }));
    EXPECT_TRUE(
        wait([&](Done d) { s.append_move(MoveRecord{"playing", 1, 3, 1, "m3", 9, 20}, d); }));
  };
  {
    auto pg = open();
    ASSERT_TRUE(pg);
    check(*pg, "in PostgreSQL");
    pg->close();
  }
  const auto again = migrate_store(club, uri_);
  ASSERT_FALSE(again.has_value()) << "a second copy into the same database is refused";
  EXPECT_NE(again.error().find("empty database"), std::string::npos) << again.error();
  EXPECT_EQ(number("SELECT count(*) FROM rooms"), 2) << "and left nothing behind";

  const std::string back = "sqlite:" + (dir_ / "back").string();
  auto copied_back = migrate_store(uri_, back);
  ASSERT_TRUE(copied_back.has_value()) << copied_back.error();
  auto opened = open_store(back, inline_post());
  ASSERT_TRUE(opened.has_value()) << opened.error();
  // The move made in PostgreSQL above came back too: the room in play has four.
  const auto loaded = (*opened)->load(0);
  ASSERT_TRUE(loaded.has_value());
  for (const auto& r : loaded->rooms)
    EXPECT_EQ(r.rounds.at(0).moves.size(), r.room.id == "playing" ? 4u : 3u);
  EXPECT_FALSE(migrate_store(uri_, back).has_value()) << "a SQLite file is never overwritten";
  EXPECT_FALSE(migrate_store(club, back).has_value()) << "SQLite to SQLite is a copy, not this";
}

}  // namespace
}  // namespace plateau::server
