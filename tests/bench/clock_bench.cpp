// What running clocks cost when nobody moves (issue 44: 10,000 live rooms with clocks running
// must cost the server less than 1% of a core). Run by hand:
//
//   clock_bench [--rooms 10000] [--seconds 120]
//
// Opens --rooms Quantik tables of two seated players each, first without clocks, then (a new
// lobby) with a live clock running in each (an hour each, so that no flag falls), and runs the
// lobby as the server does while nobody moves: a tick per second, and the flags' timer, which is
// armed for the earliest flag only (it fires here only if a flag is due). It prints the rooms
// thread's CPU time per simulated second, each way, as a share of one core; the difference is
// what the clocks cost. Everything the server does per second for its rooms is in it; the keep-
// alive sweep over the connections, the same with clocks or without, is not.
#include <cstdio>
#include <ctime>
#include <string>

#include "machine.hpp"
#include "server/rooms/lobby.hpp"
#include "sink.hpp"

using namespace plateau::server;
using nlohmann::json;
using plateau::bench::Sink;
using plateau::bench::thread_cpu_seconds;

namespace {

struct Result {
  double cpu_per_second = 0;
  std::size_t deadlines = 0;
  int wakes = 0;       // the flag timer armed while the rooms were set up
  int idle_wakes = 0;  // and while nobody moved
};

Result run(int rooms, int seconds, bool clocks) {
  NullStore store;
  std::uint64_t n = 1;
  Lobby lobby(
      store, [&n] { return n++ * 0x9e3779b97f4a7c15ULL; },
      LobbyLimits{.max_rooms = static_cast<std::size_t>(rooms) + 10,
                  .keep = {},
                  .max_rooms_per_player = 1'000'000'000,
                  .creates_per_minute = 1'000'000'000,
                  .unload_after_ms = 0,
                  .new_players_per_minute = 1'000'000'000});
  Millis now = 1'800'000'000'000;
  lobby.use_clock([&now] { return now; });
  Result r;
  lobby.on_deadline([&r](Millis) { ++r.wakes; });
  lobby.tick(now);
  std::vector<std::shared_ptr<Sink>> held;
  const auto say = [&](const std::shared_ptr<Sink>& c, const json& m) {
    lobby.handle(c, *plateau::protocol::decode(m.dump()));
  };
  for (int i = 0; i < rooms; ++i) {
    auto a = std::make_shared<Sink>(), b = std::make_shared<Sink>();
    say(a, {{"type", "hello"}, {"name", "a"}});
    say(b, {{"type", "hello"}, {"name", "b"}});
    json create{{"type", "create"}, {"game", "quantik"}};
    if (clocks) create["clock"] = {{"kind", "live"}, {"base_ms", 3'600'000}, {"increment_ms", 0}};
    say(a, create);
    const std::string room = json::parse(*a->last)["room"];
    say(a, {{"type", "join"}, {"room", room}, {"as", "player"}});
    say(b, {{"type", "join"}, {"room", room}, {"as", "player"}});
    held.push_back(a);
    held.push_back(b);
  }
  r.deadlines = lobby.next_deadline() ? static_cast<std::size_t>(rooms) : 0;
  // The server's loop while nobody moves: the tick each second; the flag timer fires only when
  // the earliest flag comes, which here is an hour away.
  const int set_up_wakes = r.wakes;
  const double c0 = thread_cpu_seconds();
  for (int s = 0; s < seconds; ++s) {
    now += 1'000;
    lobby.tick(now);
    if (const auto next = lobby.next_deadline(); next && *next <= now) lobby.expire(now);
  }
  r.cpu_per_second = (thread_cpu_seconds() - c0) / seconds;
  r.idle_wakes = r.wakes - set_up_wakes;
  r.wakes = set_up_wakes;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int rooms = 10'000, seconds = 120;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--rooms") rooms = std::stoi(v);
    if (k == "--seconds") seconds = std::stoi(v);
  }
  const Result plain = run(rooms, seconds, false), timed = run(rooms, seconds, true);
  std::printf("clock_bench: rooms=%d seconds=%d (simulated, nobody moves)\n", rooms, seconds);
  std::printf("  without clocks: %.3f ms of CPU per second = %.3f%% of a core\n",
              plain.cpu_per_second * 1e3, plain.cpu_per_second * 100);
  std::printf("  with clocks:    %.3f ms of CPU per second = %.3f%% of a core (target < 1%%)\n",
              timed.cpu_per_second * 1e3, timed.cpu_per_second * 100);
  std::printf(
      "  the clocks' own cost: %.3f%% of a core; flags watched: %zu; flag timer armed %d"
      " times while the rooms were set up, %d while idle\n",
      (timed.cpu_per_second - plain.cpu_per_second) * 100, timed.deadlines, timed.wakes,
      timed.idle_wakes);
  return 0;
}
