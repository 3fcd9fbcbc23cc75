// Recovery benchmark (run by hand): fills a fresh SQLite store with N unfinished rooms of every
// game, each played part way with random legal moves, then times what the server does at start:
// read the store back and rebuild every room by replaying its seed and moves.
//
//   recovery_bench [--rooms 10000] [--moves 12] [--dir /tmp/plateau-recovery]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>

#include "server/rooms/lobby.hpp"
#include "server/store/sqlite_store.hpp"

using namespace plateau::server;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  int rooms = 10000, moves = 12;
  std::string dir = "/tmp/plateau-recovery-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--rooms")
      rooms = std::stoi(v);
    else if (k == "--moves")
      moves = std::stoi(v);
    else if (k == "--dir")
      dir = v;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = dir + "/plateau.db";
  // Completions run right away on the writer's thread: this program has no event loop.
  auto post = [](std::function<void()> f) { f(); };
  std::uint64_t total_moves = 0;
  {
    auto store = SqliteStore::open(path, post);
    if (!store) {
      std::fprintf(stderr, "%s\n", store.error().c_str());
      return 1;
    }
    const auto& games = plateau::rules::all_games();
    plateau::rules::Rng pick(1);
    std::promise<void> last;
    for (int r = 0; r < rooms; ++r) {
      const auto* game = games[static_cast<std::size_t>(r) % games.size()];
      const std::string id = "r" + std::to_string(r);
      const std::uint64_t seed = pick.next();
      const json options = *game->normalize_options(json{{"players", game->max_seats()}});
      (*store)->create_room(RoomRecord{id, std::string(game->id()), options, seed, false, 0, 0, ""},
                            {});
      auto state = std::move(*game->create(options, seed));
      for (int s = 0; s < state->num_seats(); ++s) {
        const std::string player = id + "p" + std::to_string(s);
        (*store)->put_player({player, Lobby::hash_token(player), "P" + std::to_string(s)}, {});
        (*store)->put_seat(id, s, player, s + 1, {});
      }
      for (int m = 0; m < moves && !state->is_over(); ++m) {
        auto legal = state->legal_moves();
        auto clone = state->clone();
        const auto& mv = legal[pick.below(legal.size())];
        const int seat = *state->to_move();
        (void)clone->apply(seat, mv);
        if (clone->is_over()) break;  // keep every room unfinished
        (void)state->apply(seat, mv);
        (*store)->append_move(MoveRecord{id, 1, m, seat, mv.text, 10 + m, 0}, {});
        ++total_moves;
      }
    }
    (*store)->close();
  }
  std::printf("recovery_bench: %d unfinished rooms, %llu moves written to %s (%.1f MB)\n", rooms,
              static_cast<unsigned long long>(total_moves), path.c_str(),
              static_cast<double>(std::filesystem::file_size(path)) / 1e6);

  const auto t0 = Clock::now();
  auto store = SqliteStore::open(path, post);
  auto loaded = (*store)->load();
  const auto t1 = Clock::now();
  Lobby lobby(
      **store, [] { return 1; },
      LobbyLimits{.max_rooms = static_cast<std::size_t>(rooms) + 1, .keep = {}});
  for (const auto& p : loaded->players) lobby.restore_player(p);
  int rebuilt = 0, quarantined = 0;
  for (const auto& r : loaded->rooms) {
    std::string why;
    if (lobby.restore_room(r, why))
      ++rebuilt;
    else
      ++quarantined;
  }
  const auto t2 = Clock::now();
  const double read_s = std::chrono::duration<double>(t1 - t0).count();
  const double replay_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("  read the store   %.3f s\n", read_s);
  std::printf("  replay the rooms %.3f s (%d rebuilt, %d quarantined)\n", replay_s, rebuilt,
              quarantined);
  std::printf("  restart total    %.3f s for %d rooms\n", read_s + replay_s, rooms);
  std::filesystem::remove_all(dir);
  return rebuilt == rooms ? 0 : 1;
}
