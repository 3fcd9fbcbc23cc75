// How rooms reach connections: a small interface, so rooms and the lobby are plain classes
// that tests drive with fakes (DESIGN.md §3).
#pragma once

#include <memory>
#include <optional>
#include <string>

namespace plateau::server {

// One encoded frame, shared by every connection of an audience (encoded once per audience).
using Frame = std::shared_ptr<const std::string>;

inline Frame make_frame(std::string text) {
  return std::make_shared<const std::string>(std::move(text));
}

// A player as the server knows them (from hello).
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
  // The player behind this connection, once it said hello (the lobby sets it).
  const Player* player() const { return player_ ? &*player_ : nullptr; }
  void set_player(Player p) { player_ = std::move(p); }

 private:
  std::optional<Player> player_;
};

}  // namespace plateau::server
