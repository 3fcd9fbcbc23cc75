// The lobby: players (hello, tokens), the directory of rooms (create, find, list, sweep), and the
// dispatch of every decoded request to its room. Like Room, a plain class with no Asio.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "participant.hpp"
#include "protocol/messages.hpp"
#include "room.hpp"
#include "secure_random.hpp"
#include "store.hpp"

namespace plateau::server {

// A connection as the lobby sees it: a Participant whose player the lobby sets on hello.
class Client : public Participant {
 public:
  const Player* player() const override { return player_ ? &*player_ : nullptr; }
  void set_player(Player p) { player_ = std::move(p); }

 private:
  std::optional<Player> player_;
};

// The most tables where the asking player sits that a `rooms` reply lists (its `mine`).
inline constexpr std::size_t kMineListed = 50;

struct LobbyLimits {
  std::size_t max_rooms = 10'000;
  Millis idle_room_ms = 30 * 60'000;  // an empty room unplayed this long is closed (kept in the store)
  Millis grace_ms = 0;                // see RoomSettings::grace_ms
  KeepLimits keep;                    // see RoomSettings::keep
};

struct Counters {
  std::uint64_t moves_accepted = 0;
  std::map<std::string, std::uint64_t> refused;  // by error code
};

class Lobby {
 public:
  // Where every id, token, seed and salt comes from. The server passes the OS CSPRNG (the
  // default); tests pass a counter, to name rooms and draw games they can predict.
  using Random = std::function<std::uint64_t()>;
  explicit Lobby(Store& store, Random random = secure_random_u64, LobbyLimits limits = {});
  Lobby(const Lobby&) = delete;  // rooms hold pointers into it
  Lobby& operator=(const Lobby&) = delete;

  void handle(const std::shared_ptr<Client>& c, protocol::Request req);
  // A decoding error, answered on the connection (and counted).
  void refuse(const std::shared_ptr<Client>& c, const protocol::Error& e);
  // The connection is gone: its seats show it away, its spectating ends.
  void closed(Client* c);
  void tick(Millis now);

  // Recovery: players and rooms read back from the store.
  void restore_player(const StoredPlayer& p);
  bool restore_room(const StoredRoom& r, std::string& why);

  std::shared_ptr<Room> find(const std::string& id) const;
  std::size_t room_count() const { return rooms_.size(); }
  const std::map<std::string, std::shared_ptr<Room>>& rooms() const { return rooms_; }
  const Counters& counters() const { return counters_; }
  Reaper& reaper() { return reaper_; }
  // Accepted moves, from their arrival to their patches going out (after the durable write).
  const LatencyHistogram& move_latency() const { return move_latency_; }
  // Sends a frame to every connection that said hello.
  void announce(const std::string& message);
  // Closes a room: its connections get an error and it leaves the lobby.
  bool close_room(const std::string& id);

  static std::string hash_token(std::string_view token);
  // A fresh room id: 96 random bits, since a private room's id is its only key; unused in
  // memory and in the store.
  std::string new_room_id();

 private:
  void hello(const std::shared_ptr<Client>& c, const protocol::Hello& h, const nlohmann::json& id);
  void create(const std::shared_ptr<Client>& c, const protocol::Create& req, const nlohmann::json& id);
  void list(const std::shared_ptr<Client>& c, const protocol::ListRooms& req, const nlohmann::json& id);
  std::string random_hex(int bytes);
  void reply_error(const std::shared_ptr<Client>& c, protocol::Code code, std::string message,
                   const nlohmann::json& id);

  Store& store_;
  Random random_;
  LobbyLimits limits_;
  Millis now_ = 0;
  std::string games_json_;  // the games list, serialized once for every welcome
  Reaper reaper_;  // before rooms_: it outlives every room that hands it things
  std::map<std::string, std::shared_ptr<Room>> rooms_;
  // Keyed by the token's SHA-256 as 32 bytes, not as 64 hex characters: one map entry per
  // player ever seen, so the key's own heap block would count against every connection.
  struct TokenKey {
    std::array<unsigned char, 32> bytes{};
    friend bool operator==(const TokenKey&, const TokenKey&) = default;
  };
  struct TokenKeyHash {
    std::size_t operator()(const TokenKey& k) const;  // SHA-256 bytes are uniform already
  };
  static TokenKey token_key(std::string_view hex_hash);
  std::unordered_map<TokenKey, Player, TokenKeyHash> players_by_token_hash_;
  std::unordered_map<std::string, std::string> name_by_player_;
  std::unordered_map<Client*, std::weak_ptr<Client>> clients_;
  std::unordered_map<Client*, std::set<std::string>> rooms_of_;
  Counters counters_;
  LatencyHistogram move_latency_;
  SpanTimer move_timer_{move_latency_};
};

}  // namespace plateau::server
