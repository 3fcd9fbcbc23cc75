#include "ltiles_state.hpp"

#include "ltiles_inventory.hpp"  // generated from inventory.json

namespace plateau::rules::ltiles {

namespace {

bool is_colour(char c) { return c == 'R' || c == 'G' || c == 'N'; }

bool is_kind(std::string_view k) { return k.size() == 3 && std::ranges::all_of(k, is_colour); }

// The data is part of the build, so a broken file is a programming error, caught by the tests:
// abort rather than play with a half-read inventory.
Inventory parse_inventory() {
  const json j = json::parse(kInventoryJson, nullptr, /*allow_exceptions=*/false);
  Inventory inv;
  if (!j.is_object() || !j.contains("start_domino") || !j["start_domino"].is_string() ||
      !j.contains("lots") || !j["lots"].is_array() || j["lots"].size() != kSeats)
    std::abort();
  inv.domino = j["start_domino"].get<std::string>();
  if (inv.domino.size() != 2 || !std::ranges::all_of(inv.domino, is_colour)) std::abort();
  for (int seat = 0; seat < kSeats; ++seat) {
    const json& lot = j["lots"][seat];
    if (!lot.is_object() || !lot.contains("tiles") || !lot["tiles"].is_array()) std::abort();
    int total = 0;
    for (const json& t : lot["tiles"]) {
      if (!t.is_object() || !t.contains("kind") || !t["kind"].is_string() || !t.contains("count") ||
          !t["count"].is_number_integer())
        std::abort();
      const std::string kind = t["kind"].get<std::string>();
      const int count = t["count"].get<int>();
      if (!is_kind(kind) || count < 1 || count > 1000) std::abort();
      for (const auto& [k, n] : inv.lots[seat])
        if (k == kind) std::abort();  // each kind once per lot
      inv.lots[seat].emplace_back(kind, count);
      total += count;
    }
    if (total < 1 || (seat > 0 && total != inv.per_lot)) std::abort();
    inv.per_lot = total;
  }
  return inv;
}

Pos add(Pos a, Pos b) { return {a.x + b.x, a.y + b.y}; }

// A plain decimal integer as the notation writes it: no "+", no leading zero, no "-0".
std::optional<int> parse_int(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  if (text.empty() || text.size() > 6) return std::nullopt;  // far beyond any reachable cell
  if (text[0] == '0' && (text.size() > 1 || negative)) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

std::optional<Placement> parse_placement(std::string_view text) {
  const auto at = text.find('@');
  if (at != 3 || !is_kind(text.substr(0, 3))) return std::nullopt;
  const auto rest = text.substr(4);
  const auto c1 = rest.find(',');
  if (c1 == std::string_view::npos) return std::nullopt;
  const auto c2 = rest.find(',', c1 + 1);
  if (c2 == std::string_view::npos) return std::nullopt;
  const auto x = parse_int(rest.substr(0, c1));
  const auto y = parse_int(rest.substr(c1 + 1, c2 - c1 - 1));
  const auto r = rest.substr(c2 + 1);
  if (!x || !y || r.size() != 1 || r[0] < '0' || r[0] > '3') return std::nullopt;
  return Placement{std::string(text.substr(0, 3)), Pos{*x, *y}, r[0] - '0'};
}

std::string ordinal(int n) {
  switch (n) {
    case 1:
      return "best";
    case 2:
      return "2nd-best";
    case 3:
      return "3rd-best";
    default:
      return std::to_string(n) + "th-best";
  }
}

}  // namespace

const Inventory& inventory() {
  static const Inventory inv = parse_inventory();
  return inv;
}

std::array<Pos, 3> footprint(Pos at, int rot) {
  return {at, add(at, kDirs[rot]), add(at, kDirs[(rot + 1) % 4])};
}

std::string placement_text(const std::string& kind, Pos at, int rot) {
  // Written into one buffer and made a string once: the legal moves are hundreds of these at
  // every move, and most ("RGN@-3,12,2") fit in the string itself, with no allocation at all.
  std::array<char, 64> buf;  // a kind of three letters, '@', two ints, two commas and a digit
  char* out = buf.data();
  char* const end = buf.data() + buf.size();
  auto put = [&](std::string_view text) {
    const auto n = std::min(text.size(), static_cast<std::size_t>(end - out));
    out = std::copy_n(text.data(), n, out);
  };
  auto put_int = [&](int n) {
    std::array<char, 12> digits;  // "-2147483648" fits
    put({digits.data(),
         static_cast<std::size_t>(
             std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr - digits.data())});
  };
  put(kind);
  put("@");
  put_int(at.x);
  put(",");
  put_int(at.y);
  put(",");
  put_int(rot);
  return std::string(buf.data(), out);
}

std::vector<Move> LTilesState::legal_moves() const {
  std::vector<Move> moves;
  if (outcome_) return moves;
  if (phase_ == Phase::setup) {
    for (const auto& [kind, count] : to_order_[to_move_])
      if (count > 0) moves.push_back(Move{"pile " + kind});
    return moves;
  }
  const auto open = placements();
  std::vector<std::pair<Pos, int>> spots;
  for (const auto& [kind, stack] : open.stack) {
    spots.clear();
    std::ranges::merge(open.spread, stack, std::back_inserter(spots));
    for (const auto& [pos, rot] : spots) moves.push_back(Move{placement_text(kind, pos, rot)});
  }
  return moves;
}

std::vector<int> LTilesState::scores() const {
  if (outcome_) return outcome_->scores;
  const auto zones = all_zones();
  std::vector<int> best;
  for (const auto& list : zones) best.push_back(list.empty() ? 0 : list.front().score);
  return best;
}

Move LTilesState::random_move(Rng& rng) const {
  if (phase_ == Phase::setup) return State::random_move(rng);
  const auto open = placements();
  std::size_t count = 0;
  for (const auto& [kind, stack] : open.stack) count += open.spread.size() + stack.size();
  auto pick = rng.below(count);
  for (const auto& [kind, stack] : open.stack) {
    if (pick >= open.spread.size() + stack.size()) {
      pick -= open.spread.size() + stack.size();
      continue;
    }
    // The pick-th of the two lists merged, without merging them: stack spot j has before it j
    // stack spots and the spread spots that sort before it.
    for (std::size_t j = 0; j < stack.size(); ++j) {
      const auto before = static_cast<std::size_t>(std::ranges::lower_bound(open.spread, stack[j]) -
                                                   open.spread.begin());
      if (before + j == pick) return Move{placement_text(kind, stack[j].first, stack[j].second)};
      if (before + j > pick) {
        const auto& [pos, rot] = open.spread[pick - j];
        return Move{placement_text(kind, pos, rot)};
      }
    }
    const auto& [pos, rot] = open.spread[pick - stack.size()];
    return Move{placement_text(kind, pos, rot)};
  }
  return {};  // not reached: `pick` < count
}

LTilesState::Placements LTilesState::placements() const {
  const ColumnGrid grid = column_grid(2);
  Placements out{spread_spots(grid), {}};
  for (std::string& kind : playable_kinds(to_move_)) {
    std::vector<std::pair<Pos, int>> stack;
    for (const auto& [pos, column] : board_)
      for (int rot = 0; rot < 4; ++rot)
        if (stacks(kind, pos, rot, grid)) stack.emplace_back(pos, rot);
    out.stack.emplace_back(std::move(kind), std::move(stack));
  }
  return out;
}

bool LTilesState::is_legal(const Move& move) const {
  if (outcome_) return false;
  if (phase_ == Phase::setup) {
    const std::string_view text = move.text;
    if (!text.starts_with("pile ")) return false;
    const auto it = to_order_[to_move_].find(std::string(text.substr(5)));
    return it != to_order_[to_move_].end() && it->second > 0;
  }
  const auto p = parse_placement(move.text);
  if (!p) return false;
  const auto kinds = playable_kinds(to_move_);
  if (std::ranges::find(kinds, p->kind) == kinds.end()) return false;
  return can_spread(p->at, p->rot) || can_stack(p->kind, p->at, p->rot);
}

void LTilesState::do_apply(const Move& move) {
  const Seat seat = to_move_;
  if (phase_ == Phase::setup) {
    const std::string kind = move.text.substr(5);
    order_[seat].push_back(kind);
    --to_order_[seat][kind];
    auto_order(seat);
    if (to_order_count(seat) > 0) return;
    finish_ordering(seat);
    return;
  }
  const Placement p = *parse_placement(move.text);
  take_tile(seat, p.kind);
  put_tile(seat, p);
  if (static_cast<int>(tiles_.size()) - 1 == total_) {
    finish();
    return;
  }
  to_move_ = 1 - seat;
}

void LTilesState::put_tile(Seat seat, const Placement& p) {
  const auto cells = footprint(p.at, p.rot);
  const auto below = board_.find(cells[0]);
  const int level = below == board_.end() ? 1 : static_cast<int>(below->second.size()) + 1;
  const int index = static_cast<int>(tiles_.size());
  tiles_.push_back(PlacedTile{seat, p.kind, p.at, p.rot, level, {cells.begin(), cells.end()}});
  for (int i = 0; i < 3; ++i) board_[cells[i]].push_back(Square{p.kind[i], index});
  last_tile_ = index;
}

int LTilesState::height(Pos p) const {
  const auto it = board_.find(p);
  return it == board_.end() ? 0 : static_cast<int>(it->second.size());
}

bool LTilesState::can_spread(Pos at, int rot) const {
  const auto cells = footprint(at, rot);
  for (const Pos& c : cells)
    if (height(c) > 0) return false;
  for (const Pos& c : cells)
    for (const Pos& d : kDirs)
      if (height(add(c, d)) > 0) return true;
  return false;
}

LTilesState::ColumnGrid LTilesState::column_grid(int margin) const {
  ColumnGrid g;
  if (board_.empty()) return g;
  int x1 = board_.begin()->first.x, y1 = board_.begin()->first.y;
  g.x0 = x1, g.y0 = y1;
  for (const auto& [pos, column] : board_) {
    g.x0 = std::min(g.x0, pos.x), g.y0 = std::min(g.y0, pos.y);
    x1 = std::max(x1, pos.x), y1 = std::max(y1, pos.y);
  }
  g.x0 -= margin, g.y0 -= margin;
  g.w = x1 + margin - g.x0 + 1, g.h = y1 + margin - g.y0 + 1;
  g.cells.assign(static_cast<std::size_t>(g.w) * static_cast<std::size_t>(g.h), nullptr);
  for (const auto& [pos, column] : board_) g.cells[g.index(pos)] = &column;
  return g;
}

const std::vector<Square>* LTilesState::column(Pos p) const {
  const auto it = board_.find(p);
  return it == board_.end() ? nullptr : &it->second;
}

std::vector<std::pair<Pos, int>> LTilesState::spread_spots(const ColumnGrid& grid) const {
  enum Near : unsigned char { apart, beside, placed };
  // The grid with one more cell on every side, so that each square of a spot whose corner is in
  // the grid has a cell here: the loop below, thousands of spots a move, checks no bounds.
  const int w = grid.w + 2, h = grid.h + 2;
  std::vector<Near> cell(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), apart);
  const auto index = [&](Pos p) {
    return static_cast<std::ptrdiff_t>(p.y - grid.y0 + 1) * w + (p.x - grid.x0 + 1);
  };
  for (const auto& [pos, column] : board_) {
    cell[static_cast<std::size_t>(index(pos))] = placed;
    for (const Pos& d : kDirs)
      if (auto& c = cell[static_cast<std::size_t>(index(add(pos, d)))]; c == apart)
        c = beside;  // margin >= 1
  }
  const std::array<std::ptrdiff_t, 4> step{1, w, -1, -w};  // kDirs (E S W N) as steps in `cell`
  const auto near = [&](std::ptrdiff_t i) { return cell[static_cast<std::size_t>(i)]; };
  std::vector<std::pair<Pos, int>> spots;
  for (int x = grid.x0; x < grid.x0 + grid.w; ++x)
    for (int y = grid.y0; y < grid.y0 + grid.h; ++y) {
      const std::ptrdiff_t i = index(Pos{x, y});
      const Near a = near(i);
      if (a == placed) continue;  // the corner's own square would be on a placed one
      for (int rot = 0; rot < 4;
           ++rot) {  // footprint(): the corner, then arms along kDirs[rot], kDirs[rot + 1]
        const Near b = near(i + step[rot]), c = near(i + step[(rot + 1) % 4]);
        if (b != placed && c != placed && (a == beside || b == beside || c == beside))
          spots.emplace_back(Pos{x, y}, rot);
      }
    }
  return spots;
}

std::vector<std::string> LTilesState::playable_kinds(Seat seat) const {
  std::vector<std::string> kinds;
  switch (variant_) {
    case Variant::standard:
    case Variant::ordered:
      if (!pile_[seat].empty()) kinds.push_back(pile_[seat].back());
      break;
    case Variant::open:
      for (const auto& [kind, count] : left_[seat])
        if (count > 0) kinds.push_back(kind);
      break;
    case Variant::hand:
      for (const auto& slot : hand_[seat])
        if (slot && std::ranges::find(kinds, *slot) == kinds.end()) kinds.push_back(*slot);
      break;
  }
  return kinds;
}

std::optional<std::string> LTilesState::draw(Seat seat) {
  if (pile_[seat].empty()) return std::nullopt;
  std::string top = std::move(pile_[seat].back());
  pile_[seat].pop_back();
  return top;
}

void LTilesState::take_tile(Seat seat, const std::string& kind) {
  --left_[seat][kind];
  switch (variant_) {
    case Variant::standard:
    case Variant::ordered:
      pile_[seat].pop_back();
      break;
    case Variant::open:
      break;
    case Variant::hand:
      for (auto& slot : hand_[seat])
        if (slot == kind) {
          // The text: the player "replaces the tile just played by the top tile of the pile".
          slot = draw(seat);
          break;
        }
      break;
  }
}

namespace {

// Fisher–Yates over the first `n` elements of `v`.
void shuffle_front(std::vector<std::string>& v, std::size_t n, Rng& rng) {
  for (std::size_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace

std::unique_ptr<State> LTilesState::determinize(Seat viewer, Rng& rng) const {
  auto sample = std::make_unique<LTilesState>(*this);
  sample->rng_ = Rng(rng.next());
  for (Seat seat = 0; seat < kSeats; ++seat) {
    if (variant_ == Variant::ordered && seat == viewer) continue;  // they chose its order
    auto& pile = sample->pile_[seat];
    if (phase_ == Phase::play) {
      if (pile.size() > 1) shuffle_front(pile, pile.size() - 1, rng);  // the top stays: all see it
    } else if (ordered_[seat]) {
      shuffle_front(pile, pile.size(), rng);  // while ordering, no top is shown
    } else if (!order_[seat].empty()) {
      // Picked so far: how many is seen, not which. Another draw of the picks from the lot, such
      // that what is left to order still holds two kinds or more (with one, the real game would
      // have filled it in already); the real picks are one such draw.
      std::vector<std::string> lot = order_[seat];
      for (const auto& [kind, count] : to_order_[seat]) lot.insert(lot.end(), count, kind);
      const std::size_t picked = order_[seat].size();
      for (int attempt = 0; attempt < 1000; ++attempt) {  // else the real picks stay
        shuffle_front(lot, lot.size(), rng);
        std::map<std::string, int> left;
        for (std::size_t i = picked; i < lot.size(); ++i) ++left[lot[i]];
        if (left.size() < 2) continue;
        sample->order_[seat].assign(lot.begin(), lot.begin() + static_cast<std::ptrdiff_t>(picked));
        for (auto& [kind, count] : sample->to_order_[seat])
          count = left.contains(kind) ? left[kind] : 0;
        break;
      }
    }
  }
  return sample;
}

int LTilesState::to_order_count(Seat seat) const {
  int n = 0;
  for (const auto& [kind, count] : to_order_[seat]) n += count;
  return n;
}

void LTilesState::auto_order(Seat seat) {
  int kinds = 0;
  for (const auto& [kind, count] : to_order_[seat]) kinds += count > 0;
  if (kinds != 1) return;
  for (auto& [kind, count] : to_order_[seat]) {
    order_[seat].insert(order_[seat].end(), count, kind);
    count = 0;
  }
}

void LTilesState::finish_ordering(Seat seat) {
  pile_[seat].assign(order_[seat].rbegin(), order_[seat].rend());  // back = top = first pick
  ordered_[seat] = true;
  const Seat other = 1 - seat;
  if (!ordered_[other]) {
    to_move_ = other;
    if (to_order_count(other) == 0) finish_ordering(other);
    return;
  }
  phase_ = Phase::play;
  to_move_ = first_;
}

std::array<std::vector<Zone>, kSeats> LTilesState::all_zones() const {
  std::array<std::vector<Zone>, kSeats> zones;
  const ColumnGrid grid = column_grid(1);  // a cell beside the table is inside, and empty
  std::vector<bool> seen(grid.cells.size(), false);
  const auto colour_of = [&grid](Pos p) {
    const auto* column = grid.column(p);
    return column ? column->back().colour : 'N';
  };
  for (const auto& [start, start_column] : board_) {
    const char colour = start_column.back().colour;
    if (colour == 'N' || seen[grid.index(start)]) continue;
    const int seat = colour == kSeatLetter[0] ? 0 : 1;
    Zone zone;
    std::vector<Pos> todo{start};
    seen[grid.index(start)] = true;
    while (!todo.empty()) {
      const Pos p = todo.back();
      todo.pop_back();
      zone.cells.push_back(p);
      zone.height = std::max(zone.height, grid(p));
      for (const Pos& d : kDirs) {
        const Pos q = add(p, d);
        if (colour_of(q) != colour || seen[grid.index(q)]) continue;
        seen[grid.index(q)] = true;
        todo.push_back(q);
      }
    }
    std::ranges::sort(zone.cells);
    zone.area = static_cast<int>(zone.cells.size());
    zone.score = zone.area * zone.height;
    zones[seat].push_back(std::move(zone));
  }
  for (auto& list : zones)
    std::ranges::sort(list, [](const Zone& a, const Zone& b) {
      return std::tie(b.score, b.area, a.cells.front()) <
             std::tie(a.score, a.area, b.cells.front());
    });
  return zones;
}

Verdict LTilesState::compare(const std::array<std::vector<Zone>, kSeats>& zones) {
  const std::size_t n = std::max(zones[0].size(), zones[1].size());
  for (std::size_t i = 0; i < n; ++i) {
    const int a = i < zones[0].size() ? zones[0][i].score : 0;
    const int b = i < zones[1].size() ? zones[1][i].score : 0;
    if (a != b) return Verdict{a > b ? 0 : 1, static_cast<int>(i)};
  }
  return Verdict{};
}

void LTilesState::finish() {
  const auto zones = all_zones();
  const Verdict v = compare(zones);
  std::array<int, kSeats> best{};
  for (int seat = 0; seat < kSeats; ++seat)
    best[seat] = zones[seat].empty() ? 0 : zones[seat].front().score;
  std::string reason, code;
  json args;
  if (!v.winner) {
    reason = "every zone ties (best zones " + std::to_string(best[0]) + " each): a draw";
    code = "ltiles.draw";
    args = {{"best", best[0]}};
  } else {
    const Seat w = *v.winner;
    const auto score_at = [&](Seat s) {
      const auto i = static_cast<std::size_t>(v.rank);
      return i < zones[s].size() ? zones[s][i].score : 0;
    };
    reason = std::string(kSeatColour[w]) + " wins: ";
    if (v.rank == 0) {
      const Zone& z = zones[w].front();
      reason += "best zone " + std::to_string(z.score) + " (" + std::to_string(z.area) +
                " squares, up to level " + std::to_string(z.height) + ") against " +
                std::to_string(best[1 - w]);
      code = "ltiles.best_zone";
      args = {{"seat", w},
              {"score", z.score},
              {"area", z.area},
              {"height", z.height},
              {"other", best[1 - w]}};
    } else {
      reason += "best zones tie at " + std::to_string(best[0]) + "; " + ordinal(v.rank + 1) +
                " zone " + std::to_string(score_at(w)) + " against " +
                std::to_string(score_at(1 - w));
      code = "ltiles.tie_break";
      args = {{"seat", w},
              {"best", best[0]},
              {"rank", v.rank + 1},
              {"score", score_at(w)},
              {"other", score_at(1 - w)}};
    }
  }
  outcome_ = Outcome{v.winner ? std::vector<Seat>{*v.winner} : std::vector<Seat>{},
                     {best[0], best[1]},
                     reason,
                     code,
                     args};
}

namespace {

// The normalized "variant" option, or nullopt for a name the game does not know.
std::optional<Variant> variant_option(const json& options) {
  const auto it = options.find("variant");
  if (it == options.end() || !it->is_string()) return std::nullopt;
  const auto found = std::ranges::find(kVariantNames, it->get_ref<const std::string&>());
  if (found == kVariantNames.end()) return std::nullopt;
  return static_cast<Variant>(found - kVariantNames.begin());
}

class LTilesGame final : public Game {
 public:
  LTilesGame()
      : Game({.id = "ltiles",
              .name = "L-Tiles",
              .min_seats = 2,
              .max_seats = 2,
              .options = {
                  first_player_option(2),
                  choice_option("variant", {kVariantNames.begin(), kVariantNames.end()}, "standard",
                                "variant: standard, ordered (each orders their pile "
                                "first), open (all tiles face up), hand (a face-up hand "
                                "of 3)")}}) {}

  std::unique_ptr<State> from_view(const Seen& seen, Rng& rng) const override {
    const auto options = normalize_options(seen.options);
    if (!options) return nullptr;
    const auto variant = variant_option(*options);
    if (!variant) return nullptr;
    // A first player the host chose is known to everyone; "random" leaves it to the board.
    std::optional<Seat> first;
    const auto& chosen = options->at("first").get_ref<const std::string&>();
    if (chosen != "random") first = chosen[0] - '0';  // normalized: "0" or "1"
    return LTilesState::from_view(*variant, first, seen, rng);
  }

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    Rng rng(seed);
    const auto first = pick_first_player(options, kSeats, rng);
    if (!first) return std::unexpected(first.error());
    const auto variant = variant_option(options);
    if (!variant) return std::unexpected(RuleError::bad_option);
    return std::make_unique<LTilesState>(*variant, *first, rng);
  }
};

}  // namespace

const Game& game() {
  static const LTilesGame instance;
  return instance;
}

}  // namespace plateau::rules::ltiles
