// Room benchmark (run by hand): the server's work per move without sockets — decode, rules,
// per-audience views, diffs and encoding — with 2 players and S spectators per room, measured
// as CPU time per move. Complements load_bench, which adds the network.
//
//   room_bench [--game quantik] [--spectators 2] [--moves 200000]
#include <ctime>
#include <cstdio>
#include <random>

#include "server/lobby.hpp"

using namespace plateau::server;
using nlohmann::json;

namespace {

class Sink final : public Client {
 public:
  void send(const Frame& f) override {
    bytes += f->size();
    last = f;
  }
  std::size_t bytes = 0;
  Frame last;
};

}  // namespace

int main(int argc, char** argv) {
  std::string game = "quantik";
  int spectators = 2;
  long target = 200000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--game") game = v;
    else if (k == "--spectators") spectators = std::stoi(v);
    else if (k == "--moves") target = std::stol(v);
  }
  NullStore store;
  std::uint64_t n = 1;
  Lobby lobby(store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; });
  auto say = [&](const std::shared_ptr<Sink>& c, const json& m) { lobby.handle(c, *plateau::protocol::decode(m.dump())); };
  std::mt19937_64 rng(1);
  long moves = 0, games = 0;
  std::size_t bytes = 0;
  double cpu = 0;
  while (moves < target) {
    std::vector<std::shared_ptr<Sink>> players{std::make_shared<Sink>(), std::make_shared<Sink>()};
    std::vector<std::shared_ptr<Sink>> watchers;
    for (int s = 0; s < spectators; ++s) watchers.push_back(std::make_shared<Sink>());
    for (auto& c : players) say(c, {{"type", "hello"}, {"name", "p"}});
    for (auto& c : watchers) say(c, {{"type", "hello"}, {"name", "w"}});
    say(players[0], {{"type", "create"}, {"game", game}});
    const std::string room = json::parse(*players[0]->last)["room"];
    for (auto& c : watchers) say(c, {{"type", "join"}, {"room", room}, {"as", "spectator"}});
    for (auto& c : players) say(c, {{"type", "join"}, {"room", room}, {"as", "player"}});
    auto r = lobby.find(room);
    for (;;) {
      const auto& st = r->state();
      if (st.is_over()) break;
      const auto legal = st.legal_moves();
      const int seat = *st.to_move();
      // The frame a client would send, built outside the timed part.
      const std::string text =
          json{{"type", "move"}, {"room", room}, {"version", r->version()}, {"move", legal[rng() % legal.size()].text}}.dump();
      const std::clock_t c0 = std::clock();
      auto req = plateau::protocol::decode(text);
      lobby.handle(players[static_cast<std::size_t>(seat)], std::move(*req));
      cpu += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
      ++moves;
    }
    for (auto& c : players) bytes += c->bytes;
    for (auto& c : watchers) bytes += c->bytes;
    ++games;
    for (auto& c : players) lobby.closed(c.get());
    for (auto& c : watchers) lobby.closed(c.get());
    lobby.close_room(room);
  }
  std::printf("room_bench: game=%s spectators=%d games=%ld moves=%ld\n", game.c_str(), spectators, games, moves);
  std::printf("  CPU per move     %.2f us (decode + rules + views + diffs + encoding, no sockets)\n", cpu * 1e6 / static_cast<double>(moves));
  std::printf("  bytes per move   %.0f (all frames to all %d connections)\n", static_cast<double>(bytes) / static_cast<double>(moves), 2 + spectators);
  return 0;
}
