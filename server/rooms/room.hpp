// A room: the authority for one table. A plain class with no Asio: it reaches connections only
// through Participant, the store only through Store, and learns the time only through tick(now),
// so tests drive it directly with fakes (DESIGN.md §3).
//
// Ordering. Every change of any viewer's state takes the next version. For each change the
// room computes, per audience (each seat, and the spectators), the new view and its diff from
// the last one, encodes the patch once, and queues it. Queued frames go out in version order;
// a change that must be durable (a seat taken, a move, a new round) holds the queue until the
// store says it is written, so nothing is broadcast or acknowledged before it is durable.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/rooms/fairness.hpp"
#include "server/histogram.hpp"
#include "server/rooms/participant.hpp"
#include "protocol/messages.hpp"
#include "protocol/view.hpp"
#include "server/rooms/reaper.hpp"
#include "rules/game.hpp"
#include "server/store/store.hpp"

namespace plateau::server {

using Millis = std::int64_t;  // milliseconds since the epoch

// How many patches, and bytes of them, a room keeps for connections that dropped, so that a
// client back with the version it holds is sent only what it missed. Past either bound the
// client gets the whole state instead.
struct KeepLimits {
  std::size_t frames = 64;
  std::size_t bytes = 32 * 1024;
};

struct RoomSettings {
  bool is_private = false;
  int spectator_delay = 0;  // spectators see the game this many moves late
  // A dropped player's seat still shows them connected this long, so a reload or a network
  // blip does not flicker at the table. The seat itself stays theirs whatever happens.
  Millis grace_ms = 0;
  KeepLimits keep;
  // Where a new round's seed and salt come from: the CSPRNG when empty (tests pass their own).
  std::function<std::uint64_t()> random;
  std::size_t max_spectators = 10'000;  // the next one is refused (room/full_audience)
};

class Room : public std::enable_shared_from_this<Room> {
 public:
  Room(std::string id, const rules::Game& game, nlohmann::json options, RoundSecret secret,
       RoomSettings settings, Store& store, Millis now);

  // Rebuilds a stored room: replays every round's moves through the rules core. Returns nullptr
  // (with a reason) when the log and the rules disagree: such a room is quarantined, not changed.
  // `server` gives the settings the server sets (grace, keep); the store gives the room's own.
  static std::shared_ptr<Room> restore(const StoredRoom& stored, const rules::Game& game,
                                       const std::vector<std::string>& seat_names, Store& store,
                                       Millis now, RoomSettings server, std::string& why);

  const std::string& id() const { return id_; }
  const rules::Game& game() const { return game_; }
  std::int64_t version() const { return version_; }
  protocol::Status status() const;
  bool is_private() const { return settings_.is_private; }
  std::string_view game_id() const { return game_.id(); }
  int spectators() const { return static_cast<int>(spectators_.size()); }
  bool failed() const { return failed_; }
  bool idle() const;  // nobody connected and nothing waiting for the store
  Millis last_activity() const { return last_activity_; }
  const rules::State& state() const { return *state_; }
  int round() const { return round_; }
  std::optional<rules::Seat> seat_of(const std::string& player_id) const;
  // Each seat's player (none while free) and the name it shows.
  std::vector<std::pair<std::optional<std::string>, std::string>> seated() const;

  // Requests from a connection. Replies, errors and broadcasts go through Participant::send;
  // each returns the code of its refusal, or nullopt when it was accepted.
  // A join naming the version its client still holds (a connection back at its own seat, or a
  // spectator watching again) gets the patches since then when the room kept them all.
  std::optional<protocol::Code> join(const std::shared_ptr<Participant>& p, const protocol::Join& req, const nlohmann::json& id);
  std::optional<protocol::Code> move(const std::shared_ptr<Participant>& p,
                                     const protocol::MoveRequest& req, const nlohmann::json& id);
  std::optional<protocol::Code> sync(const std::shared_ptr<Participant>& p, const nlohmann::json& id);
  std::optional<protocol::Code> leave(const std::shared_ptr<Participant>& p, const nlohmann::json& id);
  std::optional<protocol::Code> rematch(const std::shared_ptr<Participant>& p, const nlohmann::json& id);
  // The connection is gone (closed or dropped); its seat stays its player's.
  void disconnect(Participant* p);
  // A player said hello again on a new connection: rebind them to their seat here. `held` is
  // the version of this room their client still holds, if it said: when the room kept every
  // patch the seat missed since then, it sends those instead of the whole state.
  void rebind(const std::shared_ptr<Participant>& p, std::optional<std::int64_t> held = {});

  // Sends the spectator count to everyone here if it changed since the last tick: one `crowd`
  // per tick however many came and went, not one to everyone per arrival.
  void tick(Millis now);
  // Times each accepted move from its arrival to its broadcast (after its durable write).
  void time_moves(const SpanTimer* timer) { move_timer_ = timer; }
  // Boards and positions the room is done with are freed on `reaper`'s thread; without one
  // (tests that drive a room alone), here.
  void free_with(Reaper* reaper) { reaper_ = reaper; }

  // One line of the lobby's list: room, game, seats, status, spectators, round.
  nlohmann::json summary() const;

 private:
  // Patches an audience was sent since a connection of it dropped holding every version up to
  // `after`. Gone once it would hold more than settings_.keep allows.
  struct Kept {
    std::int64_t after = 0;
    std::vector<Frame> frames;  // versions after+1, after+2, ...
    std::size_t bytes = 0;
    std::int64_t last() const { return after + static_cast<std::int64_t>(frames.size()); }
    // Whether a client holding version v can go on from here by patches alone.
    bool covers(std::int64_t v) const { return v >= after && v <= last(); }
  };
  struct SeatSlot {
    std::optional<std::string> player_id;
    std::string name;
    std::vector<std::shared_ptr<Participant>> conns;
    bool shown_connected = false;  // what the seat last showed (lags by the grace period)
    Millis away_since = 0;
    // While nobody is connected at the seat: what it missed since its last connection went.
    std::optional<Kept> missed;
  };
  struct Outgoing {
    std::int64_t version;     // patches: the version they lead to; direct frames: 0
    bool durable = true;      // false while its store write is in flight
    std::vector<std::pair<int, Frame>> audience_frames;           // (audience, frame)
    std::vector<std::pair<std::shared_ptr<Participant>, Frame>> direct;
    std::int64_t move_started = -1;  // a move's arrival on move_timer_'s clock; -1: not a move
  };

  int audiences() const { return static_cast<int>(seats_.size()) + 1; }
  int spectator_audience() const { return static_cast<int>(seats_.size()); }
  std::optional<rules::Seat> viewer_of(int audience) const;
  // What an audience was last sent: its envelope, and a board that audiences seeing the same
  // one share, so it is built and diffed once per change rather than once per audience.
  struct Seen {
    protocol::Envelope envelope;
    std::shared_ptr<nlohmann::json> board;        // the state's changing_view()
    std::shared_ptr<const nlohmann::json> fixed;  // its fixed_view(): the rest of the board
    std::uint64_t board_generation = 0;  // state_generation_ when the board was built
    int round = 0;                       // of the state it was built from, which was
    bool delayed = false;                // the spectators' delayed copy, or the game itself
    // Set when the board was brought up to date in place (State::update_view): the operations
    // from the board as it was before, which no longer exists.
    std::shared_ptr<const std::string> board_ops;
    // The position the board shows, for a game that compares it (State::compares_shown_state).
    std::shared_ptr<const rules::State> shown;
    nlohmann::json complete_board() const { return rules::State::complete_view(*board, fixed.get()); }
  };
  // Each audience's view now. A board may be brought up to date in place (its operations in
  // board_ops), so the caller must send what changed: publish is the one caller with a board to
  // update (ensure_views has none yet).
  std::vector<Seen> current_views();
  // Whether audience `a`'s previous board may be updated in place for the audiences that will
  // see it (all those of `delayed`'s state when `shared`, else `a` alone): no other audience
  // and nothing else holds it, and it shows the same round of the same state.
  bool board_is_private(int a, bool delayed, bool shared) const;
  std::vector<protocol::SeatInfo> seat_infos() const;
  void advance_spectator_state();

  // A change happened: bump the version and queue the per-audience patches, held until the
  // store's write of the change is done. Returns the index of the queued entry, for that write's
  // completion (durable_done) to release. Every version is stored before it is shown, so a
  // rebuilt room starts above every version it ever showed.
  std::uint64_t publish();
  // publish() a change that is neither a move nor a seat (who is connected, the rematch
  // requests), with its write.
  void publish_table();
  void ensure_views();
  void send_direct(const std::shared_ptr<Participant>& p, Frame f);
  void send_full(const std::shared_ptr<Participant>& p, const nlohmann::json& id);
  void flush();
  Done durable_done(std::uint64_t entry);
  // Adds the patch to `kept`, or lets it go when it would hold too much.
  void keep(std::optional<Kept>& kept, std::int64_t version, const Frame& frame) const;
  // Sends `p` the kept patches after version `held`, ahead of the outbox: they went out already.
  static void send_kept(Participant& p, const Kept& kept, std::int64_t held);
  // Every connection still here has been sent every version up to this one.
  std::int64_t sent_version() const;
  void fail_room();
  int audience_of(Participant* p) const;
  // Sends an error and returns its code.
  protocol::Code error(const std::shared_ptr<Participant>& p, protocol::Code code,
                       std::string message, const nlohmann::json& id);
  void start_next_round();
  void seal_round();  // sealed_ and revealed_ for secret_
  // Lets go of views no longer shown: what only they held goes to the reaper.
  void retire(std::vector<Seen>&& views);
  // A position the room no longer plays: to the reaper, or freed here without one.
  void retire(std::unique_ptr<rules::State> state);
  // A connection leaves the room; a spectator's patches are kept from here if it `may_return`.
  void drop(Participant* p, bool may_return);
  void show_away(SeatSlot& slot);
  // A seated player's connection is here, under `name`: a version if that changes what is shown.
  void show_present(SeatSlot& slot, const std::string& name);

  std::string id_;
  const rules::Game& game_;
  nlohmann::json options_;
  RoundSecret secret_;  // this round's seed and the salt of its commitment
  // What the round shows of its secret while it is played, and once it is over.
  std::shared_ptr<const protocol::Fairness> sealed_, revealed_;
  RoomSettings settings_;
  Store& store_;
  std::unique_ptr<rules::State> state_;
  std::unique_ptr<rules::State> spectator_state_;  // lags by spectator_delay moves
  std::vector<std::pair<int, std::string>> moves_;  // this round's (seat, move)
  int round_ = 1;
  bool started_ = false;
  bool failed_ = false;
  std::vector<SeatSlot> seats_;
  std::vector<bool> rematch_;
  std::vector<std::shared_ptr<Participant>> spectators_;
  // Where each connection here is: its audience and, for a spectator, its index in spectators_,
  // so that finding or removing one costs the same however large the audience.
  struct Place {
    int audience;
    std::size_t index;
  };
  std::unordered_map<Participant*, Place> places_;
  bool crowd_changed_ = false;  // the spectator count changed since the last tick
  void add_spectator(const std::shared_ptr<Participant>& p);
  void remove_spectator(Participant* p);
  std::optional<Kept> spectators_missed_;  // since a spectator dropped (see Kept)
  std::int64_t version_ = 0;
  std::vector<Seen> seen_;  // per audience, at version_; empty until first needed
  std::uint64_t state_generation_ = 1;  // bumped whenever a board may have changed
  std::unordered_map<Participant*, std::int64_t> full_version_;
  std::deque<Outgoing> outbox_;
  std::uint64_t outbox_base_ = 0;  // the entry number of outbox_.front()
  Millis now_;
  Millis last_activity_;
  const SpanTimer* move_timer_ = nullptr;
  Reaper* reaper_ = nullptr;
};

}  // namespace plateau::server
