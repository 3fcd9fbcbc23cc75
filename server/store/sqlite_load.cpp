// The SQLite store's reads that rebuild rooms: every room to recover at start (load, on the
// writer connection before the writer's first commit), and one room coming back into memory
// (load_room, on the reader connection while the writer writes). Both take up the moves of a
// round in play where the writes left them.
#include <sqlite3.h>

#include <algorithm>
#include <map>

#include "server/store/sqlite_stmt.hpp"
#include "server/store/sqlite_store.hpp"
#include "server/store/store_rows.hpp"

namespace plateau::server {

using sqlite::exec;
using sqlite::Stmt;

using rows::kChatColumns;
using rows::read_chat;
using rows::read_move;
using rows::read_room;
using rows::read_round;

std::expected<Loaded, std::string> SqliteStore::load(std::int64_t ended_since_ms) {
  Loaded out;
  {
    // `IN` a subquery that does not depend on the row: SQLite reads the seats once.
    Stmt q(db_,
           "SELECT id, token_hash, name, id IN (SELECT player FROM seats WHERE player IS NOT NULL) "
           "FROM players");
    while (q.row()) out.players.push_back({q.text(0), q.text(1), q.text(2), q.i64(3) != 0});
    if (!q.ok()) return std::unexpected(std::string("reading players: ") + sqlite3_errmsg(db_));
  }
  // The rooms to rebuild: those in play, and those whose last round ended since
  // `ended_since_ms` (their players may still ask for a rematch). Not closed or imported ones.
  exec(db_, "DROP TABLE IF EXISTS temp.restoring");
  if (!exec(db_, "CREATE TEMP TABLE restoring(id TEXT PRIMARY KEY) WITHOUT ROWID") ||
      !Stmt(db_,
            "INSERT INTO restoring SELECT id FROM rooms WHERE finished = 0 "
            "UNION SELECT o.room FROM rounds o JOIN rooms r ON r.id = o.room "
            "WHERE o.finished_ms >= ?1 AND r.finished = 1 AND r.imported = 0")
           .bind(1, ended_since_ms)
           .run())
    return std::unexpected(std::string("choosing the rooms to rebuild: ") + sqlite3_errmsg(db_));
  struct DropRestoring {
    sqlite3* db;
    ~DropRestoring() { exec(db, "DROP TABLE IF EXISTS temp.restoring"); }
  } drop{db_};
  std::map<std::string, std::size_t> index;
  {
    Stmt q(
        db_,
        "SELECT id, game, options, seed, private, spectator_delay, created_ms, version, creator, "
        "clock, rated, chat "
        "FROM rooms "
        "WHERE id IN restoring ORDER BY created_ms, id");
    while (q.row()) {
      StoredRoom r;
      read_room(q, r);
      index[r.room.id] = out.rooms.size();
      out.rooms.push_back(std::move(r));
    }
  }
  {
    Stmt q(db_,
           "SELECT s.room, s.seat, s.player FROM seats s JOIN restoring k ON k.id = s.room "
           "ORDER BY s.room, s.seat");
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      auto& seats = out.rooms[it->second].seats;
      const auto seat = static_cast<std::size_t>(q.i64(1));
      if (seats.size() <= seat) seats.resize(seat + 1);
      if (!q.is_null(2)) seats[seat] = q.text(2);
    }
  }
  {
    Stmt q(db_,
           "SELECT o.room, o.round, o.options, o.seed, o.outcome, o.rematch, o.salt, o.offer, "
           "o.departed FROM rounds o "
           "JOIN restoring k ON k.id = o.room ORDER BY o.room, o.round");
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      out.rooms[it->second].rounds.push_back(read_round(q, 1));
    }
  }
  {
    // A move is in `moves` (its round ended, or the log was pruned under it, or a server before
    // schema 3 wrote it), in the log, or in both: UNION keeps one of two identical rows. Two rows
    // for one move that differ are a gap below, and the room is quarantined.
    Stmt q(db_,
           "SELECT room, round, idx, seat, move, version, at_ms, clock_ms FROM ("
           "SELECT m.room, m.round, m.idx, m.seat, m.move, m.version, m.at_ms, m.clock_ms FROM "
           "moves m "
           "JOIN restoring k ON k.id = m.room "
           "UNION SELECT l.room, l.round, l.idx, l.seat, l.move, l.version, l.at_ms, l.clock_ms "
           "FROM move_log l "
           "JOIN restoring k ON k.id = l.room) ORDER BY room, round, idx");
    std::map<std::string, LiveRound> in_play;
    while (q.row()) {
      const auto room_id = q.text(0);
      const auto it = index.find(room_id);
      if (it == index.end()) continue;
      auto& room = out.rooms[it->second];
      const auto round = read_move(q, 1, room.rounds, room.version);
      if (round != 0 && round == room.rounds.size()) {
        const auto& taken = room.rounds.back();
        auto& live = in_play[room_id];
        live.round = static_cast<int>(round);
        live.moves.push_back(MoveRecord{room_id, static_cast<int>(round),
                                        static_cast<int>(q.i64(2)), static_cast<int>(q.i64(3)),
                                        taken.moves.back().second, q.i64(5), q.i64(6),
                                        taken.clocks.back()});
      }
    }
    if (!q.ok()) return std::unexpected(std::string("reading moves: ") + sqlite3_errmsg(db_));
    for (auto& [id, live] : in_play)
      if (out.rooms[index[id]].rounds.back().outcome.is_null()) live_.emplace(id, std::move(live));
  }
  {
    const std::string sql =
        "SELECT " + kChatColumns + " FROM chat WHERE room IN restoring ORDER BY room, seq";
    Stmt q(db_, sql.c_str());
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it != index.end()) out.rooms[it->second].chat.push_back(read_chat(q));
    }
    if (!q.ok()) return std::unexpected(std::string("reading chat: ") + sqlite3_errmsg(db_));
  }
  return out;
}

std::expected<std::optional<StoredRoom>, std::string> SqliteStore::load_room(
    const std::string& id, std::int64_t ended_since_ms) {
  std::lock_guard lock(reader_mutex_);
  // One read transaction: the room's rows as of one commit.
  if (!exec(reader_, "BEGIN"))
    return std::unexpected(std::string("reading a room: ") + sqlite3_errmsg(reader_));
  struct End {
    sqlite3* db;
    ~End() { exec(db, "COMMIT"); }
  } end{reader_};
  StoredRoom r;
  {
    // The rooms load() rebuilds: in play (or waiting), or their last round ended since then.
    Stmt q(
        reader_,
        "SELECT id, game, options, seed, private, spectator_delay, created_ms, version, creator, "
        "clock, rated, chat "
        "FROM rooms r "
        "WHERE id = ?1 AND imported = 0 AND (finished = 0 OR (finished = 1 AND EXISTS ("
        "SELECT 1 FROM rounds o WHERE o.room = r.id AND o.finished_ms >= ?2)))");
    q.bind(1, id).bind(2, ended_since_ms);
    if (!q.row()) {
      if (!q.ok())
        return std::unexpected(std::string("reading a room: ") + sqlite3_errmsg(reader_));
      return std::optional<StoredRoom>{};
    }
    read_room(q, r);
  }
  {
    Stmt q(reader_, "SELECT seat, player FROM seats WHERE room = ?1 ORDER BY seat");
    q.bind(1, id);
    while (q.row()) {
      const auto seat = static_cast<std::size_t>(q.i64(0));
      if (r.seats.size() <= seat) r.seats.resize(seat + 1);
      if (!q.is_null(1)) r.seats[seat] = q.text(1);
    }
    if (!q.ok())
      return std::unexpected(std::string("reading a room's seats: ") + sqlite3_errmsg(reader_));
  }
  {
    Stmt q(reader_,
           "SELECT round, options, seed, outcome, rematch, salt, offer, departed FROM rounds WHERE "
           "room = ?1 "
           "ORDER BY round");
    q.bind(1, id);
    while (q.row()) {
      r.rounds.push_back(read_round(q, 0));
    }
    if (!q.ok())
      return std::unexpected(std::string("reading a room's rounds: ") + sqlite3_errmsg(reader_));
  }
  // As in load(): a move is in `moves`, in the log, or in both. The log has no index by room,
  // but pruning keeps it to its last few thousand rows.
  LiveRound live;
  {
    Stmt q(reader_,
           "SELECT round, idx, seat, move, version, at_ms, clock_ms FROM ("
           "SELECT round, idx, seat, move, version, at_ms, clock_ms FROM moves WHERE room = ?1 "
           "UNION SELECT round, idx, seat, move, version, at_ms, clock_ms FROM move_log "
           "WHERE room = ?1) "
           "ORDER BY round, idx");
    q.bind(1, id);
    while (q.row()) {
      const auto round = read_move(q, 0, r.rounds, r.version);
      if (round != 0 && round == r.rounds.size())
        live.moves.push_back(MoveRecord{id, static_cast<int>(round), static_cast<int>(q.i64(1)),
                                        static_cast<int>(q.i64(2)),
                                        r.rounds.back().moves.back().second, q.i64(4), q.i64(5),
                                        r.rounds.back().clocks.back()});
    }
    if (!q.ok())
      return std::unexpected(std::string("reading a room's moves: ") + sqlite3_errmsg(reader_));
  }
  {
    const std::string sql = "SELECT " + kChatColumns + " FROM chat WHERE room = ?1 ORDER BY seq";
    Stmt q(reader_, sql.c_str());
    q.bind(1, id);
    while (q.row()) r.chat.push_back(read_chat(q));
    if (!q.ok())
      return std::unexpected(std::string("reading a room's chat: ") + sqlite3_errmsg(reader_));
  }
  // The round in play goes on from its moves, as after load().
  live_.erase(id);
  if (!r.rounds.empty() && r.rounds.back().outcome.is_null() && !live.moves.empty()) {
    live.round = static_cast<int>(r.rounds.size());
    live_.emplace(id, std::move(live));
  }
  return std::optional<StoredRoom>(std::move(r));
}

void SqliteStore::unload_room(const std::string& id) { live_.erase(id); }

bool SqliteStore::room_exists(const std::string& room) {
  std::lock_guard lock(reader_mutex_);
  Stmt q(reader_, "SELECT 1 FROM rooms WHERE id = ?1");
  q.bind(1, room);
  // A read that fails says nothing; the caller's id has 96 random bits anyway.
  return q.row();
}

}  // namespace plateau::server
