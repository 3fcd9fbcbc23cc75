// The store's finished games, as the history API reads and adds them: the list, a game as a
// record (its export and its replay), an imported game; and a consistent copy of everything.
// An interface, so that the HTTP side knows nothing of the database behind it.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/store/history.hpp"
#include "server/store/store.hpp"

namespace plateau::server {

// One finished round, as the history lists it.
struct GameSummary {
  std::string room;
  int round = 1;
  std::string game;
  nlohmann::json result;  // the outcome
  std::int64_t finished_ms = 0;
  bool imported = false;             // stored by an import, not played here
  std::vector<std::string> players;  // names, by seat
  bool rated = false;                // it counted for the players' ratings
};

class Archive {
 public:
  virtual ~Archive() = default;
  // The most recent finished rounds of public rooms, newest first, at most `limit`.
  virtual std::vector<GameSummary> finished_games(int limit) = 0;
  // A round as a record, finished or still in play (its result is then null, and whoever shows
  // it must keep its seed secret). nullopt: no such room or round. Reads may run while writes
  // are in flight.
  virtual std::expected<std::optional<GameRecord>, std::string> read_record(const std::string& room,
                                                                            int round) = 0;
  // Stores an imported, finished game as a room of its own (id `r.room`, round 1). `done` as
  // for the Store's writes: once durable, on the rooms' thread, in order with them.
  virtual void import_record(const GameRecord& r, Done done) = 0;
  // A consistent copy of everything stored, taken while the server runs, written to `path`.
  virtual std::expected<void, std::string> backup_to(const std::string& path) = 0;
};

}  // namespace plateau::server
