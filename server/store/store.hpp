// The durable store's interface. Every write calls `done` once it is durable (or failed), on the
// thread that owns the rooms, in the order the writes were made. Rooms broadcast a change only
// after its write is done, so nothing acknowledged is ever lost.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plateau::server {

using Done = std::function<void(bool ok)>;

struct RoomRecord {
  std::string id;
  std::string game;
  nlohmann::json options;  // normalized options of round 1
  std::uint64_t seed = 0;  // seed of round 1
  bool is_private = false;
  int spectator_delay = 0;
  std::int64_t created_ms = 0;
  std::string salt;  // of round 1's seed commitment (fairness.hpp)
  // The player who created it, against --max-rooms-per-player across restarts; "" when not
  // known (rooms stored before schema 6, imported games).
  std::string creator{};
  nlohmann::json clock{};  // the time control (protocol/time_control.hpp); null for none
  bool rated = false;      // its games count for the players' ratings (accounts only)
  bool chat = true;        // its players and spectators may chat
};

// One message of a table's chat (issue 46): the players' chat, or the spectators'.
struct ChatRecord {
  std::string room;
  int seq = 0;      // 1, 2, ... within the room
  int round = 1;    // the round in play (or last played) when it was said
  int at_move = 0;  // the moves of that round made by then (where a replay shows it)
  bool spectators = false;
  std::string player;
  std::string name;
  std::string text;    // or
  std::string phrase;  // this (protocol::kChatPhrases)
  std::int64_t at_ms = 0;
  bool deleted = false;      // by the host: kept, shown as deleted, its words gone
  std::int64_t version = 0;  // the room's version that showed it (or its deletion)
};

struct MoveRecord {
  std::string room;
  int round = 1;
  int index = 0;  // 0-based within the round
  int seat = 0;
  std::string move;
  std::int64_t version = 0;
  std::int64_t at_ms = 0;
  std::optional<std::int64_t> clock_ms{};  // a timed table's: what the mover has left after it
};

struct RoundRecord {
  int round = 1;
  nlohmann::json options;
  std::uint64_t seed = 0;
  std::string salt;  // empty for rounds stored before commitments (schema 5)
  std::vector<std::pair<int, std::string>> moves;  // (seat, move) in order
  nlohmann::json outcome;                          // null until finished
  std::uint32_t rematch = 0;  // once finished: seats asking for the next round, a bit each
  // While it is played: the draw offered, {"kind":"draw","by":seat,"at":moves}, or null. It
  // stands only while the round has `at` moves (the next move declines it).
  nlohmann::json offer;
  // While it is played: who left it, in order (a game of three or four seats going on without
  // them; protocol/ending.hpp's Departure list), or null.
  nlohmann::json departed{};
  // A timed table's: per move, what its mover had left after it; and when the last move came.
  std::vector<std::optional<std::int64_t>> clocks{};
  std::int64_t last_move_ms = 0;
};

struct StoredRoom {
  RoomRecord room;
  std::vector<std::optional<std::string>> seats;  // player id per seat
  std::vector<RoundRecord> rounds;
  std::int64_t version = 0;        // the last durable version: every version shown was stored first
  std::vector<ChatRecord> chat{};  // the table's chat, in order
};

struct StoredPlayer {
  std::string id;
  std::string token_hash;
  std::string name;
  bool seated = true;  // a seat of theirs is stored (in play or in history): never forgotten
};

class Store {
 public:
  virtual ~Store() = default;
  virtual void put_player(const StoredPlayer& player, Done done) = 0;
  virtual void create_room(const RoomRecord& room, Done done) = 0;
  virtual void put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                        std::int64_t version, Done done) = 0;
  virtual void append_move(const MoveRecord& move, Done done) = 0;
  virtual void start_round(const std::string& room, int round, const nlohmann::json& options,
                           std::uint64_t seed, const std::string& salt, std::int64_t version,
                           Done done) = 0;
  virtual void finish_round(const std::string& room, int round, const nlohmann::json& outcome,
                            std::int64_t at_ms, Done done) = 0;
  // A change to the table that is neither a move nor a seat (a player shown connected or away,
  // a rematch asked for, a draw offered, a player leaving): the round's rematch requests, a bit
  // per seat, its offer (RoundRecord::offer), who left it (RoundRecord::departed), and the
  // room's version, so that a restarted room starts above every version it showed.
  virtual void put_table(const std::string& room, int round, std::uint32_t rematch,
                         const nlohmann::json& offer, const nlohmann::json& departed,
                         std::int64_t version, Done done) = 0;
  // A takeback agreed: the round in play keeps its first `keep` moves (the others are gone from
  // the log and the history), its offer is cleared, and the room is at `version`.
  virtual void take_back(const std::string& room, int round, int keep, std::int64_t version,
                         Done done) = 0;
  // Closed by the host: kept for history, never rebuilt at start.
  virtual void close_room(const std::string& room, Done done) = 0;
  // Whether a room of this id was ever stored (a quick read, on the calling thread): a new id
  // must be new to the store, not only to the rooms in memory.
  virtual bool room_exists(const std::string& /*room*/) { return false; }

  // One room as a start would rebuild it (in play or waiting, or its last round ended at or
  // after `ended_since_ms`), read at once on the rooms' thread: a room unloaded from memory
  // coming back. nullopt: the store holds no such room to rebuild (none, closed, imported, or
  // finished long ago). Call only once every write of that room is done.
  virtual std::expected<std::optional<StoredRoom>, std::string> load_room(
      const std::string& id, std::int64_t ended_since_ms) = 0;
  // The room left memory: what the store keeps of it for its writes (its round in play) may go;
  // load_room brings it back.
  virtual void unload_room(const std::string& id) = 0;
  // Deletes these players' rows, except those of players with a stored seat (in play or history).
  virtual void forget_players(const std::vector<std::string>& ids, Done done) = 0;
  // A chat message, with the room's version that shows it.
  virtual void append_chat(const ChatRecord& /*message*/, Done done) { done(true); }
  // The host deleted message `seq`: its words go, the room is at `version`.
  virtual void delete_chat(const std::string& /*room*/, int /*seq*/, std::int64_t /*version*/,
                           Done done) {
    done(true);
  }
};

// A store that keeps nothing and answers at once: for tests of rooms and for --data none. Tests
// derive from it to change one write (net_test.cpp's throwing store).
class NullStore : public Store {
 public:
  void put_player(const StoredPlayer&, Done done) override { done(true); }
  void create_room(const RoomRecord&, Done done) override { done(true); }
  void put_seat(const std::string&, int, const std::optional<std::string>&, std::int64_t,
                Done done) override {
    done(true);
  }
  void append_move(const MoveRecord&, Done done) override { done(true); }
  void start_round(const std::string&, int, const nlohmann::json&, std::uint64_t,
                   const std::string&, std::int64_t, Done done) override {
    done(true);
  }
  void finish_round(const std::string&, int, const nlohmann::json&, std::int64_t,
                    Done done) override {
    done(true);
  }
  void put_table(const std::string&, int, std::uint32_t, const nlohmann::json&,
                 const nlohmann::json&, std::int64_t, Done done) override {
    done(true);
  }
  void take_back(const std::string&, int, int, std::int64_t, Done done) override { done(true); }
  void close_room(const std::string&, Done done) override { done(true); }
  std::expected<std::optional<StoredRoom>, std::string> load_room(const std::string&,
                                                                  std::int64_t) override {
    return std::nullopt;
  }
  void unload_room(const std::string&) override {}
  void forget_players(const std::vector<std::string>&, Done done) override { done(true); }
};

}  // namespace plateau::server
