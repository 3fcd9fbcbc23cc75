// Quantik, solved: the second player wins with perfect play. This is the `hard` Quantik bot.
//
// The solver searches the game to its end on bitboards (one 16-bit mask per seat and shape),
// never considering a move after which the opponent wins at once, and remembers each position
// it proved in a table keyed by the position's canonical form: Quantik's rules are the same
// under the 128 permutations of the board that keep rows, columns and regions (swapping the two
// rows or columns of a band, swapping the bands, transposing) and under the 24 renamings of the
// shapes, so one entry stands for up to 3,072 positions. The opening (every position of at most
// kBookPieces pieces, about whom a fresh search would need seconds) comes from a book built once
// by make_quantik_book and stored compactly in quantik_book.inc; past it a search takes
// milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rules/game.hpp"

namespace plateau::bots::quantik {

// A position from the side of the seat to move: mine[shape] and theirs[shape] are the cells
// (bit r*4+c, row r from the top, column c from the left) holding that seat's pieces of that
// shape. What each still holds follows: two of each shape, less those on the board.
struct Position {
  std::uint16_t mine[4]{};
  std::uint16_t theirs[4]{};
  int pieces() const;
  friend bool operator==(const Position&, const Position&) = default;
};

// The position of a Quantik state (nullopt for another game's, or one that is over).
std::optional<Position> position_of(const rules::State& state);

// The placements (cell, shape) open to the seat to move, and the position after one of them
// (from the other seat's side).
std::vector<std::pair<int, int>> placements(const Position& p);
Position play(const Position& p, int cell, int shape);

// The same position up to symmetry: equal for two positions iff one is the other with the board
// permuted (rows, columns, regions kept) and the shapes renamed.
std::uint64_t canonical_key(const Position& p);
// A position whose canonical key is `key` (one of those equivalent to it).
Position from_key(std::uint64_t key);

// The positions of at most this many pieces are in the book.
inline constexpr int kBookPieces = 4;

class Solver {
 public:
  // Without the book, every position is searched (to check the book against).
  explicit Solver(bool use_book = true) : use_book_(use_book) {}
  // Whether the seat to move wins with perfect play.
  bool wins(const Position& p);
  // A move that wins when one does; when none does, one the opponent must still find their way
  // past (not one that loses at once, if there is such a move). Notation as the rules': "cube@c3".
  // nullopt when the seat to move has no move.
  std::optional<rules::Move> best_move(const Position& p);

  std::size_t remembered() const { return proved_.size(); }
  // The book's entries (canonical key, whether the seat to move wins), for make_quantik_book to
  // write and the tests to check; the book is used by wins().
  static const std::unordered_map<std::uint64_t, bool>& book();

 private:
  bool search(const Position& p);
  bool use_book_;
  std::unordered_map<std::uint64_t, bool> proved_;
};

}  // namespace plateau::bots::quantik
