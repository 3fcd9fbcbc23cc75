// The store's contract, held by both databases behind it: one suite, run on the embedded SQLite
// store and on the shared PostgreSQL one (a throwaway server started for this process). What
// load() gives back after writes, a failed write failing alone, the archive, accounts, ratings,
// tournaments and chat. The SQLite store's own matters (its log, its checkpoints, its older
// schemas) are in store_test.cpp; PostgreSQL's (its schema, migrate, reconnecting) in
// pg_store_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <limits>
#include <map>
#include <set>
#include <string>

#include <sqlite3.h>

#include "server/store/open_store.hpp"
#include "server/store/pg_conn.hpp"
#include "tests/server/post_queue.hpp"
#include "tests/server/temp_postgres.hpp"

namespace plateau::server {
namespace {

namespace fs = std::filesystem;

// load()'s argument that rebuilds the rooms in play alone (no ended game is recent enough).
constexpr std::int64_t kEverything = std::numeric_limits<std::int64_t>::max();

// One PostgreSQL server for the whole test process (each test gets a database of its own),
// stopped when the process ends.
test::TempPostgres* shared_postgres(std::string* why) {
  static auto server = test::TempPostgres::start();
  if (!server) {
    *why = server.error();
    return nullptr;
  }
  return server->get();
}

class StorageTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // A parameterized test's name is "Name/store": one folder, not two.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::ranges::replace(name, '/', '-');
    dir_ =
        fs::temp_directory_path() / ("plateau-storage-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (postgres()) {
      std::string why;
      auto* server = shared_postgres(&why);
      ASSERT_NE(server, nullptr) << "cannot start PostgreSQL: " << why;
      uri_ = server->fresh_database();
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  bool postgres() const { return GetParam() == "postgres"; }
  std::string spec() const { return postgres() ? uri_ : "sqlite:" + (dir_ / "data").string(); }

  std::unique_ptr<Storage> open() {
    // No event loop here: completions and hand-offs run on whichever thread posts them.
    auto store = open_store(spec(), [](std::function<void()> f) { f(); });
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error());
    return store ? std::move(*store) : nullptr;
  }
  // Waits for one write to be durable; each such write is a commit of its own.
  template <typename Write>
  static bool wait(Write write) {
    return test::wait_for_write(std::move(write));
  }
  // Runs a query of one number on the database directly, as another program would.
  std::int64_t count(const std::string& query) {
    std::int64_t n = -1;
    if (postgres()) {
      auto db = pg::Conn::open(uri_);
      if (!db) return n;
      pg::Stmt q(*db, query);
      if (q.row()) n = q.i64(0);
      return n;
    }
    sqlite3* db = nullptr;
    sqlite3_open((dir_ / "data" / "plateau.db").string().c_str(), &db);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, query.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
  }

  fs::path dir_;
  std::string uri_;
};

TEST_P(StorageTest, OneRoomReadsBackAsLoadWouldAndAPlayerWithoutASeatCanBeForgotten) {
  auto store = open();
  ASSERT_TRUE(store);
  for (const char* p : {"ada", "bob", "cy"})
    ASSERT_TRUE(
        wait([&](Done d) { store->put_player({p, std::string("hash-") + p, p}, std::move(d)); }));
  ASSERT_TRUE(wait([&](Done d) {
    store->create_room({"r1", "quantik", {{"first", "0"}}, 7, true, 1, 5, "salt-1", "ada"},
                       std::move(d));
  }));
  ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 0, "ada", 1, std::move(d)); }));
  ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 1, "bob", 2, std::move(d)); }));
  ASSERT_TRUE(
      wait([&](Done d) { store->append_move({"r1", 1, 0, 0, "sphere@a1", 3, 10}, std::move(d)); }));
  ASSERT_TRUE(wait([&](Done d) {
    store->create_room({"r2", "quantik", {}, 8, false, 0, 6, ""}, std::move(d));
  }));
  ASSERT_TRUE(wait([&](Done d) { store->close_room("r2", std::move(d)); }));

  const auto room = store->load_room("r1", 0);
  ASSERT_TRUE(room.has_value()) << room.error();
  ASSERT_TRUE(room->has_value());
  const StoredRoom& r = **room;
  EXPECT_EQ(r.room.game, "quantik");
  EXPECT_EQ(r.room.seed, 7u);
  EXPECT_TRUE(r.room.is_private);
  EXPECT_EQ(r.room.spectator_delay, 1);
  EXPECT_EQ(r.seats, (std::vector<std::optional<std::string>>{"ada", "bob"}));
  ASSERT_EQ(r.rounds.size(), 1u);
  EXPECT_EQ(r.rounds[0].moves, (std::vector<std::pair<int, std::string>>{{0, "sphere@a1"}}));
  EXPECT_EQ(r.rounds[0].salt, "salt-1") << "the round's commitment still opens after an unload";
  EXPECT_EQ(r.room.creator, "ada") << "its creator's count of open rooms survives an unload";
  EXPECT_EQ(r.version, 3);
  // The round goes on after it: the next move is the round's second.
  ASSERT_TRUE(
      wait([&](Done d) { store->append_move({"r1", 1, 1, 1, "cube@d4", 4, 11}, std::move(d)); }));
  EXPECT_FALSE(store->load_room("r2", 0).value().has_value()) << "a closed room stays closed";
  EXPECT_FALSE(store->load_room("nope", 0).value().has_value());

  ASSERT_TRUE(wait([&](Done d) { store->forget_players({"bob", "cy", "nobody"}, std::move(d)); }));
  store->close();
  store = open();
  ASSERT_TRUE(store);
  auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value());
  std::map<std::string, bool> seated;
  for (const auto& p : loaded->players) seated[p.id] = p.seated;
  EXPECT_EQ(seated, (std::map<std::string, bool>{{"ada", true}, {"bob", true}}))
      << "Cy, who sat nowhere, is gone";
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].rounds[0].moves.size(), 2u);
}

TEST_P(StorageTest, ARoomComesBackAtTheVersionOfItsLastMove) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 0, std::nullopt, 2, d); }));
    for (int i = 0; i < 5; ++i)
      ASSERT_TRUE(wait([&](Done d) {
        store->append_move(MoveRecord{"r1", 1, i, i % 2, "m" + std::to_string(i), 3 + i, 0}, d);
      }));
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  const auto& room = loaded->rooms[0];
  // Moves carry their version in their own rows; the seat write carried 2.
  EXPECT_EQ(room.version, 7);
  ASSERT_EQ(room.rounds.size(), 1u);
  ASSERT_EQ(room.rounds[0].moves.size(), 5u);
  EXPECT_EQ(room.rounds[0].moves[4], (std::pair<int, std::string>{0, "m4"}));
}

TEST_P(StorageTest, ARoomWithoutMovesComesBackAtItsSeatVersion) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 1, std::nullopt, 4, d); }));
    store->close();
  }
  auto store = open();
  const auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].version, 4);
}

// A change that is neither a move nor a seat (a player shown away, a rematch asked for) stores
// the room's version, so the room comes back above it, and the ended round's rematch requests.
TEST_P(StorageTest, ATableChangeKeepsItsVersionAndTheRematchRequests) {
  const auto outcome =
      nlohmann::json{{"winners", {0}}, {"scores", nlohmann::json::array()}, {"reason", "r"}};
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 0, std::nullopt, 2, d); }));
    ASSERT_TRUE(
        wait([&](Done d) { store->append_move(MoveRecord{"r1", 1, 0, 0, "m0", 3, 0}, d); }));
    ASSERT_TRUE(wait([&](Done d) {
      store->put_table("r1", 1, 0, nullptr, nullptr, 4, d);
    }));  // a player shown away
    ASSERT_TRUE(wait([&](Done d) { store->finish_round("r1", 1, outcome, 5, d); }));
    ASSERT_TRUE(wait(
        [&](Done d) { store->put_table("r1", 1, 0b10, nullptr, nullptr, 6, d); }));  // seat 1 asks
    ASSERT_TRUE(wait([&](Done d) {
      store->put_table("r1", 1, 0b10, nullptr, nullptr, 7, d);
    }));  // seat 0 shown back
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load(0);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].version, 7) << "above the move's own version, 3";
  ASSERT_EQ(loaded->rooms[0].rounds.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].rounds[0].rematch, 0b10u);
  // The next round starts with nobody asking.
  ASSERT_TRUE(
      wait([&](Done d) { store->start_round("r1", 2, nlohmann::json::object(), 8, "", 8, d); }));
  store->close();
  store = open();
  ASSERT_TRUE(store);
  const auto again = store->load(0);
  ASSERT_TRUE(again.has_value());
  ASSERT_EQ(again->rooms.at(0).rounds.size(), 2u);
  EXPECT_EQ(again->rooms[0].rounds[1].rematch, 0u);
  EXPECT_EQ(again->rooms[0].version, 8);
}

// The draw offered in a round in play is stored with the table, and read back by a start and by a
// room coming back into memory; answering it stores null.
// Who left a round, and a takeback: the moves taken back are gone from the log and from the
// history alike, with the offer, and a move made after takes their place.
TEST_P(StorageTest, WhoLeftIsKeptAndATakebackRemovesItsMovesForGood) {
  const nlohmann::json offer{{"kind", "takeback"}, {"by", 0}, {"at", 3}, {"to", 1}};
  const nlohmann::json left = nlohmann::json::array(
      {{{"seat", 2}, {"end", "resigned"}, {"at", 2}, {"score", 4}, {"reason", "Cid resigned"}}});
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(wait([&](Done d) {
        store->append_move(MoveRecord{"r1", 1, i, i % 2, "m" + std::to_string(i), 3 + i, 0}, d);
      }));
    ASSERT_TRUE(wait([&](Done d) { store->put_table("r1", 1, 0, offer, left, 6, d); }));
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  auto loaded = store->load(0);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_EQ(loaded->rooms.at(0).rounds.at(0).departed, left);
  EXPECT_EQ(loaded->rooms.at(0).rounds.at(0).offer, offer);
  ASSERT_TRUE(wait([&](Done d) { store->take_back("r1", 1, 1, 7, d); }));
  ASSERT_TRUE(
      wait([&](Done d) { store->append_move(MoveRecord{"r1", 1, 1, 1, "again", 8, 0}, d); }));
  store->close();
  store = open();
  ASSERT_TRUE(store);
  loaded = store->load(0);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  const auto& round = loaded->rooms.at(0).rounds.at(0);
  EXPECT_EQ(round.moves, (std::vector<std::pair<int, std::string>>{{0, "m0"}, {1, "again"}}));
  EXPECT_EQ(round.offer, nullptr);
  EXPECT_EQ(loaded->rooms.at(0).version, 8);
  const auto one = store->load_room("r1", 0);
  ASSERT_TRUE(one.has_value() && one->has_value());
  EXPECT_EQ((*one)->rounds.at(0).moves, round.moves);
}

TEST_P(StorageTest, TheDrawOfferedIsStoredWithTheTable) {
  const nlohmann::json offer{{"kind", "draw"}, {"by", 1}, {"at", 1}};
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    ASSERT_TRUE(
        wait([&](Done d) { store->append_move(MoveRecord{"r1", 1, 0, 0, "m0", 3, 0}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_table("r1", 1, 0, offer, nullptr, 4, d); }));
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load(0);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  EXPECT_EQ(loaded->rooms.at(0).rounds.at(0).offer, offer);
  const auto one = store->load_room("r1", 0);
  ASSERT_TRUE(one.has_value() && one->has_value());
  EXPECT_EQ((*one)->rounds.at(0).offer, offer);
  ASSERT_TRUE(
      wait([&](Done d) { store->put_table("r1", 1, 0, nullptr, nullptr, 5, d); }));  // declined
  store->close();
  store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->load(0)->rooms.at(0).rounds.at(0).offer, nullptr);
}

// Rooms in play always come back; one whose game ended comes back only if it ended since the
// time given (its players may still ask for a rematch), and never once closed or if imported.
TEST_P(StorageTest, ARoomWhoseGameEndedComesBackOnlyIfItEndedLately) {
  const auto outcome =
      nlohmann::json{{"winners", {0}}, {"scores", nlohmann::json::array()}, {"reason", "r"}};
  {
    auto store = open();
    ASSERT_TRUE(store);
    for (const char* id : {"playing", "ended_late", "ended_early", "closed"}) {
      ASSERT_TRUE(wait([&](Done d) {
        store->create_room(RoomRecord{id, "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                           d);
      }));
      ASSERT_TRUE(
          wait([&](Done d) { store->append_move(MoveRecord{id, 1, 0, 0, "m0", 3, 5}, d); }));
    }
    ASSERT_TRUE(wait([&](Done d) { store->finish_round("ended_late", 1, outcome, 2000, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->finish_round("ended_early", 1, outcome, 999, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->finish_round("closed", 1, outcome, 2000, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->close_room("closed", d); }));
    GameRecord imported{"imported", 1,          "quantik",      nlohmann::json::object(),
                        7,          {"a", "b"}, {{0, "m0", 5}}, outcome,
                        2000,       ""};
    ASSERT_TRUE(wait([&](Done d) { store->import_record(imported, d); }));
    store->close();
  }
  auto ids = [](const Loaded& l) {
    std::set<std::string> out;
    for (const auto& r : l.rooms) out.insert(r.room.id);
    return out;
  };
  auto store = open();
  ASSERT_TRUE(store);
  const auto by_default = store->load(kEverything);
  ASSERT_TRUE(by_default.has_value());
  EXPECT_EQ(ids(*by_default), (std::set<std::string>{"playing"}));
  const auto lately = store->load(1000);
  ASSERT_TRUE(lately.has_value());
  EXPECT_EQ(ids(*lately), (std::set<std::string>{"playing", "ended_late"}));
  for (const auto& r : lately->rooms) {
    if (r.room.id != "ended_late") continue;
    ASSERT_EQ(r.rounds.size(), 1u);
    EXPECT_EQ(r.rounds[0].outcome, outcome);
    EXPECT_EQ(r.rounds[0].moves, (std::vector<std::pair<int, std::string>>{{0, "m0"}}))
        << "its moves, from `moves`";
  }
}

TEST_P(StorageTest, AFailedWriteFailsAloneAndTheOthersInItsCommitStay) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    // Queued together: the second repeats the first's place in the log, so it must fail alone.
    std::promise<bool> a, b, c;
    store->append_move(MoveRecord{"r1", 1, 0, 0, "first", 1, 0},
                       [&a](bool ok) { a.set_value(ok); });
    store->append_move(MoveRecord{"r1", 1, 0, 1, "clash", 2, 0},
                       [&b](bool ok) { b.set_value(ok); });
    store->append_move(MoveRecord{"r1", 1, 1, 1, "second", 3, 0},
                       [&c](bool ok) { c.set_value(ok); });
    EXPECT_TRUE(a.get_future().get());
    EXPECT_FALSE(b.get_future().get());
    EXPECT_TRUE(c.get_future().get());
    store->close();
  }
  auto store = open();
  const auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  const auto& moves = loaded->rooms[0].rounds.at(0).moves;
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].second, "first");
  EXPECT_EQ(moves[1].second, "second");
}

// A write that throws in the writer thread (here: options holding a string that is not UTF-8,
// which the JSON library refuses to serialize) fails alone; the writer, and the process, go on.
TEST_P(StorageTest, AWriteThatThrowsFailsAloneAndTheWriterGoesOn) {
  auto store = open();
  ASSERT_TRUE(store);
  const nlohmann::json bad_options{{"name", std::string("\xff\xfe")}};
  std::promise<bool> a, b, c;
  store->create_room(RoomRecord{"ok1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                     [&a](bool ok) { a.set_value(ok); });
  store->create_room(RoomRecord{"bad", "quantik", bad_options, 7, false, 0, 1, ""},
                     [&b](bool ok) { b.set_value(ok); });
  store->create_room(RoomRecord{"ok2", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                     [&c](bool ok) { c.set_value(ok); });
  EXPECT_TRUE(a.get_future().get());
  EXPECT_FALSE(b.get_future().get());
  EXPECT_TRUE(c.get_future().get());
  EXPECT_TRUE(wait([&](Done d) { store->put_player({"p1", "hash", "Ada"}, d); }))
      << "the writer still writes";
  EXPECT_TRUE(store->available())
      << "a write that failed alone does not make the store unavailable";
  const auto [count, last] = store->exceptions();
  EXPECT_EQ(count, 1u);
  EXPECT_FALSE(last.empty());
  // A callback that throws does not keep the next one from running.
  std::promise<bool> after;
  store->put_player({"p2", "hash2", "Bob"},
                    [](bool) { throw std::runtime_error("a callback failed"); });
  store->put_player({"p3", "hash3", "Cy"}, [&after](bool ok) { after.set_value(ok); });
  EXPECT_TRUE(after.get_future().get());
  EXPECT_EQ(store->exceptions().first, 2u);
  store->close();
  auto reopened = open();
  const auto loaded = reopened->load(kEverything);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->rooms.size(), 2u) << "the rooms whose writes succeeded";
  EXPECT_EQ(loaded->players.size(), 3u);
}

// The server's way in: the factory makes the data folder and its database, and the store seen
// only as a Storage lists an imported game and backs it up while open.
TEST_P(StorageTest, TheFactoryOpensTheStoreAndTheArchiveListsAndBacksUpAnImportAsASqliteFile) {
  auto opened = open_store(spec(), [](std::function<void()> f) { f(); });
  ASSERT_TRUE(opened.has_value()) << opened.error();
  Storage& storage = **opened;
  if (!postgres()) {
    EXPECT_TRUE(fs::exists(dir_ / "data" / "plateau.db"));
  }
  const auto outcome =
      nlohmann::json{{"winners", {1}}, {"scores", nlohmann::json::array()}, {"reason", "r"}};
  const GameRecord imported{"imp",
                            1,
                            "quantik",
                            nlohmann::json::object(),
                            7,
                            {"ada", "bob"},
                            {{0, "m0", 5}, {1, "m1", 6}},
                            outcome,
                            2000,
                            ""};
  ASSERT_TRUE(wait([&](Done d) { storage.import_record(imported, d); }));

  const auto games = storage.finished_games(10);
  ASSERT_EQ(games.size(), 1u);
  EXPECT_EQ(games[0].room, "imp");
  EXPECT_EQ(games[0].round, 1);
  EXPECT_EQ(games[0].game, "quantik");
  EXPECT_EQ(games[0].result, outcome);
  EXPECT_EQ(games[0].finished_ms, 2000);
  EXPECT_TRUE(games[0].imported);
  EXPECT_EQ(games[0].players, (std::vector<std::string>{"ada", "bob"}));

  const auto copy = dir_ / "copy.db";
  const auto backed_up = storage.backup_to(copy.string());
  ASSERT_TRUE(backed_up.has_value()) << backed_up.error();
  storage.close();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(copy.string().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  std::int64_t moves = -1;
  const char* query = "SELECT count(*) FROM moves WHERE room = 'imp'";
  if (sqlite3_prepare_v2(db, query, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    moves = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  EXPECT_EQ(moves, 2) << "the copy holds the imported game";
}

TEST_P(StorageTest, AccountsSessionsAndInvitesAreKeptAndADeletedAccountLeavesItsPlayerNamed) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    // A guest who sat becomes an account: their row's token is replaced and their name is the
    // account's.
    ASSERT_TRUE(wait([&](Done d) { store->put_player({"p1", "guest-hash", "ada?"}, d); }));
    ASSERT_TRUE(wait([&](Done d) {
      store->put_account({"p1", "Ada", "$argon2id$x", 100, false}, "nobody-has-this", d);
    }));
    // An account made for a player who never sat: its player row is made too.
    ASSERT_TRUE(wait([&](Done d) {
      store->put_account({"p2", "Bob", "$argon2id$y", 200, false}, "unusable2", d);
    }));
    for (const char* h : {"s1", "s2", "s3"})
      ASSERT_TRUE(wait([&](Done d) { store->put_session({h, "p1", "phone", 300}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_session({"s4", "p2", "laptop", 400}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->drop_sessions({"s2"}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_invite({"inv1", 10, 1000}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_invite({"inv2", 10, 2000}, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->drop_invite("inv1", d); }));
    // Disabled, then the name of another account is refused by the database itself.
    ASSERT_TRUE(
        wait([&](Done d) { store->put_account({"p2", "Bob", "$argon2id$y", 200, true}, "", d); }));
    EXPECT_FALSE(wait([&](Done d) {
      store->put_account({"p3", "ADA", "$argon2id$z", 1, false}, "u3", d);
    })) << "names are unique whatever their case";
    // Nobody forgets an account's player, seated or not.
    ASSERT_TRUE(wait([&](Done d) { store->forget_players({"p1", "p2"}, d); }));
    store->close();
  }
  EXPECT_EQ(count("SELECT count(*) FROM players WHERE id IN ('p1', 'p2')"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM players WHERE token_hash = 'guest-hash'"), 0)
      << "the guest's token signs nobody in once the guest has an account";
  {
    auto store = open();
    ASSERT_TRUE(store);
    const auto loaded = store->load_accounts();
    ASSERT_TRUE(loaded.has_value()) << loaded.error();
    ASSERT_EQ(loaded->accounts.size(), 2u);
    std::map<std::string, AccountRow> by_player;
    for (const auto& a : loaded->accounts) by_player[a.player] = a;
    EXPECT_EQ(by_player.at("p1").name, "Ada");
    EXPECT_EQ(by_player.at("p1").password_hash, "$argon2id$x");
    EXPECT_FALSE(by_player.at("p1").disabled);
    EXPECT_TRUE(by_player.at("p2").disabled);
    std::set<std::string> sessions;
    for (const auto& s : loaded->sessions) sessions.insert(s.token_hash + ":" + s.player);
    EXPECT_EQ(sessions, (std::set<std::string>{"s1:p1", "s3:p1", "s4:p2"}));
    ASSERT_EQ(loaded->invites.size(), 1u);
    EXPECT_EQ(loaded->invites[0].code_hash, "inv2");
    EXPECT_EQ(loaded->invites[0].expires_ms, 2000);
    // Deleting an account keeps its player, and so its seats in history, under another name.
    ASSERT_TRUE(wait([&](Done d) { store->delete_account("p1", "deleted player", d); }));
    const auto after = store->load_accounts();
    ASSERT_TRUE(after.has_value());
    EXPECT_EQ(after->accounts.size(), 1u);
    EXPECT_EQ(after->sessions.size(), 1u);
    store->close();
  }
  EXPECT_EQ(count("SELECT count(*) FROM players WHERE id = 'p1' AND name = 'deleted player'"), 1);
}

TEST_P(StorageTest, TournamentsAndTheirOrganisersComeBackAsLastWritten) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) { store->put_tournament({"t1", R"({"v":1})"}, 10, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_tournament({"t2", R"({"v":1})"}, 20, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_tournament({"t1", R"({"v":2})"}, 30, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_organiser("ada", true, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_organiser("ada", true, d); })) << "twice is once";
    ASSERT_TRUE(wait([&](Done d) { store->put_organiser("bob", true, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->put_organiser("bob", false, d); }));
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load_tournaments();
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->tournaments.size(), 2u);
  EXPECT_EQ(loaded->tournaments[0].id, "t2") << "oldest change first";
  EXPECT_EQ(loaded->tournaments[1].id, "t1");
  EXPECT_EQ(loaded->tournaments[1].doc, R"({"v":2})") << "the last write of an event wins";
  EXPECT_EQ(loaded->organisers, std::vector<std::string>{"ada"});
  store->close();
}

TEST_P(StorageTest, RatedGamesKeepTheirChangesOnceAndTheUnratedOnesAreFoundAtStart) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    for (const char* p : {"ada", "bob"})
      ASSERT_TRUE(wait([&](Done d) { store->put_player({p, std::string("h-") + p, p}, d); }));
    for (const char* room : {"r1", "r2", "casual"}) {
      RoomRecord r{room, "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", "ada"};
      r.rated = std::string(room) != "casual";
      ASSERT_TRUE(wait([&](Done d) { store->create_room(r, d); }));
      ASSERT_TRUE(wait([&](Done d) { store->put_seat(room, 0, "ada", 1, d); }));
      ASSERT_TRUE(wait([&](Done d) { store->put_seat(room, 1, "bob", 2, d); }));
      ASSERT_TRUE(wait([&](Done d) {
        store->finish_round(room, 1, nlohmann::json{{"winners", {1}}}, room[1] == '2' ? 20 : 10, d);
      }));
    }
    // r1's ratings are written (twice: the second write is a restart rating it again).
    const std::vector<RatingRow> rows{{"ada", "quantik", 1400, 300, 0.06, 1, 0, 0, 1, 10},
                                      {"bob", "quantik", 1600, 300, 0.06, 1, 1, 0, 0, 10}};
    const std::vector<RatingChange> changes{{"r1", 1, "ada", "quantik", 10, 1400, 300, -100},
                                            {"r1", 1, "bob", "quantik", 10, 1600, 300, 100}};
    ASSERT_TRUE(wait([&](Done d) { store->put_rated_game(rows, changes, d); }));
    auto again = rows;
    again[0].rating = 1;
    ASSERT_TRUE(wait([&](Done d) { store->put_rated_game(again, changes, d); }));
    const auto history = store->rating_history("bob");
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].change, 100);
    const auto games = store->games_of("ada", 10);
    ASSERT_EQ(games.size(), 3u);
    EXPECT_EQ(games[0].room, "r2") << "newest first";
    EXPECT_TRUE(games[0].rated);
    EXPECT_FALSE(games[2].rated);
    EXPECT_EQ(games[0].players, (std::vector<std::string>{"ada", "bob"}));
    EXPECT_TRUE(store->games_of("nobody", 10).empty());
    store->close();
  }
  auto store = open();
  ASSERT_TRUE(store);
  const auto ratings = store->load_ratings();
  ASSERT_TRUE(ratings.has_value()) << ratings.error();
  ASSERT_EQ(ratings->size(), 2u);
  for (const auto& r : *ratings)
    EXPECT_EQ(r.rating, r.player == "ada" ? 1400 : 1600) << "a game is rated once";
  // r2 ended rated with no changes written: a start finds it; r1 and the casual room it does not.
  const auto unrated = store->unrated_games();
  ASSERT_TRUE(unrated.has_value()) << unrated.error();
  ASSERT_EQ(unrated->size(), 1u);
  EXPECT_EQ((*unrated)[0].room, "r2");
  EXPECT_EQ((*unrated)[0].game, "quantik");
  EXPECT_EQ((*unrated)[0].finished_ms, 20);
  EXPECT_EQ((*unrated)[0].outcome["winners"][0], 1);
  ASSERT_EQ((*unrated)[0].players.size(), 2u);
  EXPECT_EQ((*unrated)[0].players[1], "bob");
  // The rated flag comes back with the room.
  const auto room = store->load_room("r2", 0);
  ASSERT_TRUE(room.has_value() && room->has_value());
  EXPECT_TRUE((*room)->room.rated);
  store->close();
}

TEST_P(StorageTest, ATablesChatComesBackWithItAndIsInItsRecord) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", "ada"},
                         d);
    }));
    ChatRecord a;
    a.room = "r1";
    a.seq = 1;
    a.player = "ada";
    a.name = "Ada";
    a.text = "good luck";
    a.at_ms = 5;
    a.version = 3;
    ChatRecord b = a;
    b.seq = 2;
    b.spectators = true;
    b.name = "Eve";
    b.text = "";
    b.phrase = "thinking";
    b.at_move = 2;
    b.version = 4;
    ASSERT_TRUE(wait([&](Done d) { store->append_chat(a, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->append_chat(b, d); }));
    ASSERT_TRUE(wait([&](Done d) { store->delete_chat("r1", 1, 5, d); }));
    store->close();
  }
  EXPECT_EQ(count("SELECT count(*) FROM chat WHERE text = 'good luck'"), 0)
      << "a deleted message's words are gone from the disk";
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load(kEverything);
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->rooms.size(), 1u);
  const auto& chat = loaded->rooms[0].chat;
  ASSERT_EQ(chat.size(), 2u);
  EXPECT_TRUE(chat[0].deleted);
  EXPECT_EQ(chat[1].phrase, "thinking");
  EXPECT_TRUE(chat[1].spectators);
  EXPECT_EQ(chat[1].at_move, 2);
  EXPECT_EQ(loaded->rooms[0].version, 5) << "the room starts above every version it showed";
  const auto one = store->load_room("r1", 0);
  ASSERT_TRUE(one.has_value() && one->has_value());
  EXPECT_EQ((*one)->chat.size(), 2u);
  const auto record = store->read_record("r1", 1);
  ASSERT_TRUE(record.has_value() && record->has_value());
  ASSERT_EQ((*record)->chat.size(), 2u);
  EXPECT_EQ((*record)->chat[0]["deleted"], true);
  EXPECT_EQ((*record)->chat[1]["channel"], "spectators");
  EXPECT_EQ(record_to_json(**record)["chat"], (*record)->chat);
  store->close();
}

INSTANTIATE_TEST_SUITE_P(Stores, StorageTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace plateau::server
