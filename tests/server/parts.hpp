// What the tests of a room's parts (table, match, views, outbox) share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/rooms/connection.hpp"

namespace plateau::server::testing {

// A connection that records the text of every frame it is sent.
class Recorder final : public Connection {
 public:
  explicit Recorder(std::string id = "p", std::string name = "P") {
    set_player({std::move(id), std::move(name)});
  }
  void send(const Frame& frame) override { frames.push_back(*frame); }
  std::string address() const override { return "192.0.2.1"; }
  const Player& me() const { return *player(); }
  std::vector<std::string> frames;
};

inline std::shared_ptr<Recorder> recorder(std::string id = "p", std::string name = "P") {
  return std::make_shared<Recorder>(std::move(id), std::move(name));
}

inline Frame frame(std::string text) { return make_frame(std::move(text)); }

}  // namespace plateau::server::testing
