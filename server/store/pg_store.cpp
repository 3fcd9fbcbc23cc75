// The PostgreSQL store's life (its two connections, the writer thread), the writer's group
// commit, and the Store's writes, each a function the writer runs inside a batch's transaction.
#include "server/store/pg_store.hpp"

#include <pthread.h>

#include <algorithm>

#include "server/store/pg_schema.hpp"
#include "server/store/store_rows.hpp"

namespace plateau::server {

using nlohmann::json;
using pg::Conn;
using pg::Stmt;
using rows::to_db;

int PgStore::schema_version() { return pg::schema_version(); }

namespace {
// The writer's session: every COMMIT waits for its WAL to be flushed (whatever the server's
// default), and a statement stuck behind a lock fails after a while rather than never. The
// reader's: a start reads every room in play at once, so it may take longer.
constexpr const char* kWriterSession =
    "SET synchronous_commit = on; SET statement_timeout = '30s'; SET lock_timeout = '10s'";
constexpr const char* kReaderSession = "SET statement_timeout = '600s'";
}  // namespace

std::expected<std::unique_ptr<PgStore>, std::string> PgStore::open(const std::string& conninfo,
                                                                   Post post, int up_to) {
  const auto where = pg::redacted(conninfo);
  auto writer = Conn::open(conninfo, kWriterSession);
  if (!writer) return std::unexpected("cannot connect to " + where + ": " + writer.error());
  if (auto prepared = pg::prepare_schema(*writer, up_to); !prepared)
    return std::unexpected(where + ": " + prepared.error());
  auto reader = Conn::open(conninfo, kReaderSession);
  if (!reader) return std::unexpected("cannot connect to " + where + ": " + reader.error());
  return std::unique_ptr<PgStore>(
      new PgStore(std::move(*writer), std::move(*reader), std::move(post), conninfo));
}

PgStore::PgStore(Conn writer, Conn reader, Post post, std::string conninfo)
    : writer_db_(std::move(writer)),
      reader_(std::move(reader)),
      writes_(std::move(post), stats_),
      conninfo_(std::move(conninfo)) {
  writer_ = std::thread([this] { writer_loop(); });
}

PgStore::~PgStore() { close(); }

void PgStore::close() {
  if (!writes_.stop()) return;
  if (writer_.joinable()) writer_.join();
}

void PgStore::enqueue(std::function<bool(Conn&)> run, Done done) {
  writes_.push(std::move(run), std::move(done));
}

void PgStore::writer_loop() {
  pthread_setname_np(pthread_self(), "pg-writer");
  const SpanTimer commit_timer(stats_.commit);
  Conn& db = writer_db_;
  for (;;) {
    std::int64_t started = 0;
    auto batch = writes_.take(commit_timer, started);
    if (batch.empty()) return;  // stopping, and everything is written
    std::vector<char> oks(batch.size(), 0);
    bool committed = false;
    // A connection lost (the database restarted) is made again here, once per batch; while it
    // cannot be, every write fails and /healthz says the store is unavailable.
    if (db.alive()) {
      if (pipelined(db, batch)) {
        committed = true;
        std::ranges::fill(oks, 1);
        ++pipelined_;
      } else {
        committed = one_by_one(db, batch, oks);
        ++ordinary_;
      }
    }
    if (!committed) std::ranges::fill(oks, 0);
    available_ = committed;
    const auto ended = commit_timer.start();
    commit_timer.record(started, ended);
    writes_.finish(batch, oks, ended);
  }
}

// The fast path: the whole batch in one transaction sent as a pipeline, its statements not
// waited for one by one, with no savepoints (chunked, so that neither side's buffers fill up).
// It succeeds only if every statement does; otherwise it leaves nothing behind and the batch
// goes the ordinary way, where a write that fails fails alone. A write that reads rows (rare)
// cannot be pipelined: its batch goes the ordinary way too.
bool PgStore::pipelined(Conn& db, std::deque<Write>& batch) {
  constexpr std::size_t kChunk = 256;  // writes between two syncs
  if (!db.begin_pipeline()) return false;
  bool ok = db.exec("BEGIN");
  for (std::size_t i = 0; ok && i < batch.size(); ++i) {
    try {
      ok = batch[i].run(db) && !db.unpipelinable();
    } catch (...) {
      ok = false;  // counted when the ordinary way runs it again
    }
    if (ok && (i + 1) % kChunk == 0) ok = db.sync();
  }
  ok = ok && db.exec("COMMIT");
  ok = db.sync() && ok;
  db.end_pipeline();
  if (!ok) db.exec("ROLLBACK");  // the transaction, open or failed, goes
  return ok;
}

// The ordinary way: each write in a savepoint of the batch's transaction, so that one that fails
// undoes only itself (in PostgreSQL any failed statement spoils the whole transaction).
bool PgStore::one_by_one(Conn& db, std::deque<Write>& batch, std::vector<char>& oks) {
  bool committed = false;
  const bool ran = writes_.guarded([&] {
    committed = db.exec("BEGIN");
    for (std::size_t i = 0; committed && i < batch.size(); ++i) {
      if (!db.exec("SAVEPOINT w")) {
        committed = false;
        break;
      }
      bool ok = false;  // unless it runs through
      writes_.guarded([&] { ok = batch[i].run(db); });
      committed = ok ? db.exec("RELEASE SAVEPOINT w") : db.exec("ROLLBACK TO SAVEPOINT w");
      oks[i] = ok && committed;
    }
    committed = committed && db.exec("COMMIT");
  });
  committed = committed && ran;
  if (!committed) db.exec("ROLLBACK");
  return committed;
}

void PgStore::put_player(const StoredPlayer& p, Done done) {
  enqueue(
      [p](Conn& db) {
        return Stmt(db,
                    "INSERT INTO players(id, token_hash, name) VALUES($1, $2, $3) "
                    "ON CONFLICT(id) DO UPDATE SET name = EXCLUDED.name")
            .bind(1, p.id)
            .bind(2, p.token_hash)
            .bind(3, p.name)
            .run();
      },
      std::move(done));
}

void PgStore::create_room(const RoomRecord& r, Done done) {
  enqueue_room(
      r.id,
      [r](Conn& db) {
        return Stmt(db,
                    "INSERT INTO rooms(id, game, options, seed, private, spectator_delay, "
                    "created_ms, creator, clock, rated, chat) VALUES($1, $2, $3, $4, $5, $6, $7, "
                    "NULLIF($8, ''), NULLIF($9, 'null'), $10, $11)")
                   .bind(1, r.id)
                   .bind(2, r.game)
                   .bind(3, r.options.dump())
                   .bind(4, to_db(r.seed))
                   .bind(5, r.is_private ? 1 : 0)
                   .bind(6, r.spectator_delay)
                   .bind(7, r.created_ms)
                   .bind(8, r.creator)
                   .bind(9, r.clock.dump())
                   .bind(10, r.rated ? 1 : 0)
                   .bind(11, r.chat ? 1 : 0)
                   .run() &&
               Stmt(db,
                    "INSERT INTO rounds(room, round, options, seed, salt) VALUES($1, 1, $2, $3, "
                    "$4)")
                   .bind(1, r.id)
                   .bind(2, r.options.dump())
                   .bind(3, to_db(r.seed))
                   .bind(4, r.salt)
                   .run();
      },
      std::move(done));
}

namespace {
bool set_version(Conn& db, const std::string& room, std::int64_t version) {
  return Stmt(db, "UPDATE rooms SET version = $2 WHERE id = $1")
      .bind(1, room)
      .bind(2, version)
      .run();
}
}  // namespace

void PgStore::put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                       std::int64_t version, Done done) {
  enqueue_room(
      room,
      [room, seat, player, version](Conn& db) {
        Stmt s(db,
               "INSERT INTO seats(room, seat, player) VALUES($1, $2, $3) "
               "ON CONFLICT(room, seat) DO UPDATE SET player = EXCLUDED.player");
        s.bind(1, room).bind(2, seat);
        if (player)
          s.bind(3, *player);
        else
          s.bind_null(3);
        return s.run() && set_version(db, room, version);
      },
      std::move(done));
}

// A move is one INSERT into `moves`; its version lives in its own row (load() takes the greater
// of it and rooms.version), so no other row changes.
void PgStore::append_move(const MoveRecord& m, Done done) {
  auto& live = live_[m.room];
  if (live.round != m.round) live = LiveRound{m.round, 0};
  if (m.index != live.moves) {
    // Not the round's next place (a gap the key would not catch): refused, in its turn.
    enqueue([](Conn&) { return false; }, std::move(done));  // never fenced: it fails anyway
    return;
  }
  ++live.moves;
  enqueue_room(
      m.room,
      [m](Conn& db) {
        Stmt q(db,
               "INSERT INTO moves(room, round, idx, seat, move, version, at_ms, clock_ms) "
               "VALUES($1, $2, $3, $4, $5, $6, $7, $8)");
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
      },
      std::move(done));
}

void PgStore::start_round(const std::string& room, int round, const json& options,
                          std::uint64_t seed, const std::string& salt, std::int64_t version,
                          Done done) {
  enqueue_room(
      room,
      [room, round, options, seed, salt, version](Conn& db) {
        return Stmt(db,
                    "INSERT INTO rounds(room, round, options, seed, salt) VALUES($1, $2, $3, $4, "
                    "$5)")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, options.dump())
                   .bind(4, to_db(seed))
                   .bind(5, salt)
                   .run() &&
               Stmt(db, "UPDATE rooms SET finished = 0 WHERE id = $1").bind(1, room).run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

void PgStore::finish_round(const std::string& room, int round, const json& outcome,
                           std::int64_t at_ms, Done done) {
  live_.erase(room);
  enqueue_room(
      room,
      [room, round, outcome, at_ms](Conn& db) {
        return Stmt(db,
                    "UPDATE rounds SET outcome = $3, finished_ms = $4 WHERE room = $1 AND "
                    "round = $2")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, outcome.dump())
                   .bind(4, at_ms)
                   .run() &&
               Stmt(db, "UPDATE rooms SET finished = 1 WHERE id = $1").bind(1, room).run();
      },
      std::move(done));
}

void PgStore::put_table(const std::string& room, int round, std::uint32_t rematch,
                        const json& offer, const json& departed, std::int64_t version, Done done) {
  const auto text = [](const json& j) {
    return j.is_null() || (j.is_array() && j.empty()) ? std::string() : j.dump();
  };
  enqueue_room(
      room,
      [room, round, rematch, offer = text(offer), departed = text(departed), version](Conn& db) {
        // NULLIF: an empty text is no offer, nobody gone (NULL, as the SQLite store keeps it).
        return Stmt(db,
                    "UPDATE rounds SET rematch = $3, offer = NULLIF($4, ''), departed = "
                    "NULLIF($5, '') WHERE room = $1 AND round = $2")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, static_cast<std::int64_t>(rematch))
                   .bind(4, offer)
                   .bind(5, departed)
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

void PgStore::take_back(const std::string& room, int round, int keep, std::int64_t version,
                        Done done) {
  if (const auto it = live_.find(room);
      it != live_.end() && it->second.round == round && it->second.moves > keep)
    it->second.moves = keep;
  enqueue_room(
      room,
      [room, round, keep, version](Conn& db) {
        return Stmt(db, "DELETE FROM moves WHERE room = $1 AND round = $2 AND idx >= $3")
                   .bind(1, room)
                   .bind(2, round)
                   .bind(3, keep)
                   .run() &&
               Stmt(db, "UPDATE rounds SET offer = NULL WHERE room = $1 AND round = $2")
                   .bind(1, room)
                   .bind(2, round)
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

void PgStore::close_room(const std::string& room, Done done) {
  live_.erase(room);
  enqueue_room(
      room,
      [room](Conn& db) {
        return Stmt(db, "UPDATE rooms SET finished = 2 WHERE id = $1").bind(1, room).run();
      },
      std::move(done));
}

void PgStore::append_chat(const ChatRecord& m, Done done) {
  enqueue_room(
      m.room,
      [m](Conn& db) {
        return Stmt(db,
                    "INSERT INTO chat(room, seq, round, at_move, spectators, player, name, text, "
                    "phrase, at_ms) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
                   .bind(1, m.room)
                   .bind(2, m.seq)
                   .bind(3, m.round)
                   .bind(4, m.at_move)
                   .bind(5, m.spectators ? 1 : 0)
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

void PgStore::delete_chat(const std::string& room, int seq, std::int64_t version, Done done) {
  enqueue_room(
      room,
      [room, seq, version](Conn& db) {
        return Stmt(db,
                    "UPDATE chat SET deleted = 1, text = '', phrase = '' WHERE room = $1 AND "
                    "seq = $2")
                   .bind(1, room)
                   .bind(2, seq)
                   .run() &&
               set_version(db, room, version);
      },
      std::move(done));
}

void PgStore::forget_players(const std::vector<std::string>& ids, Done done) {
  enqueue(
      [ids = json(ids).dump()](Conn& db) {
        return Stmt(db,
                    "DELETE FROM players WHERE id IN (SELECT json_array_elements_text($1::json)) "
                    "AND id NOT IN (SELECT player FROM seats WHERE player IS NOT NULL) "
                    "AND id NOT IN (SELECT player FROM accounts)")
            .bind(1, ids)
            .run();
      },
      std::move(done));
}

}  // namespace plateau::server
