// A bot at a table. To its room it is one more connection at a seat: it is sent the frames the
// seat's audience is sent, and it moves through the lobby's dispatch, so its moves meet the
// same validation, durable write and broadcast as a person's (Room::move).
//
// Each frame it is sent means the room changed, and is durable: it looks again, from the loop,
// after the change is made. When its seat is to move it hands a copy of the position to the
// worker pool (Background), where bots::choose searches only what the seat may know (the
// search samples everything hidden afresh, State::determinize); the move comes back on the
// loop and is played if the game is still where the bot saw it. After a round, a bot asks for a
// rematch once a person has. Nothing here locks: the room is touched on the loop alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "bots/bot.hpp"
#include "protocol/messages.hpp"
#include "server/rooms/background.hpp"
#include "server/rooms/connection.hpp"

namespace plateau::server {

class Room;

// A bot's player id ("bot-<level>-<hex>", see bot_level_in; "bot-<level>-<n>-<hex>" for the
// n-th bot of that level at its table) and the name its seat shows ("Easy bot", "Easy bot 2"):
// the name follows from the id, so it is the same after a restart.
std::string bot_player_id(bots::Level level, std::string_view random_hex, int ordinal = 1);
std::string bot_name(std::string_view player_id);
// The level of a bot's player id; nullopt for a person's (or an unknown level's).
std::optional<bots::Level> bot_level_of(std::string_view player_id);

// What the lobby's bots share: the server's limits, and counts for /metrics.
struct BotHouse {
  Background* background = nullptr;                               // none: the server runs no bots
  std::chrono::microseconds max_think = std::chrono::seconds(2);  // caps every level's
  std::uint64_t moves = 0;                                        // bot moves the rooms accepted
  std::uint64_t thoughts = 0;                                     // searches finished
  std::uint64_t failures = 0;  // searches that threw, or moves refused
  std::uint64_t think_us = 0;  // time spent searching, summed
};

class BotSeat final : public Connection, public std::enable_shared_from_this<BotSeat> {
 public:
  // How the bot's requests reach its room: the lobby's dispatch.
  using Submit = std::function<void(const std::shared_ptr<Connection>&, protocol::Request)>;

  BotSeat(Player player, bots::Level level, BotHouse& house, Submit submit, std::uint64_t seed);

  // The room whose seat this is: held weakly, so a room that closes or leaves memory frees it.
  void seat_at(const std::shared_ptr<Room>& room) { room_ = room; }
  // It plays `seat` for the player who left the round there (Room::depart), that round only.
  void stand_in_for(int seat) { stand_in_ = seat; }

  void send(const Frame& frame) override;
  std::string address() const override { return "bot"; }

  bots::Level level() const { return level_; }
  bool thinking() const { return thinking_; }

 private:
  struct Turn {
    int round;
    std::size_t moves;
  };
  void look();
  void play(Turn turn, const std::expected<rules::Move, bots::SearchError>& move,
            std::chrono::microseconds took);

  bots::Level level_;
  BotHouse& house_;
  Submit submit_;
  std::uint64_t seed_;
  std::weak_ptr<Room> room_;
  std::optional<int> stand_in_;  // the seat it plays for a player who left, if it does
  bool looking_ = false;         // a look is posted
  bool thinking_ = false;
  int refused_ = 0;  // moves refused in a row; after a few the bot stops trying
};

}  // namespace plateau::server
