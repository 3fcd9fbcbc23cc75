// What both stores (SQLite and PostgreSQL) read back the same way: a row of `rooms`, `rounds` or
// `chat` as their reads select it, read through either store's statement type (sqlite::Stmt,
// pg::Stmt: the same i64/text/is_null calls), and how a 64-bit seed is kept in a signed column.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/store/store.hpp"

namespace plateau::server::rows {

// Database integers are signed 64-bit; seeds use all 64 bits, stored as the same bit pattern.
inline std::int64_t to_db(std::uint64_t v) {
  std::int64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}
inline std::uint64_t from_db(std::int64_t v) {
  std::uint64_t out;
  std::memcpy(&out, &v, sizeof out);
  return out;
}

inline const std::string kRoomColumns =
    "id, game, options, seed, private, spectator_delay, created_ms, version, creator, clock, "
    "rated, chat";
inline const std::string kChatColumns =
    "room, seq, round, at_move, spectators, player, name, text, phrase, at_ms, deleted";
inline const std::string kRoundColumns =
    "round, options, seed, outcome, rematch, salt, offer, departed";

// A row of `rooms` selected as kRoomColumns.
template <typename Row>
void read_room(Row& q, StoredRoom& r) {
  using nlohmann::json;
  r.room.id = q.text(0);
  r.room.game = q.text(1);
  r.room.options = json::parse(q.text(2), nullptr, false);
  r.room.seed = from_db(q.i64(3));
  r.room.is_private = q.i64(4) != 0;
  r.room.spectator_delay = static_cast<int>(q.i64(5));
  r.room.created_ms = q.i64(6);
  r.version = q.i64(7);
  r.room.creator = q.text(8);  // "" for NULL
  if (!q.is_null(9)) r.room.clock = json::parse(q.text(9), nullptr, false);
  r.room.rated = q.i64(10) != 0;
  r.room.chat = q.i64(11) != 0;
}

// A row of `chat` selected as kChatColumns.
template <typename Row>
ChatRecord read_chat(Row& q) {
  ChatRecord m;
  m.room = q.text(0);
  m.seq = static_cast<int>(q.i64(1));
  m.round = static_cast<int>(q.i64(2));
  m.at_move = static_cast<int>(q.i64(3));
  m.spectators = q.i64(4) != 0;
  m.player = q.text(5);
  m.name = q.text(6);
  m.text = q.text(7);
  m.phrase = q.text(8);
  m.at_ms = q.i64(9);
  m.deleted = q.i64(10) != 0;
  return m;
}

// The times of a round's move just read: when it came, and its mover's clock after it.
inline void add_times(RoundRecord& round, std::int64_t at_ms,
                      std::optional<std::int64_t> clock_ms) {
  round.clocks.push_back(clock_ms);
  round.last_move_ms = at_ms;
}

// A row of `moves` selected as round, idx, seat, move, version, at_ms, clock_ms from column
// `first` on, into its round of `rounds`, raising `version` to the move's. Returns the round it
// joined (1-based), or 0: a round the room does not have, or a gap in the round's moves (the
// round's outcome then says so, and replay quarantines the room rather than change it).
template <typename Row>
std::size_t read_move(Row& q, int first, std::vector<RoundRecord>& rounds, std::int64_t& version) {
  version = std::max(version, q.i64(first + 4));
  const auto round = static_cast<std::size_t>(q.i64(first));
  if (round == 0 || round > rounds.size()) return 0;
  auto& r = rounds[round - 1];
  if (static_cast<std::int64_t>(r.moves.size()) != q.i64(first + 1)) {
    r.outcome = nlohmann::json("gap in the move log");
    return 0;
  }
  r.moves.emplace_back(static_cast<int>(q.i64(first + 2)), q.text(first + 3));
  add_times(r, q.i64(first + 5),
            q.is_null(first + 6) ? std::nullopt : std::optional(q.i64(first + 6)));
  return round;
}

// A row of `rounds` selected as kRoundColumns, from column `first` on.
template <typename Row>
RoundRecord read_round(Row& q, int first) {
  using nlohmann::json;
  RoundRecord round;
  round.round = static_cast<int>(q.i64(first));
  round.options = json::parse(q.text(first + 1), nullptr, false);
  round.seed = from_db(q.i64(first + 2));
  round.outcome =
      q.is_null(first + 3) ? json(nullptr) : json::parse(q.text(first + 3), nullptr, false);
  round.rematch = static_cast<std::uint32_t>(q.i64(first + 4));
  if (!q.is_null(first + 5)) round.salt = q.text(first + 5);
  if (!q.is_null(first + 6)) round.offer = json::parse(q.text(first + 6), nullptr, false);
  if (!q.is_null(first + 7)) round.departed = json::parse(q.text(first + 7), nullptr, false);
  return round;
}

}  // namespace plateau::server::rows
