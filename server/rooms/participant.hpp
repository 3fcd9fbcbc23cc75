// How rooms reach connections: a small interface, so rooms and the lobby are plain classes
// that tests drive with fakes (DESIGN.md §3).
#pragma once

#include <memory>
#include <string>

namespace plateau::server {

// One encoded frame, shared by every connection of an audience (encoded once per audience).
using Frame = std::shared_ptr<const std::string>;

inline Frame make_frame(std::string text) { return std::make_shared<const std::string>(std::move(text)); }

// A player as the server knows them (from hello).
struct Player {
  std::string id;
  std::string name;
};

class Participant {
 public:
  virtual ~Participant() = default;
  // Queues a frame; never blocks. A connection that cannot keep up drops itself.
  virtual void send(const Frame& frame) = 0;
  // The player behind this connection, once it said hello.
  virtual const Player* player() const = 0;
};

}  // namespace plateau::server
