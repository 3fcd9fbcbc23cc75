// Quantik's state class and what its rules (quantik.cpp) and its view (quantik_view.cpp, the
// ViewParts extension) both need of it. Private to this folder: nothing else includes it.
#pragma once

#include "quantik.hpp"

#include <array>

#include "../view_parts.hpp"

namespace plateau::rules::quantik {

using nlohmann::json;

constexpr int kSize = 4;
constexpr int kShapes = 4;
constexpr int kPiecesPerShape = 2;
constexpr std::array<std::string_view, kShapes> kShapeNames{"sphere", "cylinder", "cube", "cone"};

struct Cell {
  int seat = -1;  // -1: empty
  int shape = -1;
};

// The three groups of a cell: its row, its column and its region, each as 4 cell indices.
using Group = std::array<int, kSize>;

class QuantikState final : public TurnState<QuantikState>, public ViewParts {
 public:
  explicit QuantikState(Seat first) : TurnState(first) {
    for (auto& p : pieces_) p.fill(kPiecesPerShape);
  }

  int num_seats() const override { return 2; }
  // Every seat sees the whole board, and no chance is left to come: a bot samples nothing.
  std::unique_ptr<State> determinize(Seat, Rng&) const override { return clone(); }

  std::vector<Move> legal_moves() const override;

  json view(std::optional<Seat> viewer) const override { return whole_view(viewer); }
  bool view_depends_on_viewer() const override { return false; }
  json changing_view(std::optional<Seat>) const override;

  // A piece once placed stays where it is for the rest of the game: a board some moves back
  // gets the cells filled since, and the small rest anew.
  bool update_view(json& board, std::optional<Seat>, const Shown*, Update& update) const override;

 private:
  json cell_json(int i) const;

  // Everything on the board but its cells.
  json rest_of_view() const;

 protected:
  bool is_legal(const Move& move) const override;

  void do_apply(const Move& move) override;

 private:
  // "cube@c3" → (shape, cell index); nullopt for anything else.
  static std::optional<std::pair<int, int>> parse(std::string_view text);

  bool can_place(Seat seat, int shape, int index) const;

  bool has_any_move(Seat seat) const;

  bool completes_group(int index);

  std::array<Cell, kSize * kSize> board_{};
  std::array<std::array<int, kShapes>, 2> pieces_{};
  std::string last_;
  std::vector<std::string> win_line_;
  const char* win_kind_ = "";  // "row", "column" or "region" of the winning group
};

}  // namespace plateau::rules::quantik
