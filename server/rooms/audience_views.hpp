// What each audience of a room was last sent, and the patch that takes it to the next version.
//
// An audience (each seat, and the spectators: see table.hpp) sees an envelope (status, seats,
// turn, ...) and a board. Audiences that see the same board share one, so it is built and
// diffed once per change rather than once per audience; a game may bring a board up to date in
// place instead of building it anew (rules/view_parts.hpp: a game without that extension gets a
// board per audience, built whole and diffed).
//
// Ownership. Each board belongs to the audience that built it (its owner); the audiences that
// see the same board borrow it. A board is updated in place only when its owner is the only
// one to see it change (the audiences borrowing it are exactly those that will see it), and a
// board no view shows any more is handed to the reaper, once, by its owner.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/view.hpp"
#include "rules/game.hpp"
#include "rules/view_parts.hpp"
#include "server/rooms/connection.hpp"
#include "server/rooms/reaper.hpp"

namespace plateau::server {

// What every audience's view is made of at one version.
struct Scene {
  std::string_view game;
  bool started = false;
  const std::vector<protocol::SeatInfo>* seats = nullptr;
  const std::vector<bool>* rematch = nullptr;
  int round = 1;
  const rules::State* state = nullptr;
  const rules::State* delayed = nullptr;  // what the spectators see instead, if anything
  std::shared_ptr<const protocol::Fairness> sealed, revealed;
  std::uint64_t generation = 0;  // changes whenever a board may have changed
  std::uint64_t line = 0;        // Match::line(): changes when the position goes back (a takeback)
  std::shared_ptr<const nlohmann::json> options;  // the round's
  std::shared_ptr<const nlohmann::json> ended;    // Match::ended(): over outside the rules
  nlohmann::json offer;                           // the offer open to the table, or null
  nlohmann::json clock{};                         // GameClock::view(), or null
  nlohmann::json gone{};                          // the player to move, gone; or null
  nlohmann::json left{};                          // who left the round, or null
  bool rated = false;                             // the table is rated
  // The chat as the players see it and as the spectators do (Room::chat_views); null: none.
  std::shared_ptr<const nlohmann::json> chat_players{}, chat_spectators{};
};

class AudienceViews {
 public:
  // Seats 0..audiences-2 and the spectators, audience audiences-1.
  explicit AudienceViews(int audiences) : audiences_(audiences) {}

  // The views are built on first use, not when a room is made or rebuilt: a restart rebuilds
  // every unfinished room, and most wait for their players long after.
  bool built() const { return !seen_.empty(); }
  void build(const Scene& scene);
  void clear();
  // Moves every audience to `scene`, shown as `version` of room `room`: the patch for each
  // audience, as (audience, frame), in audience order. The views must be built.
  std::vector<std::pair<int, Frame>> advance(const Scene& scene, std::string_view room,
                                             std::int64_t version);
  // The whole state audience `a` sees now.
  nlohmann::json state_of(int a) const;

  // Boards no view shows any more are freed on `reaper`'s thread (here without one).
  void free_with(Reaper* reaper) { reaper_ = reaper; }

 private:
  struct Seen {
    protocol::Envelope envelope;
    std::shared_ptr<nlohmann::json> board;        // the state's changing_view(), or view()
    std::shared_ptr<const nlohmann::json> fixed;  // its fixed_view(): the rest of the board
    int owner = -1;                               // the audience whose board this is (see above)
    std::uint64_t board_generation = 0;           // Scene::generation when the board was built
    std::uint64_t line = 0;                       // Scene::line when the board was built
    int round = 0;                                // of the state it was built from, which was
    bool delayed = false;  // the spectators' delayed copy, or the game itself
    // Set when the board was brought up to date in place (ViewParts::update_view): the operations
    // from the board as it was before, which no longer exists.
    std::shared_ptr<const std::string> board_ops;
    // What the game keeps of the position the board shows (ViewParts::shown), if anything.
    std::shared_ptr<const rules::ViewParts::Shown> shown;
    nlohmann::json complete_board() const {
      return rules::ViewParts::complete_view(*board, fixed.get());
    }
  };

  int spectators() const { return audiences_ - 1; }
  std::optional<rules::Seat> viewer_of(int a) const;
  // Each audience's view of `scene`. A board may be brought up to date in place (its
  // operations in board_ops), so the caller must send what changed: advance is the one caller
  // with a board to update (build has none yet).
  std::vector<Seen> current(const Scene& scene);
  // Whether audience `a`'s previous board may be updated in place for the audiences that will
  // see it (all those of `delayed`'s state when `shared`, else `a` alone).
  bool board_is_private(int a, bool delayed, bool shared, const Scene& scene) const;
  // Brings `board`, as `previous` left it, up to `st` for `viewer`, writing its operations to
  // `ops`; false when the game cannot, and the board is built anew.
  static bool update_board(const rules::ViewParts& parts, const Seen& previous,
                           std::optional<rules::Seat> viewer, std::string& ops);
  // Lets go of the views `old` that `now` no longer shows: to the reaper, or freed here.
  void retire(std::vector<Seen>&& old, const std::vector<Seen>& now);

  int audiences_;
  std::vector<Seen> seen_;  // per audience; empty until built
  Reaper* reaper_ = nullptr;
};

}  // namespace plateau::server
