// The table of a room: who sits where, which connections are here (each seat's and the
// spectators'), what each seat shows of its player's presence, the rematch requests and the
// draw offered.
// It decides nothing about versions or frames: the room publishes what changes here.
//
// Audiences. Each seat is an audience (numbered as the seat) and the spectators are one more,
// the last: every connection of an audience is sent the same frames.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "server/rooms/connection.hpp"

namespace plateau::server {

using Millis = std::int64_t;  // milliseconds since the epoch

using Connections = std::vector<std::shared_ptr<Connection>>;

// A seat's line in the lobby's list: {seat, name, connected}, and a bot's level as `bot`.
nlohmann::json seat_line(std::size_t seat, const std::optional<std::string>& player,
                         const std::string& name, bool connected);

class Table {
 public:
  explicit Table(int seats);

  int seats() const { return static_cast<int>(seats_.size()); }
  int audiences() const { return seats() + 1; }
  int spectator_audience() const { return seats(); }
  // The seat an audience sees the game as; nullopt for the spectators.
  std::optional<rules::Seat> viewer_of(int audience) const;
  // -1 when `p` is not here.
  int audience_of(const Connection* p) const;
  const Connections& connections(int audience) const;
  // Every connection here.
  void send_all(const Frame& frame) const;

  std::optional<rules::Seat> seat_of(const std::string& player_id) const;
  const std::optional<std::string>& player_at(int seat) const { return seats_[at(seat)].player_id; }
  std::optional<int> first_free_seat() const;
  // Each seat's player (none while free) and the name it shows.
  std::vector<std::pair<std::optional<std::string>, std::string>> seated() const;
  // What the seats show: names and presence (lagging by the grace period).
  std::vector<protocol::SeatInfo> seat_infos() const;
  // Each seat's line in the lobby's list: presence there is the connections', not the shown.
  nlohmann::json summary() const;

  // Whether the game has started: every seat was taken once. Set by sit(), or when rebuilt.
  bool started() const { return started_; }
  void set_started(bool started) { started_ = started; }

  // `player` takes the free `seat` with its first connection, shown present.
  void sit(int seat, const Player& player, const std::shared_ptr<Connection>& p);
  // Seat `seat` of a rebuilt room: its player (none while free), shown away.
  void restore_seat(int seat, std::optional<std::string> player_id, std::string name);
  // The seat's player is gone before the game started: the seat is free again, and every
  // connection there leaves.
  void free_seat(int seat);
  // One more connection at the seat of its player; or a bot standing in for a player who left
  // the round (the seat's frames reach it, but it is not its player's presence).
  void attach(int seat, const std::shared_ptr<Connection>& p);
  // `p` at a seat goes; true when it was the seat's last connection of a person (its player is
  // now away since `now`).
  bool detach(int seat, const Connection* p, Millis now);
  // Whether a person is connected at the seat (a bot standing in for them is not).
  bool has_connections(int seat) const;
  // Whether the seat shows its player connected (lagging by the grace period).
  bool shown_connected(int seat) const { return seats_[at(seat)].shown_connected; }
  // Since when the seat's player has had no connection here (set by detach, or as rebuilt).
  Millis away_since(int seat) const { return seats_[at(seat)].away_since; }
  void set_away_since(int seat, Millis when) { seats_[at(seat)].away_since = when; }

  // Presence as the seat shows it. Each returns whether what the seat shows changed.
  bool show_present(int seat, const std::string& name);
  bool show_away(int seat);
  // Seats whose player has been away for `grace` and still show present.
  std::vector<int> overdue(Millis now, Millis grace) const;
  // Nobody is here, and no seat still shows anyone present (bots aside).
  bool deserted() const;

  int spectators() const { return static_cast<int>(spectators_.size()); }
  void add_spectator(const std::shared_ptr<Connection>& p);
  void remove_spectator(const Connection* p);
  // Whether the spectator count changed since the last call.
  bool take_crowd_change() { return std::exchange(crowd_changed_, false); }

  // Rematch requests of the round that ended, a flag per seat.
  const std::vector<bool>& rematch() const { return rematch_; }
  // Returns false when the seat had asked already.
  bool ask_rematch(int seat);
  bool everyone_asked() const;
  std::uint32_t rematch_bits() const;
  void clear_rematch() { rematch_.assign(seats_.size(), false); }

  // What one seat puts to the others, made by seat `by` after `at` moves of the round: a draw,
  // or a takeback of the moves from the `to`th on (the asker's last and any after it). It
  // stands until it is agreed or declined, or the next move is made; one at a time.
  struct Offer {
    enum class Kind { draw, takeback };
    Kind kind = Kind::draw;
    int by = 0;
    std::size_t at = 0;
    std::size_t to = 0;          // a takeback's: the moves the round keeps
    std::uint32_t accepted = 0;  // a takeback's: the seats that agreed, a bit each (the asker's)
  };
  const std::optional<Offer>& offer() const { return offer_; }
  void make_offer(const Offer& offer) { offer_ = offer; }
  void accept_offer(int seat) { offer_->accepted |= 1u << seat; }
  // Returns whether there was one.
  bool clear_offer() { return std::exchange(offer_, std::nullopt).has_value(); }
  // The offer as the state shows it ({"kind":"draw","by":seat}, {"kind":"takeback","by":seat,
  // "moves":n,"accepted":[seats]}, or null), and as it is stored (with "at", and a takeback's
  // "to").
  nlohmann::json offer_json() const;
  nlohmann::json stored_offer() const;
  // The offer a stored one describes, if it still stands after `moves` moves (none since it
  // was made) in a game of `seats` seats; nullopt otherwise.
  static std::optional<Offer> offer_from_stored(const nlohmann::json& j, std::size_t moves,
                                                int seats);

 private:
  struct Slot {
    std::optional<std::string> player_id;
    std::string name;
    Connections conns;
    bool shown_connected = false;  // what the seat last showed (lags by the grace period)
    Millis away_since = 0;
  };
  // Where each connection here is: its audience and, for a spectator, its index in
  // spectators_, so that finding or removing one costs the same however large the audience.
  struct Place {
    int audience;
    std::size_t index;
  };
  std::size_t at(int seat) const { return static_cast<std::size_t>(seat); }

  std::vector<Slot> seats_;
  Connections spectators_;
  std::unordered_map<const Connection*, Place> places_;
  std::vector<bool> rematch_;
  std::optional<Offer> offer_;
  bool started_ = false;
  bool crowd_changed_ = false;
};

}  // namespace plateau::server
