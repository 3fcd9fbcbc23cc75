// Fakes for driving rooms and the lobby without sockets: a client that records every frame it
// is sent and keeps a client's-eye copy of each room's state, and a store whose writes complete
// only when the test says so.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>

#include "protocol/view.hpp"
#include "server/rooms/background.hpp"
#include "server/rooms/lobby.hpp"

namespace plateau::server::testing {

// Jobs and posts wait in queues until drain(), which runs them all, in place, on the test's
// thread (the loop here), until none is left.
class QueuedBackground final : public Background {
 public:
  void run(Work work, Failed failed) override {
    jobs_.push_back({std::move(work), std::move(failed)});
  }
  void post(OnLoop then) override { posts_.push_back(std::move(then)); }
  std::size_t pending() const override { return jobs_.size(); }
  // Returns the jobs run.
  int drain(int at_most = 10'000) {
    int ran = 0;
    while ((!jobs_.empty() || !posts_.empty()) && at_most-- > 0) {
      if (!posts_.empty()) {
        auto then = std::move(posts_.front());
        posts_.pop_front();
        then();
        continue;
      }
      auto [work, failed] = std::move(jobs_.front());
      jobs_.pop_front();
      ++ran;
      OnLoop then;
      try {
        then = work();
      } catch (const std::exception& e) {
        failed(e.what());
        continue;
      }
      if (then) then();
    }
    return ran;
  }

 private:
  std::deque<std::pair<Work, Failed>> jobs_;
  std::deque<OnLoop> posts_;
};

class FakeConnection final : public Connection {
 public:
  std::string addr = "192.0.2.1";  // every fake comes from one address unless a test says
  std::string address() const override { return addr; }
  long lag = 0;  // what lag_ms() says: the network's delay, as a real connection measures it
  long lag_ms() const override { return lag; }
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
  std::vector<std::size_t> patch_sizes;             // the bytes of each patch frame, in order
  std::vector<nlohmann::json> patches_before_full;  // should stay empty: a joiner gets a full first
  std::map<std::string, nlohmann::json> states;
  std::map<std::string, std::int64_t> versions;
};

// Writes wait until release(); fail_next makes the next released write fail. It keeps what a
// real store would, written as each write is made, so that load_room gives a room back.
class ManualStore final : public Store {
 public:
  bool automatic = true;
  std::deque<Done> pending;
  int writes = 0;
  std::vector<MoveRecord> moves;
  std::vector<std::pair<std::uint32_t, std::int64_t>> tables;  // put_table's (rematch, version)
  struct Kept {
    StoredRoom room;
    int finished = 0;  // 0 in play or waiting, 1 its last round ended, 2 closed
    std::int64_t ended_ms = 0;
  };
  std::map<std::string, Kept> rooms;
  std::map<std::string, StoredPlayer> players;
  std::vector<std::string> unloaded;  // unload_room's ids, in order
  int loads = 0;                      // load_room calls that found a room
  int player_writes = 0;
  std::vector<ChatRecord> chat;  // append_chat's messages, as deleted later

  void append_chat(const ChatRecord& m, Done done) override {
    chat.push_back(m);
    complete(std::move(done));
  }
  void delete_chat(const std::string& room, int seq, std::int64_t, Done done) override {
    for (auto& m : chat)
      if (m.room == room && m.seq == seq) m.deleted = true, m.text.clear();
    complete(std::move(done));
  }

  void complete(Done done) {
    ++writes;
    if (automatic)
      done(true);
    else
      pending.push_back(std::move(done));
  }
  void release_all(bool ok = true) {
    while (!pending.empty()) {
      auto d = std::move(pending.front());
      pending.pop_front();
      d(ok);
    }
  }
  void put_player(const StoredPlayer& p, Done d) override {
    players[p.id] = p;
    ++player_writes;
    complete(std::move(d));
  }
  void create_room(const RoomRecord& r, Done d) override {
    rooms[r.id] = Kept{
        StoredRoom{r, {}, {RoundRecord{1, r.options, r.seed, r.salt, {}, nullptr, 0, nullptr}}, 0},
        0, 0};
    complete(std::move(d));
  }
  void put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                std::int64_t version, Done d) override {
    if (auto* r = find(room)) {
      if (r->seats.size() <= static_cast<std::size_t>(seat))
        r->seats.resize(static_cast<std::size_t>(seat) + 1);
      r->seats[static_cast<std::size_t>(seat)] = player;
      r->version = version;
    }
    complete(std::move(d));
  }
  void append_move(const MoveRecord& m, Done d) override {
    moves.push_back(m);
    if (auto* r = find(m.room)) {
      auto& round = r->rounds[static_cast<std::size_t>(m.round) - 1];
      round.moves.emplace_back(m.seat, m.move);
      round.clocks.push_back(m.clock_ms);
      round.last_move_ms = m.at_ms;
      r->version = m.version;
    }
    complete(std::move(d));
  }
  void start_round(const std::string& room, int round, const nlohmann::json& options,
                   std::uint64_t seed, const std::string& salt, std::int64_t version,
                   Done d) override {
    if (auto* r = find(room)) {
      r->rounds.push_back(RoundRecord{round, options, seed, salt, {}, nullptr, 0, nullptr});
      r->version = version;
      rooms[room].finished = 0;
    }
    complete(std::move(d));
  }
  void finish_round(const std::string& room, int round, const nlohmann::json& outcome,
                    std::int64_t at_ms, Done d) override {
    if (auto* r = find(room)) {
      r->rounds[static_cast<std::size_t>(round) - 1].outcome = outcome;
      rooms[room].finished = 1;
      rooms[room].ended_ms = at_ms;
    }
    complete(std::move(d));
  }
  void put_table(const std::string& room, int round, std::uint32_t rematch,
                 const nlohmann::json& offer, const nlohmann::json& departed, std::int64_t version,
                 Done d) override {
    tables.emplace_back(rematch, version);
    if (auto* r = find(room)) {
      r->rounds[static_cast<std::size_t>(round) - 1].rematch = rematch;
      r->rounds[static_cast<std::size_t>(round) - 1].offer = offer;
      r->rounds[static_cast<std::size_t>(round) - 1].departed = departed;
      r->version = version;
    }
    complete(std::move(d));
  }
  void take_back(const std::string& room, int round, int keep, std::int64_t version,
                 Done d) override {
    if (auto* r = find(room)) {
      auto& kept = r->rounds[static_cast<std::size_t>(round) - 1];
      kept.moves.resize(static_cast<std::size_t>(keep));
      kept.clocks.resize(static_cast<std::size_t>(keep));
      kept.offer = nullptr;
      r->version = version;
    }
    complete(std::move(d));
  }
  void close_room(const std::string& room, Done d) override {
    // Closed in the store once the write lands (at once when automatic), as a real store.
    complete([this, room, d = std::move(d)](bool ok) {
      if (ok && rooms.contains(room)) rooms[room].finished = 2;
      d(ok);
    });
  }
  std::expected<std::optional<StoredRoom>, std::string> load_room(
      const std::string& id, std::int64_t ended_since_ms) override {
    const auto it = rooms.find(id);
    if (it == rooms.end() || it->second.finished == 2 ||
        (it->second.finished == 1 && it->second.ended_ms < ended_since_ms))
      return std::nullopt;
    ++loads;
    return it->second.room;
  }
  void unload_room(const std::string& id) override { unloaded.push_back(id); }
  void forget_players(const std::vector<std::string>& ids, Done d) override {
    for (const auto& id : ids) {
      const bool seated = std::ranges::any_of(rooms, [&](const auto& r) {
        return std::ranges::any_of(r.second.room.seats, [&](const auto& s) { return s == id; });
      });
      if (!seated) players.erase(id);
    }
    complete(std::move(d));
  }

 private:
  StoredRoom* find(const std::string& id) {
    const auto it = rooms.find(id);
    return it == rooms.end() ? nullptr : &it->second.room;
  }
};

}  // namespace plateau::server::testing
