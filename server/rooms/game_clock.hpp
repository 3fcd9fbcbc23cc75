// The clocks of one round (issue 44): each seat's time left, and which seat's clock runs since
// when. A plain value with the time passed in, so its rules are tested with a fake clock.
//
// Live (Fischer): the seat to move spends its own time from the moment the previous move (or the
// start) was made; a move counts at the time it is received, and adds the increment to the time
// the seat has left. Correspondence: each move has its days, the clock restarting at every
// move. The flag falls exactly when the running seat's time reaches zero.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/time_control.hpp"

namespace plateau::server {

using Millis = std::int64_t;  // milliseconds since the epoch

class GameClock {
 public:
  // Every seat with its full time, no clock running.
  GameClock(protocol::TimeControl control, int seats);

  const protocol::TimeControl& control() const { return control_; }
  std::optional<int> running() const { return running_; }
  Millis since() const { return since_; }
  // What `seat` has left at `now` (its clock running or not).
  Millis left(int seat, Millis now) const;
  // When the running seat's time is gone; nullopt when no clock runs.
  std::optional<Millis> flag_at() const;

  // `seat`'s clock runs from `now` (the round starts, or resumes after a restart).
  void start(int seat, Millis now);
  // `seat` moved at `now`: charged the time since its clock started, less `credit` (forgiven
  // network lag; the caller bounds it), plus the increment; then `next`'s clock runs, if any.
  // A move at or after the flag is the caller's to refuse: here it is never negative.
  void moved(int seat, Millis now, Millis credit, std::optional<int> next);
  // `next`'s clock runs from `now` (a correspondence seat with a fresh allowance), or none;
  // nobody is charged (a bot played for a player who left).
  void hand_to(std::optional<int> next, Millis now);
  // The round ended otherwise: the running seat is charged up to `now`, and nothing runs.
  void stop(Millis now);
  // What a seat has, as stored with its move and read back after a restart.
  void set_left(int seat, Millis ms) { left_.at(static_cast<std::size_t>(seat)) = ms; }

  // {"control":{...},"left_ms":[...],"running":seat|null,"since":ms}: what a client needs to
  // show the clocks ticking (the running seat has left_ms[running] - (server now - since)).
  nlohmann::json view() const;

 private:
  protocol::TimeControl control_;
  std::vector<Millis> left_;  // as of since_ for the running seat, else as they stand
  std::optional<int> running_;
  Millis since_ = 0;
};

}  // namespace plateau::server
