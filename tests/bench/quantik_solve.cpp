// How long the perfect Quantik player takes to choose a move, from random positions of each
// number of pieces, each with a fresh solver (nothing remembered from the last): the issue's
// target is under a second from any position. Run by hand:
//
//   quantik_solve [--positions 30]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bots/quantik_solver.hpp"
#include "percentile.hpp"

using namespace plateau;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  int positions = 30;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--positions")) positions = std::stoi(argv[i + 1]);
  std::printf("%-7s %9s %9s %10s %10s %10s\n", "pieces", "positions", "mover win", "p50 ms",
              "p99 ms", "max ms");
  double worst = 0;
  for (int pieces = 0; pieces <= 12; ++pieces) {
    std::vector<double> ms;
    int wins = 0;
    for (int n = 0, seed = 0; n < positions && seed < positions * 50; ++seed) {
      // A random position of `pieces` pieces in which nobody has won yet.
      bots::quantik::Position p;
      rules::Rng rng(static_cast<std::uint64_t>(pieces * 100'000 + seed));
      bool ok = true;
      for (int k = 0; k < pieces && ok; ++k) {
        const auto moves = bots::quantik::placements(p);
        if (moves.empty())
          ok = false;
        else {
          const auto [cell, shape] = moves[rng.below(moves.size())];
          p = bots::quantik::play(p, cell, shape);
        }
      }
      if (!ok || bots::quantik::placements(p).empty()) continue;
      // Skip positions where the last piece completed a line: the game is over there.
      bots::quantik::Solver solver;
      const auto t0 = Clock::now();
      const bool win = solver.wins(p);
      const auto move = solver.best_move(p);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      wins += win;
      ++n;
      (void)move;
    }
    if (ms.empty()) continue;
    std::sort(ms.begin(), ms.end());
    worst = std::max(worst, ms.back());
    std::printf("%-7d %9zu %9d %10.1f %10.1f %10.1f\n", pieces, ms.size(), wins,
                bench::percentile(ms, 50), bench::percentile(ms, 99), ms.back());
    std::fflush(stdout);
  }
  std::printf("slowest move: %.1f ms [target < 1000 ms: %s]\n", worst,
              worst < 1000 ? "met" : "MISSED");
}
