// The PostgreSQL store as an Archive: the history's reads (on the readers' connection, beside
// the writer) and an imported game written through the writer like any other write. The backup
// is pg_copy.cpp's.
#include <algorithm>

#include "server/rooms/connection.hpp"
#include "server/store/pg_store.hpp"
#include "server/store/store_rows.hpp"

namespace plateau::server {

using nlohmann::json;
using pg::Stmt;
using rows::from_db;
using rows::to_db;

std::expected<std::optional<GameRecord>, std::string> PgStore::read_record(const std::string& room,
                                                                           int round) {
  std::lock_guard lock(reader_mutex_);
  // One snapshot: the round's moves and chat as of the commit its row was read at.
  pg::Transaction t(reader_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  if (!t.open()) return std::unexpected(reader_.error());
  GameRecord r;
  r.room = room;
  r.round = round;
  {
    Stmt q(
        reader_,
        "SELECT r.game, o.options, o.seed, o.outcome, o.finished_ms, o.salt, r.clock FROM rooms r "
        "JOIN rounds o ON o.room = r.id WHERE r.id = $1 AND o.round = $2");
    q.bind(1, room).bind(2, round);
    if (!q.row()) {
      if (!q.ok()) return std::unexpected(q.error());
      return std::optional<GameRecord>{};
    }
    r.game = q.text(0);
    r.options = json::parse(q.text(1), nullptr, false);
    r.seed = from_db(q.i64(2));
    r.result = q.is_null(3) ? json(nullptr) : json::parse(q.text(3), nullptr, false);
    r.finished_ms = q.is_null(4) ? 0 : q.i64(4);
    if (!q.is_null(5)) r.salt = q.text(5);
    if (!q.is_null(6)) r.clock = json::parse(q.text(6), nullptr, false);
  }
  {
    Stmt q(reader_,
           "SELECT s.seat, COALESCE(p.name, ''), COALESCE(s.player, '') FROM seats s LEFT JOIN "
           "players p ON p.id = s.player WHERE s.room = $1 ORDER BY s.seat");
    q.bind(1, room);
    while (q.row()) {
      const auto seat = static_cast<std::size_t>(q.i64(0));
      if (r.players.size() <= seat) r.players.resize(seat + 1);
      r.players[seat] = q.text(1);
      // The id held here: the level is a view into it.
      if (const std::string id = q.text(2); const auto level = bot_level_in(id)) {
        r.bots.resize(std::max(r.bots.size(), seat + 1));
        r.bots[seat] = std::string(*level);
      }
    }
    if (!q.ok()) return std::unexpected(q.error());
  }
  {
    Stmt q(reader_,
           "SELECT seat, move, at_ms, clock_ms FROM moves WHERE room = $1 AND round = $2 "
           "ORDER BY idx");
    q.bind(1, room).bind(2, round);
    while (q.row())
      r.moves.push_back({static_cast<int>(q.i64(0)), q.text(1), q.i64(2),
                         q.is_null(3) ? std::nullopt : std::optional(q.i64(3))});
    if (!q.ok()) return std::unexpected(q.error());
  }
  {
    Stmt q(reader_,
           "SELECT spectators, name, text, phrase, at_ms, at_move, deleted FROM chat WHERE room = "
           "$1 AND round = $2 ORDER BY seq");
    q.bind(1, room).bind(2, round);
    while (q.row()) {
      json line{{"channel", q.i64(0) != 0 ? "spectators" : "players"},
                {"name", q.text(1)},
                {"at", q.i64(4)},
                {"move", q.i64(5)}};
      if (q.i64(6) != 0)
        line["deleted"] = true;
      else if (!q.text(3).empty())
        line["phrase"] = q.text(3);
      else
        line["text"] = q.text(2);
      r.chat.push_back(std::move(line));
    }
    if (!q.ok()) return std::unexpected(q.error());
  }
  t.commit();
  if (const auto n = r.options.value("players", 0);
      n > 0 && r.players.size() < static_cast<std::size_t>(n))
    r.players.resize(static_cast<std::size_t>(n));
  if (!r.bots.empty()) r.bots.resize(r.players.size());
  return std::optional<GameRecord>(std::move(r));
}

std::vector<GameSummary> PgStore::finished_games(int limit) { return summaries(limit, ""); }

std::vector<GameSummary> PgStore::games_of(const std::string& player, int limit) {
  return summaries(limit, player);
}

std::vector<GameSummary> PgStore::summaries(int limit, const std::string& player) {
  std::lock_guard lock(reader_mutex_);
  std::vector<GameSummary> out;
  // The players' names by seat, joined by char 31 (string_agg gives NULL, read as "", for a room
  // without seats).
  Stmt q(reader_,
         "SELECT r.id, o.round, r.game, o.outcome, o.finished_ms, r.imported, "
         "(SELECT string_agg(COALESCE(p.name, ''), chr(31) ORDER BY s.seat) FROM seats s "
         " LEFT JOIN players p ON p.id = s.player WHERE s.room = r.id), r.rated "
         "FROM rounds o JOIN rooms r ON r.id = o.room "
         "WHERE o.finished_ms IS NOT NULL AND r.private = 0 "
         "AND ($2::text = '' OR r.id IN (SELECT room FROM seats WHERE player = $2)) "
         "ORDER BY o.finished_ms DESC LIMIT $1");
  q.bind(1, limit).bind(2, player);
  while (q.row()) {
    GameSummary g{.room = q.text(0),
                  .round = static_cast<int>(q.i64(1)),
                  .game = q.text(2),
                  .result = json::parse(q.text(3), nullptr, false),
                  .finished_ms = q.i64(4),
                  .imported = q.i64(5) != 0,
                  .players = {},
                  .rated = q.i64(7) != 0};
    std::string names = q.text(6);
    std::size_t start = 0;
    while (!names.empty()) {
      const auto sep = names.find(char(31), start);
      g.players.push_back(
          names.substr(start, sep == std::string::npos ? std::string::npos : sep - start));
      if (sep == std::string::npos) break;
      start = sep + 1;
    }
    out.push_back(std::move(g));
  }
  return out;
}

void PgStore::import_record(const GameRecord& r, Done done) {
  enqueue(
      [r](pg::Conn& db) {
        bool ok = Stmt(db,
                       "INSERT INTO rooms(id, game, options, seed, private, spectator_delay, "
                       "created_ms, finished, imported) VALUES($1, $2, $3, $4, 0, 0, $5, 1, 1)")
                      .bind(1, r.room)
                      .bind(2, r.game)
                      .bind(3, r.options.dump())
                      .bind(4, to_db(r.seed))
                      .bind(5, r.finished_ms)
                      .run() &&
                  Stmt(db,
                       "INSERT INTO rounds(room, round, options, seed, outcome, finished_ms, salt) "
                       "VALUES($1, 1, $2, $3, $4, $5, $6)")
                      .bind(1, r.room)
                      .bind(2, r.options.dump())
                      .bind(3, to_db(r.seed))
                      .bind(4, r.result.dump())
                      .bind(5, r.finished_ms)
                      .bind(6, r.salt)
                      .run();
        for (std::size_t s = 0; ok && s < r.players.size(); ++s) {
          // Imported players are names only: a player row with an unguessable, unusable token.
          const std::string pid = "import:" + r.room + ":" + std::to_string(s);
          ok = Stmt(db, "INSERT INTO players(id, token_hash, name) VALUES($1, $2, $3)")
                   .bind(1, pid)
                   .bind(2, "none:" + pid)
                   .bind(3, r.players[s])
                   .run() &&
               Stmt(db, "INSERT INTO seats(room, seat, player) VALUES($1, $2, $3)")
                   .bind(1, r.room)
                   .bind(2, static_cast<std::int64_t>(s))
                   .bind(3, pid)
                   .run();
        }
        for (std::size_t i = 0; ok && i < r.moves.size(); ++i)
          ok = Stmt(db,
                    "INSERT INTO moves(room, round, idx, seat, move, version, at_ms) VALUES($1, 1, "
                    "$2, $3, $4, $5, $6)")
                   .bind(1, r.room)
                   .bind(2, static_cast<std::int64_t>(i))
                   .bind(3, r.moves[i].seat)
                   .bind(4, r.moves[i].move)
                   .bind(5, static_cast<std::int64_t>(i + 1))
                   .bind(6, r.moves[i].at_ms)
                   .run();
        return ok;
      },
      std::move(done));
}

}  // namespace plateau::server
