// Tournaments (issue 48): an organiser sets up an event (a game and its options, a time control,
// a format, a start time); players register until it starts; the server then seats each
// round's tables itself, with each seat reserved for its player, and pairs the next round when
// the last table of a round ends. A player who has not sat down `no_show` after a round starts
// loses that game by forfeit.
//
// Who plays whom and the standings are pairing.hpp's (pure); this class keeps the events, talks
// to the lobby through TournamentHost, and writes each event whole after every change
// (TournamentStore), so that a restart, even a kill -9, resumes a round where it was: the
// tables come back with the lobby's rooms, and a game that ended while the server was down is
// read from the store. A plain class on the event loop.
#pragma once

#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/store/tournament_store.hpp"
#include "server/tournaments/pairing.hpp"

namespace plateau::server {

using TournamentMillis = std::int64_t;

// What the engine needs of the lobby.
class TournamentHost {
 public:
  virtual ~TournamentHost() = default;
  // Opens a table of `game` whose seats are reserved for `players`, in seat order; its room id,
  // or why it could not.
  virtual std::expected<std::string, std::string> open_table(
      const std::string& game, const nlohmann::json& options, const nlohmann::json& clock,
      const std::vector<std::string>& players) = 0;
  // Which seats of the room are taken, by seat; empty when there is no such room.
  virtual std::vector<bool> seated(const std::string& room) = 0;
  // Closes a table nobody will play (a forfeit).
  virtual void close_table(const std::string& room) = 0;
  // Sends `frame` to every connection of `player`.
  virtual void tell(const std::string& player, const std::string& frame) = 0;
  // The player's name as shown now (an account renamed, deleted…); empty when unknown.
  virtual std::string name_of(const std::string& player) = 0;
  // The outcome of the room's first round as stored, when it ended (read at a restart).
  virtual std::optional<nlohmann::json> finished_outcome(const std::string& room) = 0;
  // Whether the room's end reaches round_ended() here. In a cluster a table another node holds
  // (it took the room over) ends there: its outcome is read from the store instead.
  virtual bool ends_here(const std::string& room) {
    (void)room;
    return true;
  }
};

struct TournamentLimits {
  std::size_t max_players = 128;  // per event
  std::size_t max_events = 200;   // events not finished nor cancelled
  int max_rounds = 30;
};

struct TournamentSpec {
  std::string name;
  std::string game;
  nlohmann::json options = nlohmann::json::object();
  nlohmann::json clock = nullptr;  // a time control (protocol/time_control.hpp), or none
  tournaments::Format format = tournaments::Format::swiss;
  int rounds = 0;      // swiss and seated; round-robin has as many as it needs
  bool twice = false;  // round-robin: each pair meets twice, seats swapped
  TournamentMillis starts_ms = 0;
  TournamentMillis no_show_ms = 10 * 60'000;
  std::string organiser;       // player id
  bool accounts_only = false;  // only accounts may register (guests come and go too easily)
};

// A refusal: a stable code ("tournament/bad_request", ...) and a message for people.
struct TournamentError {
  std::string code;
  std::string message;
};

class Tournaments {
 public:
  using Random = std::function<std::uint64_t()>;
  Tournaments(TournamentStore& store, TournamentHost& host, Random random,
              TournamentLimits limits = {});

  // At start, before the rooms come back: the events as stored.
  std::expected<void, std::string> restore(const LoadedTournaments& loaded);

  // Cluster mode (issue 47): one node at a time directs the events (it holds their lease);
  // every other node keeps a copy, read again from the store when the director says it wrote
  // an event, and sends each change to the director. A copy answers the reads (list, detail,
  // reserved seats, waiting tables) and never writes: tick(), resume() and round_ended() do
  // nothing on it. A lone server directs, always.
  bool directing() const { return directing_; }
  void direct(bool yes) { directing_ = yes; }
  // Everything as the store has it now (a node that starts directing, or a copy after Redis
  // was away): what was in memory goes.
  std::expected<void, std::string> reload(const LoadedTournaments& loaded);
  // One event as the store has it now (`doc` empty: it is gone).
  std::expected<void, std::string> refresh(const std::string& id, const std::string& doc);
  // Whether `room` is a table of a running event whose game has not ended.
  bool open_table(const std::string& room) const;
  // The director reads the outcome of a table whose game ended on another node.
  void check_ended(const std::string& room, TournamentMillis now);
  // Once the rooms are back: each running round's games that ended while the server was down
  // count now, and no-shows are timed afresh from `now`.
  void resume(TournamentMillis now);

  std::expected<std::string, TournamentError> create(TournamentSpec spec, TournamentMillis now);
  // Registers `player` (shown as `name`; `account`: whether they are one) for the event, or
  // withdraws them, before it starts, at `now`. The refusal's code is one of the protocol's
  // (tournament/not_found, closed, full, accounts_only).
  std::optional<std::string> enter(const std::string& id, const std::string& player,
                                   const std::string& name, bool enter, TournamentMillis now,
                                   bool account = true);
  std::optional<TournamentError> start(const std::string& id, TournamentMillis now);
  std::optional<TournamentError> cancel(const std::string& id, TournamentMillis now);

  // A round of a room ended, with its outcome as stored.
  void round_ended(const std::string& room, int round, const nlohmann::json& outcome,
                   TournamentMillis now);
  // Starts events whose time has come, forfeits no-shows, retries tables not yet opened.
  void tick(TournamentMillis now);

  // The tables of running rounds reserved for `player` whose games have not ended.
  struct WaitingTable {
    std::string tournament;
    int round = 0;
    std::string room;
  };
  std::vector<WaitingTable> waiting_tables(const std::string& player) const;

  // The players a room's seats are reserved for (by seat), or empty for any other room.
  std::vector<std::string> reserved(const std::string& room) const;

  bool organiser(const std::string& player) const { return organisers_.contains(player); }
  void set_organiser(const std::string& player, bool allowed, Done done);
  // Who made `id` (player id); empty when there is no such event.
  std::string organiser_of(const std::string& id) const;

  // The HTTP API's views (PROTOCOL.md, "Tournaments").
  nlohmann::json list() const;
  std::optional<nlohmann::json> detail(const std::string& id);

  std::size_t size() const { return events_.size(); }

  // Runs `fn` once every write of the events made so far is durable (true), or when one of them
  // failed (false). A change is answered through it: what a player or an organiser was told is
  // done survives a crash, and a director that lost its lease (its writes refused) does not
  // answer as if it had made the change.
  void after_saved(std::function<void(bool stored)> fn);

 private:
  enum class Status { registering, running, finished, cancelled };
  struct Entry {
    std::string player;
    std::string name;
  };
  struct Table {
    int round = 0;
    std::string room;                           // empty until the lobby could open it
    std::vector<std::string> seats;             // player ids, in seat order
    std::optional<std::vector<double>> points;  // once over
    std::vector<bool> forfeit;                  // by seat: lost without sitting down
  };
  struct Event {
    std::string id;
    TournamentSpec spec;
    Status status = Status::registering;
    int seats = 2;
    TournamentMillis created_ms = 0;
    std::vector<Entry> entries;  // in registration order: the seeds
    int round = 0;               // the round under way (or the last one)
    TournamentMillis round_started_ms = 0;
    std::vector<Table> tables;
    std::vector<tournaments::Bye> byes;
    std::vector<tournaments::Round> schedule;  // round-robin, fixed at the start
    std::string note;                          // why it ended early, if it did
    // Not stored: when no-shows start counting (a restart gives everyone the full time again).
    TournamentMillis no_show_from = 0;
  };

  static std::string_view status_name(Status s);
  nlohmann::json to_doc(const Event& e) const;
  static std::expected<Event, std::string> from_doc(const nlohmann::json& j);
  void save(const Event& e, TournamentMillis now);
  Event* find(const std::string& id);
  std::vector<std::string> seeds(const Event& e) const;
  std::vector<tournaments::GameResult> results(const Event& e) const;
  int total_rounds(const Event& e) const;
  double bye_points(const Event& e) const;
  void begin(Event& e, TournamentMillis now);
  void open_tables(Event& e);
  void advance(Event& e, TournamentMillis now);
  static void score(Table& t, const nlohmann::json& outcome);
  void forfeit_no_shows(Event& e, TournamentMillis now);
  std::string shown_name(const Event& e, const std::string& player);
  // Tables held elsewhere whose games ended, read from the store (every kPollMs at most).
  void poll_ended(TournamentMillis now);

  TournamentStore& store_;
  TournamentHost& host_;
  Random random_;
  TournamentLimits limits_;
  std::map<std::string, Event> events_;
  std::map<std::string, std::string> event_of_room_;
  std::set<std::string> organisers_;
  bool directing_ = true;
  TournamentMillis polled_ms_ = 0;
  // Writes of events made and settled (the store answers them in order), the last settled one
  // that failed, and who waits for which (after_saved): {writes made then, settled then, fn}.
  std::uint64_t saves_made_ = 0, saves_settled_ = 0, save_failed_ = 0;
  struct SaveWaiter {
    std::uint64_t made = 0, settled = 0;
    std::function<void(bool)> fn;
  };
  std::deque<SaveWaiter> save_waiters_;
  void settle_saves();
};

}  // namespace plateau::server
