// How rooms reach connections: a small interface, so rooms and the lobby are plain classes
// that tests drive with fakes (DESIGN.md §3).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace plateau::server {

// One encoded frame, shared by every connection of an audience (encoded once per audience).
using Frame = std::shared_ptr<const std::string>;

inline Frame make_frame(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// A bot's player id is "bot-<level>-<hex>" (bot_seat.hpp makes them); a person's id is hex
// digits alone, so no person is ever taken for a bot. The level's name, for a bot's id.
inline std::optional<std::string_view> bot_level_in(std::string_view player_id) {
  if (!player_id.starts_with("bot-")) return std::nullopt;
  const auto level = player_id.substr(4);
  const auto end = level.find('-');
  if (end == std::string_view::npos) return std::nullopt;
  return level.substr(0, end);
}

// A player as the server knows them (from hello, or a bot the lobby seated).
struct Player {
  std::string id;
  std::string name;
};

// A connection as the rooms and the lobby see it, whatever carries it (a WebSocket in
// server/net, a fake in the tests): where frames go, who is behind it, where it comes from.
class Connection {
 public:
  virtual ~Connection() = default;
  // Queues a frame; never blocks. A connection that cannot keep up drops itself.
  virtual void send(const Frame& frame) = 0;
  // The peer's IP address as text (an IPv6 peer's /64): what per-address limits count by.
  virtual std::string address() const = 0;
  // The network's delay one way, in milliseconds, as measured (half a ping's round trip); 0
  // when not measured. A clock forgives a mover some of it (RoomSettings::max_lag_credit_ms).
  virtual long lag_ms() const { return 0; }
  // The server lets the connection go, its frames sent first: its client connects again and
  // comes back to its rooms (a cluster's room moved to another node). Nothing for a bot.
  virtual void end() {}
  // The player behind this connection, once it said hello (the lobby sets it).
  const Player* player() const { return player_ ? &*player_ : nullptr; }
  void set_player(Player p) { player_ = std::move(p); }
  // Signed out: a stranger until its next hello.
  void clear_player() { player_.reset(); }

 private:
  std::optional<Player> player_;
};

}  // namespace plateau::server
