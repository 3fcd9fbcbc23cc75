// Random playouts per second of each game on this machine: the speed of the rules core where
// the bots spend their time (random_move, apply, clone), and MCTS iterations per second at the
// bots' search. Run by hand:
//
//   playouts [--seconds 2]
//
// Each figure is measured for the given time (at most 100,000 playouts), one thread.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "bots/mcts.hpp"

using namespace plateau;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  double seconds = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::stod(argv[i + 1]);
  std::printf("%-8s %12s %14s %14s %16s\n", "game", "playouts/s", "moves/playout", "moves/s",
              "mcts iter/s");
  for (const rules::Game* game : rules::all_games()) {
    const auto limit = std::chrono::duration<double>(seconds);
    std::size_t playouts = 0, moves = 0;
    rules::Rng rng(7);
    const auto t0 = Clock::now();
    while (Clock::now() - t0 < limit && playouts < 100'000) {
      auto s = std::move(*game->create(nlohmann::json::object(), rng.next()));
      while (!s->is_over()) {
        (void)s->apply(*s->to_move(), s->random_move(rng));
        ++moves;
      }
      ++playouts;
    }
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    // MCTS from the opening, where a game can be sampled (perfect information for now).
    std::string iterations = "-";
    const auto opening = std::move(*game->create(nlohmann::json::object(), 1));
    const auto t1 = Clock::now();
    if (const auto choice = bots::search(
            *opening, {.time = std::chrono::duration_cast<std::chrono::microseconds>(limit)}, 1))
      iterations = std::to_string(static_cast<long>(
          choice->iterations / std::chrono::duration<double>(Clock::now() - t1).count()));
    std::printf("%-8s %12.0f %14.1f %14.0f %16s\n", std::string(game->id()).c_str(),
                playouts / took, static_cast<double>(moves) / playouts, moves / took,
                iterations.c_str());
  }
}
