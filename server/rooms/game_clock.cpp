#include "server/rooms/game_clock.hpp"

#include <algorithm>

namespace plateau::server {

namespace {

Millis full_time(const protocol::TimeControl& c) {
  return c.kind == protocol::TimeControl::Kind::correspondence ? c.per_move_ms() : c.base_ms;
}

}  // namespace

GameClock::GameClock(protocol::TimeControl control, int seats)
    : control_(control), left_(static_cast<std::size_t>(seats), full_time(control)) {}

Millis GameClock::left(int seat, Millis now) const {
  const Millis had = left_.at(static_cast<std::size_t>(seat));
  if (running_ != seat) return had;
  return std::max<Millis>(0, had - std::max<Millis>(0, now - since_));
}

std::optional<Millis> GameClock::flag_at() const {
  if (!running_) return std::nullopt;
  return since_ + left_[static_cast<std::size_t>(*running_)];
}

void GameClock::start(int seat, Millis now) {
  running_ = seat;
  since_ = now;
}

void GameClock::moved(int seat, Millis now, Millis credit, std::optional<int> next) {
  auto& had = left_.at(static_cast<std::size_t>(seat));
  if (control_.kind == protocol::TimeControl::Kind::correspondence) {
    had = control_.per_move_ms();  // a fresh allowance for its next move
  } else {
    const Millis spent = std::max<Millis>(0, now - since_ - std::max<Millis>(0, credit));
    had = std::max<Millis>(0, had - spent) + control_.increment_ms;
  }
  hand_to(next, now);
}

void GameClock::hand_to(std::optional<int> next, Millis now) {
  running_ = next;
  since_ = now;
  if (next && control_.kind == protocol::TimeControl::Kind::correspondence)
    left_.at(static_cast<std::size_t>(*next)) = control_.per_move_ms();
}

void GameClock::stop(Millis now) {
  if (!running_) return;
  auto& had = left_[static_cast<std::size_t>(*running_)];
  had = std::max<Millis>(0, had - std::max<Millis>(0, now - since_));
  running_.reset();
  since_ = now;
}

nlohmann::json GameClock::view() const {
  return nlohmann::json{{"control", protocol::to_json(control_)},
                        {"left_ms", left_},
                        {"running", running_ ? nlohmann::json(*running_) : nlohmann::json(nullptr)},
                        {"since", since_}};
}

}  // namespace plateau::server
