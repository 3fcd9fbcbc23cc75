// The PostgreSQL store's reads that rebuild rooms: every room to recover at start (load) and one
// room coming back into memory (load_room), both on the readers' connection while the writer
// writes, each inside one read-only snapshot. Both take up the count of moves of a round in play
// where the writes left it.
#include <algorithm>
#include <map>

#include "server/store/pg_store.hpp"
#include "server/store/store_rows.hpp"

namespace plateau::server {

using pg::Stmt;
using pg::Transaction;

using rows::kChatColumns;
using rows::kRoomColumns;
using rows::kRoundColumns;
using rows::read_chat;
using rows::read_move;
using rows::read_room;
using rows::read_round;

namespace {

// Every read of a room's rows sees one commit: no write lands between its SELECTs.
constexpr const char* kSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

// The rooms load() rebuilds, as a CTE each of its reads starts with ($1: ended_since_ms): those
// in play, and those whose last round ended since then (their players may still ask for a
// rematch). Not closed or imported ones.
const std::string kRestoring =
    "WITH restoring AS (SELECT id FROM rooms WHERE finished = 0 "
    "UNION SELECT o.room FROM rounds o JOIN rooms r ON r.id = o.room "
    "WHERE o.finished_ms >= $1 AND r.finished = 1 AND r.imported = 0) ";

}  // namespace

std::expected<Loaded, std::string> PgStore::load(std::int64_t ended_since_ms) {
  std::lock_guard lock(reader_mutex_);
  Transaction t(reader_, kSnapshot);
  if (!t.open()) return std::unexpected("reading the rooms to rebuild: " + reader_.error());
  Loaded out;
  {
    Stmt q(reader_,
           "SELECT id, token_hash, name, id IN (SELECT player FROM seats WHERE player IS NOT NULL) "
           "FROM players");
    while (q.row()) out.players.push_back({q.text(0), q.text(1), q.text(2), q.i64(3) != 0});
    if (!q.ok()) return std::unexpected("reading players: " + q.error());
  }
  std::map<std::string, std::size_t> index;
  {
    // Ordered by bytes (COLLATE "C"), as SQLite orders them, whatever the database's collation.
    Stmt q(reader_, kRestoring + "SELECT " + kRoomColumns +
                        " FROM rooms WHERE id IN (SELECT id FROM restoring) "
                        "ORDER BY created_ms, id COLLATE \"C\"");
    q.bind(1, ended_since_ms);
    while (q.row()) {
      StoredRoom r;
      read_room(q, r);
      index[r.room.id] = out.rooms.size();
      out.rooms.push_back(std::move(r));
    }
    if (!q.ok()) return std::unexpected("reading rooms: " + q.error());
  }
  {
    Stmt q(reader_, kRestoring +
                        "SELECT s.room, s.seat, s.player FROM seats s "
                        "JOIN restoring k ON k.id = s.room ORDER BY s.room, s.seat");
    q.bind(1, ended_since_ms);
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      auto& seats = out.rooms[it->second].seats;
      const auto seat = static_cast<std::size_t>(q.i64(1));
      if (seats.size() <= seat) seats.resize(seat + 1);
      if (!q.is_null(2)) seats[seat] = q.text(2);
    }
    if (!q.ok()) return std::unexpected("reading seats: " + q.error());
  }
  {
    Stmt q(reader_, kRestoring +
                        "SELECT o.room, o.round, o.options, o.seed, o.outcome, o.rematch, o.salt, "
                        "o.offer, o.departed FROM rounds o "
                        "JOIN restoring k ON k.id = o.room ORDER BY o.room, o.round");
    q.bind(1, ended_since_ms);
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it == index.end()) continue;
      out.rooms[it->second].rounds.push_back(read_round(q, 1));
    }
    if (!q.ok()) return std::unexpected("reading rounds: " + q.error());
  }
  {
    // Every move is in `moves` (no move log here). A gap in a round's moves leaves the room's
    // rounds short, and replay quarantines it.
    Stmt q(reader_, kRestoring +
                        "SELECT m.room, m.round, m.idx, m.seat, m.move, m.version, m.at_ms, "
                        "m.clock_ms FROM moves m "
                        "JOIN restoring k ON k.id = m.room ORDER BY m.room, m.round, m.idx");
    q.bind(1, ended_since_ms);
    std::map<std::string, LiveRound> in_play;
    while (q.row()) {
      const auto room_id = q.text(0);
      const auto it = index.find(room_id);
      if (it == index.end()) continue;
      auto& room = out.rooms[it->second];
      const auto round = read_move(q, 1, room.rounds, room.version);
      if (round != 0 && round == room.rounds.size()) {
        auto& live = in_play[room_id];
        live.round = static_cast<int>(round);
        ++live.moves;
      }
    }
    if (!q.ok()) return std::unexpected("reading moves: " + q.error());
    for (const auto& [id, live] : in_play)
      if (out.rooms[index[id]].rounds.back().outcome.is_null()) live_.emplace(id, live);
  }
  {
    Stmt q(reader_, kRestoring + "SELECT " + kChatColumns +
                        " FROM chat WHERE room IN (SELECT id FROM restoring) ORDER BY room, seq");
    q.bind(1, ended_since_ms);
    while (q.row()) {
      const auto it = index.find(q.text(0));
      if (it != index.end()) out.rooms[it->second].chat.push_back(read_chat(q));
    }
    if (!q.ok()) return std::unexpected("reading chat: " + q.error());
  }
  t.commit();
  return out;
}

PgStore::RoomRead PgStore::room_rows(pg::Conn& db, const std::string& id,
                                     std::int64_t ended_since_ms) {
  Transaction t(db, kSnapshot);
  if (!t.open()) return std::unexpected("reading a room: " + db.error());
  RoomRows r;
  {
    // The rooms load() rebuilds: in play (or waiting), or their last round ended since then.
    Stmt q(db, "SELECT " + kRoomColumns +
                   " FROM rooms r "
                   "WHERE id = $1 AND imported = 0 AND (finished = 0 OR (finished = 1 AND "
                   "EXISTS (SELECT 1 FROM rounds o WHERE o.room = r.id AND o.finished_ms >= "
                   "$2)))");
    q.bind(1, id).bind(2, ended_since_ms);
    if (!q.row()) {
      if (!q.ok()) return std::unexpected("reading a room: " + q.error());
      return std::optional<RoomRows>{};
    }
    read_room(q, r.room);
  }
  {
    Stmt q(db, "SELECT seat, player FROM seats WHERE room = $1 ORDER BY seat");
    q.bind(1, id);
    while (q.row()) {
      const auto seat = static_cast<std::size_t>(q.i64(0));
      if (r.room.seats.size() <= seat) r.room.seats.resize(seat + 1);
      if (!q.is_null(1)) r.room.seats[seat] = q.text(1);
    }
    if (!q.ok()) return std::unexpected("reading a room's seats: " + q.error());
  }
  {
    Stmt q(db, "SELECT " + kRoundColumns + " FROM rounds WHERE room = $1 ORDER BY round");
    q.bind(1, id);
    while (q.row()) r.room.rounds.push_back(read_round(q, 0));
    if (!q.ok()) return std::unexpected("reading a room's rounds: " + q.error());
  }
  {
    Stmt q(db,
           "SELECT round, idx, seat, move, version, at_ms, clock_ms FROM moves WHERE room = $1 "
           "ORDER BY round, idx");
    q.bind(1, id);
    while (q.row()) {
      const auto round = read_move(q, 0, r.room.rounds, r.room.version);
      if (round != 0 && round == r.room.rounds.size()) ++r.live_moves;
    }
    if (!q.ok()) return std::unexpected("reading a room's moves: " + q.error());
  }
  {
    Stmt q(db, "SELECT " + kChatColumns + " FROM chat WHERE room = $1 ORDER BY seq");
    q.bind(1, id);
    while (q.row()) r.room.chat.push_back(read_chat(q));
    if (!q.ok()) return std::unexpected("reading a room's chat: " + q.error());
  }
  t.commit();
  return std::optional<RoomRows>(std::move(r));
}

std::expected<std::optional<StoredRoom>, std::string> PgStore::load_room(
    const std::string& id, std::int64_t ended_since_ms) {
  RoomRead read;
  if (auto pre = prefetched_.extract(id); pre && lease(id) == pre.mapped().epoch) {
    read = std::move(pre.mapped().rows);  // read just after its lease was taken: still current
  } else {
    std::lock_guard lock(reader_mutex_);
    read = room_rows(reader_, id, ended_since_ms);
  }
  if (!read) return std::unexpected(read.error());
  live_.erase(id);
  if (!*read) return std::optional<StoredRoom>{};
  auto& [r, moves] = **read;
  // The round in play goes on from its moves, as after load().
  if (!r.rounds.empty() && r.rounds.back().outcome.is_null() && moves > 0)
    live_.emplace(id, LiveRound{static_cast<int>(r.rounds.size()), moves});
  return std::optional<StoredRoom>(std::move(r));
}

void PgStore::unload_room(const std::string& id) { live_.erase(id); }

bool PgStore::room_exists(const std::string& room) {
  std::lock_guard lock(reader_mutex_);
  Stmt q(reader_, "SELECT 1 FROM rooms WHERE id = $1");
  q.bind(1, room);
  // A read that fails says nothing; the caller's id has 96 random bits anyway.
  return q.row();
}

}  // namespace plateau::server
