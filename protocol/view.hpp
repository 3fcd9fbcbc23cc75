// The `state` object a viewer receives (PROTOCOL.md, "State"), built from a room's public facts
// and the rules State's filtered view, and the RFC 6902 patches between two of them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/game.hpp"
#include "rules/view_parts.hpp"

namespace plateau::protocol {

enum class Status { waiting, playing, over };
std::string_view status_string(Status s);

struct SeatInfo {
  std::optional<std::string> name;  // nullopt: nobody sits here
  bool connected = false;
  std::optional<std::string> bot;  // a bot's level ("easy", "normal", "hard"); nullopt: a person
  friend bool operator==(const SeatInfo&, const SeatInfo&) = default;
};

// A round's seed commitment (PROTOCOL.md, "Fair chance"): `commitment` is published from the
// round's start; `seed` (decimal) and `salt` (hex) are empty until the round is over, then
// revealed. A room makes one object while the round is sealed and another at its end, so that
// two envelopes show the same fairness exactly when they hold the same object.
struct Fairness {
  std::string commitment;
  std::string seed;
  std::string salt;
};
nlohmann::json fairness_json(const Fairness* f);

struct RoomFacts {
  std::string_view game;
  Status status = Status::waiting;
  const std::vector<SeatInfo>* seats = nullptr;
  const std::vector<bool>* rematch = nullptr;     // per seat: asked for a rematch
  int round = 1;                                  // the game's number in this room
  std::shared_ptr<const Fairness> fairness;       // null: a round from before commitments
  std::shared_ptr<const nlohmann::json> options;  // the round's (normalized); null: not shown
  // The outcome of a round that ended outside the rules (ending.hpp), shown instead of the
  // rules' (which have none); null otherwise. The status says over.
  std::shared_ptr<const nlohmann::json> ended;
  // The offer open to the table while it plays: {"kind":"draw","by":seat}, or null.
  nlohmann::json offer;
  // The table's clocks (server/rooms/game_clock.hpp), or null for a table without.
  nlohmann::json clock{};
  // The player to move, when gone: {"seat","since","claim_at"} (server times), else null.
  nlohmann::json gone{};
  // Who left the round, in order (ending.hpp's Departures), or null for nobody.
  nlohmann::json left{};
  bool rated = false;  // (extension) the table's games count for its players' ratings
  // (extension) The table's chat as this audience may see it; null for none.
  std::shared_ptr<const nlohmann::json> chat{};
};

// The viewer's whole state: game, status, seats, you, to_move, legal_moves, outcome, board,
// plus rematch, round, fairness, options and offer. `viewer` nullopt is a spectator.
nlohmann::json make_state(const RoomFacts& room, const rules::State& state,
                          std::optional<rules::Seat> viewer);

// Everything in a viewer's state but the board, typed: a room keeps one per audience and diffs
// them field by field, and builds the board (the costly part) once for the audiences that share
// it. make_state(...) == assemble_state(make_envelope(...), state.view(viewer)).
struct Envelope {
  std::string_view game;
  Status status = Status::waiting;
  int round = 1;
  std::vector<SeatInfo> seats;
  std::optional<rules::Seat> you;
  std::optional<rules::Seat> to_move;
  std::vector<std::string> legal_moves;
  nlohmann::json outcome;  // null until the game is over
  std::vector<int> rematch;
  std::shared_ptr<const Fairness> fairness;
  // The round's options: one object per round, so comparing the pointers is enough.
  std::shared_ptr<const nlohmann::json> options;
  nlohmann::json offer;  // null, or {"kind","by"}
  nlohmann::json clock;  // null, or the clocks
  nlohmann::json gone;   // null, or the player to move who is gone
  nlohmann::json left;   // who left the round: an array, empty for nobody
  bool rated = false;
  std::shared_ptr<const nlohmann::json> chat;  // one array per change: the pointers compare
  friend bool operator==(const Envelope&, const Envelope&) = default;
};
Envelope make_envelope(const RoomFacts& room, const rules::State& state,
                       std::optional<rules::Seat> viewer);
nlohmann::json assemble_state(const Envelope& envelope, nlohmann::json board);

// Appends the RFC 6902 operations turning one into the other to `ops`, the inside of a JSON
// array: a comma goes before each operation unless `ops` is empty or ends with '['.
void append_envelope_diff(std::string& ops, const Envelope& from, const Envelope& to);
// The same for any two JSON values, with `prefix` (a JSON pointer, "" for the root) before
// every path.
void append_diff(std::string& ops, const nlohmann::json& from, const nlohmann::json& to,
                 std::string prefix);
// The operations for a board that ViewParts::update_view brought up to date in place: its
// edits, with their values as they are in `board`, then the diff of each key of `update.rest`,
// which is then stored into `board`. Afterwards `board` is the new board.
void append_view_update(std::string& ops, nlohmann::json& board, rules::ViewParts::Update&& update,
                        const std::string& prefix);

// RFC 6902 operations turning `from` into `to`. apply_patch(from, diff(from, to)) == to.
nlohmann::json diff(const nlohmann::json& from, const nlohmann::json& to);
// The same operations as compact JSON text (a JSON array), ready to go into a frame.
std::string diff_text(const nlohmann::json& from, const nlohmann::json& to);
// Applies RFC 6902 operations; nullopt when they do not apply (a client's-eye check for tests).
std::optional<nlohmann::json> apply_patch(const nlohmann::json& doc, const nlohmann::json& ops);

}  // namespace plateau::protocol
