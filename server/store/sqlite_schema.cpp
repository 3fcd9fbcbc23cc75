#include "server/store/sqlite_schema.hpp"

#include <sqlite3.h>

#include <vector>

#include "server/store/sqlite_stmt.hpp"

namespace plateau::server::sqlite {

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
    // 6: who created each room, so that a player's open rooms are counted across a restart;
    // NULL for older rooms and imported games.
    R"sql(
    ALTER TABLE rooms ADD COLUMN creator TEXT;
    )sql",
    // 7: the draw offered in a round in play (JSON, RoundRecord::offer); NULL when none.
    R"sql(
    ALTER TABLE rounds ADD COLUMN offer TEXT;
    )sql",
    // 8: time controls. The room's (JSON, protocol/time_control.hpp; NULL for none), and per
    // move what its mover had left on the clock after it (NULL for a table without a clock).
    R"sql(
    ALTER TABLE rooms ADD COLUMN clock TEXT;
    ALTER TABLE moves ADD COLUMN clock_ms INTEGER;
    ALTER TABLE move_log ADD COLUMN clock_ms INTEGER;
    )sql",
    // 9: who left a round in play of three or four seats (JSON, RoundRecord::departed); NULL
    // when nobody did.
    R"sql(
    ALTER TABLE rounds ADD COLUMN departed TEXT;
    )sql",
    // 10: accounts (issue 46). An account is a player with a unique name (compared by
    // `name_key`, its lower case) and an Argon2id password hash; each signed-in device holds a
    // session; a members-only club hands out single-use invitations. Tokens and codes are kept
    // as their SHA-256 only.
    R"sql(
    CREATE TABLE accounts(
      player TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL UNIQUE,
      password_hash TEXT NOT NULL,
      created_ms INTEGER NOT NULL,
      disabled INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE sessions(
      token_hash TEXT PRIMARY KEY,
      player TEXT NOT NULL,
      device TEXT NOT NULL,
      created_ms INTEGER NOT NULL);
    CREATE INDEX sessions_player ON sessions(player);
    CREATE TABLE invites(
      code_hash TEXT PRIMARY KEY,
      created_ms INTEGER NOT NULL,
      expires_ms INTEGER NOT NULL);
    )sql",
    // 11: ratings (issue 46). Which rooms are rated; each account's Glicko-2 rating per game;
    // and every rated game's change per player, which is also how a restart finds a rated game
    // that ended without its ratings written (none in `rating_history`).
    R"sql(
    ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE ratings(
      player TEXT NOT NULL,
      game TEXT NOT NULL,
      rating REAL NOT NULL,
      deviation REAL NOT NULL,
      volatility REAL NOT NULL,
      games INTEGER NOT NULL,
      wins INTEGER NOT NULL,
      draws INTEGER NOT NULL,
      losses INTEGER NOT NULL,
      last_ms INTEGER NOT NULL,
      PRIMARY KEY(player, game)) WITHOUT ROWID;
    CREATE TABLE rating_history(
      room TEXT NOT NULL,
      round INTEGER NOT NULL,
      player TEXT NOT NULL,
      game TEXT NOT NULL,
      at_ms INTEGER NOT NULL,
      rating REAL NOT NULL,
      deviation REAL NOT NULL,
      change REAL NOT NULL,
      PRIMARY KEY(room, round, player)) WITHOUT ROWID;
    CREATE INDEX rating_history_player ON rating_history(player, game, at_ms);
    )sql",
    // 12: chat (issue 46). Whether a room has chat; accounts the host muted; each table's
    // messages (a deleted one keeps its place, not its words).
    R"sql(
    ALTER TABLE rooms ADD COLUMN chat INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE accounts ADD COLUMN muted INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE chat(
      room TEXT NOT NULL,
      seq INTEGER NOT NULL,
      round INTEGER NOT NULL,
      at_move INTEGER NOT NULL,
      spectators INTEGER NOT NULL,
      player TEXT NOT NULL,
      name TEXT NOT NULL,
      text TEXT NOT NULL,
      phrase TEXT NOT NULL,
      at_ms INTEGER NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY(room, seq)) WITHOUT ROWID;
    )sql",
    // 13: tournaments (issue 48): each event as one JSON document, and who may organise one.
    R"sql(
    CREATE TABLE tournaments(
      id TEXT PRIMARY KEY,
      doc TEXT NOT NULL,
      updated_ms INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE tournament_organisers(player TEXT PRIMARY KEY) WITHOUT ROWID;
    )sql",
};

}  // namespace

int schema_version() { return static_cast<int>(kMigrations.size()); }

std::expected<void, std::string> prepare_schema(sqlite3* db) {
  // Read before anything writes: a file that is not a database fails here, untouched.
  int user_version = 0;
  {
    Stmt q(db, "PRAGMA user_version");
    if (!q.row())
      return std::unexpected(std::string("not a readable SQLite database: ") + sqlite3_errmsg(db));
    user_version = static_cast<int>(q.i64(0));
  }
  {
    Stmt q(db, "PRAGMA quick_check");
    if (!q.row())
      return std::unexpected(std::string("integrity check failed: ") + sqlite3_errmsg(db));
    if (const auto r = q.text(0); r != "ok") return std::unexpected("integrity check failed: " + r);
  }
  if (user_version > schema_version())
    return std::unexpected("schema version " + std::to_string(user_version) +
                           " is newer than this server's (" + std::to_string(schema_version()) +
                           "); upgrade the server");
  std::string err;
  if (!exec(db, "PRAGMA journal_mode=WAL", &err) || !exec(db, "PRAGMA synchronous=FULL", &err) ||
      !exec(db, "PRAGMA foreign_keys=ON", &err))
    return std::unexpected("cannot set up the journal: " + err);
  for (int v = user_version; v < schema_version(); ++v) {
    const std::string bump = "PRAGMA user_version=" + std::to_string(v + 1);
    if (!exec(db, "BEGIN IMMEDIATE", &err) || !exec(db, kMigrations[v], &err) ||
        !exec(db, bump.c_str(), &err)) {
      exec(db, "ROLLBACK");
      return std::unexpected("migration to schema " + std::to_string(v + 1) + " failed: " + err);
    }
    if (!exec(db, "COMMIT", &err)) return std::unexpected("migration commit failed: " + err);
  }
  return {};
}

}  // namespace plateau::server::sqlite
