#include "quantik.hpp"

#include <array>

#include "../view_parts.hpp"

namespace plateau::rules::quantik {
namespace {

using nlohmann::json;

constexpr int kSize = 4;
constexpr int kShapes = 4;
constexpr int kPiecesPerShape = 2;
constexpr std::array<std::string_view, kShapes> kShapeNames{"sphere", "cylinder", "cube", "cone"};

struct Cell {
  int seat = -1;  // -1: empty
  int shape = -1;
};

int region_of(int row, int col) { return (row / 2) * 2 + col / 2; }

std::string cell_name(int row, int col) {
  return std::string{static_cast<char>('a' + col), static_cast<char>('1' + row)};
}

// The three groups of a cell: its row, its column and its region, each as 4 cell indices.
using Group = std::array<int, kSize>;
Group row_group(int row) { return {row * 4, row * 4 + 1, row * 4 + 2, row * 4 + 3}; }
Group col_group(int col) { return {col, 4 + col, 8 + col, 12 + col}; }
Group region_group(int region) {
  const int r0 = (region / 2) * 2, c0 = (region % 2) * 2;
  return {r0 * 4 + c0, r0 * 4 + c0 + 1, (r0 + 1) * 4 + c0, (r0 + 1) * 4 + c0 + 1};
}

class QuantikState final : public TurnState<QuantikState>, public ViewParts {
 public:
  explicit QuantikState(Seat first) : TurnState(first) {
    for (auto& p : pieces_) p.fill(kPiecesPerShape);
  }

  int num_seats() const override { return 2; }

  std::vector<Move> legal_moves() const override {
    std::vector<Move> moves;
    if (outcome_) return moves;
    for (int shape = 0; shape < kShapes; ++shape)
      for (int i = 0; i < kSize * kSize; ++i)
        if (can_place(to_move_, shape, i))
          moves.push_back(Move{std::string(kShapeNames[shape]) + "@" + cell_name(i / 4, i % 4)});
    return moves;
  }

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override {
    json cells = array_of(kSize, [this](std::size_t r) {
      return array_of(kSize, [&](std::size_t c) { return cell_json(static_cast<int>(r) * kSize + static_cast<int>(c)); });
    });
    json view = rest_of_view();
    view["cells"] = std::move(cells);
    return view;
  }

  // A piece once placed stays where it is for the rest of the game: a board some moves back
  // gets the cells filled since, and the small rest anew.
  bool update_view(json& board, std::optional<Seat>, const Shown*, Update& update) const override {
    json* cells = member_of(board, "cells", json::value_t::array);
    if (!cells || cells->size() != kSize) return false;
    for (const json& row : *cells)
      if (!row.is_array() || row.size() != kSize) return false;
    for (int i = 0; i < kSize * kSize; ++i) {
      json& node = (*cells)[static_cast<std::size_t>(i / kSize)][static_cast<std::size_t>(i % kSize)];
      if (board_[i].seat < 0) {
        if (!node.is_null()) return false;  // not a board of this game: nothing is ever taken back
        continue;
      }
      if (!node.is_null()) continue;
      node = cell_json(i);
      update.edits.push_back({false, "/cells/" + std::to_string(i / kSize) + "/" + std::to_string(i % kSize)});
    }
    update.rest = rest_of_view();
    return true;
  }

 private:
  json cell_json(int i) const {
    const Cell& cell = board_[i];
    return cell.seat < 0 ? json(nullptr) : object_of("shape", kShapeNames[cell.shape], "seat", cell.seat);
  }

  // Everything on the board but its cells.
  json rest_of_view() const {
    json pieces = json::array();
    for (const auto& p : pieces_) {
      json left = json::object();
      for (int s = 0; s < kShapes; ++s) left[std::string(kShapeNames[s])] = p[s];
      pieces.push_back(std::move(left));
    }
    json line = nullptr;
    if (!win_line_.empty()) line = win_line_;
    return object_of("pieces", std::move(pieces), "last", last_.empty() ? json(nullptr) : json(last_), "win_line",
                     std::move(line));
  }

 protected:
  bool is_legal(const Move& move) const override {
    const auto parsed = parse(move.text);
    return parsed && can_place(to_move_, parsed->first, parsed->second);
  }

  void do_apply(const Move& move) override {
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

 private:
  // "cube@c3" → (shape, cell index); nullopt for anything else.
  static std::optional<std::pair<int, int>> parse(std::string_view text) {
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

  bool can_place(Seat seat, int shape, int index) const {
    if (pieces_[seat][shape] == 0 || board_[index].seat >= 0) return false;
    const int row = index / 4, col = index % 4;
    for (const Group& g : {row_group(row), col_group(col), region_group(region_of(row, col))})
      for (int i : g)
        if (board_[i].seat == 1 - seat && board_[i].shape == shape) return false;
    return true;
  }

  bool has_any_move(Seat seat) const {
    for (int shape = 0; shape < kShapes; ++shape)
      for (int i = 0; i < kSize * kSize; ++i)
        if (can_place(seat, shape, i)) return true;
    return false;
  }

  bool completes_group(int index) {
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

  std::array<Cell, kSize * kSize> board_{};
  std::array<std::array<int, kShapes>, 2> pieces_{};
  std::string last_;
  std::vector<std::string> win_line_;
  std::string win_reason_;
};

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
