#include "quantik_state.hpp"

namespace plateau::rules::quantik {

namespace {

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
    outcome_ = Outcome{{mover}, {}, win_reason_};
    return;
  }
  if (!has_any_move(to_move_))
    outcome_ = Outcome{{mover}, {}, "the player to move has no legal move"};
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
      win_reason_ = std::string("four different shapes in a ") + kind;
      return true;
    }
  }
  return false;
}

namespace {

class QuantikGame final : public Game {
 public:
  QuantikGame()
      : Game({.id = "quantik",
              .name = "Quantik",
              .min_seats = 2,
              .max_seats = 2,
              .options = {first_player_option(2)}}) {}

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
