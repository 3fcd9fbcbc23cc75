// Fakes for driving rooms and the lobby without sockets: a client that records every frame it
// is sent and keeps a client's-eye copy of each room's state, and a store whose writes complete
// only when the test says so.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "protocol/view.hpp"
#include "server/lobby.hpp"

namespace plateau::server::testing {

class FakeClient final : public Client {
 public:
  void send(const Frame& frame) override {
    auto msg = nlohmann::json::parse(*frame);
    received.push_back(msg);
    if (msg["type"] == "patch") patch_sizes.push_back(frame->size());
    // Keep the state a real client would: a full replaces, a patch applies on top.
    if (msg["type"] == "full") {
      states[msg["room"]] = msg["state"];
      versions[msg["room"]] = msg["version"];
    } else if (msg["type"] == "patch" && !states.contains(msg["room"])) {
      patches_before_full.push_back(msg);
    } else if (msg["type"] == "patch") {
      const std::string room = msg["room"];
      const std::int64_t v = msg["version"];
      if (v <= versions[room]) return;  // already in a full
      EXPECT_EQ(v, versions[room] + 1) << "a version was skipped";
      auto patched = protocol::apply_patch(states[room], msg["ops"]);
      EXPECT_TRUE(patched.has_value()) << msg.dump();
      if (patched) states[room] = *patched;
      versions[room] = v;
    }
  }
  // Frames of `type` received since the last take(); removes them from `received`.
  std::vector<nlohmann::json> take(const std::string& type) {
    std::vector<nlohmann::json> out;
    std::vector<nlohmann::json> rest;
    for (auto& m : received) (m["type"] == type ? out : rest).push_back(m);
    received = std::move(rest);
    return out;
  }
  nlohmann::json last(const std::string& type) const {
    for (auto it = received.rbegin(); it != received.rend(); ++it)
      if ((*it)["type"] == type) return *it;
    return nullptr;
  }

  std::vector<nlohmann::json> received;
  std::vector<std::size_t> patch_sizes;  // the bytes of each patch frame, in order
  std::vector<nlohmann::json> patches_before_full;  // should stay empty: a joiner gets a full first
  std::map<std::string, nlohmann::json> states;
  std::map<std::string, std::int64_t> versions;
};

// Writes wait until release(); fail_next makes the next released write fail.
class ManualStore final : public Store {
 public:
  bool automatic = true;
  std::deque<Done> pending;
  int writes = 0;
  std::vector<MoveRecord> moves;
  std::vector<std::pair<std::uint32_t, std::int64_t>> tables;  // put_table's (rematch, version)

  void complete(Done done) {
    ++writes;
    if (automatic) done(true);
    else pending.push_back(std::move(done));
  }
  void release_all(bool ok = true) {
    while (!pending.empty()) {
      auto d = std::move(pending.front());
      pending.pop_front();
      d(ok);
    }
  }
  void put_player(const StoredPlayer&, Done d) override { complete(std::move(d)); }
  void create_room(const RoomRecord&, Done d) override { complete(std::move(d)); }
  void put_seat(const std::string&, int, const std::optional<std::string>&, std::int64_t, Done d) override {
    complete(std::move(d));
  }
  void append_move(const MoveRecord& m, Done d) override {
    moves.push_back(m);
    complete(std::move(d));
  }
  void start_round(const std::string&, int, const nlohmann::json&, std::uint64_t, const std::string&, std::int64_t,
                   Done d) override {
    complete(std::move(d));
  }
  void finish_round(const std::string&, int, const nlohmann::json&, std::int64_t, Done d) override {
    complete(std::move(d));
  }
  void put_table(const std::string&, int, std::uint32_t rematch, std::int64_t version, Done d) override {
    tables.emplace_back(rematch, version);
    complete(std::move(d));
  }
  void close_room(const std::string&, Done d) override { complete(std::move(d)); }
};

}  // namespace plateau::server::testing
