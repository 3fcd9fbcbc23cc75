// Finished games as records: export, import and step-by-step replay. A record is everything a
// game is made of — game, options, seed, players, moves, result — so replaying it through the
// rules core rebuilds every position exactly.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plateau::server {

struct GameRecord {
  std::string room;
  int round = 1;
  std::string game;
  nlohmann::json options;
  std::uint64_t seed = 0;
  std::vector<std::string> players;  // names, by seat
  struct Step {
    int seat = 0;
    std::string move;
    std::int64_t at_ms = 0;
    std::optional<std::int64_t> clock_ms{};  // a timed game's: its mover's time left after it
  };
  std::vector<Step> moves;
  nlohmann::json result;  // the outcome, or null while unfinished
  std::int64_t finished_ms = 0;
  std::string salt;        // of the round's seed commitment; empty for rounds from before them
  nlohmann::json clock{};  // the time control (protocol/time_control.hpp); null for none
  // A bot's level by seat ("" for a person); empty when the record names no bot.
  std::vector<std::string> bots{};
  // The round's chat, both channels, in order: [{channel, name, text|phrase, at, move}] (a
  // deleted message without its words). Exported; an import keeps none.
  nlohmann::json chat = nlohmann::json::array();
};

// {"format":"plateau-game/1", "game", "options", "seed" (a decimal string: JSON numbers lose
// 64-bit precision in browsers), "players", "moves":[{"seat","move","at"}], "result", ...}
nlohmann::json record_to_json(const GameRecord& r);
std::expected<GameRecord, std::string> record_from_json(const nlohmann::json& j);

// Replays `r` through the rules core. Every move must be accepted and the final outcome must
// equal the record's result, or be an ending (protocol/ending.hpp) of a round the rules did not
// end, which the last frame then shows. Returns the spectator's state at every step (moves + 1
// frames).
std::expected<nlohmann::json, std::string> replay_frames(const GameRecord& r);

}  // namespace plateau::server
