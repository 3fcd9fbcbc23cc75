// The SQLite store's schema: the migrations that build it, and the checks a database file must
// pass before the store writes to it. Kept apart so that a schema change touches this file alone.
#pragma once

#include <expected>
#include <string>

struct sqlite3;

namespace plateau::server::sqlite {

// The schema version this server writes (PRAGMA user_version): the number of migrations.
int schema_version();

// Makes the freshly opened writer connection `db` ready: checks that the file is a readable,
// sound database of a schema this server knows, sets the journal (WAL, synchronous=FULL) and
// runs the migrations it lacks, each in its own transaction. Nothing is written before the
// checks pass. The error says what failed, for the caller to name the file.
std::expected<void, std::string> prepare_schema(sqlite3* db);

}  // namespace plateau::server::sqlite
