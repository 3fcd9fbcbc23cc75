// A room: the authority for one table. A plain class with no Asio: it reaches connections only
// through Connection, the store only through Store, and learns the time only through tick(now),
// so tests drive it directly with fakes (DESIGN.md §3).
//
// It composes four parts and owns each: the Match (the game, its moves and rounds), the Table
// (seats, presence, spectators, rematch requests), the AudienceViews (what each audience was
// sent, and the patch to the next version) and the Outbox (frames in version order behind the
// store's writes, and patches kept for those who come back). The room decides what a request
// changes; every change takes the next version, and is stored before it is shown, so a rebuilt
// room starts above every version it ever showed.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/messages.hpp"
#include "rules/game.hpp"
#include "server/histogram.hpp"
#include "server/rooms/audience_views.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/fairness.hpp"
#include "server/rooms/game_clock.hpp"
#include "server/rooms/match.hpp"
#include "server/rooms/outbox.hpp"
#include "server/rooms/reaper.hpp"
#include "server/rooms/table.hpp"
#include "server/store/store.hpp"

namespace plateau::server {

class Room;

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
  protocol::TimeControl clock{};        // the table's time control
  // The time to the millisecond, for the clocks; without it, the time of the last tick.
  std::function<Millis()> now{};
  // A live clock forgives a mover the network's delay (Connection::lag_ms), up to this much
  // per move: the move left the player's screen that much before it reached the server.
  Millis max_lag_credit_ms = 500;
  // The player to move, away this long in a game without a correspondence clock, may be
  // claimed against: in a game of two the other wins; of three or four they are dropped.
  Millis gone_ms = 60'000;
  // Makes the bot that plays the seat of a player who left a game of three or four seats (an
  // easy one, bot_seat.hpp), for `room`. Without it nobody can leave such a game: it refuses
  // resignations and claims, and the lobby refuses it a clock.
  std::function<std::shared_ptr<Connection>(const std::shared_ptr<Room>& room, int seat)>
      stand_in{};
  // The table's games count for its players' ratings (only accounts sit at it; the lobby sees
  // to that).
  bool rated = false;
  // The table has a chat (protocol::Chat), of at most `max_chat` messages of at most
  // `chat_chars` characters each.
  bool chat = true;
  std::size_t max_chat = 500;
  std::size_t chat_chars = 500;
  // Called once a round is over (its outcome as stored), after its write is queued.
  std::function<void(const Room& room, const nlohmann::json& outcome)> round_ended{};
  // A tournament's table: seat i is for player reserved[i] alone, no bot sits, and its one game
  // has no rematch. Empty: anyone sits anywhere.
  std::vector<std::string> reserved{};
};

class Room : public std::enable_shared_from_this<Room> {
 public:
  // A new room playing `match`, which is at its first round.
  Room(std::string id, Match match, RoomSettings settings, Store& store, Millis now);

  // Rebuilds a stored room: replays every round's moves through the rules core. Returns nullptr
  // (with a reason) when the log and the rules disagree: such a room is quarantined, not changed.
  // `server` gives the settings the server sets (grace, keep); the store gives the room's own.
  static std::shared_ptr<Room> restore(const StoredRoom& stored, const rules::Game& game,
                                       const std::vector<std::string>& seat_names, Store& store,
                                       Millis now, RoomSettings server, std::string& why);

  const std::string& id() const { return id_; }
  const rules::Game& game() const { return match_.game(); }
  std::int64_t version() const { return version_; }
  protocol::Status status() const;
  bool is_private() const { return settings_.is_private; }
  bool rated() const { return settings_.rated; }
  const protocol::TimeControl& time_control() const { return settings_.clock; }
  std::string_view game_id() const { return game().id(); }
  int spectators() const { return table_.spectators(); }
  bool failed() const { return failed_; }
  bool idle() const;  // nobody connected and nothing waiting for the store
  Millis last_activity() const { return last_activity_; }
  const rules::State& state() const { return match_.state(); }
  int round() const { return match_.round(); }
  std::optional<rules::Seat> seat_of(const std::string& player_id) const {
    return table_.seat_of(player_id);
  }
  // Each seat's player (none while free) and the name it shows.
  std::vector<std::pair<std::optional<std::string>, std::string>> seated() const {
    return table_.seated();
  }

  // Requests from a connection. Replies, errors and broadcasts go through Connection::send;
  // each returns the code of its refusal, or nullopt when it was accepted.
  // A join naming the version its client still holds (a connection back at its own seat, or a
  // spectator watching again) gets the patches since then when the room kept them all.
  std::optional<protocol::Code> join(const std::shared_ptr<Connection>& p,
                                     const protocol::Join& req, const nlohmann::json& id);
  std::optional<protocol::Code> move(const std::shared_ptr<Connection>& p,
                                     const protocol::MoveRequest& req, const nlohmann::json& id);
  std::optional<protocol::Code> sync(const std::shared_ptr<Connection>& p,
                                     const nlohmann::json& id);
  std::optional<protocol::Code> leave(const std::shared_ptr<Connection>& p,
                                      const nlohmann::json& id);
  std::optional<protocol::Code> rematch(const std::shared_ptr<Connection>& p,
                                        const nlohmann::json& id);
  // A seated player resigns the round in play: in a game of two seats the other wins; of three
  // or four, they leave it and the others play on (depart).
  std::optional<protocol::Code> resign(const std::shared_ptr<Connection>& p,
                                       const nlohmann::json& id);
  // A seated player of a two-seat game offers a draw, accepts or declines the other's offer.
  std::optional<protocol::Code> draw(const std::shared_ptr<Connection>& p,
                                     protocol::DrawAction action, const nlohmann::json& id);
  // A seated player asks to take back their last move in the round in play (and any made
  // since), or accepts or declines another's request; once every other player still in the
  // round has agreed, those moves are gone, stored before shown. Casual tables (no clock) of
  // games where a move neither draws nor reveals anything (GameInfo::takeback) only.
  std::optional<protocol::Code> takeback(const std::shared_ptr<Connection>& p,
                                         protocol::DrawAction action, const nlohmann::json& id);
  // Whether a takeback is asked of `seat` and it has not agreed yet (a bot agrees at once).
  bool takeback_asked_of(int seat) const;
  // Another player claims the win (two seats) or drops the player to move (three or four) when
  // that player has been gone too long.
  std::optional<protocol::Code> claim(const std::shared_ptr<Connection>& p,
                                      const nlohmann::json& id);
  // `p` seats `bot` (a connection with a bot's player, bot_seat.hpp) at a free seat of a table
  // still waiting for players: the seat is the bot's as another's would be theirs. Whether `p`
  // may is the lobby's to say.
  std::optional<protocol::Code> add_bot(const std::shared_ptr<Connection>& p,
                                        const std::shared_ptr<Connection>& bot,
                                        std::optional<int> seat, const nlohmann::json& id);
  // Whether the player of `seat` left the round in play (a bot plays it).
  bool has_left(int seat) const { return match_.has_left(seat); }
  // `p` has the bot at `seat` of a table still waiting for players leave: the seat is free
  // again. Whether `p` may is the lobby's to say.
  std::optional<protocol::Code> remove_bot(const std::shared_ptr<Connection>& p, int seat,
                                           const nlohmann::json& id);
  // Moves made in this round: a bot's search knows by it whether the game moved on meanwhile.
  std::size_t moves_made() const { return match_.moves().size(); }
  // The seats that asked for a rematch of the round that ended.
  const std::vector<bool>& rematch_asked() const { return table_.rematch(); }
  // The connection is gone (closed or dropped); its seat stays its player's.
  void disconnect(Connection* p);
  // A player said hello again on a new connection: rebind them to their seat here. `held` is
  // the version of this room their client still holds, if it said: when the room kept every
  // patch the seat missed since then, it sends those instead of the whole state.
  void rebind(const std::shared_ptr<Connection>& p, std::optional<std::int64_t> held = {});

  // Sends the spectator count to everyone here if it changed since the last tick: one `crowd`
  // per tick however many came and went, not one to everyone per arrival.
  void tick(Millis now);
  // Times each accepted move from its arrival to its broadcast (after its durable write).
  void time_moves(const SpanTimer* timer);
  // Boards and positions the room is done with are freed on `reaper`'s thread; without one
  // (tests that drive a room alone), here.
  void free_with(Reaper* reaper);

  // When the flag of the seat to move falls, while a clock runs.
  std::optional<Millis> deadline() const;
  // Whether a live clock runs (such a room stays in memory: its time is charged as it goes).
  bool live_clock_running() const;
  // The flag falls if it is time: the seat to move loses on time, stored, then shown.
  void flag(Millis now);

  // A message to the table's chat: to the players from a seated player, to the spectators from
  // a spectator. Stored, then shown. The lobby checks who may chat at all (rates, mutes).
  std::optional<protocol::Code> chat(const std::shared_ptr<Connection>& p,
                                     const protocol::Chat& req, const nlohmann::json& id);
  // The host deletes message `seq` (its words go, its place stays); false when there is none.
  bool delete_chat(int seq);
  const std::vector<ChatRecord>& chat_log() const { return chat_; }

  // One line of the lobby's list: room, game, seats, status, spectators, round.
  nlohmann::json summary() const;

 private:
  // The chat as the players see it, and as the spectators do (theirs, and the players' of
  // every round over), built again only when a message or the round's end changes them.
  std::pair<std::shared_ptr<const nlohmann::json>, std::shared_ptr<const nlohmann::json>>
  chat_views() const;
  // What every audience sees now; `seats` must outlive the scene.
  Scene scene(const std::vector<protocol::SeatInfo>& seats) const;
  void ensure_views();
  // A change happened: bump the version and queue the per-audience patches, held until the
  // store's write of the change is done. Returns the queued entry, for that write's completion
  // (durable_done) to release. `move_started`: see Outbox::hold.
  std::uint64_t publish(std::int64_t move_started = -1);
  // publish() a change that is neither a move nor a seat (who is connected, the rematch
  // requests), with its write.
  void publish_table();
  Done durable_done(std::uint64_t entry);
  // For a write whose change another write announces: only its failure matters here.
  Done must_write();
  void flush() { outbox_.flush(table_); }
  void send_full(const std::shared_ptr<Connection>& p, const nlohmann::json& id);
  // The seat `wanted`, or the first free one; else the refusal, sent to `p`.
  std::expected<int, protocol::Code> free_seat(const std::shared_ptr<Connection>& p,
                                               std::optional<int> wanted, const nlohmann::json& id);
  void fail_room();
  // Sends an error and returns its code.
  protocol::Code error(const std::shared_ptr<Connection>& p, protocol::Code code,
                       std::string message, const nlohmann::json& id);
  void start_next_round();
  // The seat of `p`, a player at a table whose round is in play; else the refusal, sent.
  std::expected<int, protocol::Code> playing_seat(const std::shared_ptr<Connection>& p,
                                                  std::string_view what, const nlohmann::json& id);
  // The round ends as `ending` says: shown once stored, as a move that ends it would be.
  void end_round(const protocol::Ending& ending);
  // The round is over with `outcome`: stored (`done` once durable), then told to the lobby.
  void finish_round(const nlohmann::json& outcome, Done done);
  // `seat` leaves the round in play, as `kind` says: of two seats the round ends (the other
  // wins); of more, a bot plays their seat from here, or, when they were the last but one,
  // the round ends (the last one wins). Stored, then shown.
  void depart(int seat, protocol::EndKind kind);
  // Whether `seat` may leave the round (a game of two, or a bot to play for them).
  bool may_depart() const { return table_.seats() == 2 || static_cast<bool>(settings_.stand_in); }
  // Whether everyone still in the round agreed to the takeback asked.
  bool takeback_agreed() const;
  // The round goes back to its first `to` moves (a takeback agreed): stored, then shown.
  void take_back(std::size_t to);
  // The bot that plays the seat of a player who left, seated (and looking at the game).
  void seat_stand_in(int seat);
  // Who left the round, as the state shows it and the store keeps it (null for nobody).
  nlohmann::json departed_json() const;
  // The player to move, shown away, in a game where the other may claim against them:
  // {"seat","since","claim_at"}; else null.
  nlohmann::json gone_json() const;
  // The name seat `seat` shows, for an outcome's reason ("Seat 2" when it shows none).
  std::string seat_name(int seat) const;
  // The time now, to the millisecond when the server said how (RoomSettings::now).
  Millis time() const { return settings_.now ? settings_.now() : now_; }
  // The clock of the seat to move starts, when the game is on and no clock runs yet.
  void start_clock();
  // Flags the seat to move if its time is gone at `now`; true when it did.
  bool flag_if_due(Millis now);
  // A connection leaves the room; a spectator's patches are kept from here if it `may_return`.
  void drop(Connection* p, bool may_return);
  void show_away(int seat);
  // A seated player's connection is here, under `name`: a version if that changes what is shown.
  void show_present(int seat, const std::string& name);

  std::string id_;
  Match match_;
  RoomSettings settings_;
  Store& store_;
  Table table_;
  std::optional<GameClock> clock_;  // none for a table without a time control
  // Per seat, the bot playing for a player who left the round in play (else null).
  std::vector<std::shared_ptr<Connection>> stand_ins_;
  std::vector<ChatRecord> chat_;
  std::uint64_t chat_generation_ = 0;  // changes with every message and deletion
  struct ChatCache {
    std::uint64_t generation = ~std::uint64_t{0};
    int round = 0;
    bool over = false;
    std::shared_ptr<const nlohmann::json> players, spectators;
  };
  mutable ChatCache chat_cache_;
  AudienceViews views_;  // at version_ once built
  Outbox outbox_;
  std::int64_t version_ = 0;
  bool failed_ = false;
  Millis now_;
  Millis last_activity_;
  const SpanTimer* move_timer_ = nullptr;
};

}  // namespace plateau::server
