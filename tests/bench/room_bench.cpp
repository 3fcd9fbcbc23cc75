// Room benchmark (run by hand): the server's work per move without sockets — decode, rules,
// per-audience views, diffs and encoding — with 2 players and S spectators per room, measured
// as CPU time per move of the thread that runs the rooms (the server's one rooms thread). What
// the rooms hand the lobby's reaper to free runs on the reaper's own thread, and is not in it.
// Complements load_bench, which adds the network.
//
//   room_bench [--game quantik|mixed] [--spectators 2] [--moves 200000] [--rooms 1]
//
// With --rooms N, N rooms are open at once and take their moves in turn, one each, as the
// server's rooms do under load: each room's boards and views then fall out of the CPU's caches
// between two of its moves, which one room played alone never shows. "mixed" gives the rooms
// the registry's games in turn. A room whose game ends is closed and a new one opened in its place
// (untimed).
#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <random>

#include "machine.hpp"
#include "rules/game.hpp"
#include "server/rooms/lobby.hpp"
#include "sink.hpp"

using namespace plateau::server;
using nlohmann::json;
using plateau::bench::Sink;
using plateau::bench::thread_cpu_seconds;

namespace {

struct OpenRoom {
  std::string room;
  std::vector<std::shared_ptr<Sink>> players, watchers;
};

}  // namespace

int main(int argc, char** argv) {
  std::string game = "quantik";
  int spectators = 2;
  long target = 200000;
  int rooms = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--game")
      game = v;
    else if (k == "--spectators")
      spectators = std::stoi(v);
    else if (k == "--moves")
      target = std::stol(v);
    else if (k == "--rooms")
      rooms = std::max(1, std::stoi(v));
  }
  NullStore store;
  std::uint64_t n = 1;
  // One address and one creator for every room: no per-address or per-player limit here.
  Lobby lobby(
      store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; },
      LobbyLimits{.keep = {},
                  .max_rooms_per_player = 1'000'000'000,
                  .creates_per_minute = 1'000'000'000,
                  .new_players_per_minute = 1'000'000'000});
  auto say = [&](const std::shared_ptr<Sink>& c, const json& m) {
    lobby.handle(c, *plateau::protocol::decode(m.dump()));
  };
  std::mt19937_64 rng(1);
  long moves = 0, games = 0;
  std::size_t bytes = 0;
  double cpu = 0;

  auto open = [&](int slot) {
    OpenRoom t;
    t.players = {std::make_shared<Sink>(), std::make_shared<Sink>()};
    for (int s = 0; s < spectators; ++s) t.watchers.push_back(std::make_shared<Sink>());
    for (auto& c : t.players) say(c, {{"type", "hello"}, {"name", "p"}});
    for (auto& c : t.watchers) say(c, {{"type", "hello"}, {"name", "w"}});
    const auto& games = plateau::rules::all_games();
    const std::string g =
        game == "mixed" ? std::string(games[static_cast<std::size_t>(slot) % games.size()]->id())
                        : game;
    say(t.players[0], {{"type", "create"}, {"game", g}});
    t.room = json::parse(*t.players[0]->last)["room"];
    for (auto& c : t.watchers) say(c, {{"type", "join"}, {"room", t.room}, {"as", "spectator"}});
    for (auto& c : t.players) say(c, {{"type", "join"}, {"room", t.room}, {"as", "player"}});
    return t;
  };
  auto close = [&](OpenRoom& t) {
    for (auto& c : t.players) bytes += c->bytes, lobby.closed(c.get());
    for (auto& c : t.watchers) bytes += c->bytes, lobby.closed(c.get());
    lobby.close_room(t.room);
    ++games;
  };

  std::vector<OpenRoom> tables;
  for (int i = 0; i < rooms; ++i) tables.push_back(open(i));
  while (moves < target) {
    for (int i = 0; i < rooms && moves < target; ++i) {
      OpenRoom& t = tables[static_cast<std::size_t>(i)];
      auto r = lobby.find(t.room);
      const auto& st = r->state();
      const auto legal = st.legal_moves();
      const int seat = *st.to_move();
      // The frame a client would send, built outside the timed part.
      const std::string text = json{{"type", "move"},
                                    {"room", t.room},
                                    {"version", r->version()},
                                    {"move", legal[rng() % legal.size()].text}}
                                   .dump();
      const double c0 = thread_cpu_seconds();
      auto req = plateau::protocol::decode(text);
      lobby.handle(t.players[static_cast<std::size_t>(seat)], std::move(*req));
      cpu += thread_cpu_seconds() - c0;
      ++moves;
      if (r->state().is_over()) {
        close(t);
        t = open(i);
      }
    }
  }
  for (auto& t : tables) {
    for (auto& c : t.players) bytes += c->bytes;
    for (auto& c : t.watchers) bytes += c->bytes;
  }
  std::printf("room_bench: game=%s spectators=%d rooms=%d games=%ld moves=%ld\n", game.c_str(),
              spectators, rooms, games, moves);
  std::printf(
      "  CPU per move     %.2f us (decode + rules + views + diffs + encoding, no sockets; the "
      "rooms' thread)\n",
      cpu * 1e6 / static_cast<double>(moves));
  std::printf("  bytes per move   %.0f (all frames to all %d connections)\n",
              static_cast<double>(bytes) / static_cast<double>(moves), 2 + spectators);
  return 0;
}
