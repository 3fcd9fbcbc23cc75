// The rules core: the contract every game implements.
//
// A Game is an immutable description (its GameInfo: id, name, seat counts, options) that makes
// States; a State is one position. The core stays pure: no I/O, no clocks, no threads, no global
// random numbers. Chance comes from an Rng seeded from the seed the State was created with, so a
// game replays exactly from its options, seed and moves. Each game has its folder here, with its
// rules page (rules/<game>/RULES.md); registry.cpp lists the games the server offers.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "rng.hpp"

namespace plateau::rules {

using Seat = int;  // 0-based

// A move in the game's own notation (documented in each game's header), e.g. "cube@c3".
struct Move {
  std::string text;
  friend bool operator==(const Move&, const Move&) = default;
};

enum class RuleError { game_over, not_your_turn, illegal_move, bad_option };

// Stable wire code for an error: "move/game_over", "move/not_your_turn", ...
std::string_view error_code(RuleError e);
std::string_view error_message(RuleError e);

template <class T = void>
using Result = std::expected<T, RuleError>;

// How a finished game ended. `scores` has one entry per seat, or is empty for games that do not
// score. `winners` may hold several seats (a shared win) or none (a draw).
struct Outcome {
  std::vector<Seat> winners;
  std::vector<int> scores;
  std::string reason;  // non-empty, human readable, e.g. "four different shapes in row 2"
  // The same reason for clients to word in their own language: a code such as "quantik.line"
  // and its values, e.g. {"line": "row"} (PROTOCOL.md, "Outcome reasons"). Seats are numbers.
  std::string code{};
  nlohmann::json args = nlohmann::json::object();
  friend bool operator==(const Outcome&, const Outcome&) = default;
};
nlohmann::json to_json(const Outcome& o);

class State {
 public:
  virtual ~State() = default;

  virtual std::unique_ptr<State> clone() const = 0;
  virtual int num_seats() const = 0;
  // The seat that acts next; nullopt once the game is over.
  virtual std::optional<Seat> to_move() const = 0;
  // The moves open to `to_move()`; empty iff the game is over. A player who is stuck but whose
  // game goes on gets an explicit "pass".
  virtual std::vector<Move> legal_moves() const = 0;
  // legal_moves()[rng.below(legal_moves().size())], the same move for the same draw, made
  // without listing every move where a game knows how: bots' random playouts take one at every
  // step. Precondition: the game is not over.
  virtual Move random_move(Rng& rng) const;
  // nullopt until the game is over.
  virtual std::optional<Outcome> outcome() const = 0;
  // Each seat's score as it stands, as an outcome would count it; empty for a game that does
  // not score. A player who leaves a game of three or four seats keeps this (ending.hpp).
  virtual std::vector<int> scores() const { return {}; }
  // The game's own board as `viewer` may see it (nullopt = a spectator). Must hold nothing the
  // viewer may not know: no seed, no order of a bag or a pile. A game may also say how its
  // board can be shared between viewers, split and updated in place: view_parts.hpp.
  virtual nlohmann::json view(std::optional<Seat> viewer) const = 0;

  // A position that agrees with all `viewer` knows (view(viewer) is the same) with everything
  // else drawn afresh from `rng`: what is hidden from the viewer (a bag's order, face-down
  // tiles, another's pile) and the chance still to come, re-seeded. Bots search many of these,
  // so that they play on what their seat may know and never on the real hidden state.
  // nullptr: the game cannot be sampled (yet), and no bot plays it. A game in which every seat
  // sees everything and no chance is left to come returns a copy of itself.
  virtual std::unique_ptr<State> determinize(Seat viewer, Rng& rng) const;
  // What chance has put before the seat to move, shown to everyone, that the text of its move
  // does not name (the piece or the tile it drew), as a short text; empty where there is none.
  // A bot's search tells positions apart by it: "c5" with a green marker drawn is not "c5"
  // with a black Quirk.
  virtual std::string drawn() const { return {}; }

  // Checks that the game is not over, that `seat` is to move and that the move is legal, then
  // plays it. Never throws; on error the state is unchanged.
  Result<> apply(Seat seat, const Move& move);

  bool is_over() const { return !to_move().has_value(); }

 protected:
  // Whether `move` is legal for the seat to move. Defaults to a search of legal_moves(); a game
  // whose move lists are long may answer faster, but must agree with legal_moves().
  virtual bool is_legal(const Move& move) const;
  // Precondition: the game is not over and `move` is legal.
  virtual void do_apply(const Move& move) = 0;
};

// Helpers for building JSON: a board (view_parts.hpp has more), or what a game records of a move
// to show it (On Top's last placement, built as the move is played). [a, b, ...] and
// {"key": value, ...}, built in place. A braced list (json{{"k", v}} or json::array({a, b}))
// wraps every element, checks whether the list could be an object and then copies each element
// in; the boards are partly rebuilt at every move, and most of what they rebuild is small lists
// and objects, so games build those with these instead.
template <class... Items>
nlohmann::json list_of(Items&&... items) {
  nlohmann::json list(nlohmann::json::value_t::array);
  auto& elements = list.get_ref<nlohmann::json::array_t&>();
  elements.reserve(sizeof...(Items));
  (elements.emplace_back(std::forward<Items>(items)), ...);
  return list;
}
namespace detail {
inline void put_members(nlohmann::json::object_t&) {}
template <class Value, class... Rest>
void put_members(nlohmann::json::object_t& object, std::string_view key, Value&& value,
                 Rest&&... rest) {
  object.insert_or_assign(std::string(key), nlohmann::json(std::forward<Value>(value)));
  put_members(object, std::forward<Rest>(rest)...);
}
}  // namespace detail
// object_of("seat", 1, "name", "x"): keys and values in turn.
template <class... KeysAndValues>
nlohmann::json object_of(KeysAndValues&&... keys_and_values) {
  static_assert(sizeof...(KeysAndValues) % 2 == 0, "object_of takes keys and values in pairs");
  nlohmann::json object(nlohmann::json::value_t::object);
  detail::put_members(object.get_ref<nlohmann::json::object_t&>(),
                      std::forward<KeysAndValues>(keys_and_values)...);
  return object;
}

// What every game here has in common: one seat to move until the game ends, and an outcome once
// it has. Derived is the game's own state class (clone copies it whole).
template <class Derived>
class TurnState : public State {
 public:
  std::unique_ptr<State> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  std::optional<Seat> to_move() const override {
    return outcome_ ? std::nullopt : std::optional<Seat>(to_move_);
  }
  std::optional<Outcome> outcome() const override { return outcome_; }

 protected:
  explicit TurnState(Seat first = 0) : to_move_(first) {}
  Seat to_move_;
  std::optional<Outcome> outcome_;
};

// A room option a host may set. "players" is common to every game and added by the core.
struct OptionSpec {
  enum class Kind { boolean, integer, choice };
  std::string name;
  Kind kind = Kind::boolean;
  nlohmann::json default_value;
  int min = 0, max = 0;              // integer only
  std::vector<std::string> choices;  // choice only
  std::string label;                 // what it means, for people
};

// What a game is, as one value: its identity, how many play and what a host may set. Nothing
// in it depends on a position; the lobby and `welcome` show it as it is.
struct GameInfo {
  std::string id;    // stable: on the wire, in records and in the web client's file names
  std::string name;  // for people
  int min_seats = 2;
  int max_seats = 2;
  std::vector<OptionSpec> options;  // the game's own ("players" is added by the core)
  // Every seat sees everything and nothing is left to chance once the game is set up, so a
  // move may be taken back without undoing a draw or unseeing something (the server's
  // `takeback`). False for a game with a bag, face-down tiles or hidden piles.
  bool takeback = false;
};

// What a seat's client knows of a game in play (the protocol's state): the round's options, the
// board its seat is shown, and who is to move.
struct Seen {
  nlohmann::json options;  // normalized, as the state's `options` shows them
  nlohmann::json board;    // State::view(viewer)
  Seat viewer = 0;
  Seat to_move = 0;
};

class Game {
 public:
  explicit Game(GameInfo info) : info_(std::move(info)) {}
  virtual ~Game() = default;
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  const GameInfo& info() const { return info_; }
  std::string_view id() const { return info_.id; }
  std::string_view name() const { return info_.name; }
  int min_seats() const { return info_.min_seats; }
  int max_seats() const { return info_.max_seats; }
  const std::vector<OptionSpec>& options() const { return info_.options; }

  // Checks `options` against the specs (unknown names, wrong types, out of range are
  // bad_option), fills in defaults and adds "players" (default min_seats()).
  Result<nlohmann::json> normalize_options(const nlohmann::json& options) const;
  // A new game: normalizes the options, then do_create.
  Result<std::unique_ptr<State>> create(const nlohmann::json& options, std::uint64_t seed) const;
  // Options for the next game in the same room after `last` ended (who starts, for instance).
  // Defaults to the same options.
  virtual nlohmann::json rematch_options(const nlohmann::json& options, const Outcome& last) const;

  // A position that agrees with all `seen` shows, with everything else drawn from `rng`:
  // determinize() for a player that has only its seat's view (a bot playing as an ordinary
  // client, from another machine). Its view(seen.viewer) is seen.board, its to_move() is
  // seen.to_move, and the viewer's legal moves in it are the real game's. nullptr when the
  // board is not one this game shows with these options (or the game cannot do it).
  virtual std::unique_ptr<State> from_view(const Seen& seen, Rng& rng) const;

  // {"id","name","seats":[min,max],"options":[...]} as sent in `welcome`.
  nlohmann::json describe() const;

 protected:
  // `options` is normalized; may still refuse combinations (bad_option).
  virtual Result<std::unique_ptr<State>> do_create(const nlohmann::json& options,
                                                   std::uint64_t seed) const = 0;

 private:
  GameInfo info_;
};

// Short forms for the three kinds of option.
OptionSpec bool_option(std::string name, bool default_value, std::string label);
OptionSpec int_option(std::string name, int default_value, int min, int max, std::string label);
OptionSpec choice_option(std::string name, std::vector<std::string> choices,
                         std::string default_value, std::string label);

// The "first" option most games share: "random" or a seat number as a string.
OptionSpec first_player_option(int max_seats);
// Resolves a normalized "first" option: the named seat, or a draw from `rng`; bad_option when
// the named seat is not in a game of `players`.
Result<Seat> pick_first_player(const nlohmann::json& options, int players, Rng& rng);

// The explicit list of every game the server offers (registry.cpp).
const std::vector<const Game*>& all_games();
const Game* find_game(std::string_view id);

}  // namespace plateau::rules
