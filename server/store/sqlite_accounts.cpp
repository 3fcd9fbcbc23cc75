// The SQLite store's accounts, sessions and invitations (schema 10): writes through the writer's
// group commit like every other, and the one read at start.
#include <sqlite3.h>

#include "server/store/sqlite_stmt.hpp"
#include "server/store/sqlite_store.hpp"

namespace plateau::server {

using nlohmann::json;
using sqlite::Stmt;
using sqlite::StmtCache;

void SqliteStore::put_account(const AccountRow& a, const std::string& player_token_hash,
                              Done done) {
  enqueue(
      [a, player_token_hash](StmtCache& db) {
        // The player's row first: an account made for a player who never sat has none yet.
        const bool player_ok =
            player_token_hash.empty()
                ? Stmt(db, "UPDATE players SET name = ?2 WHERE id = ?1")
                      .bind(1, a.player)
                      .bind(2, a.name)
                      .run()
                : Stmt(db,
                       "INSERT INTO players(id, token_hash, name) VALUES(?1, ?2, ?3) "
                       "ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
                       "token_hash = excluded.token_hash")
                      .bind(1, a.player)
                      .bind(2, player_token_hash)
                      .bind(3, a.name)
                      .run();
        return player_ok &&
               Stmt(db,
                    "INSERT INTO accounts(player, name, name_key, password_hash, created_ms, "
                    "disabled) VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(player) DO UPDATE SET "
                    "name = excluded.name, name_key = excluded.name_key, password_hash = "
                    "excluded.password_hash, disabled = excluded.disabled")
                   .bind(1, a.player)
                   .bind(2, a.name)
                   .bind(3, name_key(a.name))
                   .bind(4, a.password_hash)
                   .bind(5, a.created_ms)
                   .bind(6, std::int64_t{a.disabled ? 1 : 0})
                   .run();
      },
      std::move(done));
}

void SqliteStore::put_session(const SessionRow& s, Done done) {
  enqueue(
      [s](StmtCache& db) {
        return Stmt(db,
                    "INSERT OR REPLACE INTO sessions(token_hash, player, device, created_ms) "
                    "VALUES(?1, ?2, ?3, ?4)")
            .bind(1, s.token_hash)
            .bind(2, s.player)
            .bind(3, s.device)
            .bind(4, s.created_ms)
            .run();
      },
      std::move(done), Atomicity::single_statement);
}

void SqliteStore::drop_sessions(const std::vector<std::string>& token_hashes, Done done) {
  enqueue(
      [hashes = json(token_hashes).dump()](StmtCache& db) {
        return Stmt(db,
                    "DELETE FROM sessions WHERE token_hash IN (SELECT value FROM json_each(?1))")
            .bind(1, hashes)
            .run();
      },
      std::move(done), Atomicity::single_statement);
}

void SqliteStore::delete_account(const std::string& player, const std::string& shown_name,
                                 Done done) {
  enqueue(
      [player, shown_name](StmtCache& db) {
        return Stmt(db, "DELETE FROM sessions WHERE player = ?1").bind(1, player).run() &&
               Stmt(db, "DELETE FROM accounts WHERE player = ?1").bind(1, player).run() &&
               Stmt(db, "UPDATE players SET name = ?2 WHERE id = ?1")
                   .bind(1, player)
                   .bind(2, shown_name)
                   .run();
      },
      std::move(done));
}

void SqliteStore::put_invite(const InviteRow& i, Done done) {
  enqueue(
      [i](StmtCache& db) {
        return Stmt(db, "INSERT INTO invites(code_hash, created_ms, expires_ms) VALUES(?1, ?2, ?3)")
            .bind(1, i.code_hash)
            .bind(2, i.created_ms)
            .bind(3, i.expires_ms)
            .run();
      },
      std::move(done), Atomicity::single_statement);
}

void SqliteStore::drop_invite(const std::string& code_hash, Done done) {
  enqueue(
      [code_hash](StmtCache& db) {
        return Stmt(db, "DELETE FROM invites WHERE code_hash = ?1").bind(1, code_hash).run();
      },
      std::move(done), Atomicity::single_statement);
}

std::expected<LoadedAccounts, std::string> SqliteStore::load_accounts() {
  LoadedAccounts out;
  const auto failed = [&](const char* what) {
    return std::unexpected(std::string("reading ") + what + ": " + sqlite3_errmsg(db_));
  };
  {
    Stmt q(db_, "SELECT player, name, password_hash, created_ms, disabled FROM accounts");
    while (q.row())
      out.accounts.push_back({q.text(0), q.text(1), q.text(2), q.i64(3), q.i64(4) != 0});
    if (!q.ok()) return failed("accounts");
  }
  {
    Stmt q(db_, "SELECT token_hash, player, device, created_ms FROM sessions ORDER BY created_ms");
    while (q.row()) out.sessions.push_back({q.text(0), q.text(1), q.text(2), q.i64(3)});
    if (!q.ok()) return failed("sessions");
  }
  {
    Stmt q(db_, "SELECT code_hash, created_ms, expires_ms FROM invites");
    while (q.row()) out.invites.push_back({q.text(0), q.i64(1), q.i64(2)});
    if (!q.ok()) return failed("invites");
  }
  return out;
}

}  // namespace plateau::server
