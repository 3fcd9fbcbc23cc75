// A tournament's player over real sockets (tournament_test.cpp, nodes_test.cpp): connects
// (again after a kill), registers, and plays each table it is told of with random legal moves;
// and the HTTP reads of an event.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#include "client_seat.hpp"
#include "http_client.hpp"

namespace plateau::testing {

// One player: connects (again after a restart), registers, and plays each table it is told of.
class Entrant {
 public:
  // In round `hold` and later, at most two moves each until `open`: the test kills the server
  // with every table of that round started and none finished.
  Entrant(std::string name, std::string tournament, std::atomic<unsigned short>& port,
          std::uint64_t seed, int hold, const std::atomic<bool>& open)
      : name_(std::move(name)),
        tournament_(std::move(tournament)),
        port_(port),
        rng_(seed),
        hold_(hold),
        open_(open) {
    thread_ = std::thread([this] { run(); });
  }
  ~Entrant() {
    stop_ = true;
    thread_.join();
  }
  bool registered() const { return registered_; }
  int moves() const { return moves_; }
  std::vector<std::string> errors() {
    std::lock_guard lock(mutex_);
    return errors_;
  }

 private:
  void run() {
    const auto deadline = std::chrono::steady_clock::now() + 300s;
    while (!stop_ && std::chrono::steady_clock::now() < deadline) {
      WsClient ws;
      if (!ws.connect("127.0.0.1", port_.load(), 2s).empty()) {
        std::this_thread::sleep_for(100ms);
        continue;
      }
      json hello{{"type", "hello"}, {"name", name_}};
      if (!token_.empty()) hello["token"] = token_;
      ws.send(hello);
      const auto welcome = ws.recv_type("welcome", 5s);
      if (!welcome) continue;
      token_ = (*welcome)["token"];
      ws.send({{"type", "tournament"}, {"action", "register"}, {"tournament", tournament_}});
      while (!stop_ && !ws.closed()) {
        const auto m = ws.recv(200ms);
        if (m) take(ws, *m);
      }
    }
  }

  void take(WsClient& ws, const json& m) {
    const std::string type = m.value("type", "");
    if (type == "tournament") registered_ = m["registered"].get<bool>();
    if (type == "tournament_table") {
      room_ = m["room"];
      round_ = m["round"];
      state_ = json();
      ws.send({{"type", "join"}, {"room", room_}, {"as", "player"}});
    }
    if (type == "error") {
      const std::string code = m["code"];
      // Registering again after the start, and a move that a restart made stale, are expected.
      if (code != "tournament/closed" && code != "move/stale_version" &&
          code != "move/not_your_turn") {
        std::lock_guard lock(mutex_);
        errors_.push_back(m.dump());
      }
    }
    if ((type == "full" || type == "patch") && m["room"] == room_) {
      if (type == "full") {
        state_ = m["state"];
        version_ = m["version"];
      } else if (!state_.is_null() && m["version"].get<std::int64_t>() == version_ + 1) {
        auto next = protocol::apply_patch(state_, m["ops"]);
        if (!next) return;
        state_ = *next;
        version_ = m["version"];
      } else if (m["version"].get<std::int64_t>() > version_) {
        ws.send({{"type", "sync"}, {"room", room_}});
        return;
      }
      const auto& legal = state_["legal_moves"];
      const bool held = round_ >= hold_ && !open_ && held_moves_ >= 2;
      if (state_["status"] == "playing" && legal.is_array() && !legal.empty() && !held) {
        if (round_ >= hold_ && !open_) ++held_moves_;
        ws.send({{"type", "move"},
                 {"room", room_},
                 {"version", version_},
                 {"move", legal[rng_() % legal.size()]}});
        ++moves_;
      }
    }
  }

  std::string name_, tournament_;
  std::atomic<unsigned short>& port_;
  std::mt19937_64 rng_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, registered_{false};
  std::atomic<int> moves_{0};
  const int hold_;
  const std::atomic<bool>& open_;
  int round_ = 0, held_moves_ = 0;
  std::string token_, room_;
  json state_;
  std::int64_t version_ = 0;
  std::mutex mutex_;
  std::vector<std::string> errors_;
};

inline json get_detail(unsigned short port, const std::string& id) {
  const auto r = http_request(port, boost::beast::http::verb::get, "/api/tournament?id=" + id);
  return r.status == 200 ? json::parse(r.body, nullptr, false) : json();
}

// Polls the event until `done(detail)`, for at most `limit`.
inline json wait_for(std::atomic<unsigned short>& port, const std::string& id,
                     const std::function<bool(const json&)>& done, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  json d;
  while (std::chrono::steady_clock::now() < until) {
    d = get_detail(port.load(), id);
    if (d.is_object() && done(d)) return d;
    std::this_thread::sleep_for(100ms);
  }
  return d;
}

}  // namespace plateau::testing
