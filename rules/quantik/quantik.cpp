#include "quantik_state.hpp"
#include "rules/json_read.hpp"

namespace plateau::rules::quantik {

namespace {

using read::int_in;

int region_of(int row, int col) { return (row / 2) * 2 + col / 2; }

std::string cell_name(int row, int col) {
  return std::string{static_cast<char>('a' + col), static_cast<char>('1' + row)};
}

Group row_group(int row) { return {row * 4, row * 4 + 1, row * 4 + 2, row * 4 + 3}; }

Group col_group(int col) { return {col, 4 + col, 8 + col, 12 + col}; }

Group region_group(int region) {
  const int r0 = (region / 2) * 2, c0 = (region % 2) * 2;
  return {r0 * 4 + c0, r0 * 4 + c0 + 1, (r0 + 1) * 4 + c0, (r0 + 1) * 4 + c0 + 1};
}

}  // namespace

std::vector<Move> QuantikState::legal_moves() const {
  std::vector<Move> moves;
  if (outcome_) return moves;
  for (int shape = 0; shape < kShapes; ++shape)
    for (int i = 0; i < kSize * kSize; ++i)
      if (can_place(to_move_, shape, i))
        moves.push_back(Move{std::string(kShapeNames[shape]) + "@" + cell_name(i / 4, i % 4)});
  return moves;
}

bool QuantikState::is_legal(const Move& move) const {
  const auto parsed = parse(move.text);
  return parsed && can_place(to_move_, parsed->first, parsed->second);
}

void QuantikState::do_apply(const Move& move) {
  const auto [shape, index] = *parse(move.text);
  board_[index] = Cell{to_move_, shape};
  --pieces_[to_move_][shape];
  last_ = move.text;
  const Seat mover = to_move_;
  to_move_ = 1 - to_move_;
  if (completes_group(index)) {
    outcome_ = Outcome{{mover},
                       {},
                       std::string("four different shapes in a ") + win_kind_,
                       "quantik.line",
                       {{"line", win_kind_}}};
    return;
  }
  if (!has_any_move(to_move_))
    outcome_ = Outcome{{mover}, {}, "the player to move has no legal move", "quantik.no_move"};
}

std::optional<std::pair<int, int>> QuantikState::parse(std::string_view text) {
  const auto at = text.find('@');
  if (at == std::string_view::npos || text.size() != at + 3) return std::nullopt;
  const auto name = text.substr(0, at);
  int shape = -1;
  for (int s = 0; s < kShapes; ++s)
    if (kShapeNames[s] == name) shape = s;
  const char col = text[at + 1], row = text[at + 2];
  if (shape < 0 || col < 'a' || col > 'd' || row < '1' || row > '4') return std::nullopt;
  return std::pair{shape, (row - '1') * 4 + (col - 'a')};
}

bool QuantikState::can_place(Seat seat, int shape, int index) const {
  if (pieces_[seat][shape] == 0 || board_[index].seat >= 0) return false;
  const int row = index / 4, col = index % 4;
  for (const Group& g : {row_group(row), col_group(col), region_group(region_of(row, col))})
    for (int i : g)
      if (board_[i].seat == 1 - seat && board_[i].shape == shape) return false;
  return true;
}

bool QuantikState::has_any_move(Seat seat) const {
  for (int shape = 0; shape < kShapes; ++shape)
    for (int i = 0; i < kSize * kSize; ++i)
      if (can_place(seat, shape, i)) return true;
  return false;
}

bool QuantikState::completes_group(int index) {
  const int row = index / 4, col = index % 4;
  const std::array<std::pair<const char*, Group>, 3> groups{
      std::pair{"row", row_group(row)}, std::pair{"column", col_group(col)},
      std::pair{"region", region_group(region_of(row, col))}};
  for (const auto& [kind, g] : groups) {
    unsigned seen = 0;
    for (int i : g)
      if (board_[i].seat >= 0) seen |= 1u << board_[i].shape;
    if (seen == 0xF) {
      win_line_.clear();
      for (int i : g) win_line_.push_back(cell_name(i / 4, i % 4));
      win_kind_ = kind;
      return true;
    }
  }
  return false;
}

namespace {

// The position a Quantik board shows, with `to_move` to move and the game still on; nullptr for
// a board that is not one. Nothing in Quantik is hidden, but the board does not say in which
// order its pieces came, nor who started. Neither matters: a piece never moves, so a board on
// which no piece faces an opponent's same shape in a row, column or region was legal to fill in
// any order, and the moves open from it depend on the board alone. So the pieces are replayed
// by the game's own rules, seats alternating and the board's `last` move last, which checks the
// board as it goes; the view of the result must then be the board given, to the letter.
std::unique_ptr<State> rebuild(const json& options, const json& board, Seat to_move) {
  if (!board.is_object() || to_move < 0 || to_move > 1) return nullptr;
  const auto cells = board.find("cells"), last = board.find("last");
  if (cells == board.end() || last == board.end() || !cells->is_array() || cells->size() != kSize)
    return nullptr;
  if (!last->is_null() && !last->is_string()) return nullptr;
  // Each seat's pieces as the moves that placed them, the last move put last.
  std::array<std::vector<std::string>, 2> placed;
  bool last_found = last->is_null();
  for (int r = 0; r < kSize; ++r) {
    const json& row = (*cells)[static_cast<std::size_t>(r)];
    if (!row.is_array() || row.size() != kSize) return nullptr;
    for (int c = 0; c < kSize; ++c) {
      const json& cell = row[static_cast<std::size_t>(c)];
      if (cell.is_null()) continue;
      if (!cell.is_object()) return nullptr;
      const auto shape = cell.find("shape"), seat_node = cell.find("seat");
      if (shape == cell.end() || seat_node == cell.end() || !shape->is_string()) return nullptr;
      const auto seat = int_in(*seat_node, 0, 1);
      if (!seat) return nullptr;
      std::string move = shape->get<std::string>() + "@" + cell_name(r, c);
      if (!last->is_null() && move == last->get_ref<const std::string&>()) {
        // The last move was the other seat's.
        if (*seat != 1 - to_move) return nullptr;
        last_found = true;
        continue;
      }
      placed[*seat].push_back(std::move(move));
    }
  }
  if (!last_found) return nullptr;
  if (!last->is_null()) placed[1 - to_move].push_back(last->get<std::string>());
  // Turns alternate, so the seat that moved last has placed as many pieces as the seat to move,
  // or one more when it also started.
  const auto movers = placed[1 - to_move].size(), waiting = placed[to_move].size();
  if (movers != waiting && movers != waiting + 1) return nullptr;
  const Seat first = movers == waiting ? to_move : 1 - to_move;
  if (const auto fixed = options.find("first"); fixed != options.end() && fixed->is_string() &&
                                                *fixed != "random" &&
                                                *fixed != std::to_string(first))
    return nullptr;
  auto state = std::make_unique<QuantikState>(first);
  for (std::size_t i = 0; i < movers + waiting; ++i) {
    const Seat seat = (first + static_cast<int>(i)) % 2;
    // A refused move (an unknown shape, a third piece of a shape, an opponent's same shape in
    // the way) or a game already over means the board is not one Quantik shows.
    if (!state->apply(seat, Move{placed[seat][i / 2]})) return nullptr;
  }
  if (state->to_move() != to_move || state->view(to_move) != board) return nullptr;
  return state;
}

class QuantikGame final : public Game {
 public:
  QuantikGame()
      : Game({.id = "quantik",
              .name = "Quantik",
              .min_seats = 2,
              .max_seats = 2,
              .options = {first_player_option(2)},
              .takeback = true}) {}

  // Every seat sees the whole position: nothing is drawn from `rng`.
  std::unique_ptr<State> from_view(const Seen& seen, Rng&) const override {
    const auto options = normalize_options(seen.options);
    if (!options || seen.viewer < 0 || seen.viewer > 1) return nullptr;
    return rebuild(*options, seen.board, seen.to_move);
  }

 protected:
  Result<std::unique_ptr<State>> do_create(const json& options, std::uint64_t seed) const override {
    Rng rng(seed);
    const auto first = pick_first_player(options, 2, rng);
    if (!first) return std::unexpected(first.error());
    return std::make_unique<QuantikState>(*first);
  }
};

}  // namespace

const Game& game() {
  static const QuantikGame instance;
  return instance;
}

}  // namespace plateau::rules::quantik
