// What the tests of a room's parts (table, match, views, outbox) share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/rooms/participant.hpp"

namespace plateau::server::testing {

// A connection that records the text of every frame it is sent.
class Recorder final : public Participant {
 public:
  explicit Recorder(std::string id = "p", std::string name = "P") : me_{std::move(id), std::move(name)} {}
  void send(const Frame& frame) override { frames.push_back(*frame); }
  const Player* player() const override { return &me_; }
  const Player& me() const { return me_; }
  std::vector<std::string> frames;

 private:
  Player me_;
};

inline std::shared_ptr<Recorder> recorder(std::string id = "p", std::string name = "P") {
  return std::make_shared<Recorder>(std::move(id), std::move(name));
}

inline Frame frame(std::string text) { return make_frame(std::move(text)); }

}  // namespace plateau::server::testing
