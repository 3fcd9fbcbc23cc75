// The SQLite store on its own: what load() gives back after writes, and that the WAL file stays
// bounded however long the server runs.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <sqlite3.h>

#include "server/store/sqlite.hpp"
#include "server/store/sqlite_store.hpp"

namespace plateau::server {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("plateau-store-" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<SqliteStore> open(CheckpointPolicy policy = {}) {
    // No event loop here: completions and hand-offs run on whichever thread posts them.
    auto store = SqliteStore::open((dir_ / "plateau.db").string(),
                                   [](std::function<void()> f) { f(); }, policy);
    EXPECT_TRUE(store.has_value()) << (store ? "" : store.error());
    return store ? std::move(*store) : nullptr;
  }
  // Waits for one write to be durable; each such write is a commit of its own.
  template <typename Write>
  static bool wait(Write write) {
    std::promise<bool> done;
    auto result = done.get_future();
    write([&done](bool ok) { done.set_value(ok); });
    return result.get();
  }

  fs::path dir_;

  // Runs SQL on the database file directly, as another program would; the store must be closed.
  void sql(const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_ / "plateau.db").string().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, text.c_str(), nullptr, nullptr, &err), SQLITE_OK)
        << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }
  static constexpr int kCommits = 6000;  // commit_moves_one_by_one's
  void commit_moves_one_by_one(SqliteStore& store, std::uintmax_t& largest_log);
  std::int64_t count(const std::string& query) {
    sqlite3* db = nullptr;
    sqlite3_open((dir_ / "plateau.db").string().c_str(), &db);
    sqlite3_stmt* s = nullptr;
    std::int64_t n = -1;
    if (sqlite3_prepare_v2(db, query.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
  }

  // How many times the log started over: the checkpoint sequence number in the WAL header
  // (bytes 12-15, big-endian), which SQLite bumps at each restart.
  static std::uint32_t restarts(const fs::path& wal) {
    std::ifstream in(wal, std::ios::binary);
    unsigned char header[16] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    return (std::uint32_t{header[12]} << 24) | (std::uint32_t{header[13]} << 16) |
           (std::uint32_t{header[14]} << 8) | header[15];
  }
};

TEST_F(StoreTest, OneRoomReadsBackAsLoadWouldAndAPlayerWithoutASeatCanBeForgotten) {
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
  auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value());
  std::map<std::string, bool> seated;
  for (const auto& p : loaded->players) seated[p.id] = p.seated;
  EXPECT_EQ(seated, (std::map<std::string, bool>{{"ada", true}, {"bob", true}}))
      << "Cy, who sat nowhere, is gone";
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].rounds[0].moves.size(), 2u);
}

TEST_F(StoreTest, ARoomComesBackAtTheVersionOfItsLastMove) {
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
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  const auto& room = loaded->rooms[0];
  // Moves carry their version in their own rows; the seat write carried 2.
  EXPECT_EQ(room.version, 7);
  ASSERT_EQ(room.rounds.size(), 1u);
  ASSERT_EQ(room.rounds[0].moves.size(), 5u);
  EXPECT_EQ(room.rounds[0].moves[4], (std::pair<int, std::string>{0, "m4"}));
}

TEST_F(StoreTest, ARoomWithoutMovesComesBackAtItsSeatVersion) {
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
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].version, 4);
}

// A change that is neither a move nor a seat (a player shown away, a rematch asked for) stores
// the room's version, so the room comes back above it, and the ended round's rematch requests.
TEST_F(StoreTest, ATableChangeKeepsItsVersionAndTheRematchRequests) {
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
TEST_F(StoreTest, WhoLeftIsKeptAndATakebackRemovesItsMovesForGood) {
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

TEST_F(StoreTest, TheDrawOfferedIsStoredWithTheTable) {
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
TEST_F(StoreTest, ARoomWhoseGameEndedComesBackOnlyIfItEndedLately) {
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
  const auto by_default = store->load();
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

TEST_F(StoreTest, AFailedWriteFailsAloneAndTheOthersInItsCommitStay) {
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
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->rooms.size(), 1u);
  const auto& moves = loaded->rooms[0].rounds.at(0).moves;
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].second, "first");
  EXPECT_EQ(moves[1].second, "second");
}

// A write that throws in the writer thread (here: options holding a string that is not UTF-8,
// which the JSON library refuses to serialize) fails alone; the writer, and the process, go on.
TEST_F(StoreTest, AWriteThatThrowsFailsAloneAndTheWriterGoesOn) {
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
  const auto loaded = reopened->load();
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->rooms.size(), 2u) << "the rooms whose writes succeeded";
  EXPECT_EQ(loaded->players.size(), 3u);
}

// The rooms' thread as the store sees it: what the store posts waits here until the test runs it.
class PostQueue {
 public:
  SqliteStore::Post post() {
    return [this](std::function<void()> f) {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(f));
      posted_.notify_all();
    };
  }
  // Runs what was posted, waiting up to 10 s for something to be.
  bool run_next() {
    std::unique_lock lock(mutex_);
    if (!posted_.wait_for(lock, std::chrono::seconds(10), [this] { return !queue_.empty(); }))
      return false;
    auto f = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    f();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<std::function<void()>> queue_;
};

TEST_F(StoreTest, AWriteIsTimedFromItsArrivalToTheStartOfItsCommit) {
  PostQueue rooms;
  auto opened = SqliteStore::open((dir_ / "plateau.db").string(), rooms.post());
  ASSERT_TRUE(opened.has_value());
  auto& store = **opened;
  int done = 0;
  store.create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                    [&done](bool ok) { done += ok; });
  store.append_move(MoveRecord{"r1", 1, 0, 0, "a", 1, 0}, [&done](bool ok) { done += ok; });
  // Both wait for the rooms' thread to hand them over: nothing is committed, nothing is timed.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(store.stats().queued.count(), 0u);
  EXPECT_EQ(store.stats().commit.count(), 0u);
  ASSERT_TRUE(rooms.run_next());  // the hand-off
  ASSERT_TRUE(rooms.run_next());  // the commit's completions
  EXPECT_EQ(done, 2);
  // One commit of two writes, each of which waited the 20 ms for its hand-off: both fall past
  // the 15 ms bound.
  EXPECT_EQ(store.stats().commit.count(), 1u);
  EXPECT_EQ(store.stats().queued.count(), 2u);
  std::uint64_t past_15ms = 0;
  for (std::size_t i = 0; i <= LatencyHistogram::kBucketsMs.size(); ++i)
    if (i == LatencyHistogram::kBucketsMs.size() || LatencyHistogram::kBucketsMs[i] > 15)
      past_15ms += store.stats().queued.bucket(i);
  EXPECT_EQ(past_15ms, 2u);
  store.close();
}

// Each write below is its own commit, and moves of 40 rooms land on different pages: the log
// gains at least a page per commit, so 6,000 commits log 6,000 pages or more.
void StoreTest::commit_moves_one_by_one(SqliteStore& store, std::uintmax_t& largest_log) {
  constexpr int kRooms = 40;
  for (int r = 0; r < kRooms; ++r)
    ASSERT_TRUE(wait([&](Done d) {
      store.create_room(RoomRecord{"room" + std::to_string(r), "quantik", nlohmann::json::object(),
                                   1, false, 0, 1, ""},
                        d);
    }));
  const auto wal = dir_ / "plateau.db-wal";
  for (int i = 0; i < kCommits; ++i) {
    const int r = i % kRooms, index = i / kRooms;
    ASSERT_TRUE(wait([&](Done d) {
      store.append_move(
          MoveRecord{"room" + std::to_string(r), 1, index, index % 2, "A1a", index + 1, 0}, d);
    }));
    if (i % 100 == 0 && fs::exists(wal)) largest_log = std::max(largest_log, fs::file_size(wal));
  }
  largest_log = std::max(largest_log, fs::file_size(wal));
}

TEST_F(StoreTest, TheWriteAheadLogStaysBoundedUnderManyCommits) {
  // Checkpoints must copy the log back and let it start over; otherwise 6,000 commits leave a
  // log of 24 MB or more. A pass every 500 pages, and a restart past 1,500: about 4 restarts.
  constexpr CheckpointPolicy policy{.pass_every = 500, .restart_at = 1500};
  auto store = open(policy);
  ASSERT_TRUE(store);
  std::uintmax_t largest = 0;
  commit_moves_one_by_one(*store, largest);
  const auto wal = dir_ / "plateau.db-wal";
  const std::uint64_t passes = store->stats().checkpoints, finished = store->stats().restarts;
  const std::string figures = std::to_string(restarts(wal)) + " restarts (" +
                              std::to_string(finished) + " copies finished by the writer), " +
                              std::to_string(passes) + " checkpoint passes, the WAL at most " +
                              std::to_string(largest) + " bytes";
  std::printf("  %s\n", figures.c_str());  // the margins, in every run's log
  // Before the first fix the log never started over (30 MB); with only the checkpoint thread's
  // copy, 1 or 2 times. The bounds leave room for a loaded machine that runs passes late.
  EXPECT_GE(restarts(wal), 2u) << figures;
  EXPECT_LT(largest, 16u * 1024 * 1024) << figures;
  // Each copy the writer finished started the log over. It may also start over when a pass
  // happened to copy all of it between two commits (on tmpfs, every pass does).
  EXPECT_LE(finished, restarts(wal)) << figures;
  // One pass each 500 pages (6,000 pages or more here), never one per commit: when every
  // commit past the threshold asked for one, 6,000 commits ran 2,856 to 3,781 passes, each
  // with its own fsyncs, and they kept colliding with the writer's own copy.
  EXPECT_GE(passes, 10u) << figures;
  EXPECT_LE(passes, 2 * kCommits / 500 + 4) << figures;
  // And what was copied out is in the database file itself.
  EXPECT_GT(fs::file_size(dir_ / "plateau.db"), 100u * 1024);
}

TEST_F(StoreTest, TheWriterNeverForcesARestartOfTheLogBeforeItsThreshold) {
  // The writer's copy of the log's last frames costs a commit three more flushes: below
  // `restart_at` it must never run, however many passes do. (The log may still start over when
  // a pass copied all of it between two commits: that costs the writer nothing but the new
  // header's flush.) The passes still copy the log into the database.
  constexpr CheckpointPolicy policy{.pass_every = 500, .restart_at = 1'000'000};
  auto store = open(policy);
  ASSERT_TRUE(store);
  std::uintmax_t largest = 0;
  commit_moves_one_by_one(*store, largest);
  const std::uint64_t passes = store->stats().checkpoints;
  EXPECT_EQ(store->stats().restarts, 0u) << passes << " passes";
  EXPECT_GE(passes, 5u);  // 6,000 pages or more, a pass each 500
  EXPECT_GT(fs::file_size(dir_ / "plateau.db"), 100u * 1024);
  // Everything is still there after the store is opened again, from the log and the database.
  store.reset();
  auto again = open(policy);
  ASSERT_TRUE(again);
  EXPECT_EQ(count("SELECT count(*) FROM move_log"), kCommits);
}

TEST_F(StoreTest, ADatabaseFromBeforeTheMoveLogUpgradesWithItsRoundInPlay) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room(RoomRecord{"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, ""},
                         d);
    }));
    store->close();
  }
  // Make it the database a schema-2 server leaves: no log, no rematch column, and a round in
  // play whose moves are in `moves`.
  sql("DROP TABLE move_log; ALTER TABLE rounds DROP COLUMN rematch; ALTER TABLE rounds DROP COLUMN "
      "salt; ALTER TABLE rounds DROP COLUMN offer; ALTER TABLE rounds DROP COLUMN departed;"
      "ALTER TABLE rooms DROP COLUMN creator; ALTER TABLE rooms DROP COLUMN clock;"
      "ALTER TABLE moves DROP COLUMN clock_ms; DROP TABLE accounts; DROP TABLE sessions; DROP "
      "TABLE invites; ALTER TABLE rooms DROP COLUMN rated; DROP TABLE ratings; DROP TABLE "
      "rating_history; ALTER TABLE rooms DROP COLUMN chat; DROP TABLE chat; DROP TABLE "
      "tournaments; DROP TABLE tournament_organisers; "
      "PRAGMA user_version = 2;"
      "INSERT INTO moves(room, round, idx, seat, move, version, at_ms) VALUES"
      "('r1', 1, 0, 0, 'old0', 1, 10), ('r1', 1, 1, 1, 'old1', 2, 11), ('r1', 1, 2, 0, 'old2', 3, "
      "12);");
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(count("PRAGMA user_version"), SqliteStore::schema_version());
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].room.creator, "")
      << "a room from before schema 6 has no known creator";
  EXPECT_EQ(loaded->rooms[0].version, 3);
  ASSERT_EQ(loaded->rooms[0].rounds.at(0).moves.size(), 3u);
  EXPECT_EQ(loaded->rooms[0].rounds[0].moves[2], (std::pair<int, std::string>{0, "old2"}));
  // The round goes on in the log and ends: its record holds every move, old and new, once.
  ASSERT_TRUE(
      wait([&](Done d) { store->append_move(MoveRecord{"r1", 1, 3, 1, "new3", 4, 13}, d); }));
  ASSERT_TRUE(
      wait([&](Done d) { store->finish_round("r1", 1, nlohmann::json{{"winner", 1}}, 14, d); }));
  const auto record = store->read_record("r1", 1);
  ASSERT_TRUE(record.has_value() && record->has_value());
  const auto& moves = (*record)->moves;
  ASSERT_EQ(moves.size(), 4u);
  EXPECT_EQ(moves[0].move, "old0");
  EXPECT_EQ(moves[3].move, "new3");
  EXPECT_EQ(moves[3].at_ms, 13);
  store->close();
  EXPECT_EQ(count("SELECT count(*) FROM moves WHERE room = 'r1'"), 4);
}

TEST_F(StoreTest, ThePrunedLogKeepsEveryMoveOfEveryRound) {
  // 10 rooms play one long round that never ends; 20 rooms finish a round of 300 moves and
  // play 5 moves of the next. 12,100 moves, interleaved as rooms play, are more than the log
  // keeps: pruning must drop the ended rounds' rows and copy the others before dropping them.
  constexpr int kLong = 10, kShort = 20, kLongMoves = 600, kShortMoves = 300, kNextMoves = 5;
  auto name = [](int r) { return "r" + std::to_string(r); };
  auto text = [&](int r, int round, int i) {
    return name(r) + "-" + std::to_string(round) + "-" + std::to_string(i);
  };
  {
    auto store = open();
    ASSERT_TRUE(store);
    std::mutex m;
    std::condition_variable cv;
    int pending = 0, failed = 0;
    auto done = [&] {
      std::lock_guard lock(m);
      ++pending;
      return Done([&](bool ok) {
        std::lock_guard lock(m);
        if (!ok) ++failed;
        if (--pending == 0) cv.notify_all();
      });
    };
    std::vector<int> played(kLong + kShort, 0), round(kLong + kShort, 1);
    for (int r = 0; r < kLong + kShort; ++r)
      store->create_room(
          RoomRecord{name(r), "quantik", nlohmann::json::object(), 1, false, 0, 1, ""}, done());
    for (bool more = true; more;) {
      more = false;
      for (int r = 0; r < kLong + kShort; ++r) {
        const int goal = r < kLong ? kLongMoves : (round[r] == 1 ? kShortMoves : kNextMoves);
        if (played[r] == goal) continue;
        more = true;
        const int i = played[r]++;
        const std::int64_t version = (round[r] == 1 ? 0 : kShortMoves) + i + 1;
        store->append_move(
            MoveRecord{name(r), round[r], i, i % 2, text(r, round[r], i), version, i}, done());
        if (r >= kLong && round[r] == 1 && played[r] == kShortMoves) {
          store->finish_round(name(r), 1, nlohmann::json{{"winner", 0}}, 1, done());
          store->start_round(name(r), 2, nlohmann::json::object(), 2, "", version + 1, done());
          round[r] = 2;
          played[r] = 0;
        }
      }
    }
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return pending == 0; }));
    EXPECT_EQ(failed, 0);
    lock.unlock();
    store->close();
  }
  const auto total = kLong * kLongMoves + kShort * (kShortMoves + kNextMoves);
  const auto logged = count("SELECT count(*) FROM move_log");
  EXPECT_GT(logged, 0);
  EXPECT_LT(logged, total - 2000) << "the log was pruned";
  // Every ended round is whole in `moves`; the long rounds were copied there as far as pruned.
  EXPECT_EQ(
      count("SELECT count(*) FROM moves WHERE round = 1 AND room IN (SELECT room FROM rounds WHERE "
            "finished_ms IS NOT NULL)"),
      kShort * kShortMoves);
  EXPECT_GT(count("SELECT count(*) FROM moves WHERE room = 'r0'"), 0);
  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->rooms.size(), static_cast<std::size_t>(kLong + kShort));
  for (const auto& room : loaded->rooms) {
    const int r = std::stoi(room.room.id.substr(1));
    SCOPED_TRACE(room.room.id);
    const auto expect_round = [&](const RoundRecord& got, int round, int n) {
      ASSERT_EQ(got.moves.size(), static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(got.moves[i], (std::pair<int, std::string>{i % 2, text(r, round, i)}));
    };
    if (r < kLong) {
      ASSERT_EQ(room.rounds.size(), 1u);
      EXPECT_TRUE(room.rounds[0].outcome.is_null());
      expect_round(room.rounds[0], 1, kLongMoves);
      EXPECT_EQ(room.version, kLongMoves);
    } else {
      ASSERT_EQ(room.rounds.size(), 2u);
      EXPECT_FALSE(room.rounds[0].outcome.is_null());
      expect_round(room.rounds[0], 1, kShortMoves);
      expect_round(room.rounds[1], 2, kNextMoves);
      EXPECT_EQ(room.version, kShortMoves + kNextMoves);
    }
  }
  const auto record = store->read_record(name(kLong), 1);
  ASSERT_TRUE(record.has_value() && record->has_value());
  EXPECT_EQ((*record)->moves.size(), static_cast<std::size_t>(kShortMoves));
}

TEST_F(StoreTest, AStoreKilledMidWriteKeepsEveryAcknowledgedMoveAcrossPrunes) {
  // A child process plays 30 rooms (each round ends after 40 moves and the next starts) and
  // reports each move once its write is acknowledged. Once far past the log's first prunes, it
  // is killed with SIGKILL while writing. Every acknowledged move must be where it is read.
  constexpr int kRooms = 30, kRoundMoves = 40, kAcks = 15000;
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    auto opened =
        SqliteStore::open((dir_ / "plateau.db").string(), [](std::function<void()> f) { f(); });
    if (!opened) ::_exit(2);
    auto& store = **opened;
    auto report = [fd = pipe_fds[1]](int room, int round, int idx) {
      const std::int32_t ack[3] = {room, round, idx};
      if (::write(fd, ack, sizeof ack) != sizeof ack) ::_exit(3);
    };
    std::vector<int> round(kRooms, 1), played(kRooms, 0);
    for (int r = 0; r < kRooms; ++r)
      store.create_room(RoomRecord{"r" + std::to_string(r), "quantik", nlohmann::json::object(), 1,
                                   false, 0, 1, ""},
                        [](bool) {});
    for (std::int64_t version = 1;; ++version) {  // until killed
      for (int r = 0; r < kRooms; ++r) {
        const int i = played[r]++, n = round[r];
        store.append_move(
            MoveRecord{"r" + std::to_string(r), n, i, i % 2, "m" + std::to_string(i), version, i},
            [report, r, n, i](bool ok) {
              if (ok) report(r, n, i);
            });
        if (played[r] == kRoundMoves) {
          store.finish_round("r" + std::to_string(r), n, nlohmann::json{{"winner", 0}}, 1,
                             [](bool) {});
          store.start_round("r" + std::to_string(r), n + 1, nlohmann::json::object(), 1, "",
                            version, [](bool) {});
          ++round[r];
          played[r] = 0;
        }
      }
      // Now and then, let the writer catch up, so that it is killed in a commit, not a queue.
      if (version % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ::close(pipe_fds[1]);
  std::vector<std::array<std::int32_t, 3>> acked;
  std::array<std::int32_t, 3> ack;
  while (acked.size() < kAcks && ::read(pipe_fds[0], ack.data(), sizeof ack) == sizeof ack)
    acked.push_back(ack);
  ::kill(child, SIGKILL);
  // What it acknowledged up to its death counts too.
  while (::read(pipe_fds[0], ack.data(), sizeof ack) == sizeof ack) acked.push_back(ack);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child stopped by itself: " << status;
  ASSERT_GE(acked.size(), static_cast<std::size_t>(kAcks));

  auto store = open();
  ASSERT_TRUE(store);
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  std::map<std::pair<int, int>, std::size_t> held;  // (room, round) -> moves found
  for (const auto& room : loaded->rooms) {
    const int r = std::stoi(room.room.id.substr(1));
    for (const auto& round : room.rounds)
      if (round.outcome.is_null()) held[{r, round.round}] = round.moves.size();
  }
  std::size_t checked_ended = 0;
  for (const auto& [r, n, i] : acked) {
    const auto it = held.find({r, n});
    std::size_t have = 0;
    if (it != held.end()) {
      have = it->second;
    } else {
      const auto record = store->read_record("r" + std::to_string(r), n);
      ASSERT_TRUE(record.has_value() && record->has_value()) << "r" << r << " round " << n;
      have = (*record)->moves.size();
      held[{r, n}] = have;
      ++checked_ended;
    }
    ASSERT_GT(have, static_cast<std::size_t>(i))
        << "r" << r << " round " << n << " lost acknowledged move " << i;
  }
  EXPECT_GT(checked_ended, 0u) << "some rounds ended before the kill";
}

// The server's way in: the factory makes the data folder and its database, and the store seen
// only as a Storage lists an imported game and backs it up while open.
TEST_F(StoreTest, TheFactoryOpensTheFolderAndTheArchiveListsAndBacksUpAnImport) {
  const auto folder = dir_ / "data";
  auto opened = open_sqlite_store(folder, [](std::function<void()> f) { f(); });
  ASSERT_TRUE(opened.has_value()) << opened.error();
  Storage& storage = **opened;
  EXPECT_TRUE(fs::exists(folder / "plateau.db"));
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

TEST_F(StoreTest, AccountsSessionsAndInvitesAreKeptAndADeletedAccountLeavesItsPlayerNamed) {
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

TEST_F(StoreTest, ADatabaseOfTheReleaseBeforeAccountsOpensWithEveryRoomAndPlayer) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(wait([&](Done d) { store->put_player({"ada", "hash-ada", "Ada"}, d); }));
    ASSERT_TRUE(wait([&](Done d) {
      store->create_room({"r1", "quantik", nlohmann::json::object(), 7, false, 0, 1, "s", "ada"},
                         d);
    }));
    ASSERT_TRUE(wait([&](Done d) { store->put_seat("r1", 0, "ada", 1, d); }));
    store->close();
  }
  // What schema 9 (the release before accounts) leaves.
  sql("DROP TABLE accounts; DROP TABLE sessions; DROP TABLE invites; ALTER TABLE rooms DROP "
      "COLUMN rated; DROP TABLE ratings; DROP TABLE rating_history; ALTER TABLE rooms DROP COLUMN "
      "chat; DROP TABLE chat; DROP TABLE tournaments; DROP TABLE tournament_organisers; PRAGMA "
      "user_version = 9;");
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(count("PRAGMA user_version"), SqliteStore::schema_version());
  const auto loaded = store->load();
  ASSERT_TRUE(loaded.has_value()) << loaded.error();
  ASSERT_EQ(loaded->players.size(), 1u);
  EXPECT_EQ(loaded->players[0].token_hash, "hash-ada");
  ASSERT_EQ(loaded->rooms.size(), 1u);
  EXPECT_EQ(loaded->rooms[0].seats.at(0), "ada");
  const auto accounts = store->load_accounts();
  ASSERT_TRUE(accounts.has_value()) << accounts.error();
  EXPECT_TRUE(accounts->accounts.empty());
  store->close();
}

TEST_F(StoreTest, TournamentsAndTheirOrganisersComeBackAsLastWritten) {
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

TEST_F(StoreTest, RatedGamesKeepTheirChangesOnceAndTheUnratedOnesAreFoundAtStart) {
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

TEST_F(StoreTest, ATablesChatComesBackWithItAndIsInItsRecord) {
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
  const auto loaded = store->load();
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

}  // namespace
}  // namespace plateau::server
