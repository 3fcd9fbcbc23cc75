// L-Tiles's Game::from_view: the position a seat's view shows, read back from that view alone
// (a bot that plays as an ordinary client has nothing else).
//
// The view holds every placed tile in order, so the table is rebuilt by laying them again, each
// checked as a legal placement by the seat whose turn it was. Its piles, hands and (variant 1)
// set-up are set as the view shows them, with placeholders where the viewer sees nothing: the
// order of a pile below its top, the other seat's ordered pile, the picks of a seat ordering in
// front of the viewer. determinize() then draws those placeholders afresh from the caller's
// generator, as it does for a bot that holds the real state. Last, the rebuilt position's view
// must be the given board exactly: what is read here is checked on the way, and everything
// else the board holds (levels, squares, extent, scores, leader, last move, sizes, counts) is
// checked by that comparison, so no board the game would not show is ever accepted.
#include <limits>

#include "ltiles_state.hpp"
#include "rules/json_read.hpp"

namespace plateau::rules::ltiles {

namespace {

using read::int_in;
using read::member;

// The notation's integers have at most 6 digits; no reachable cell is anywhere near.
constexpr int kMaxCoord = 999999;

// Takes one tile of `kind` out of `tiles` (counts by kind); false when there is none.
bool take(std::map<std::string, int>& tiles, const std::string& kind) {
  const auto it = tiles.find(kind);
  if (it == tiles.end() || it->second == 0) return false;
  --it->second;
  return true;
}

int count_of(const std::map<std::string, int>& tiles) {
  int n = 0;
  for (const auto& [kind, count] : tiles) n += count;
  return n;
}

// The kinds listed by an `order` (an array of kind names), or nullopt.
std::optional<std::vector<std::string>> kinds_of(const json* list) {
  if (!list || !list->is_array()) return std::nullopt;
  std::vector<std::string> kinds;
  for (const json& kind : *list) {
    if (!kind.is_string()) return std::nullopt;
    kinds.push_back(kind.get<std::string>());
  }
  return kinds;
}

// `tiles` (counts by kind) as a pile, back = top: the kind `top` names on top, the rest in kind
// order, a placeholder that determinize() shuffles. A null `top` (a pile whose top is not shown)
// puts no tile in particular on top. nullopt when `top` names no tile among `tiles`.
std::optional<std::vector<std::string>> pile_of(std::map<std::string, int> tiles, const json* top) {
  std::optional<std::string> top_kind;
  if (top && top->is_string()) {
    top_kind = top->get<std::string>();
    if (!take(tiles, *top_kind)) return std::nullopt;
  } else if (!top || !top->is_null()) {
    return std::nullopt;
  }
  std::vector<std::string> pile;
  for (const auto& [kind, count] : tiles) pile.insert(pile.end(), count, kind);
  if (top_kind) pile.push_back(*top_kind);
  return pile;
}

// A pile shown top first (an `order`) as the pile itself (back = top), provided it holds exactly
// `tiles`, the seat's tiles not placed yet.
std::optional<std::vector<std::string>> pile_from_order(const json* order,
                                                        std::map<std::string, int> tiles) {
  auto kinds = kinds_of(order);
  if (!kinds) return std::nullopt;
  for (const auto& kind : *kinds)
    if (!take(tiles, kind)) return std::nullopt;
  if (count_of(tiles) != 0) return std::nullopt;
  std::ranges::reverse(*kinds);
  return kinds;
}

}  // namespace

std::unique_ptr<State> LTilesState::from_view(Variant variant, std::optional<Seat> chosen_first,
                                              const Seen& seen, Rng& rng) {
  const json& board = seen.board;
  const Seat viewer = seen.viewer, mover = seen.to_move;
  if (viewer < 0 || viewer >= kSeats || mover < 0 || mover >= kSeats) return nullptr;
  const json* phase_name = member(board, "phase");
  const json* tiles = member(board, "tiles");
  const json* piles = member(board, "piles");
  if (!phase_name || !phase_name->is_string() || !tiles || !tiles->is_array() || tiles->empty() ||
      !piles || !piles->is_array() || piles->size() != kSeats)
    return nullptr;
  for (const json& pile : *piles)
    if (!pile.is_object()) return nullptr;
  const std::string& phase = phase_name->get_ref<const std::string&>();
  const bool setup = phase == "setup";
  if (phase != "play" && phase != "over" && !(setup && variant == Variant::ordered)) return nullptr;
  const Inventory& inv = inventory();
  const int placed = static_cast<int>(tiles->size()) - 1;  // tile 0 is the domino
  if (placed > kSeats * inv.per_lot || (setup && placed > 0)) return nullptr;

  // Who started, which the view does not say but what it shows gives away: the seat of the first
  // tile placed, or the seat to move before any; while ordering (the first player orders first),
  // the other seat if its pile is complete already, else the seat ordering now. When one seat's
  // lot is of a single kind its pile is complete from the start, whoever is first: then the
  // host's choice, when there is one, decides, and the final comparison checks it.
  Seat first = mover;
  if (setup) {
    const auto other_size = int_in(member((*piles)[1 - mover], "size"), 0, inv.per_lot);
    if (!other_size) return nullptr;
    if (*other_size == inv.per_lot) first = 1 - mover;
    if (chosen_first) first = *chosen_first;
  } else {
    if (placed > 0) {
      const auto seat = int_in(member((*tiles)[1], "seat"), 0, kSeats - 1);
      if (!seat) return nullptr;
      first = *seat;
    }
    if (chosen_first && first != *chosen_first) return nullptr;
  }

  // A new game of this variant (the domino, each seat's lot, the total), then the table: every
  // placed tile laid again in order, by the seats in turn, each a legal placement when laid.
  auto state = std::make_unique<LTilesState>(variant, first, Rng(rng.next()));
  for (int i = 1; i <= placed; ++i) {
    const json& t = (*tiles)[static_cast<std::size_t>(i)];
    const Seat seat = i % 2 == 1 ? first : 1 - first;
    const json* kind = member(t, "kind");
    const json* at = member(t, "at");
    const auto rot = int_in(member(t, "rot"), 0, 3);
    if (int_in(member(t, "seat"), 0, kSeats - 1) != seat || !kind || !kind->is_string() || !at ||
        !at->is_array() || at->size() != 2 || !rot)
      return nullptr;
    const auto x = int_in(&(*at)[0], -kMaxCoord, kMaxCoord);
    const auto y = int_in(&(*at)[1], -kMaxCoord, kMaxCoord);
    if (!x || !y) return nullptr;
    const Placement p{kind->get<std::string>(), Pos{*x, *y}, *rot};
    if (!take(state->left_[seat], p.kind)) return nullptr;  // not a tile of the seat's lot left
    if (!state->can_spread(p.at, p.rot) && !state->can_stack(p.kind, p.at, p.rot)) return nullptr;
    state->put_tile(seat, p);
  }
  // Before the end, the seats take turns from the first player on.
  if (placed < kSeats * inv.per_lot && !setup && mover != (placed % 2 == 0 ? first : 1 - first))
    return nullptr;

  // The tiles not placed yet, as the view shows them: piles, hands, and variant 1's set-up.
  state->phase_ = setup ? Phase::setup : Phase::play;
  state->to_move_ = mover;
  for (Seat seat = 0; seat < kSeats; ++seat) {
    const json& shown = (*piles)[static_cast<std::size_t>(seat)];
    const std::map<std::string, int>& left = state->left_[seat];
    auto& pile = state->pile_[seat];
    switch (variant) {
      case Variant::standard: {
        auto drawn = pile_of(left, member(shown, "top"));
        if (!drawn) return nullptr;
        pile = std::move(*drawn);
        break;
      }
      case Variant::open:
        break;  // no pile: the counts left are all there is
      case Variant::hand: {
        const json* hand = member(shown, "hand");
        if (!hand || !hand->is_array() || hand->size() != kHandSize) return nullptr;
        std::map<std::string, int> rest = left;
        bool empty_slot = false;
        for (std::size_t i = 0; i < kHandSize; ++i) {
          const json& slot = (*hand)[i];
          auto& held = state->hand_[seat][i];
          if (slot.is_null()) {
            held.reset();
            empty_slot = true;
          } else if (slot.is_string() && take(rest, slot.get<std::string>())) {
            held = slot.get<std::string>();
          } else {
            return nullptr;
          }
        }
        auto drawn = pile_of(rest, member(shown, "top"));
        // A slot is left empty only once the pile has run out.
        if (!drawn || (empty_slot && !drawn->empty())) return nullptr;
        pile = std::move(*drawn);
        break;
      }
      case Variant::ordered: {
        auto& order = state->order_[seat];
        auto& to_order = state->to_order_[seat];
        for (auto& [kind, count] : to_order) count = 0;
        order.clear();
        pile.clear();
        state->ordered_[seat] = false;
        if (setup && seat == mover) {
          // Ordering now: its picks so far, first first. The owner sees them; another viewer
          // sees how many, and gets placeholder picks for determinize() to draw again.
          std::vector<std::string> picks;
          if (seat == viewer) {
            auto kinds = kinds_of(member(shown, "order"));
            if (!kinds) return nullptr;
            picks = std::move(*kinds);
          } else {
            // At least two tiles are left to order, of two kinds (checked below).
            const auto size = int_in(member(shown, "size"), 0, inv.per_lot - 2);
            if (!size) return nullptr;
            // The lot with its first tile moved last: its last two tiles differ (when it has two
            // kinds), so picks of all but two or more leave two kinds to order.
            std::vector<std::string> lot;
            for (const auto& [kind, count] : left) lot.insert(lot.end(), count, kind);
            std::ranges::rotate(lot, lot.begin() + 1);
            picks.assign(lot.begin(), lot.begin() + *size);
          }
          to_order = left;
          for (const auto& kind : picks)
            if (!take(to_order, kind)) return nullptr;
          // With a single kind left the game would have filled the pile in already.
          if (std::ranges::count_if(to_order, [](const auto& kc) { return kc.second > 0; }) < 2)
            return nullptr;
          order = std::move(picks);
        } else if (setup && seat != first) {
          // Has not started ordering: as a new game leaves it (a lot of one kind is filled in).
          to_order = left;
          state->auto_order(seat);
        } else {
          // Ordered: the whole pile, which only its owner sees below the top.
          auto ordered = seat == viewer ? pile_from_order(member(shown, "order"), left)
                                        : pile_of(left, member(shown, "top"));
          if (!ordered) return nullptr;
          pile = std::move(*ordered);
          state->ordered_[seat] = true;
          // The picks, first first: the tiles it has placed, then its pile from the top.
          for (const PlacedTile& t : state->tiles_)
            if (t.seat == seat) order.push_back(t.kind);
          order.insert(order.end(), pile.rbegin(), pile.rend());
        }
        break;
      }
    }
  }
  if (placed == kSeats * inv.per_lot) state->finish();

  auto sample = state->determinize(viewer, rng);
  if (!sample || sample->view(viewer) != board) return nullptr;
  return sample;
}

}  // namespace plateau::rules::ltiles
