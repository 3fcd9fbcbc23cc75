// The PostgreSQL store's accounts, sessions and invitations, ratings and tournaments (schema 2):
// the port of sqlite_accounts.cpp. Writes go through the writer's group commit like every other
// (each in a savepoint of its own); the reads (at start, and a profile's history) take the
// readers' connection.
#include <algorithm>
#include <mutex>

#include "server/store/pg_conn.hpp"
#include "server/store/pg_store.hpp"

namespace plateau::server {

using nlohmann::json;
using pg::Stmt;

void PgStore::put_account(const AccountRow& a, const std::string& player_token_hash, Done done) {
  enqueue(
      [a, player_token_hash](pg::Conn& db) {
        // The player's row first: an account made for a player who never sat has none yet.
        const bool player_ok =
            player_token_hash.empty()
                ? Stmt(db, "UPDATE players SET name = $2 WHERE id = $1")
                      .bind(1, a.player)
                      .bind(2, a.name)
                      .run()
                : Stmt(db,
                       "INSERT INTO players(id, token_hash, name) VALUES($1, $2, $3) "
                       "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, "
                       "token_hash = EXCLUDED.token_hash")
                      .bind(1, a.player)
                      .bind(2, player_token_hash)
                      .bind(3, a.name)
                      .run();
        return player_ok &&
               Stmt(
                   db,
                   "INSERT INTO accounts(player, name, name_key, password_hash, created_ms, "
                   "disabled, muted) VALUES($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player) DO "
                   "UPDATE SET name = EXCLUDED.name, name_key = EXCLUDED.name_key, password_hash = "
                   "EXCLUDED.password_hash, disabled = EXCLUDED.disabled, muted = EXCLUDED.muted")
                   .bind(1, a.player)
                   .bind(2, a.name)
                   .bind(3, name_key(a.name))
                   .bind(4, a.password_hash)
                   .bind(5, a.created_ms)
                   .bind(6, std::int64_t{a.disabled ? 1 : 0})
                   .bind(7, std::int64_t{a.muted ? 1 : 0})
                   .run();
      },
      std::move(done));
}

void PgStore::put_session(const SessionRow& s, Done done) {
  enqueue(
      [s](pg::Conn& db) {
        return Stmt(db,
                    "INSERT INTO sessions(token_hash, player, device, created_ms) "
                    "VALUES($1, $2, $3, $4) ON CONFLICT (token_hash) DO UPDATE SET "
                    "player = EXCLUDED.player, device = EXCLUDED.device, "
                    "created_ms = EXCLUDED.created_ms")
            .bind(1, s.token_hash)
            .bind(2, s.player)
            .bind(3, s.device)
            .bind(4, s.created_ms)
            .run();
      },
      std::move(done));
}

void PgStore::drop_sessions(const std::vector<std::string>& token_hashes, Done done) {
  enqueue(
      [hashes = json(token_hashes).dump()](pg::Conn& db) {
        return Stmt(db,
                    "DELETE FROM sessions WHERE token_hash IN "
                    "(SELECT json_array_elements_text($1::json))")
            .bind(1, hashes)
            .run();
      },
      std::move(done));
}

void PgStore::delete_account(const std::string& player, const std::string& shown_name, Done done) {
  enqueue(
      [player, shown_name](pg::Conn& db) {
        return Stmt(db, "DELETE FROM sessions WHERE player = $1").bind(1, player).run() &&
               Stmt(db, "DELETE FROM accounts WHERE player = $1").bind(1, player).run() &&
               Stmt(db, "UPDATE players SET name = $2 WHERE id = $1")
                   .bind(1, player)
                   .bind(2, shown_name)
                   .run();
      },
      std::move(done));
}

void PgStore::put_invite(const InviteRow& i, Done done) {
  enqueue(
      [i](pg::Conn& db) {
        return Stmt(db, "INSERT INTO invites(code_hash, created_ms, expires_ms) VALUES($1, $2, $3)")
            .bind(1, i.code_hash)
            .bind(2, i.created_ms)
            .bind(3, i.expires_ms)
            .run();
      },
      std::move(done));
}

void PgStore::drop_invite(const std::string& code_hash, Done done) {
  enqueue(
      [code_hash](pg::Conn& db) {
        return Stmt(db, "DELETE FROM invites WHERE code_hash = $1").bind(1, code_hash).run();
      },
      std::move(done));
}

std::expected<LoadedAccounts, std::string> PgStore::load_accounts() { return accounts_of(""); }

std::expected<LoadedAccounts, std::string> PgStore::accounts_of(const std::string& player) {
  std::lock_guard lock(reader_mutex_);
  LoadedAccounts out;
  const auto failed = [](const char* what, const Stmt& q) {
    return std::unexpected(std::string("reading ") + what + ": " + q.error());
  };
  // Every account (player ""), or one.
  const std::string where = player.empty() ? "" : " WHERE player = $1";
  const auto bound = [&](Stmt& q) {
    if (!player.empty()) q.bind(1, player);
  };
  {
    Stmt q(reader_,
           "SELECT player, name, password_hash, created_ms, disabled, muted FROM accounts" + where);
    bound(q);
    while (q.row())
      out.accounts.push_back(
          {q.text(0), q.text(1), q.text(2), q.i64(3), q.i64(4) != 0, q.i64(5) != 0});
    if (!q.ok()) return failed("accounts", q);
  }
  {
    Stmt q(reader_, "SELECT token_hash, player, device, created_ms FROM sessions" + where +
                        " ORDER BY created_ms");
    bound(q);
    while (q.row()) out.sessions.push_back({q.text(0), q.text(1), q.text(2), q.i64(3)});
    if (!q.ok()) return failed("sessions", q);
  }
  if (player.empty()) {
    Stmt q(reader_, "SELECT code_hash, created_ms, expires_ms FROM invites");
    while (q.row()) out.invites.push_back({q.text(0), q.i64(1), q.i64(2)});
    if (!q.ok()) return failed("invites", q);
  }
  return out;
}

void PgStore::put_rated_game(const std::vector<RatingRow>& ratings,
                             const std::vector<RatingChange>& changes, Done done) {
  enqueue(
      [ratings, changes, fenced = !node_.empty()](pg::Conn& db) {
        // A game rated already (its changes are there) is not rated again.
        if (!changes.empty()) {
          Stmt q(db, "SELECT count(*) FROM rating_history WHERE room = $1 AND round = $2");
          q.bind(1, changes[0].room).bind(2, std::int64_t{changes[0].round});
          if (q.row() && q.i64(0) > 0) return true;
        }
        // In a cluster, each row follows the one it was computed from: its game count one more
        // than the stored row's (none stored: its first game). Another node that rated this
        // player in between wrote that count first, and this write fails, whole: the node reads
        // the ratings again and rates the game once more (Lobby::rate_players). A lone server is
        // the only writer: its rows are written as they are.
        for (const auto& r : ratings) {
          Stmt up(db,
                  "INSERT INTO ratings(player, game, rating, deviation, volatility, games, "
                  "wins, draws, losses, last_ms) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, "
                  "$10) ON CONFLICT (player, game) DO UPDATE SET rating = EXCLUDED.rating, "
                  "deviation = EXCLUDED.deviation, volatility = EXCLUDED.volatility, "
                  "games = EXCLUDED.games, wins = EXCLUDED.wins, draws = EXCLUDED.draws, "
                  "losses = EXCLUDED.losses, last_ms = EXCLUDED.last_ms" +
                      std::string(fenced ? " WHERE ratings.games = EXCLUDED.games - 1" : ""));
          up.bind(1, r.player)
              .bind(2, r.game)
              .bind_real(3, r.rating)
              .bind_real(4, r.deviation)
              .bind_real(5, r.volatility)
              .bind(6, std::int64_t{r.games})
              .bind(7, std::int64_t{r.wins})
              .bind(8, std::int64_t{r.draws})
              .bind(9, std::int64_t{r.losses})
              .bind(10, r.last_ms);
          if (!up.run() || (fenced && up.affected() != 1)) return false;
        }
        for (const auto& c : changes)
          if (!Stmt(db,
                    "INSERT INTO rating_history(room, round, player, game, at_ms, rating, "
                    "deviation, change) VALUES($1, $2, $3, $4, $5, $6, $7, $8)")
                   .bind(1, c.room)
                   .bind(2, std::int64_t{c.round})
                   .bind(3, c.player)
                   .bind(4, c.game)
                   .bind(5, c.at_ms)
                   .bind_real(6, c.rating)
                   .bind_real(7, c.deviation)
                   .bind_real(8, c.change)
                   .run())
            return false;
        return true;
      },
      std::move(done));
}

std::expected<std::vector<RatingRow>, std::string> PgStore::load_ratings() {
  return ratings_of("");
}

std::expected<std::vector<RatingRow>, std::string> PgStore::ratings_of(const std::string& player) {
  std::lock_guard lock(reader_mutex_);
  std::vector<RatingRow> out;
  Stmt q(reader_,
         "SELECT player, game, rating, deviation, volatility, games, wins, draws, losses, last_ms "
         "FROM ratings" +
             std::string(player.empty() ? "" : " WHERE player = $1"));
  if (!player.empty()) q.bind(1, player);
  while (q.row())
    out.push_back({q.text(0), q.text(1), q.f64(2), q.f64(3), q.f64(4), static_cast<int>(q.i64(5)),
                   static_cast<int>(q.i64(6)), static_cast<int>(q.i64(7)),
                   static_cast<int>(q.i64(8)), q.i64(9)});
  if (!q.ok()) return std::unexpected("reading ratings: " + q.error());
  return out;
}

std::expected<std::vector<UnratedGame>, std::string> PgStore::unrated_games() {
  std::lock_guard lock(reader_mutex_);
  std::vector<UnratedGame> out;
  // Room ids in byte order (COLLATE "C"), as SQLite orders them, whatever the database's
  // collation: games that ended in the same millisecond are rated in the same order by both.
  Stmt q(reader_,
         "SELECT r.id, o.round, r.game, o.outcome, o.finished_ms, "
         "(SELECT COALESCE(json_agg(COALESCE(s.player, '') ORDER BY s.seat), '[]'::json)::text "
         "  FROM seats s WHERE s.room = r.id) "
         "FROM rounds o JOIN rooms r ON r.id = o.room "
         "WHERE r.rated = 1 AND o.finished_ms IS NOT NULL AND NOT EXISTS "
         "(SELECT 1 FROM rating_history h WHERE h.room = o.room AND h.round = o.round) "
         "ORDER BY o.finished_ms, r.id COLLATE \"C\", o.round");
  while (q.row()) {
    UnratedGame g{q.text(0),
                  static_cast<int>(q.i64(1)),
                  q.text(2),
                  {},
                  json::parse(q.text(3), nullptr, false),
                  q.i64(4)};
    for (const auto& p : json::parse(q.text(5), nullptr, false))
      g.players.push_back(p.is_string() && !p.get_ref<const std::string&>().empty()
                              ? std::optional<std::string>(p.get<std::string>())
                              : std::nullopt);
    out.push_back(std::move(g));
  }
  if (!q.ok()) return std::unexpected("reading rated games: " + q.error());
  return out;
}

std::vector<RatingChange> PgStore::rating_history(const std::string& player) {
  std::lock_guard lock(reader_mutex_);
  std::vector<RatingChange> out;
  // Games in byte order (COLLATE "C"), as SQLite orders them.
  Stmt q(reader_,
         "SELECT room, round, player, game, at_ms, rating, deviation, change FROM rating_history "
         "WHERE player = $1 ORDER BY game COLLATE \"C\", at_ms");
  q.bind(1, player);
  while (q.row())
    out.push_back({q.text(0), static_cast<int>(q.i64(1)), q.text(2), q.text(3), q.i64(4), q.f64(5),
                   q.f64(6), q.f64(7)});
  return out;
}

// In a cluster the events and the organisers are written by the director alone, fenced by its
// lease like a room's rows (enqueue_room writes unfenced when this store is not a node's).
void PgStore::put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) {
  enqueue_room(
      kTournamentLease,
      [t, at_ms](pg::Conn& db) {
        return Stmt(db,
                    "INSERT INTO tournaments(id, doc, updated_ms) VALUES($1, $2, $3) "
                    "ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, "
                    "updated_ms = EXCLUDED.updated_ms")
            .bind(1, t.id)
            .bind(2, t.doc)
            .bind(3, at_ms)
            .run();
      },
      std::move(done));
}

void PgStore::put_organiser(const std::string& player, bool allowed, Done done) {
  enqueue_room(
      kTournamentLease,
      [player, allowed](pg::Conn& db) {
        return allowed ? Stmt(db,
                              "INSERT INTO tournament_organisers(player) VALUES($1) "
                              "ON CONFLICT DO NOTHING")
                             .bind(1, player)
                             .run()
                       : Stmt(db, "DELETE FROM tournament_organisers WHERE player = $1")
                             .bind(1, player)
                             .run();
      },
      std::move(done));
}

std::expected<LoadedTournaments, std::string> PgStore::load_tournaments() {
  std::lock_guard lock(reader_mutex_);
  LoadedTournaments out;
  const auto failed = [](const char* what, const Stmt& q) {
    return std::unexpected(std::string("reading ") + what + ": " + q.error());
  };
  {
    Stmt q(reader_, "SELECT id, doc FROM tournaments ORDER BY updated_ms");
    while (q.row()) out.tournaments.push_back({q.text(0), q.text(1)});
    if (!q.ok()) return failed("tournaments", q);
  }
  {
    Stmt q(reader_, "SELECT player FROM tournament_organisers");
    while (q.row()) out.organisers.push_back(q.text(0));
    if (!q.ok()) return failed("organisers", q);
  }
  return out;
}

std::expected<std::string, std::string> PgStore::tournament_doc(const std::string& id) {
  std::lock_guard lock(reader_mutex_);
  Stmt q(reader_, "SELECT doc FROM tournaments WHERE id = $1");
  q.bind(1, id);
  if (q.row()) return q.text(0);
  if (!q.ok()) return std::unexpected("reading tournament " + id + ": " + q.error());
  return std::string();
}

std::expected<std::vector<bool>, std::string> PgStore::seats_taken(const std::string& room,
                                                                   int seats) {
  std::lock_guard lock(reader_mutex_);
  {
    Stmt exists(reader_, "SELECT 1 FROM rooms WHERE id = $1");
    exists.bind(1, room);
    if (!exists.row()) {
      if (!exists.ok()) return std::unexpected("reading room " + room + ": " + exists.error());
      return std::vector<bool>{};
    }
  }
  std::vector<bool> taken(static_cast<std::size_t>(std::max(seats, 0)), false);
  Stmt q(reader_, "SELECT seat FROM seats WHERE room = $1 AND player IS NOT NULL");
  q.bind(1, room);
  while (q.row())
    if (const auto seat = q.i64(0); seat >= 0 && seat < seats)
      taken[static_cast<std::size_t>(seat)] = true;
  if (!q.ok()) return std::unexpected("reading the seats of " + room + ": " + q.error());
  return taken;
}

}  // namespace plateau::server
