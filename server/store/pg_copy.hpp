// Moving a whole store between PostgreSQL and SQLite, row by row: both schemas have the same
// tables and columns (pg_schema.cpp), so each table copies as it is. Used by `plateau-server
// migrate` (a club's SQLite database into PostgreSQL, or back) and by the PostgreSQL store's
// backups, which are SQLite files a club server can run.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <utility>
#include <vector>

#include "server/store/pg_conn.hpp"

namespace plateau::server::pg {

// Rows copied, per table, in the order copied.
using Copied = std::vector<std::pair<std::string, std::int64_t>>;

// Copies everything `db` holds, as of one snapshot, into a new SQLite database at `path` (its
// schema made by the SQLite store's migrations). A file already at `path` is an error.
std::expected<Copied, std::string> copy_to_sqlite(Conn& db, const std::string& path);
// Copies the SQLite database at `path` (brought up to its latest schema first) into `db`, whose
// schema is up to date and which must hold no rooms, players or accounts yet. One transaction:
// on any error nothing is left in `db`. The moves of rounds in play (SQLite's move log) join
// the others in `moves`.
std::expected<Copied, std::string> copy_from_sqlite(const std::string& path, Conn& db);

}  // namespace plateau::server::pg
