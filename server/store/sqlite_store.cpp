// The SQLite store's life (opening its three connections, closing them in order) and the
// Store's writes, each a function the writer thread runs inside its group commit.
#include "server/store/sqlite_store.hpp"

#include <sqlite3.h>

#include "server/store/sqlite_schema.hpp"
#include "server/store/sqlite_stmt.hpp"

namespace plateau::server {

using nlohmann::json;
using sqlite::exec;
using sqlite::Stmt;
using sqlite::StmtCache;
using sqlite::to_db;

int SqliteStore::schema_version() { return sqlite::schema_version(); }

std::expected<std::unique_ptr<SqliteStore>, std::string> SqliteStore::open(
    const std::string& path, Post post, CheckpointPolicy policy) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
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
  if (auto prepared = sqlite::prepare_schema(db); !prepared) return fail(prepared.error());
  std::string err;
  sqlite3* reader = nullptr;
  if (sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    sqlite3_close(reader);
    return fail("cannot open a reader");
  }
  sqlite3_busy_timeout(reader, 5000);
  sqlite3* checkpointer = nullptr;
  if (sqlite3_open_v2(path.c_str(), &checkpointer, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
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
  return std::unique_ptr<SqliteStore>(
      new SqliteStore(db, reader, checkpointer, std::move(post), policy));
}

SqliteStore::SqliteStore(sqlite3* db, sqlite3* reader, sqlite3* checkpointer, Post post,
                         CheckpointPolicy policy)
    : db_(db),
      reader_(reader),
      writes_(std::move(post), stats_),
      checkpoint_db_(checkpointer),
      checkpointer_(checkpointer, policy, stats_) {
  checkpointer_.start(db_);  // its WAL hook is in place before the writer's first commit
  writer_ = std::thread([this] { writer_loop(); });
}

SqliteStore::~SqliteStore() {
  close();
  sqlite3_close(reader_);
  sqlite3_close(checkpoint_db_);
  sqlite3_close(db_);  // the last connection: it checkpoints what is left
}

void SqliteStore::close() {
  if (!writes_.stop()) return;
  if (writer_.joinable()) writer_.join();
  checkpointer_.stop();
}

void SqliteStore::put_player(const StoredPlayer& p, Done done) {
  enqueue(
      [p](StmtCache& db) {
        return Stmt(db,
                    "INSERT INTO players(id, token_hash, name) VALUES(?1, ?2, ?3) "
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
        return Stmt(db,
                    "INSERT INTO rooms(id, game, options, seed, private, spectator_delay, "
                    "created_ms, creator, clock, rated, chat) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                    "NULLIF(?8, ''), NULLIF(?9, 'null'), ?10, ?11)")
                   .bind(1, r.id)
                   .bind(2, r.game)
                   .bind(3, r.options.dump())
                   .bind(4, to_db(r.seed))
                   .bind(5, r.is_private ? 1 : 0)
                   .bind(6, r.spectator_delay)
                   .bind(7, r.created_ms)
                   .bind(8, r.creator)
                   .bind(9, r.clock.dump())
                   .bind(10, std::int64_t{r.rated ? 1 : 0})
                   .bind(11, std::int64_t{r.chat ? 1 : 0})
                   .run() &&
               Stmt(
                   db,
                   "INSERT INTO rounds(room, round, options, seed, salt) VALUES(?1, 1, ?2, ?3, ?4)")
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
  return Stmt(db, "UPDATE rooms SET version = ?2 WHERE id = ?1")
      .bind(1, room)
      .bind(2, version)
      .run();
}
}  // namespace

void SqliteStore::put_seat(const std::string& room, int seat,
                           const std::optional<std::string>& player, std::int64_t version,
                           Done done) {
  enqueue(
      [room, seat, player, version](StmtCache& db) {
        Stmt s(db,
               "INSERT INTO seats(room, seat, player) VALUES(?1, ?2, ?3) "
               "ON CONFLICT(room, seat) DO UPDATE SET player = excluded.player");
        s.bind(1, room).bind(2, seat);
        if (player)
          s.bind(3, *player);
        else
          s.bind_null(3);
        return s.run() && set_version(db, room, version);
      },
      std::move(done));
}

namespace {
// `sql` takes a move's eight columns, in the order of the moves table.
bool insert_move(StmtCache& db, const char* sql, const MoveRecord& m) {
  Stmt q(db, sql);
  q.bind(1, m.room)
      .bind(2, m.round)
      .bind(3, m.index)
      .bind(4, m.seat)
      .bind(5, m.move)
      .bind(6, m.version)
      .bind(7, m.at_ms);
  if (m.clock_ms)
    q.bind(8, *m.clock_ms);
  else
    q.bind_null(8);
  return q.run();
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
        if (!insert_move(db,
                         "INSERT INTO move_log(room, round, idx, seat, move, version, at_ms, "
                         "clock_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                         m))
          return false;
        log_head_ = sqlite3_last_insert_rowid(db_);
        ++logged_since_prune_;
        return true;
      },
      std::move(done), Atomicity::single_statement);
}

void SqliteStore::start_round(const std::string& room, int round, const json& options,
                              std::uint64_t seed, const std::string& salt, std::int64_t version,
                              Done done) {
  enqueue(
      [room, round, options, seed, salt, version](StmtCache& db) {
        return Stmt(db,
                    "INSERT INTO rounds(room, round, options, seed, salt) VALUES(?1, ?2, ?3, ?4, "
                    "?5)")
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
void SqliteStore::finish_round(const std::string& room, int round, const json& outcome,
                               std::int64_t at_ms, Done done) {
  std::vector<MoveRecord> moves;
  if (const auto it = live_.find(room); it != live_.end()) {
    if (it->second.round == round) moves = std::move(it->second.moves);
    live_.erase(it);
  }
  enqueue(
      [room, round, outcome, at_ms, moves = std::move(moves)](StmtCache& db) {
        bool ok =
            Stmt(db,
                 "UPDATE rounds SET outcome = ?3, finished_ms = ?4 WHERE room = ?1 AND round = ?2")
                .bind(1, room)
                .bind(2, round)
                .bind(3, outcome.dump())
                .bind(4, at_ms)
                .run() &&
            Stmt(db, "UPDATE rooms SET finished = 1 WHERE id = ?1").bind(1, room).run();
        // OR IGNORE: pruning the log under this round may have copied some of them already.
        for (const auto& m : moves)
          ok =
              ok && insert_move(
                        db,
                        "INSERT OR IGNORE INTO moves(room, round, idx, seat, move, version, at_ms, "
                        "clock_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        m);
        return ok;
      },
      std::move(done));
}

void SqliteStore::put_table(const std::string& room, int round, std::uint32_t rematch,
                            const nlohmann::json& offer, const nlohmann::json& departed,
                            std::int64_t version, Done done) {
  const auto text = [](const nlohmann::json& j) {
    return j.is_null() || (j.is_array() && j.empty()) ? std::string() : j.dump();
  };
  enqueue(
      [room, round, rematch, offer = text(offer), departed = text(departed),
       version](StmtCache& db) {
        Stmt q(db,
               "UPDATE rounds SET rematch = ?3, offer = ?4, departed = ?5 WHERE room = ?1 AND "
               "round = ?2");
        q.bind(1, room).bind(2, round).bind(3, static_cast<std::int64_t>(rematch));
        const auto bind_text = [&q](int i, const std::string& v) {
          if (v.empty())
            q.bind_null(i);
          else
            q.bind(i, v);
        };
        bind_text(4, offer);
        bind_text(5, departed);
        return q.run() && set_version(db, room, version);
      },
      std::move(done));
}

// The moves taken back go from the log and from `moves` (pruning may have copied them there), in
// one transaction with the room's version: a restart sees them all gone or all there.
void SqliteStore::take_back(const std::string& room, int round, int keep, std::int64_t version,
                            Done done) {
  if (const auto it = live_.find(room); it != live_.end() && it->second.round == round &&
                                        it->second.moves.size() > static_cast<std::size_t>(keep))
    it->second.moves.resize(static_cast<std::size_t>(keep));
  enqueue(
      [room, round, keep, version](StmtCache& db) {
        const auto drop = [&](const char* sql) {
          return Stmt(db, sql).bind(1, room).bind(2, round).bind(3, keep).run();
        };
        return drop("DELETE FROM move_log WHERE room = ?1 AND round = ?2 AND idx >= ?3") &&
               drop("DELETE FROM moves WHERE room = ?1 AND round = ?2 AND idx >= ?3") &&
               Stmt(db, "UPDATE rounds SET offer = NULL WHERE room = ?1 AND round = ?2")
                   .bind(1, room)
                   .bind(2, round)
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

// The round in play stays in the log; pruning copies it into `moves`.
void SqliteStore::close_room(const std::string& room, Done done) {
  live_.erase(room);
  enqueue(
      [room](StmtCache& db) {
        return Stmt(db, "UPDATE rooms SET finished = 2 WHERE id = ?1").bind(1, room).run();
      },
      std::move(done));
}

bool SqliteStore::prune_log(StmtCache& cache) {
  // Rows of ended rounds are in `moves` already. Rows of rounds that never ended (in play for
  // long, abandoned, closed or quarantined) are copied there first, in room order.
  const std::int64_t below = log_head_ - kLogKept;
  return Stmt(
             cache,
             "INSERT OR IGNORE INTO moves(room, round, idx, seat, move, version, at_ms, clock_ms) "
             "SELECT l.room, l.round, l.idx, l.seat, l.move, l.version, l.at_ms, l.clock_ms "
             "FROM move_log l "
             "WHERE l.seq < ?1 AND NOT EXISTS (SELECT 1 FROM rounds o WHERE o.room = l.room "
             "AND o.round = l.round AND o.finished_ms IS NOT NULL) ORDER BY l.room, l.round, l.idx")
             .bind(1, below)
             .run() &&
         Stmt(cache, "DELETE FROM move_log WHERE seq < ?1").bind(1, below).run();
}

void SqliteStore::append_chat(const ChatRecord& m, Done done) {
  enqueue(
      [m](StmtCache& db) {
        return Stmt(db,
                    "INSERT INTO chat(room, seq, round, at_move, spectators, player, name, text, "
                    "phrase, at_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
                   .bind(1, m.room)
                   .bind(2, std::int64_t{m.seq})
                   .bind(3, std::int64_t{m.round})
                   .bind(4, std::int64_t{m.at_move})
                   .bind(5, std::int64_t{m.spectators ? 1 : 0})
                   .bind(6, m.player)
                   .bind(7, m.name)
                   .bind(8, m.text)
                   .bind(9, m.phrase)
                   .bind(10, m.at_ms)
                   .run() &&
               set_version(db, m.room, m.version);
      },
      std::move(done));
}

void SqliteStore::delete_chat(const std::string& room, int seq, std::int64_t version, Done done) {
  enqueue(
      [room, seq, version](StmtCache& db) {
        return Stmt(db,
                    "UPDATE chat SET deleted = 1, text = '', phrase = '' WHERE room = ?1 AND "
                    "seq = ?2")
                   .bind(1, room)
                   .bind(2, std::int64_t{seq})
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

void SqliteStore::forget_players(const std::vector<std::string>& ids, Done done) {
  enqueue(
      [ids = json(ids).dump()](StmtCache& db) {
        return Stmt(db,
                    "DELETE FROM players WHERE id IN (SELECT value FROM json_each(?1)) "
                    "AND id NOT IN (SELECT player FROM seats WHERE player IS NOT NULL) "
                    "AND id NOT IN (SELECT player FROM accounts)")
            .bind(1, ids)
            .run();
      },
      std::move(done));
}

}  // namespace plateau::server
