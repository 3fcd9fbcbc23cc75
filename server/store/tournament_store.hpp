// What the store keeps of tournaments (issue 48): each event as one JSON document, rewritten
// whole at each change (an event of a club is a few kilobytes: its players, rounds and results),
// and the accounts the host allows to organise events. Written durably like everything else;
// read once at start.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

#include "server/store/store.hpp"

namespace plateau::server {

struct TournamentDoc {
  std::string id;
  std::string doc;  // the event as JSON (tournaments.cpp)
};

struct LoadedTournaments {
  std::vector<TournamentDoc> tournaments;
  std::vector<std::string> organisers;  // player ids
};

class TournamentStore {
 public:
  virtual ~TournamentStore() = default;
  virtual void put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) = 0;
  virtual void put_organiser(const std::string& player, bool allowed, Done done) = 0;
  // At start, before the first write (like load()).
  virtual std::expected<LoadedTournaments, std::string> load_tournaments() = 0;
};

// Keeps nothing (--data none): events last as long as the process.
class NullTournamentStore : public TournamentStore {
 public:
  void put_tournament(const TournamentDoc&, std::int64_t, Done done) override { done(true); }
  void put_organiser(const std::string&, bool, Done done) override { done(true); }
  std::expected<LoadedTournaments, std::string> load_tournaments() override {
    return LoadedTournaments{};
  }
};

}  // namespace plateau::server
