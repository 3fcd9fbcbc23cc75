// The PostgreSQL store's schema: the SQLite store's tables and columns (sqlite_schema.cpp, as of
// its schema 13) with PostgreSQL's types, less the SQLite move log (moves go straight into
// `moves`). Booleans stay integers 0/1, as in SQLite, so that rows copy between the two as they
// are (pg_copy.cpp).
#include "server/store/pg_schema.hpp"

#include <vector>

namespace plateau::server::pg {

namespace {

// Each entry brings the schema from version i to i+1. Never edit a shipped entry: add one.
const std::vector<const char*> kMigrations{
    // 1: players, rooms and their games, and the tables' chat.
    R"sql(
    CREATE TABLE players(
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL);
    CREATE TABLE rooms(
      id TEXT PRIMARY KEY,
      game TEXT NOT NULL,
      options TEXT NOT NULL,
      seed BIGINT NOT NULL,
      private INTEGER NOT NULL DEFAULT 0,
      spectator_delay INTEGER NOT NULL DEFAULT 0,
      created_ms BIGINT NOT NULL,
      version BIGINT NOT NULL DEFAULT 0,
      finished INTEGER NOT NULL DEFAULT 0,  -- 0 in play, 1 its last round ended, 2 closed
      imported INTEGER NOT NULL DEFAULT 0,
      creator TEXT,
      clock TEXT,
      chat INTEGER NOT NULL DEFAULT 1);
    CREATE INDEX rooms_unfinished ON rooms(finished);
    CREATE TABLE seats(
      room TEXT NOT NULL REFERENCES rooms(id),
      seat INTEGER NOT NULL,
      player TEXT,
      PRIMARY KEY(room, seat));
    CREATE INDEX seats_player ON seats(player);
    CREATE TABLE rounds(
      room TEXT NOT NULL REFERENCES rooms(id),
      round INTEGER NOT NULL,
      options TEXT NOT NULL,
      seed BIGINT NOT NULL,
      outcome TEXT,
      finished_ms BIGINT,
      rematch BIGINT NOT NULL DEFAULT 0,
      salt TEXT,
      offer TEXT,
      departed TEXT,
      PRIMARY KEY(room, round));
    CREATE INDEX rounds_finished ON rounds(finished_ms);
    CREATE TABLE moves(
      room TEXT NOT NULL,
      round INTEGER NOT NULL,
      idx INTEGER NOT NULL,
      seat INTEGER NOT NULL,
      move TEXT NOT NULL,
      version BIGINT NOT NULL,
      at_ms BIGINT NOT NULL,
      clock_ms BIGINT,
      PRIMARY KEY(room, round, idx));
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
      at_ms BIGINT NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY(room, seq));
    )sql",
    // 2: accounts and their sessions, invitations, ratings (issue 46); tournaments (issue 48).
    R"sql(
    ALTER TABLE rooms ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE accounts(
      player TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL UNIQUE,
      password_hash TEXT NOT NULL,
      created_ms BIGINT NOT NULL,
      disabled INTEGER NOT NULL DEFAULT 0,
      muted INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE sessions(
      token_hash TEXT PRIMARY KEY,
      player TEXT NOT NULL,
      device TEXT NOT NULL,
      created_ms BIGINT NOT NULL);
    CREATE INDEX sessions_player ON sessions(player);
    CREATE TABLE invites(
      code_hash TEXT PRIMARY KEY,
      created_ms BIGINT NOT NULL,
      expires_ms BIGINT NOT NULL);
    CREATE TABLE ratings(
      player TEXT NOT NULL,
      game TEXT NOT NULL,
      rating DOUBLE PRECISION NOT NULL,
      deviation DOUBLE PRECISION NOT NULL,
      volatility DOUBLE PRECISION NOT NULL,
      games INTEGER NOT NULL,
      wins INTEGER NOT NULL,
      draws INTEGER NOT NULL,
      losses INTEGER NOT NULL,
      last_ms BIGINT NOT NULL,
      PRIMARY KEY(player, game));
    CREATE TABLE rating_history(
      room TEXT NOT NULL,
      round INTEGER NOT NULL,
      player TEXT NOT NULL,
      game TEXT NOT NULL,
      at_ms BIGINT NOT NULL,
      rating DOUBLE PRECISION NOT NULL,
      deviation DOUBLE PRECISION NOT NULL,
      change DOUBLE PRECISION NOT NULL,
      PRIMARY KEY(room, round, player));
    CREATE INDEX rating_history_player ON rating_history(player, game, at_ms);
    CREATE TABLE tournaments(
      id TEXT PRIMARY KEY,
      doc TEXT NOT NULL,
      updated_ms BIGINT NOT NULL);
    CREATE TABLE tournament_organisers(player TEXT PRIMARY KEY);
    )sql",
    // 3: room leases (issue 47). In a cluster each room is written by one node at a time: the
    // one holding its lease, until it expires (by the database's clock, so nodes' clocks may
    // differ). Each new owner gets a higher epoch, and every write of the room checks that its
    // node still holds the epoch it took (a fencing token): a node that lost the room, even one
    // that wakes up late, never writes to it again.
    R"sql(
    CREATE TABLE room_leases(
      room TEXT PRIMARY KEY,
      node TEXT NOT NULL,
      epoch BIGINT NOT NULL,
      expires_at TIMESTAMPTZ NOT NULL);
    CREATE INDEX room_leases_node ON room_leases(node);
    -- The check every fenced write starts with: fails the write (and so its savepoint) unless
    -- node n holds room r at epoch e, and holds the lease's row until the commit, so that a
    -- takeover waits for the write. One statement that fails, not rows to read: it can be
    -- pipelined with the write's others.
    CREATE FUNCTION plateau_fence(r TEXT, n TEXT, e BIGINT) RETURNS void AS $fence$
    BEGIN
      PERFORM 1 FROM room_leases WHERE room = r AND node = n AND epoch = e FOR SHARE;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'room % is not held by node % at epoch %', r, n, e
          USING ERRCODE = 'P0001';
      END IF;
    END
    $fence$ LANGUAGE plpgsql;
    )sql",
    // 4: a lease lives as long as its node's heartbeat. Renewing every lease row each beat
    // locked rows that fenced writes held FOR SHARE, in another order: the two deadlocked (each
    // a second, until PostgreSQL broke it). A node now renews one row of its own, which no
    // write locks; a room's row changes only when the room changes hands, and a takeover still
    // waits for the write in flight. A released room's row names no node ('').
    R"sql(
    CREATE TABLE node_heartbeats(
      node TEXT PRIMARY KEY,
      expires_at TIMESTAMPTZ NOT NULL);
    )sql",
};

// Any constant, the same in every node: the advisory lock that serializes migrations.
constexpr const char* kLock = "SELECT pg_advisory_xact_lock(74657415)";

}  // namespace

int schema_version() { return static_cast<int>(kMigrations.size()); }

std::expected<void, std::string> prepare_schema(Conn& db, int up_to) {
  const int target = up_to > 0 && up_to < schema_version() ? up_to : schema_version();
  std::string err;
  for (;;) {
    Transaction t(db);
    if (!t.open() || !db.exec(kLock, &err))
      return std::unexpected("cannot lock the schema: " + db.error());
    // Under the lock: two nodes making it at once would clash in the catalog.
    if (!db.exec("CREATE TABLE IF NOT EXISTS plateau_schema(version INTEGER NOT NULL)", &err))
      return std::unexpected("cannot create the schema's version table: " + err);
    int version = 0;
    {
      Stmt q(db, "SELECT COALESCE(max(version), 0) FROM plateau_schema");
      if (!q.row()) return std::unexpected("cannot read the schema's version: " + q.error());
      version = static_cast<int>(q.i64(0));
    }
    if (version > schema_version())
      return std::unexpected("schema version " + std::to_string(version) +
                             " is newer than this server's (" + std::to_string(schema_version()) +
                             "); upgrade the server");
    if (version >= target) return {};
    if (!db.exec(kMigrations[static_cast<std::size_t>(version)], &err) ||
        !Stmt(db, "DELETE FROM plateau_schema").run() ||
        !Stmt(db, "INSERT INTO plateau_schema(version) VALUES($1)").bind(1, version + 1).run())
      return std::unexpected("migration to schema " + std::to_string(version + 1) +
                             " failed: " + (err.empty() ? db.error() : err));
    if (!t.commit(&err))
      return std::unexpected("migration to schema " + std::to_string(version + 1) +
                             " failed to commit: " + err);
  }
}

}  // namespace plateau::server::pg
