#include "server/store/pg_copy.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string_view>

#include "server/store/pg_schema.hpp"
#include "server/store/pg_store.hpp"
#include "server/store/sqlite_schema.hpp"
#include "server/store/sqlite_stmt.hpp"

namespace plateau::server::pg {

namespace {

struct Table {
  const char* name;
  const char* columns;
  int count;  // of columns
};

// Every table both stores keep, parents before the tables that refer to them.
constexpr Table kTables[] = {
    {"players", "id, token_hash, name", 3},
    {"rooms",
     "id, game, options, seed, private, spectator_delay, created_ms, version, finished, imported, "
     "creator, clock, rated, chat",
     14},
    {"seats", "room, seat, player", 3},
    {"rounds", "room, round, options, seed, outcome, finished_ms, rematch, salt, offer, departed",
     10},
    {"moves", "room, round, idx, seat, move, version, at_ms, clock_ms", 8},
    {"chat", "room, seq, round, at_move, spectators, player, name, text, phrase, at_ms, deleted",
     11},
    {"accounts", "player, name, name_key, password_hash, created_ms, disabled, muted", 7},
    {"sessions", "token_hash, player, device, created_ms", 4},
    {"invites", "code_hash, created_ms, expires_ms", 3},
    {"ratings", "player, game, rating, deviation, volatility, games, wins, draws, losses, last_ms",
     10},
    {"rating_history", "room, round, player, game, at_ms, rating, deviation, change", 8},
    {"tournaments", "id, doc, updated_ms", 3},
    {"tournament_organisers", "player", 1},
};

constexpr const Table& kMoves = kTables[4];
static_assert(std::string_view(kMoves.name) == "moves");

std::string insert_sql(const char* table, const char* columns, int count, const char* tail = "") {
  // $1, $2, ...: PostgreSQL's parameters, and SQLite's too (named "$1", numbered in order).
  std::string sql = std::string("INSERT INTO ") + table + "(" + columns + ") VALUES(";
  for (int i = 1; i <= count; ++i) sql += (i > 1 ? ", $" : "$") + std::to_string(i);
  return sql + ")" + tail;
}

// Each row `select` gives is inserted by a statement from `insert()`, value by value: NULL as
// NULL, a double as a double (no rounding through text), anything else as text, which both
// databases turn into the column's type. Counts the rows inserted (not those a conflict skipped).
template <typename Select, typename Insert>
std::expected<std::int64_t, std::string> copy_rows(Select& select, int columns, Insert insert) {
  std::int64_t n = 0;
  while (select.row()) {
    auto q = insert();
    for (int c = 0; c < columns; ++c) {
      if (select.is_null(c))
        q->bind_null(c + 1);
      else if (select.is_real(c))
        q->bind_real(c + 1, select.f64(c));
      else
        q->bind(c + 1, select.text(c));
    }
    const auto inserted = q->run();
    if (!inserted) return std::unexpected(inserted.error());
    n += *inserted;
  }
  if (!select.ok()) return std::unexpected(std::string("reading failed"));
  return n;
}

// The two statement types behind one run() that says why it failed.
struct PgInsert {
  Stmt s;
  PgInsert(Conn& db, const std::string& sql) : s(db, sql) {}
  void bind_null(int i) { s.bind_null(i); }
  void bind_real(int i, double v) { s.bind_real(i, v); }
  void bind(int i, const std::string& v) { s.bind(i, v); }
  std::expected<std::int64_t, std::string> run() {
    if (s.run()) return s.affected();
    return std::unexpected(s.error());
  }
};
struct SqliteInsert {
  sqlite3* db;
  sqlite::Stmt s;
  SqliteInsert(sqlite3* d, sqlite::StmtCache& cache, const std::string& sql)
      : db(d), s(cache, sql.c_str()) {}
  void bind_null(int i) { s.bind_null(i); }
  void bind_real(int i, double v) { s.bind_real(i, v); }
  void bind(int i, const std::string& v) { s.bind(i, v); }
  std::expected<std::int64_t, std::string> run() {
    if (s.run()) return sqlite3_changes64(db);
    return std::unexpected(std::string(sqlite3_errmsg(db)));
  }
};

struct SqliteFile {
  sqlite3* db = nullptr;
  ~SqliteFile() { sqlite3_close_v2(db); }
};

}  // namespace

std::expected<Copied, std::string> copy_to_sqlite(Conn& db, const std::string& path) {
  if (std::error_code ec; std::filesystem::exists(path, ec))
    return std::unexpected(path + " exists already");
  SqliteFile out;
  if (sqlite3_open_v2(path.c_str(), &out.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    return std::unexpected("cannot create " + path);
  if (auto made = sqlite::prepare_schema(out.db); !made)
    return std::unexpected(path + ": " + made.error());
  Transaction snapshot(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  if (!snapshot.open()) return std::unexpected("cannot read the database: " + db.error());
  std::string err;
  if (!sqlite::exec(out.db, "BEGIN", &err)) return std::unexpected(path + ": " + err);
  Copied copied;
  for (const auto& t : kTables) {
    {
      // One cache a table: it keys statements by the address of their text, which the next
      // table's text may take.
      sqlite::StmtCache cache(out.db);
      Stmt select(db, std::string("SELECT ") + t.columns + " FROM " + t.name);
      const std::string sql = insert_sql(t.name, t.columns, t.count);
      auto n = copy_rows(select, t.count,
                         [&] { return std::make_unique<SqliteInsert>(out.db, cache, sql); });
      if (!n) {
        sqlite::exec(out.db, "ROLLBACK");
        return std::unexpected(std::string("copying ") + t.name + ": " +
                               (select.ok() ? n.error() : select.error()));
      }
      copied.emplace_back(t.name, *n);
    }
  }
  if (!sqlite::exec(out.db, "COMMIT", &err)) return std::unexpected(path + ": " + err);
  snapshot.commit();
  return copied;
}

std::expected<Copied, std::string> copy_from_sqlite(const std::string& path, Conn& db) {
  SqliteFile in;
  if (sqlite3_open_v2(path.c_str(), &in.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    return std::unexpected("cannot open " + path);
  // Its schema brought up to date, as a server starting on it would: the columns copied below
  // are those of the latest schema.
  if (auto ready = sqlite::prepare_schema(in.db); !ready)
    return std::unexpected(path + ": " + ready.error());
  Transaction t(db);
  if (!t.open()) return std::unexpected("cannot write: " + db.error());
  {
    Stmt q(db,
           "SELECT (SELECT count(*) FROM rooms) + (SELECT count(*) FROM players) + "
           "(SELECT count(*) FROM accounts)");
    if (!q.row()) return std::unexpected("cannot read the destination: " + q.error());
    if (q.i64(0) != 0)
      return std::unexpected(
          "the destination holds rooms, players or accounts already: migrate into an empty "
          "database");
  }
  Copied copied;
  const auto copy = [&](const char* from, const Table& t, const char* tail) -> std::string {
    sqlite::Stmt select(in.db, (std::string("SELECT ") + t.columns + " FROM " + from).c_str());
    const std::string sql = insert_sql(t.name, t.columns, t.count, tail);
    auto n = copy_rows(select, t.count, [&] { return std::make_unique<PgInsert>(db, sql); });
    if (!n)
      return std::string("copying ") + from + ": " +
             (select.ok() ? n.error() : std::string(sqlite3_errmsg(in.db)));
    copied.emplace_back(from, *n);
    return {};
  };
  for (const auto& table : kTables)
    if (auto err = copy(table.name, table, ""); !err.empty()) return std::unexpected(err);
  // The log's moves: a move may be in both (pruning copied it), the same row twice.
  if (auto err = copy("move_log", kMoves, " ON CONFLICT DO NOTHING"); !err.empty())
    return std::unexpected(err);
  if (std::string err; !t.commit(&err)) return std::unexpected("cannot commit: " + err);
  return copied;
}

}  // namespace plateau::server::pg

namespace plateau::server {

std::expected<void, std::string> PgStore::backup_to(const std::string& path) {
  std::lock_guard lock(reader_mutex_);
  auto copied = pg::copy_to_sqlite(reader_, path);
  if (!copied) return std::unexpected(copied.error());
  return {};
}

}  // namespace plateau::server
