#include "kwinty_state.hpp"
#include "rules/json_read.hpp"

namespace plateau::rules::kwinty {

namespace {

using read::int_in;

// "L@i1" / "S@k2" → a placement inside the frame; nullopt for anything else ("pass" included).
std::optional<Placement> parse_placement(std::string_view text) {
  if (text.size() != 4 || (text[0] != 'L' && text[0] != 'S') || text[1] != '@') return std::nullopt;
  const char col = text[2], row = text[3];
  if (col < 'a' || col >= 'a' + kColumns || row < '1' || row >= '1' + kRows) return std::nullopt;
  return Placement{text[0] == 'L', col - 'a', row - '1'};
}

}  // namespace

bool in_frame(Cell c) { return c.x >= 0 && c.x < kColumns && c.y >= 0 && c.y < kRows; }

std::string cell_name(Cell c) {
  return std::string{static_cast<char>('a' + c.x), static_cast<char>('1' + c.y)};
}

std::string placement_text(const Placement& p) {
  return std::string(p.lying ? "L@" : "S@") + cell_name({p.x, p.y});
}

std::vector<Move> KwintyState::legal_moves() const {
  std::vector<Move> moves;
  if (outcome_) return moves;
  for_each_placement(to_move_, [&](const Placement& p) {
    moves.push_back(Move{placement_text(p)});
    return false;
  });
  if (moves.empty()) moves.push_back(Move{"pass"});
  return moves;
}

bool KwintyState::is_legal(const Move& move) const {
  if (move.text == "pass") return !can_place_anything(to_move_);
  const auto p = parse_placement(move.text);
  return p && can_place(to_move_, *p);
}

void KwintyState::do_apply(const Move& move) {
  const Seat mover = to_move_;
  last_ = move.text;
  last_seat_ = mover;
  if (const auto p = parse_placement(move.text)) {
    place(mover, *p);
    if (!win_lines_.empty()) {
      const Direction& d = kDirections[win_direction_];
      outcome_ = Outcome{{mover},
                         {},
                         std::string(kColours[mover]) + " lined up " + std::to_string(win_length_) +
                             " squares " + std::string(d.name),
                         "kwinty.five",
                         {{"seat", mover}, {"length", win_length_}, {"direction", d.code}}};
      return;
    }
  }
  to_move_ = 1 - mover;
  if (!can_place_anything(0) && !can_place_anything(1)) score_lines_of_four();
}

Seat KwintyState::owner(Cell c) const {
  const int b = block_at(c);
  return b < 0 ? -1 : blocks_[b].seat;
}

bool KwintyState::can_place_anything(Seat seat) const {
  return for_each_placement(seat, [](const Placement&) { return true; });
}

bool KwintyState::can_place(Seat seat, const Placement& p) const {
  if (left_[seat] == 0) return false;
  const Block block{seat, p.lying, p.x, p.y};
  const Cell a{p.x, p.y}, b = block.second();
  if (!in_frame(a) || !in_frame(b) || block_at(a) >= 0 || block_at(b) >= 0) return false;
  // Rule a: the first block goes anywhere on the table, which our frame fixes at i1.
  if (blocks_.empty()) return p.x == kFirstColumn && p.y == 0;
  if (std::max(max_x_, b.x) - std::min(min_x_, a.x) + 1 > kMaxExtent) return false;
  // Rule b: every square rests on the table or on a square (a standing block's top square
  // rests on its own bottom one).
  if (p.y > 0 && (block_at({a.x, a.y - 1}) < 0 || (p.lying && block_at({b.x, b.y - 1}) < 0)))
    return false;
  bool touches = false;
  for (const Cell c : {a, b})
    for (const Cell d : kNeighbours) {
      const Cell n{c.x + d.x, c.y + d.y};
      if (n == a || n == b) continue;
      const int other = block_at(n);
      if (other < 0) continue;
      touches = true;
      const Block& o = blocks_[other];
      if (o.seat != seat) continue;
      // Rule c. A contact is "by a short side" of a block when it runs along that block's
      // length: horizontal contacts for a lying block, vertical ones for a standing block.
      const bool horizontal = d.y == 0;
      const bool end_of_new = horizontal == p.lying;
      const bool end_of_old = horizontal == o.lying;
      if (strict_ ? (end_of_new || end_of_old) : (end_of_new && end_of_old)) return false;
    }
  return touches;  // rule a: every later block touches the wall along an edge
}

void KwintyState::place(Seat seat, const Placement& p) {
  const Block block{seat, p.lying, p.x, p.y};
  const int index = static_cast<int>(blocks_.size());
  blocks_.push_back(block);
  const Cell a{p.x, p.y}, b = block.second();
  for (const Cell c : {a, b}) grid_[c.y * kColumns + c.x] = index;
  min_x_ = index == 0 ? a.x : std::min(min_x_, a.x);
  max_x_ = index == 0 ? b.x : std::max(max_x_, b.x);
  --left_[seat];
  for (const Direction& d : kDirections)
    for (const Cell c : {a, b}) {
      const Line line = run_through(c, d);
      if (static_cast<int>(line.size()) >= kWinLength &&
          std::ranges::find(win_lines_, line) == win_lines_.end()) {
        if (win_lines_.empty()) {
          win_length_ = static_cast<int>(line.size());
          win_direction_ = static_cast<std::size_t>(&d - kDirections.data());
        }
        win_lines_.push_back(line);
      }
    }
}

Line KwintyState::run_through(Cell c, const Direction& d) const {
  const Seat seat = owner(c);
  Cell start = c;
  while (owner({start.x - d.dx, start.y - d.dy}) == seat) start = {start.x - d.dx, start.y - d.dy};
  Line line;
  for (Cell at = start; owner(at) == seat; at = {at.x + d.dx, at.y + d.dy}) line.push_back(at);
  return line;
}

std::array<std::vector<Line>, 2> KwintyState::lines_of_four() const {
  std::array<std::vector<Line>, 2> out;
  if (blocks_.empty()) return out;
  // Only the wall's columns hold squares (at most 9 of the frame's 17).
  for (const Direction& d : kDirections)
    for (int y = 0; y < kRows; ++y)
      for (int x = min_x_; x <= max_x_; ++x) {
        const Seat seat = owner({x, y});
        // Count each run once, from its first square.
        if (seat < 0 || owner({x - d.dx, y - d.dy}) == seat) continue;
        Line line = run_through({x, y}, d);
        if (static_cast<int>(line.size()) == kFourLength) out[seat].push_back(std::move(line));
      }
  return out;
}

void KwintyState::score_lines_of_four() {
  const auto fours = lines_of_four();
  const int white = static_cast<int>(fours[0].size()), black = static_cast<int>(fours[1].size());
  const bool full = blocks_.size() == 2 * kBlocksEach;
  std::string reason =
      full ? "all 40 blocks placed without a line of five" : "neither player can place a block";
  reason += "; lines of four: white " + std::to_string(white) + ", black " + std::to_string(black);
  std::vector<Seat> winners;
  if (white != black) winners.push_back(white > black ? 0 : 1);
  reason += winners.empty() ? " (a draw)" : "";
  outcome_ = Outcome{std::move(winners),
                     {white, black},
                     std::move(reason),
                     "kwinty.fours",
                     {{"ended", full ? "full" : "stuck"}, {"white", white}, {"black", black}}};
}

namespace {

// The position a Kwinty board shows, with `to_move` to move and the game still on; nullptr for
// a board that is not one. Nothing in Kwinty is hidden, and the board lists every block in the
// order placed with its seat and move, and who started: the game is replayed from them by its
// own rules, which checks the board as it goes. Only the passes are not listed, and they are
// where they must be: a block whose seat is not the one to move, or the seat to move at the end
// not being the one that should, means the seat to move then passed (which the rules refuse if
// it could place). The view of the result must then be the board given, to the letter.
std::unique_ptr<State> rebuild(const json& options, const json& board, Seat to_move) {
  if (!board.is_object() || to_move < 0 || to_move > 1) return nullptr;
  const auto blocks = board.find("blocks"), first_node = board.find("first");
  if (blocks == board.end() || first_node == board.end() || !blocks->is_array() ||
      blocks->size() > 2 * kBlocksEach)
    return nullptr;
  const auto first = int_in(*first_node, 0, 1);
  if (!first) return nullptr;
  if (const auto fixed = options.find("first"); fixed != options.end() && fixed->is_string() &&
                                                *fixed != "random" &&
                                                *fixed != std::to_string(*first))
    return nullptr;
  auto state = std::make_unique<KwintyState>(*first, options.value("strict", false));
  const auto play = [&state](Seat seat, std::string text) {
    return state->to_move() == seat && state->apply(seat, Move{std::move(text)}).has_value();
  };
  for (const json& block : *blocks) {
    if (!block.is_object()) return nullptr;
    const auto seat_node = block.find("seat"), move = block.find("move");
    if (seat_node == block.end() || move == block.end() || !move->is_string()) return nullptr;
    const auto seat = int_in(*seat_node, 0, 1);
    if (!seat) return nullptr;
    if (state->to_move() == 1 - *seat && !play(1 - *seat, "pass")) return nullptr;
    if (!play(*seat, move->get<std::string>())) return nullptr;
  }
  if (state->to_move() == 1 - to_move && !play(1 - to_move, "pass")) return nullptr;
  if (state->to_move() != to_move || state->view(to_move) != board) return nullptr;
  return state;
}

class KwintyGame final : public Game {
 public:
  KwintyGame()
      : Game({.id = "kwinty",
              .name = "Kwinty",
              .min_seats = 2,
              .max_seats = 2,
              .options = {first_player_option(2),
                          bool_option("strict", false,
                                      "strict rule c: no short side may touch a block of its "
                                      "colour")},
              .takeback = true}) {}

  // Every seat sees the whole position: nothing is drawn from `rng`.
  std::unique_ptr<State> from_view(const Seen& seen, Rng&) const override {
    const auto options = normalize_options(seen.options);
    if (!options || seen.viewer < 0 || seen.viewer > 1) return nullptr;
    return rebuild(*options, seen.board, seen.to_move);
  }

  // "Le perdant commence la partie suivante": the loser starts; a draw changes nothing.
  json rematch_options(const json& options, const Outcome& last) const override {
    json next = options;
    if (last.winners.size() == 1) next["first"] = std::to_string(1 - last.winners.front());
    return next;
  }

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    Rng rng(seed);
    const auto first = pick_first_player(options, 2, rng);
    if (!first) return std::unexpected(first.error());
    return std::make_unique<KwintyState>(*first, options.value("strict", false));
  }
};

}  // namespace

const Game& game() {
  static const KwintyGame instance;
  return instance;
}

}  // namespace plateau::rules::kwinty
