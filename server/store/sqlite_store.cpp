#include "server/store/sqlite_store.hpp"

#include <pthread.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <unordered_map>

namespace plateau::server {

using nlohmann::json;

namespace {

// Each entry brings the schema from version i to i+1. Never edit a shipped entry: add one.
const std::vector<const char*> kMigrations{
    R"sql(
    CREATE TABLE players(
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL);
    CREATE TABLE rooms(
      id TEXT PRIMARY KEY,
      game TEXT NOT NULL,
      options TEXT NOT NULL,
      seed INTEGER NOT NULL,
      private INTEGER NOT NULL DEFAULT 0,
      spectator_delay INTEGER NOT NULL DEFAULT 0,
      created_ms INTEGER NOT NULL,
      version INTEGER NOT NULL DEFAULT 0,
      finished INTEGER NOT NULL DEFAULT 0);  -- 0 in play, 1 its last round ended, 2 closed
    CREATE TABLE seats(
      room TEXT NOT NULL REFERENCES rooms(id),
      seat INTEGER NOT NULL,
      player TEXT,
      PRIMARY KEY(room, seat)) WITHOUT ROWID;
    CREATE TABLE rounds(
      room TEXT NOT NULL REFERENCES rooms(id),
      round INTEGER NOT NULL,
      options TEXT NOT NULL,
      seed INTEGER NOT NULL,
      outcome TEXT,
      PRIMARY KEY(room, round)) WITHOUT ROWID;
    CREATE TABLE moves(
      room TEXT NOT NULL,
      round INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      seat INTEGER NOT NULL,
      move TEXT NOT NULL,
      version INTEGER NOT NULL,
      at_ms INTEGER NOT NULL,
      PRIMARY KEY(room, round, idx)) WITHOUT ROWID;
    CREATE INDEX rooms_unfinished ON rooms(finished);
    )sql",
    // 2: history. When each round ended, and which rooms were imported from a record.
    R"sql(
    ALTER TABLE rounds ADD COLUMN finished_ms INTEGER;
    ALTER TABLE rooms ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rounds_finished ON rounds(finished_ms);
    )sql",
    // 3: the moves of rounds in play go to an append-only log (rowid order), so that a commit of
    // many rooms' moves dirties the log's last page or two rather than one page of `moves` per
    // room. A round's moves join `moves` when it ends (or when the log is pruned under it).
    R"sql(
    CREATE TABLE move_log(
      seq INTEGER PRIMARY KEY,
      room TEXT NOT NULL,
      round INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      seat INTEGER NOT NULL,
      move TEXT NOT NULL,
      version INTEGER NOT NULL,
      at_ms INTEGER NOT NULL);
    )sql",
    // 4: a finished round's rematch requests (a bit per seat), kept across a restart.
    R"sql(
    ALTER TABLE rounds ADD COLUMN rematch INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 5: the salt of each round's seed commitment (fairness.hpp); NULL for older rounds.
    R"sql(
    ALTER TABLE rounds ADD COLUMN salt TEXT;
    )sql",
};

std::int64_t to_db(std::uint64_t v) {
  std::int64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}
std::uint64_t from_db(std::int64_t v) {
  std::uint64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

}  // namespace

// The writer connection's prepared statements, kept for its life: preparing a statement costs
// more than running it, and the writer runs the same few for every move.
class StmtCache {
 public:
  explicit StmtCache(sqlite3* db) : db_(db) {}
  ~StmtCache() {
    for (auto& [sql, s] : map_) sqlite3_finalize(s);
  }
  StmtCache(const StmtCache&) = delete;
  StmtCache& operator=(const StmtCache&) = delete;
  // The statement for `sql` (a string literal: it is keyed by address), or nullptr.
  sqlite3_stmt* get(const char* sql) {
    auto& s = map_[sql];
    if (!s && sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK) {
      sqlite3_finalize(s);
      s = nullptr;
      map_.erase(sql);
      return nullptr;
    }
    return s;
  }

 private:
  sqlite3* db_;
  std::unordered_map<const char*, sqlite3_stmt*> map_;
};

namespace {

// A prepared statement: its own, finalized at the end, or borrowed from a StmtCache and reset
// for its next use.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { ok_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) == SQLITE_OK; }
  Stmt(StmtCache& cache, const char* sql) : s_(cache.get(sql)), ok_(s_ != nullptr), owned_(false) {}
  ~Stmt() {
    if (owned_) {
      sqlite3_finalize(s_);
    } else if (s_) {
      sqlite3_reset(s_);
      sqlite3_clear_bindings(s_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, std::int64_t v) {
    ok_ = ok_ && sqlite3_bind_int64(s_, i, v) == SQLITE_OK;
    return *this;
  }
  Stmt& bind(int i, const std::string& v) {
    ok_ = ok_ && sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) == SQLITE_OK;
    return *this;
  }
  Stmt& bind_null(int i) {
    ok_ = ok_ && sqlite3_bind_null(s_, i) == SQLITE_OK;
    return *this;
  }
  // Runs a statement that returns no rows.
  bool run() { return ok_ && sqlite3_step(s_) == SQLITE_DONE; }
  // The next row; false at the end, or on an error (ok() then says which).
  bool row() {
    if (!ok_) return false;
    const int rc = sqlite3_step(s_);
    ok_ = rc == SQLITE_ROW || rc == SQLITE_DONE;
    return rc == SQLITE_ROW;
  }
  std::int64_t i64(int col) { return sqlite3_column_int64(s_, col); }
  std::string text(int col) {
    const auto* p = sqlite3_column_text(s_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(s_, col)))
             : std::string();
  }
  bool is_null(int col) { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  bool ok() const { return ok_; }

 private:
  sqlite3_stmt* s_ = nullptr;
  bool ok_ = false;
  bool owned_ = true;
};

bool exec(sqlite3* db, const char* sql, std::string* err = nullptr) {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &msg);
  if (rc != SQLITE_OK && err) *err = msg ? msg : sqlite3_errstr(rc);
  sqlite3_free(msg);
  return rc == SQLITE_OK;
}

}  // namespace

int SqliteStore::schema_version() { return static_cast<int>(kMigrations.size()); }

std::expected<std::unique_ptr<SqliteStore>, std::string> SqliteStore::open(const std::string& path, Post post,
                                                                          CheckpointPolicy policy) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return std::unexpected("cannot open " + path + ": " + why);
  }
  auto fail = [&](const std::string& what) -> std::unexpected<std::string> {
    // close_v2: a statement still open on the way out is finalized first, then the handle goes.
    sqlite3_close_v2(db);
    return std::unexpected(path + ": " + what + " (the file was left as it is)");
  };
  sqlite3_busy_timeout(db, 5000);
  // Read before anything writes: a file that is not a database fails here, untouched.
  int user_version = 0;
  {
    Stmt q(db, "PRAGMA user_version");
    if (!q.row()) return fail(std::string("not a readable SQLite database: ") + sqlite3_errmsg(db));
    user_version = static_cast<int>(q.i64(0));
  }
  {
    Stmt q(db, "PRAGMA quick_check");
    if (!q.row()) return fail(std::string("integrity check failed: ") + sqlite3_errmsg(db));
    if (const auto r = q.text(0); r != "ok") return fail("integrity check failed: " + r);
  }
  if (user_version > schema_version())
    return fail("schema version " + std::to_string(user_version) + " is newer than this server's (" +
                std::to_string(schema_version()) + "); upgrade the server");
  std::string err;
  if (!exec(db, "PRAGMA journal_mode=WAL", &err) || !exec(db, "PRAGMA synchronous=FULL", &err) ||
      !exec(db, "PRAGMA foreign_keys=ON", &err))
    return fail("cannot set up the journal: " + err);
  for (int v = user_version; v < schema_version(); ++v) {
    const std::string bump = "PRAGMA user_version=" + std::to_string(v + 1);
    if (!exec(db, "BEGIN IMMEDIATE", &err) || !exec(db, kMigrations[v], &err) || !exec(db, bump.c_str(), &err)) {
      exec(db, "ROLLBACK");
      return fail("migration to schema " + std::to_string(v + 1) + " failed: " + err);
    }
    if (!exec(db, "COMMIT", &err)) return fail("migration commit failed: " + err);
  }
  sqlite3* reader = nullptr;
  if (sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(reader);
    return fail("cannot open a reader");
  }
  sqlite3_busy_timeout(reader, 5000);
  sqlite3* checkpointer = nullptr;
  if (sqlite3_open_v2(path.c_str(), &checkpointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK) {
    sqlite3_close(checkpointer);
    sqlite3_close(reader);
    return fail("cannot open a checkpoint connection");
  }
  // A connection learns that the database is in WAL mode only when it first reads it; until
  // then every checkpoint it runs is a silent no-op (and the WAL grows without bound).
  if (!exec(checkpointer, "SELECT count(*) FROM sqlite_schema", &err)) {
    sqlite3_close(checkpointer);
    sqlite3_close(reader);
    return fail("cannot read through the checkpoint connection: " + err);
  }
  return std::unique_ptr<SqliteStore>(new SqliteStore(db, reader, checkpointer, std::move(post), policy));
}

SqliteStore::SqliteStore(sqlite3* db, sqlite3* reader, sqlite3* checkpointer, Post post, CheckpointPolicy policy)
    : db_(db), reader_(reader), post_(std::move(post)), checkpointer_(checkpointer), policy_(policy) {
  // Replaces the automatic checkpoint, which would run inside the commit that crosses the
  // threshold and hold every move in that batch behind it.
  sqlite3_wal_hook(
      db_,
      [](void* self, sqlite3*, const char*, int pages) {
        auto* store = static_cast<SqliteStore*>(self);
        store->log_pages_ = pages;
        if (pages < store->pass_asked_at_) store->pass_asked_at_ = 0;  // the log started over
        if (pages - store->pass_asked_at_ >= store->policy_.pass_every && store->checkpoint_armed_) {
          store->checkpoint_armed_ = false;
          store->pass_asked_at_ = pages;
          std::lock_guard lock(store->checkpoint_mutex_);
          store->checkpoint_wanted_ = true;
          store->checkpoint_wake_.notify_one();
        }
        return SQLITE_OK;
      },
      this);
  writer_ = std::thread([this] { writer_loop(); });
  checkpoint_thread_ = std::thread([this] { checkpoint_loop(); });
}

SqliteStore::~SqliteStore() {
  close();
  sqlite3_close(reader_);
  sqlite3_close(checkpointer_);
  sqlite3_close(db_);  // the last connection: it checkpoints what is left
}

void SqliteStore::checkpoint_loop() {
  pthread_setname_np(pthread_self(), "checkpointer");  // for top -H and the load bench
  for (;;) {
    std::unique_lock lock(checkpoint_mutex_);
    checkpoint_wake_.wait(lock, [&] { return checkpoint_stop_ || checkpoint_wanted_; });
    if (checkpoint_stop_) return;
    checkpoint_wanted_ = false;
    lock.unlock();
    // PASSIVE: copies what it can without waiting for readers or the writer.
    int log = 0, copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(checkpointer_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    ++stats_.checkpoints;
    // A pass that copied only part of the log left its pages unflushed in the database file.
    // Flush them here, so that the writer's copy of the rest, before the log starts over, has
    // only its own few pages to flush.
    // SQLite's own handle of the file, and its own sync (an fdatasync on Linux).
    sqlite3_file* database = nullptr;
    if (rc == SQLITE_OK && copied > 0 && copied < log &&
        sqlite3_file_control(checkpointer_, "main", SQLITE_FCNTL_FILE_POINTER, &database) == SQLITE_OK && database &&
        database->pMethods)
      database->pMethods->xSync(database, SQLITE_SYNC_NORMAL);
    pass_end_ = rc == SQLITE_OK && log > 0 && copied == log ? PassEnd::backfilled : PassEnd::partial;
  }
}

void SqliteStore::close() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
  {
    std::lock_guard lock(checkpoint_mutex_);
    checkpoint_stop_ = true;
  }
  checkpoint_wake_.notify_all();
  if (checkpoint_thread_.joinable()) checkpoint_thread_.join();
}

std::expected<Loaded, std::string> SqliteStore::load(std::int64_t ended_since_ms) {
  Loaded out;
  {
    // `IN` a subquery that does not depend on the row: SQLite reads the seats once.
    Stmt q(db_, "SELECT id, token_hash, name, id IN (SELECT player FROM seats WHERE player IS NOT NULL) "
                "FROM players");
    while (q.row()) out.players.push_back({q.text(0), q.text(1), q.text(2), q.i64(3) != 0});
    if (!q.ok()) return std::unexpected(std::string("reading players: ") + sqlite3_errmsg(db_));
  }
  // The rooms to rebuild: those in play, and those whose last round ended since
  // `ended_since_ms` (their players may still ask for a rematch). Not closed or imported ones.
  exec(db_, "DROP TABLE IF EXISTS temp.restoring");
  if (!exec(db_, "CREATE TEMP TABLE restoring(id TEXT PRIMARY KEY) WITHOUT ROWID") ||
      !Stmt(db_, "INSERT INTO restoring SELECT id FROM rooms WHERE finished = 0 "
                 "UNION SELECT o.room FROM rounds o JOIN rooms r ON r.id = o.room "
                 "WHERE o.finished_ms >= ?1 AND r.finished = 1 AND r.imported = 0")
           .bind(1, ended_since_ms)
           .run())
    return std::unexpected(std::string("choosing the rooms to rebuild: ") + sqlite3_errmsg(db_));
  struct DropRestoring {
    sqlite3* db;
    ~DropRestoring() { exec(db, "DROP TABLE IF EXISTS temp.restoring"); }
  } drop{db_};
  std::map<std::string, std::size_t> index;
  {
    Stmt q(db_,
           "SELECT id, game, options, seed, private, spectator_delay, created_ms, version FROM rooms "
           "WHERE id IN restoring ORDER BY created_ms, id");
    while (q.row()) {
      StoredRoom r;
      r.room.id = q.text(0);
      r.room.game = q.text(1);
      r.room.options = json::parse(q.text(2), nullptr, false);
      r.room.seed = from_db(q.i64(3));
      r.room.is_private = q.i64(4) != 0;
      r.room.spectator_delay = static_cast<int>(q.i64(5));
      r.room.created_ms = q.i64(6);
      r.version = q.i64(7);
      index[r.room.id] = out.rooms.size();
      out.rooms.push_back(std::move(r));
    }
  }
  {
    Stmt q(db_, "SELECT s.room, s.seat, s.player FROM seats s JOIN restoring k ON k.id = s.room "
                "ORDER BY s.room, s.seat");
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      auto& seats = out.rooms[it->second].seats;
      const auto seat = static_cast<std::size_t>(q.i64(1));
      if (seats.size() <= seat) seats.resize(seat + 1);
      if (!q.is_null(2)) seats[seat] = q.text(2);
    }
  }
  {
    Stmt q(db_,
           "SELECT o.room, o.round, o.options, o.seed, o.outcome, o.rematch, o.salt FROM rounds o "
           "JOIN restoring k ON k.id = o.room ORDER BY o.room, o.round");
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      RoundRecord round;
      round.round = static_cast<int>(q.i64(1));
      round.options = json::parse(q.text(2), nullptr, false);
      round.seed = from_db(q.i64(3));
      round.outcome = q.is_null(4) ? json(nullptr) : json::parse(q.text(4), nullptr, false);
      round.rematch = static_cast<std::uint32_t>(q.i64(5));
      if (!q.is_null(6)) round.salt = q.text(6);
      out.rooms[it->second].rounds.push_back(std::move(round));
    }
  }
  {
    // A move is in `moves` (its round ended, or the log was pruned under it, or a server before
    // schema 3 wrote it), in the log, or in both: UNION keeps one of two identical rows. Two rows
    // for one move that differ are a gap below, and the room is quarantined.
    Stmt q(db_, "SELECT room, round, idx, seat, move, version, at_ms FROM ("
                "SELECT m.room, m.round, m.idx, m.seat, m.move, m.version, m.at_ms FROM moves m "
                "JOIN restoring k ON k.id = m.room "
                "UNION SELECT l.room, l.round, l.idx, l.seat, l.move, l.version, l.at_ms FROM move_log l "
                "JOIN restoring k ON k.id = l.room) ORDER BY room, round, idx");
    std::map<std::string, LiveRound> in_play;
    while (q.row()) {
      const auto room_id = q.text(0);
      const auto it = index.find(room_id);
      if (it == index.end()) continue;
      auto& version = out.rooms[it->second].version;
      version = std::max(version, q.i64(5));
      auto& rounds = out.rooms[it->second].rounds;
      const auto round = static_cast<std::size_t>(q.i64(1));
      if (round == 0 || round > rounds.size()) continue;
      auto& moves = rounds[round - 1].moves;
      if (static_cast<std::int64_t>(moves.size()) != q.i64(2)) {
        // A gap in the move log: leave the room's rounds short so that replay quarantines it.
        rounds[round - 1].outcome = json("gap in the move log");
        continue;
      }
      moves.emplace_back(static_cast<int>(q.i64(3)), q.text(4));
      if (round == rounds.size()) {
        auto& live = in_play[room_id];
        live.round = static_cast<int>(round);
        live.moves.push_back(MoveRecord{room_id, static_cast<int>(round), static_cast<int>(q.i64(2)),
                                        static_cast<int>(q.i64(3)), moves.back().second, q.i64(5), q.i64(6)});
      }
    }
    if (!q.ok()) return std::unexpected(std::string("reading moves: ") + sqlite3_errmsg(db_));
    for (auto& [id, live] : in_play)
      if (out.rooms[index[id]].rounds.back().outcome.is_null()) live_.emplace(id, std::move(live));
  }
  return out;
}

std::expected<std::optional<StoredRoom>, std::string> SqliteStore::load_room(const std::string& id,
                                                                            std::int64_t ended_since_ms) {
  std::lock_guard lock(reader_mutex_);
  // One read transaction: the room's rows as of one commit.
  if (!exec(reader_, "BEGIN")) return std::unexpected(std::string("reading a room: ") + sqlite3_errmsg(reader_));
  struct End {
    sqlite3* db;
    ~End() { exec(db, "COMMIT"); }
  } end{reader_};
  StoredRoom r;
  {
    // The rooms load() rebuilds: in play (or waiting), or their last round ended since then.
    Stmt q(reader_,
           "SELECT id, game, options, seed, private, spectator_delay, created_ms, version FROM rooms r "
           "WHERE id = ?1 AND imported = 0 AND (finished = 0 OR (finished = 1 AND EXISTS ("
           "SELECT 1 FROM rounds o WHERE o.room = r.id AND o.finished_ms >= ?2)))");
    q.bind(1, id).bind(2, ended_since_ms);
    if (!q.row()) {
      if (!q.ok()) return std::unexpected(std::string("reading a room: ") + sqlite3_errmsg(reader_));
      return std::optional<StoredRoom>{};
    }
    r.room.id = q.text(0);
    r.room.game = q.text(1);
    r.room.options = json::parse(q.text(2), nullptr, false);
    r.room.seed = from_db(q.i64(3));
    r.room.is_private = q.i64(4) != 0;
    r.room.spectator_delay = static_cast<int>(q.i64(5));
    r.room.created_ms = q.i64(6);
    r.version = q.i64(7);
  }
  {
    Stmt q(reader_, "SELECT seat, player FROM seats WHERE room = ?1 ORDER BY seat");
    q.bind(1, id);
    while (q.row()) {
      const auto seat = static_cast<std::size_t>(q.i64(0));
      if (r.seats.size() <= seat) r.seats.resize(seat + 1);
      if (!q.is_null(1)) r.seats[seat] = q.text(1);
    }
    if (!q.ok()) return std::unexpected(std::string("reading a room's seats: ") + sqlite3_errmsg(reader_));
  }
  {
    Stmt q(reader_, "SELECT round, options, seed, outcome, rematch FROM rounds WHERE room = ?1 ORDER BY round");
    q.bind(1, id);
    while (q.row()) {
      RoundRecord round;
      round.round = static_cast<int>(q.i64(0));
      round.options = json::parse(q.text(1), nullptr, false);
      round.seed = from_db(q.i64(2));
      round.outcome = q.is_null(3) ? json(nullptr) : json::parse(q.text(3), nullptr, false);
      round.rematch = static_cast<std::uint32_t>(q.i64(4));
      r.rounds.push_back(std::move(round));
    }
    if (!q.ok()) return std::unexpected(std::string("reading a room's rounds: ") + sqlite3_errmsg(reader_));
  }
  // As in load(): a move is in `moves`, in the log, or in both. The log has no index by room,
  // but pruning keeps it to its last few thousand rows.
  LiveRound live;
  {
    Stmt q(reader_, "SELECT round, idx, seat, move, version, at_ms FROM ("
                    "SELECT round, idx, seat, move, version, at_ms FROM moves WHERE room = ?1 "
                    "UNION SELECT round, idx, seat, move, version, at_ms FROM move_log WHERE room = ?1) "
                    "ORDER BY round, idx");
    q.bind(1, id);
    while (q.row()) {
      r.version = std::max(r.version, q.i64(4));
      const auto round = static_cast<std::size_t>(q.i64(0));
      if (round == 0 || round > r.rounds.size()) continue;
      auto& moves = r.rounds[round - 1].moves;
      if (static_cast<std::int64_t>(moves.size()) != q.i64(1)) {
        r.rounds[round - 1].outcome = json("gap in the move log");  // replay quarantines it
        continue;
      }
      moves.emplace_back(static_cast<int>(q.i64(2)), q.text(3));
      if (round == r.rounds.size())
        live.moves.push_back(MoveRecord{id, static_cast<int>(round), static_cast<int>(q.i64(1)),
                                        static_cast<int>(q.i64(2)), moves.back().second, q.i64(4), q.i64(5)});
    }
    if (!q.ok()) return std::unexpected(std::string("reading a room's moves: ") + sqlite3_errmsg(reader_));
  }
  // The round in play goes on from its moves, as after load().
  live_.erase(id);
  if (!r.rounds.empty() && r.rounds.back().outcome.is_null() && !live.moves.empty()) {
    live.round = static_cast<int>(r.rounds.size());
    live_.emplace(id, std::move(live));
  }
  return std::optional<StoredRoom>(std::move(r));
}

void SqliteStore::unload_room(const std::string& id) { live_.erase(id); }

void SqliteStore::forget_players(const std::vector<std::string>& ids, Done done) {
  enqueue(
      [ids = json(ids).dump()](StmtCache& db) {
        return Stmt(db, "DELETE FROM players WHERE id IN (SELECT value FROM json_each(?1)) "
                        "AND id NOT IN (SELECT player FROM seats WHERE player IS NOT NULL)")
            .bind(1, ids)
            .run();
      },
      std::move(done));
}

void SqliteStore::enqueue(std::function<bool(StmtCache&)> run, Done done, Atomicity atomicity) {
  bool closed = false, post_handoff = false;
  {
    std::lock_guard lock(mutex_);
    closed = stopping_;
    if (!closed) {
      queue_.push_back({std::move(run), std::move(done), atomicity, queue_timer_.start()});
      post_handoff = !handoff_posted_;
      handoff_posted_ = true;
    }
  }
  if (closed) post_([done = std::move(done)] { done(false); });  // closed: nothing more is written
  if (!post_handoff) return;
  // Wake the writer once the rooms' thread has handled everything its last poll brought in, so
  // that every write of that pass goes into one commit rather than the first one alone.
  post_([this] {
    std::lock_guard lock(mutex_);
    handoff_posted_ = false;
    released_ = true;
    if (!queue_.empty()) wake_.notify_one();
  });
}

void SqliteStore::writer_loop() {
  pthread_setname_np(pthread_self(), "store-writer");
  StmtCache cache(db_);  // finalized before close() returns, so before the handle is closed
  auto run = [&cache](const char* sql) { return Stmt(cache, sql).run(); };
  const SpanTimer commit_timer(stats_.commit);
  for (;;) {
    std::deque<Write> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (released_ && !queue_.empty()); });
      if (queue_.empty()) return;  // stopping, and everything is written
      batch.swap(queue_);
      released_ = false;
    }
    const auto started = commit_timer.start();
    for (const auto& w : batch) queue_timer_.record(w.queued_at, started);
    // SQLite starts the WAL over from its beginning only when a write transaction begins on a
    // log that is wholly copied into the database. The checkpoint thread copied all but the few
    // frames committed while it ran: once the log is past `restart_at`, copy those here (a few
    // pages), so that this transaction restarts the log instead of growing it. Without this the
    // WAL file grows without bound. Once a pass has ended, whether or not it copied all it saw
    // (a reader's snapshot can hold it back), the next commit may ask for another.
    if (const PassEnd end = pass_end_.exchange(PassEnd::none); end != PassEnd::none) {
      if (end == PassEnd::backfilled && log_pages_ >= policy_.restart_at) {
        int log = 0, copied = 0;
        if (sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) == SQLITE_OK &&
            copied == log)
          ++stats_.restarts;
      }
      checkpoint_armed_ = true;
    }
    std::vector<char> oks(batch.size(), 0);
    bool committed = false;
    // Nothing thrown here may end the thread (and the process with it): a write that throws
    // fails, like one whose statement fails, and the writer goes on with the next batch.
    try {
      committed = run("BEGIN IMMEDIATE");
      for (std::size_t i = 0; i < batch.size(); ++i) {
        auto& w = batch[i];
        // Each write is all or nothing inside the shared transaction. A failing statement undoes
        // only itself, so a write of one statement needs no savepoint of its own. An error that
        // ends the whole transaction (a full disk) fails this write and every one after it.
        committed = committed && !sqlite3_get_autocommit(db_);
        bool ok = committed;
        if (ok && w.atomicity == Atomicity::single_statement) {
          try {
            ok = w.run(cache);
          } catch (...) {
            // Its statement may have run before the throw, with no savepoint to undo it alone:
            // the whole transaction goes, and every write in it fails.
            committed = false;
            throw;
          }
        } else if (ok && run("SAVEPOINT w")) {
          try {
            ok = w.run(cache);
          } catch (const std::exception& e) {
            note_exception(e.what());
            ok = false;
          } catch (...) {
            note_exception("unknown exception");
            ok = false;
          }
          if (!ok) run("ROLLBACK TO w");
          run("RELEASE w");
        }
        oks[i] = ok;
      }
      // Pruning shares the batch's transaction: the copy and the delete are durable together.
      if (committed && logged_since_prune_ >= kPruneEvery) {
        committed = !sqlite3_get_autocommit(db_) && run("SAVEPOINT p");
        if (committed && prune_log(cache)) logged_since_prune_ = 0;
        else if (committed) run("ROLLBACK TO p");
        committed = committed && run("RELEASE p");
      }
      committed = committed && run("COMMIT");
    } catch (const std::exception& e) {
      note_exception(e.what());
      committed = false;
    } catch (...) {
      note_exception("unknown exception");
      committed = false;
    }
    if (!committed) {
      exec(db_, "ROLLBACK");
      std::ranges::fill(oks, 0);
    }
    // Writable or not, as the last transaction found it: /healthz says so.
    available_ = committed;
    std::vector<std::pair<Done, bool>> results;
    results.reserve(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) results.emplace_back(std::move(batch[i].done), oks[i] != 0);
    const auto ended = commit_timer.start();
    commit_timer.record(started, ended);
    stats_.writes += results.size();
    post_([results = std::move(results), ended, this]() mutable {
      return_timer_.finish(ended);
      // One callback that throws must not keep the others from learning how their write went.
      for (auto& [done, ok] : results) {
        if (!done) continue;
        try {
          done(ok);
        } catch (const std::exception& e) {
          note_exception(e.what());
        } catch (...) {
          note_exception("unknown exception");
        }
      }
    });
  }
}

void SqliteStore::note_exception(const char* what) {
  std::lock_guard lock(exception_mutex_);
  ++exceptions_;
  last_exception_ = what;
}

std::pair<std::uint64_t, std::string> SqliteStore::exceptions() const {
  std::lock_guard lock(exception_mutex_);
  return {exceptions_, last_exception_};
}

void SqliteStore::put_player(const StoredPlayer& p, Done done) {
  enqueue(
      [p](StmtCache& db) {
        return Stmt(db, "INSERT INTO players(id, token_hash, name) VALUES(?1, ?2, ?3) "
                        "ON CONFLICT(id) DO UPDATE SET name = excluded.name")
            .bind(1, p.id)
            .bind(2, p.token_hash)
            .bind(3, p.name)
            .run();
      },
      std::move(done));
}

void SqliteStore::create_room(const RoomRecord& r, Done done) {
  enqueue(
      [r](StmtCache& db) {
        return Stmt(db, "INSERT INTO rooms(id, game, options, seed, private, spectator_delay, created_ms) "
                        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                   .bind(1, r.id)
                   .bind(2, r.game)
                   .bind(3, r.options.dump())
                   .bind(4, to_db(r.seed))
                   .bind(5, r.is_private ? 1 : 0)
                   .bind(6, r.spectator_delay)
                   .bind(7, r.created_ms)
                   .run() &&
               Stmt(db, "INSERT INTO rounds(room, round, options, seed, salt) VALUES(?1, 1, ?2, ?3, ?4)")
                   .bind(1, r.id)
                   .bind(2, r.options.dump())
                   .bind(3, to_db(r.seed))
                   .bind(4, r.salt)
                   .run();
      },
      std::move(done));
}

namespace {
bool set_version(StmtCache& db, const std::string& room, std::int64_t version) {
  return Stmt(db, "UPDATE rooms SET version = ?2 WHERE id = ?1").bind(1, room).bind(2, version).run();
}
}  // namespace

void SqliteStore::put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                           std::int64_t version, Done done) {
  enqueue(
      [room, seat, player, version](StmtCache& db) {
        Stmt s(db, "INSERT INTO seats(room, seat, player) VALUES(?1, ?2, ?3) "
                   "ON CONFLICT(room, seat) DO UPDATE SET player = excluded.player");
        s.bind(1, room).bind(2, seat);
        if (player) s.bind(3, *player);
        else s.bind_null(3);
        return s.run() && set_version(db, room, version);
      },
      std::move(done));
}

namespace {
// `sql` takes a move's seven columns, in the order of the moves table.
bool insert_move(StmtCache& db, const char* sql, const MoveRecord& m) {
  return Stmt(db, sql)
      .bind(1, m.room)
      .bind(2, m.round)
      .bind(3, m.index)
      .bind(4, m.seat)
      .bind(5, m.move)
      .bind(6, m.version)
      .bind(7, m.at_ms)
      .run();
}
}  // namespace

// A move is one INSERT at the end of the log: whatever rooms moved, a commit dirties the log's
// last page or two. Its version lives in its own row: load() takes the greater of it and
// rooms.version, so no other row changes.
void SqliteStore::append_move(const MoveRecord& m, Done done) {
  auto& live = live_[m.room];
  if (live.round != m.round) live = LiveRound{m.round, {}};
  if (m.index != static_cast<int>(live.moves.size())) {
    // Not the round's next place: the log itself has no key to refuse it. A write that fails
    // in its turn keeps the callbacks in order.
    enqueue([](StmtCache&) { return false; }, std::move(done), Atomicity::single_statement);
    return;
  }
  live.moves.push_back(m);
  enqueue(
      [this, m](StmtCache& db) {
        if (!insert_move(db, "INSERT INTO move_log(room, round, idx, seat, move, version, at_ms) "
                             "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                         m))
          return false;
        log_head_ = sqlite3_last_insert_rowid(db_);
        ++logged_since_prune_;
        return true;
      },
      std::move(done), Atomicity::single_statement);
}

void SqliteStore::start_round(const std::string& room, int round, const json& options, std::uint64_t seed,
                              const std::string& salt, std::int64_t version, Done done) {
  enqueue(
      [room, round, options, seed, salt, version](StmtCache& db) {
        return Stmt(db, "INSERT INTO rounds(room, round, options, seed, salt) VALUES(?1, ?2, ?3, ?4, ?5)")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, options.dump())
                   .bind(4, to_db(seed))
                   .bind(5, salt)
                   .run() &&
               Stmt(db, "UPDATE rooms SET finished = 0 WHERE id = ?1").bind(1, room).run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

// The round's moves go into `moves` with its outcome, in one transaction: they are adjacent
// rows there, so a finished game costs a page or two however many moves it had.
void SqliteStore::finish_round(const std::string& room, int round, const json& outcome, std::int64_t at_ms,
                               Done done) {
  std::vector<MoveRecord> moves;
  if (const auto it = live_.find(room); it != live_.end()) {
    if (it->second.round == round) moves = std::move(it->second.moves);
    live_.erase(it);
  }
  enqueue(
      [room, round, outcome, at_ms, moves = std::move(moves)](StmtCache& db) {
        bool ok = Stmt(db, "UPDATE rounds SET outcome = ?3, finished_ms = ?4 WHERE room = ?1 AND round = ?2")
                      .bind(1, room)
                      .bind(2, round)
                      .bind(3, outcome.dump())
                      .bind(4, at_ms)
                      .run() &&
                  Stmt(db, "UPDATE rooms SET finished = 1 WHERE id = ?1").bind(1, room).run();
        // OR IGNORE: pruning the log under this round may have copied some of them already.
        for (const auto& m : moves)
          ok = ok && insert_move(db, "INSERT OR IGNORE INTO moves(room, round, idx, seat, move, version, at_ms) "
                                     "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                 m);
        return ok;
      },
      std::move(done));
}

void SqliteStore::put_table(const std::string& room, int round, std::uint32_t rematch, std::int64_t version,
                            Done done) {
  enqueue(
      [room, round, rematch, version](StmtCache& db) {
        return Stmt(db, "UPDATE rounds SET rematch = ?3 WHERE room = ?1 AND round = ?2")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, static_cast<std::int64_t>(rematch))
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

// The round in play stays in the log; pruning copies it into `moves`.
void SqliteStore::close_room(const std::string& room, Done done) {
  live_.erase(room);
  enqueue([room](StmtCache& db) { return Stmt(db, "UPDATE rooms SET finished = 2 WHERE id = ?1").bind(1, room).run(); },
          std::move(done));
}

bool SqliteStore::prune_log(StmtCache& cache) {
  // Rows of ended rounds are in `moves` already. Rows of rounds that never ended (in play for
  // long, abandoned, closed or quarantined) are copied there first, in room order.
  const std::int64_t below = log_head_ - kLogKept;
  return Stmt(cache, "INSERT OR IGNORE INTO moves(room, round, idx, seat, move, version, at_ms) "
                     "SELECT l.room, l.round, l.idx, l.seat, l.move, l.version, l.at_ms FROM move_log l "
                     "WHERE l.seq < ?1 AND NOT EXISTS (SELECT 1 FROM rounds o WHERE o.room = l.room "
                     "AND o.round = l.round AND o.finished_ms IS NOT NULL) ORDER BY l.room, l.round, l.idx")
             .bind(1, below)
             .run() &&
         Stmt(cache, "DELETE FROM move_log WHERE seq < ?1").bind(1, below).run();
}

bool SqliteStore::room_exists(const std::string& room) {
  std::lock_guard lock(reader_mutex_);
  Stmt q(reader_, "SELECT 1 FROM rooms WHERE id = ?1");
  q.bind(1, room);
  // A read that fails says nothing; the caller's id has 96 random bits anyway.
  return q.row();
}

std::expected<std::optional<GameRecord>, std::string> SqliteStore::read_record(const std::string& room, int round) {
  std::lock_guard lock(reader_mutex_);
  GameRecord r;
  r.room = room;
  r.round = round;
  {
    Stmt q(reader_, "SELECT r.game, o.options, o.seed, o.outcome, o.finished_ms, o.salt FROM rooms r "
                    "JOIN rounds o ON o.room = r.id WHERE r.id = ?1 AND o.round = ?2");
    q.bind(1, room).bind(2, round);
    if (!q.row()) {
      if (!q.ok()) return std::unexpected(std::string(sqlite3_errmsg(reader_)));
      return std::optional<GameRecord>{};
    }
    r.game = q.text(0);
    r.options = json::parse(q.text(1), nullptr, false);
    r.seed = from_db(q.i64(2));
    r.result = q.is_null(3) ? json(nullptr) : json::parse(q.text(3), nullptr, false);
    r.finished_ms = q.is_null(4) ? 0 : q.i64(4);
    if (!q.is_null(5)) r.salt = q.text(5);
  }
  {
    Stmt q(reader_, "SELECT s.seat, COALESCE(p.name, '') FROM seats s LEFT JOIN players p ON p.id = s.player "
                    "WHERE s.room = ?1 ORDER BY s.seat");
    q.bind(1, room);
    while (q.row()) {
      const auto seat = static_cast<std::size_t>(q.i64(0));
      if (r.players.size() <= seat) r.players.resize(seat + 1);
      r.players[seat] = q.text(1);
    }
  }
  {
    Stmt q(reader_, "SELECT seat, move, at_ms FROM moves WHERE room = ?1 AND round = ?2 ORDER BY idx");
    q.bind(1, room).bind(2, round);
    while (q.row()) r.moves.push_back({static_cast<int>(q.i64(0)), q.text(1), q.i64(2)});
  }
  if (const auto n = r.options.value("players", 0); n > 0 && r.players.size() < static_cast<std::size_t>(n))
    r.players.resize(static_cast<std::size_t>(n));
  return std::optional<GameRecord>(std::move(r));
}

json SqliteStore::finished_games(int limit) {
  std::lock_guard lock(reader_mutex_);
  json out = json::array();
  Stmt q(reader_, "SELECT r.id, o.round, r.game, o.outcome, o.finished_ms, r.imported, "
                  "(SELECT group_concat(COALESCE(p.name, ''), char(31)) FROM "
                  "  (SELECT p.name AS name FROM seats s LEFT JOIN players p ON p.id = s.player "
                  "   WHERE s.room = r.id ORDER BY s.seat) p) "
                  "FROM rounds o JOIN rooms r ON r.id = o.room "
                  "WHERE o.finished_ms IS NOT NULL AND r.private = 0 ORDER BY o.finished_ms DESC LIMIT ?1");
  q.bind(1, limit);
  while (q.row()) {
    json players = json::array();
    std::string names = q.text(6);
    std::size_t start = 0;
    while (!names.empty()) {
      const auto sep = names.find(char(31), start);
      players.push_back(names.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
      if (sep == std::string::npos) break;
      start = sep + 1;
    }
    out.push_back({{"room", q.text(0)},
                   {"round", q.i64(1)},
                   {"game", q.text(2)},
                   {"result", json::parse(q.text(3), nullptr, false)},
                   {"finished", q.i64(4)},
                   {"imported", q.i64(5) != 0},
                   {"players", players}});
  }
  return out;
}

void SqliteStore::import_record(const GameRecord& r, Done done) {
  enqueue(
      [r](StmtCache& db) {
        bool ok = Stmt(db, "INSERT INTO rooms(id, game, options, seed, private, spectator_delay, created_ms, finished, "
                           "imported) VALUES(?1, ?2, ?3, ?4, 0, 0, ?5, 1, 1)")
                      .bind(1, r.room)
                      .bind(2, r.game)
                      .bind(3, r.options.dump())
                      .bind(4, to_db(r.seed))
                      .bind(5, r.finished_ms)
                      .run() &&
                  Stmt(db, "INSERT INTO rounds(room, round, options, seed, outcome, finished_ms, salt) "
                           "VALUES(?1, 1, ?2, ?3, ?4, ?5, ?6)")
                      .bind(1, r.room)
                      .bind(2, r.options.dump())
                      .bind(3, to_db(r.seed))
                      .bind(4, r.result.dump())
                      .bind(5, r.finished_ms)
                      .bind(6, r.salt)
                      .run();
        for (std::size_t s = 0; ok && s < r.players.size(); ++s) {
          // Imported players are names only: a player row with an unguessable, unusable token.
          const std::string pid = "import:" + r.room + ":" + std::to_string(s);
          ok = Stmt(db, "INSERT INTO players(id, token_hash, name) VALUES(?1, ?2, ?3)")
                   .bind(1, pid)
                   .bind(2, "none:" + pid)
                   .bind(3, r.players[s])
                   .run() &&
               Stmt(db, "INSERT INTO seats(room, seat, player) VALUES(?1, ?2, ?3)")
                   .bind(1, r.room)
                   .bind(2, static_cast<std::int64_t>(s))
                   .bind(3, pid)
                   .run();
        }
        for (std::size_t i = 0; ok && i < r.moves.size(); ++i)
          ok = Stmt(db, "INSERT INTO moves(room, round, idx, seat, move, version, at_ms) VALUES(?1, 1, ?2, ?3, ?4, ?5, ?6)")
                   .bind(1, r.room)
                   .bind(2, static_cast<std::int64_t>(i))
                   .bind(3, r.moves[i].seat)
                   .bind(4, r.moves[i].move)
                   .bind(5, static_cast<std::int64_t>(i + 1))
                   .bind(6, r.moves[i].at_ms)
                   .run();
        return ok;
      },
      std::move(done));
}

std::expected<void, std::string> SqliteStore::backup_to(const std::string& path) {
  sqlite3* dest = nullptr;
  if (sqlite3_open(path.c_str(), &dest) != SQLITE_OK) {
    sqlite3_close(dest);
    return std::unexpected("cannot open " + path);
  }
  sqlite3_backup* b = sqlite3_backup_init(dest, "main", db_, "main");
  if (!b) {
    std::string why = sqlite3_errmsg(dest);
    sqlite3_close(dest);
    return std::unexpected(why);
  }
  const int rc = sqlite3_backup_step(b, -1);
  sqlite3_backup_finish(b);
  sqlite3_close(dest);
  if (rc != SQLITE_DONE) return std::unexpected(std::string("backup failed: ") + sqlite3_errstr(rc));
  return {};
}

}  // namespace plateau::server
