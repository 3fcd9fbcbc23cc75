// The PostgreSQL store's schema and its migrations.
#pragma once

#include <expected>
#include <string>

#include "server/store/pg_conn.hpp"

namespace plateau::server::pg {

int schema_version();
// Brings the database's schema up to date (or up to `up_to`, if not 0), one transaction per
// version, under an advisory lock: several nodes starting at once migrate it once. A database
// whose schema is newer than this server's is an error, left as it is.
std::expected<void, std::string> prepare_schema(Conn& db, int up_to = 0);

}  // namespace plateau::server::pg
