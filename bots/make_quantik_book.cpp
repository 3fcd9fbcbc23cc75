// Writes bots/quantik_book.inc: every Quantik position of at most kBookPieces pieces that play
// can reach, up to symmetry, with whether the seat to move wins. A fresh search of these takes
// seconds; the book makes the `hard` Quantik bot answer any position within a second. Run by
// hand after a change to the solver (it takes a minute or two), and commit what it writes:
//
//   build/bots/make_quantik_book > bots/quantik_book.inc
#include <cstdio>
#include <map>
#include <set>

#include "bots/quantik_solver.hpp"

using namespace plateau::bots::quantik;

int main() {
  std::map<std::uint64_t, Position> level{{canonical_key(Position{}), Position{}}};
  std::map<std::uint64_t, bool> book;
  Solver solver;
  for (int pieces = 0; pieces <= kBookPieces; ++pieces) {
    std::map<std::uint64_t, Position> next;
    for (const auto& [key, p] : level) {
      const auto moves = placements(p);
      if (moves.empty()) continue;  // the seat to move has lost: nobody is to move
      book[key] = solver.wins(p);
      for (const auto& [cell, shape] : moves) {
        const Position q = play(p, cell, shape);
        next.emplace(canonical_key(q), q);  // none of four pieces or fewer ends a game
      }
      std::fprintf(stderr, "\r%d pieces: %zu positions, %zu remembered", pieces, book.size(),
                   solver.remembered());
    }
    level = std::move(next);
  }
  std::fprintf(stderr, "\n");
  std::printf("// Written by make_quantik_book: (canonical key, whether the seat to move wins).\n");
  for (const auto& [key, wins] : book)
    std::printf("{0x%llxULL, %s},\n", static_cast<unsigned long long>(key),
                wins ? "true" : "false");
}
