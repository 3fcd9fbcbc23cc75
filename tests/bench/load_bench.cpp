// Load benchmark (run by hand; never a timed test). Starts plateau-server on 127.0.0.1, drives R
// rooms of a game over real WebSockets, each with 2 players playing random legal moves (a
// rematch when a game ends) and S spectators, then opens N idle connections. Prints moves/s,
// move→patch latency percentiles at the mover and at the last spectator (and whether its slowest
// moves keep the time of a CPU quota's 100 ms period: machine.hpp), the server's own view of
// that span (its /metrics histogram), the server's CPU time per move (from /proc) and each of its
// threads' wait for a free core, how busy the whole machine was, the server's peak memory, and
// its memory per idle connection.
//
//   load_bench [--rooms 200] [--spectators 2] [--seconds 10] [--idle 10000] [--game quantik]
//              [--data none|DIR] [--store URI] [--db-uid UID[,UID]] [--server PATH]
//              [--cluster redis://HOST:PORT --nodes N]
//              [--pace MOVES_PER_SECOND]
//              [--sweep FROM:STEP:TO] [--p99-ms 10] [--no-single]
//              [--bot-games 0] [--bot-level normal] [--bot-game quantik]
//
// --store URI runs the server on that store instead (a postgres:// URI: store_compare.sh starts
// a throwaway PostgreSQL and runs both stores side by side); --db-uid UID adds the CPU of that
// user's processes (the database server's) to the figures, per move.
// --cluster with --nodes N starts N servers as the nodes of one cluster on that Redis (and the
// --store PostgreSQL): each room's players are on two nodes and its spectators on a third, and
// the server CPU is summed over all N (cluster_compare.sh runs it beside one node).
// --bot-games N first starts N games of bots against bots (every seat a bot of --bot-level),
// which think on the server's worker pool through every phase; the human rooms' latency is
// then measured beside them, and the bots' own figures (/metrics) are printed at the end.
// --no-single skips the one-room phase (A/B runs of the many-room phase only).
// Unpaced, each player moves the moment it may (a closed loop: the figure is the most the
// server sustains, and latency then is mostly queueing). With --pace, the rooms together offer
// that many moves per second (an open loop), and latency is measured at that load. Each room
// keeps its own schedule: one that fell behind makes its late moves as soon as it may, rather
// than starting a new schedule from whenever it caught up (which bunched the rooms together).
//
// --sweep replaces the paced phase with one phase per offered load, FROM, FROM + STEP, ... TO
// moves/s, each of --seconds on fresh rooms, one line each, and ends with the highest load whose
// mover p99 stayed within --p99-ms: the load a machine carries within its latency target, a
// figure that a single run at one pace, above or below the machine's knee, does not give. It
// stops at the first load the server could not keep up with (under 95% of it delivered).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "../e2e/http_client.hpp"
#include "../e2e/server_process.hpp"
#include "machine.hpp"
#include "percentile.hpp"
#include "rules/game.hpp"
#include "ws_client.hpp"
#include "ws_loop.hpp"

using nlohmann::json;
using plateau::bench::cores;
using plateau::bench::machine_load;
using plateau::bench::machine_ticks;
using plateau::bench::percentile;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int rooms = 200;
  int spectators = 2;
  double seconds = 10;
  int idle = 10000;
  std::string game = "quantik";
  std::string data = "none";
  std::string store;  // --store: given to the server (a postgres:// URI, say); wins over --data
  // --db-uid UID[,UID]: whose processes' CPU counts as the database's (postgres's, and in a
  // cluster Redis's too)
  std::vector<long> db_uids;
  std::string cluster;  // --cluster redis://...: --nodes servers, each a node of one cluster
  int nodes = 1;
  double pace = 0;  // moves/s offered over all rooms; 0: every player moves as soon as it may
  double sweep_from = 0, sweep_step = 0, sweep_to = 0;  // --sweep; from 0: no sweep
  double p99_ms = 10;
  bool single = true;  // --no-single skips the one-room phase
  int bot_games = 0;
  std::string bot_level = "normal";
  std::string bot_game = "quantik";
};

// What a phase measured, for the sweep's one-line summary.
struct PhaseResult {
  double moves_per_s = 0;
  double mover_p50_ms = 0, mover_p99_ms = 0, socket_p99_ms = 0;
  double server_ms_per_move = 0, bench_ms_per_move = 0;
  std::uint64_t errors = 0;
  double machine_busy = 0;  // the share of all cores' time spent running anything
};

struct Stats {
  std::vector<double> mover_us, spectator_us;  // read by the client
  std::vector<double> mover_socket_us;         // arrived at the client's socket
  std::vector<double> mover_read_ms;           // when each of mover_us was read (monotonic clock)
  std::uint64_t moves = 0;
  std::uint64_t errors = 0;  // error frames: a bench that sends bad moves measures nothing
};

class Room;

using plateau::bench::Conn;
using plateau::bench::Loop;

// The servers the rooms talk to: one, or the nodes of a cluster.
struct Servers {
  std::vector<unsigned short> ports;
  std::vector<pid_t> pids;
};

// A table: 2 players and S spectators. Against a cluster of N nodes, room r's first player
// (who creates it, so that node holds it) is on node r % N, the second on the next node, and
// the spectators on the one after: every move reaches its spectators through another node.
class Room {
 public:
  Room(Loop& loop, const std::vector<unsigned short>& ports, const Options& opt, Stats& stats,
       int index, std::function<void()> ready)
      : loop_(loop),
        stats_(stats),
        rng_(static_cast<std::uint64_t>(index) * 7919 + 1),
        ready_(std::move(ready)) {
    // Paced, each room moves once per interval: an open loop, so latency is measured at a
    // chosen load rather than at whatever load the latency itself allows.
    if (opt.pace > 0)
      interval_ = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(opt.rooms / opt.pace));
    offset_ = std::chrono::duration_cast<Clock::duration>(interval_ * (index % 97) / 97.0);
    next_due_ = Clock::now() + offset_;
    for (int i = 0; i < 2 + opt.spectators; ++i) conns_.push_back(std::make_unique<Conn>(loop));
    spectators_ = opt.spectators;
    views_.resize(conns_.size());
    versions_.assign(conns_.size(), 0);
    // "mixed": the rooms play every game in turn, the registry's, which the server it starts
    // is built from.
    const auto& games = plateau::rules::all_games();
    game_ = opt.game == "mixed"
                ? std::string(games[static_cast<std::size_t>(index) % games.size()]->id())
                : opt.game;
    for (int i = 0; i < static_cast<int>(conns_.size()); ++i) {
      conns_[i]->on_message = [this, i](std::string_view text) {
        // Spectators only need the version: finding it costs far less than parsing the frame,
        // so the client side does not hide the server's figures.
        // The server writes keys sorted: "type" (and "version") end a frame, so search from there.
        if (text.rfind(R"("type":"error")") != std::string::npos && ++stats_.errors <= 3)
          std::fprintf(stderr, "error frame: %.*s\n", static_cast<int>(text.size()), text.data());
        if (i >= 2) return on_version(i, text);
        // A player acts only on its legal moves, the status and the rematch flags: a patch
        // that touches none of them is a version to note, not a document to parse, and one
        // that only replaces the legal moves needs just that array read. Browsers are on other
        // machines; the bench's clients share the server's 2 cores, so their cost is kept low.
        if (text.rfind(R"("type":"patch")") != std::string::npos) {
          // One pass over the operations' paths.
          bool whole = false;
          std::size_t legal = std::string::npos;
          constexpr std::string_view key = R"("path":")";
          for (auto p = text.find(key); p != std::string::npos && !whole;
               p = text.find(key, p + key.size())) {
            const auto path = text.substr(p + key.size());
            if (path.starts_with("/status\"") || path.starts_with("/rematch\""))
              whole = true;
            else if (path.starts_with("/legal_moves\""))
              legal = p;
          }
          if (!whole) {
            if (legal == std::string::npos) return on_version(i, text), act(i);
            if (read_string_array(text, text.find("\"value\":", legal), views_[i].legal))
              return on_version(i, text), act(i);
          }
        }
        on_message(i, json::parse(text, nullptr, false));
      };
      const auto node = static_cast<std::size_t>(index + std::min(i, 2)) % ports.size();
      conns_[i]->start(ports[node], [this, i] {
        conns_[i]->send(json{{"type", "hello"}, {"name", "b" + std::to_string(i)}}.dump());
        if (++connected_ == static_cast<int>(conns_.size()))
          conns_[0]->send(json{{"type", "create"}, {"game", game_}}.dump());
      });
    }
  }
  bool running = false;

  // Starts the room's schedule over from now. Called when every room is ready: a room that took
  // the whole setup to get its table would otherwise be that far behind its schedule, and make
  // all its late moves at once, together with every other late room, a burst that is the
  // bench's doing and not a load anyone offered.
  void restart_schedule() { next_due_ = Clock::now() + offset_; }

 private:
  void on_version(int i, std::string_view text) {
    const bool versioned = text.rfind(R"("type":"patch")") != std::string::npos ||
                           text.rfind(R"("type":"full")") != std::string::npos;
    const auto at = text.rfind(R"("version":)");
    if (!versioned || at == std::string::npos) return;
    std::int64_t v = 0;
    std::from_chars(text.data() + at + 10, text.data() + text.size(), v);
    if (v <= versions_[i]) return;
    versions_[i] = v;
    note_arrival(i, v);
  }

  // Latency from a move to its patch, at the mover and at the last spectator.
  void note_arrival(int i, std::int64_t v) {
    const auto sent = sent_.find(v);
    if (sent == sent_.end()) return;
    const auto now = Clock::now();
    const double us = std::chrono::duration<double, std::micro>(now - sent->second.at).count();
    // In a cluster the last spectator may see a move before its mover does: the entry goes
    // once both have.
    if (i == sent->second.mover) sent->second.mover_seen = true;
    if (i == static_cast<int>(conns_.size()) - 1) sent->second.spectator_seen = true;
    if (i == sent->second.mover && running) {
      stats_.mover_us.push_back(us);
      stats_.mover_read_ms.push_back(
          std::chrono::duration<double, std::milli>(now.time_since_epoch()).count());
      stats_.mover_socket_us.push_back(
          std::chrono::duration<double, std::micro>(conns_[i]->arrived - sent->second.wall)
              .count());
    }
    if (i == static_cast<int>(conns_.size()) - 1 && running) stats_.spectator_us.push_back(us);
    if (sent->second.mover_seen && (spectators_ == 0 || sent->second.spectator_seen))
      sent_.erase(sent);
  }

  // Reads the JSON array of plain strings that follows `"value":` at `at` into `out`. False when
  // it is not that (then the caller parses the whole frame).
  static bool read_string_array(std::string_view text, std::size_t at,
                                std::vector<std::string>& out) {
    if (at == std::string::npos) return false;
    std::size_t p = at + 8;
    if (p >= text.size() || text[p] != '[') return false;
    out.clear();
    for (++p; p < text.size();) {
      if (text[p] == ']') return true;
      if (text[p] == ',') {
        ++p;
        continue;
      }
      if (text[p] != '"') return false;
      const auto end = text.find('"', p + 1);
      if (end == std::string::npos) return false;
      out.emplace_back(text.substr(p + 1, end - p - 1));
      if (out.back().find('\\') != std::string::npos) return false;
      p = end + 1;
    }
    return false;
  }

  void on_message(int i, const json& m) {
    const std::string type = m.value("type", "");
    if (type == "created") {
      room_ = m["room"];
      room_json_ = json(room_).dump();
      // Spectators first, so they see the game start.
      for (int s = 2; s < static_cast<int>(conns_.size()); ++s)
        conns_[s]->send(json{{"type", "join"}, {"room", room_}, {"as", "spectator"}}.dump());
      conns_[0]->send(json{{"type", "join"}, {"room", room_}, {"as", "player"}}.dump());
      conns_[1]->send(json{{"type", "join"}, {"room", room_}, {"as", "player"}}.dump());
      return;
    }
    if (type != "full" && type != "patch") return;
    auto& view = views_[i];
    // Only the fields a player acts on; each is replaced whole by the server's patches.
    auto take = [&view](const std::string& key, const json& value) {
      if (key == "status")
        view.status = value.get<std::string>();
      else if (key == "rematch")
        view.rematch = value.get<std::vector<int>>();
      else if (key == "legal_moves")
        view.legal = value.get<std::vector<std::string>>();
    };
    if (type == "full") {
      for (const char* key : {"status", "rematch", "legal_moves"}) take(key, m["state"][key]);
      versions_[i] = m["version"];
    } else {
      const std::int64_t v = m["version"];
      if (v <= versions_[i]) return;
      for (const auto& op : m["ops"]) take(op["path"].get<std::string>().substr(1), op["value"]);
      versions_[i] = v;
      note_arrival(i, v);
    }
    if (i < 2) act(i);
  }

  // A player's turn: ask for a rematch once a game is over, or move when it may.
  void act(int i) {
    const auto& view = views_[i];
    if (!ready_called_ && view.status == "playing") {
      ready_called_ = true;
      ready_();
    }
    if (view.status != "over") asked_[i] = false;
    if (view.status == "over" && !asked_[i] &&
        std::ranges::find(view.rematch, i) == view.rematch.end()) {
      asked_[i] = true;  // once: the flag shows only when the server's patch comes back
      conns_[i]->send(json{{"type", "rematch"}, {"room", room_}}.dump());
      return;
    }
    const auto& legal = view.legal;
    if (view.status == "playing" && !legal.empty() && pending_ != versions_[i]) {
      pending_ = versions_[i];
      std::string move = legal[rng_() % legal.size()];
      const auto now = Clock::now();
      if (interval_ == Clock::duration::zero() || next_due_ <= now) {
        next_due_ += interval_;
        send_move(i, move);
      } else {
        // A newer wait replaces this one, as a timer set again would.
        loop_.at(next_due_, [this, i, wait = ++wait_, move = std::move(move)] {
          if (wait == wait_) send_move(i, move);
        });
        next_due_ += interval_;
      }
    }
  }

  void send_move(int i, const std::string& move) {
    sent_[versions_[i] + 1] = {Clock::now(), i, std::chrono::system_clock::now()};
    if (running) ++stats_.moves;
    // Written by hand: this runs for every move, and the clients share the server's cores.
    move_text_.assign(R"({"move":)");
    move_text_ += json(move).dump();
    move_text_ += R"(,"room":)";
    move_text_ += room_json_;
    move_text_ += R"(,"type":"move","version":)";
    move_text_ += std::to_string(versions_[i]);
    move_text_ += '}';
    conns_[i]->send(move_text_);
  }

  Loop& loop_;
  Stats& stats_;
  std::mt19937_64 rng_;
  std::function<void()> ready_;
  bool ready_called_ = false;
  int connected_ = 0;
  int spectators_ = 0;
  std::string game_, room_, room_json_, move_text_;
  std::vector<std::unique_ptr<Conn>> conns_;
  struct PlayerView {
    std::string status;
    std::vector<int> rematch;
    std::vector<std::string> legal;
  };
  std::vector<PlayerView> views_;
  std::vector<std::int64_t> versions_;
  struct Sent {
    Clock::time_point at;  // when the move was sent
    int mover;             // by which connection
    std::chrono::system_clock::time_point
        wall;  // the same instant, on the kernel's timestamp clock
    bool mover_seen = false, spectator_seen = false;
  };
  std::map<std::int64_t, Sent> sent_;
  std::int64_t pending_ = -1;
  bool asked_[2] = {false, false};
  std::uint64_t wait_ = 0;  // the latest wait for a move's time: an older one does nothing
  Clock::duration interval_{};
  Clock::duration
      offset_{};  // where in each interval this room moves, so rooms do not move together
  Clock::time_point next_due_;
};

// CPU seconds from a /proc stat file (a process's or one thread's), and the name in it.
double cpu_seconds_of(const std::string& stat_path, std::string* name = nullptr) {
  std::ifstream in(stat_path);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  const auto open = s.find('('), close = s.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return 0;
  if (name) *name = s.substr(open + 1, close - open - 1);
  std::istringstream rest(s.substr(close + 2));
  std::string field;
  std::vector<std::string> f;
  while (rest >> field) f.push_back(field);
  // After the command: state(0) ... utime(11) stime(12), in clock ticks.
  if (f.size() < 13) return 0;
  return (std::stod(f[11]) + std::stod(f[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double cpu_seconds(pid_t pid) { return cpu_seconds_of("/proc/" + std::to_string(pid) + "/stat"); }

// The CPU seconds of every process of user `uid` (the database server's, for --db-uid), as far
// as they run now: a database's backends live as long as the server's connections.
double cpu_seconds_of_user(long uid) {
  double sum = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const auto name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st{};
    if (::stat(e.path().c_str(), &st) != 0 || static_cast<long>(st.st_uid) != uid) continue;
    sum += cpu_seconds_of(e.path().string() + "/stat");
  }
  return sum;
}

// A thread's CPU seconds, and the seconds it was ready to run but waited for a core (from its
// schedstat; 0 on a kernel without one).
struct ThreadTime {
  double cpu = 0, waited = 0;
};

// The server's threads' times by thread name (the server names its threads: the event loop
// keeps the program's name; the store's are store-writer and checkpointer).
std::map<std::string, ThreadTime> thread_times(pid_t pid) {
  std::map<std::string, ThreadTime> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(dir, ec)) {
    std::string name;
    const double s = cpu_seconds_of(task.path().string() + "/stat", &name);
    // schedstat: time on a core, time waiting on the run queue, slices run (ns, ns, count)
    std::ifstream sched(task.path().string() + "/schedstat");
    double ran_ns = 0, waited_ns = 0;
    sched >> ran_ns >> waited_ns;
    auto& t = out[name];
    t.cpu += s;
    if (sched) t.waited += waited_ns / 1e9;
  }
  return out;
}

// A process's seconds ready to run with no core free, over all its threads.
double waited_seconds(pid_t pid) {
  double sum = 0;
  for (const auto& [name, t] : thread_times(pid)) sum += t.waited;
  return sum;
}

long status_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  return -1;
}

// A histogram's cumulative bucket counts from a /metrics page, by upper bound in ms (+Inf last).
std::vector<std::pair<double, double>> histogram(const std::string& page, const std::string& name) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(page);
  std::string line;
  const std::string prefix = name + "_bucket{le=\"";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const auto close = line.find('"', prefix.size());
    const auto le = line.substr(prefix.size(), close - prefix.size());
    const double bound = le == "+Inf" ? INFINITY : std::stod(le) * 1000;
    out.emplace_back(bound, std::stod(line.substr(line.rfind(' ') + 1)));
  }
  return out;
}

// The bucket bound under which p% of the samples taken between two scrapes fall: an upper bound
// on that percentile, as fine as the buckets.
double histogram_percentile(const std::vector<std::pair<double, double>>& before,
                            const std::vector<std::pair<double, double>>& after, double p,
                            double& n) {
  n = 0;
  if (after.empty() || before.size() != after.size()) return NAN;
  n = after.back().second - before.back().second;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i].second - before[i].second >= p / 100.0 * n) return after[i].first;
  return INFINITY;
}

// A counter's value on a /metrics page (0 when the page lacks it).
double counter(const std::string& page, const std::string& name) {
  const auto at = page.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stod(page.substr(at + name.size() + 2));
}

// Whether the slowest moves keep a CPU quota's time (see machine.hpp). Moves arrive evenly
// through the period: a quota that stops the machine leaves a gap in the patches read, and the
// moves held up by it all arrive just after. Prints how full the emptiest 2 ms of the period
// was, and where in the period, in 10 ms steps from there, the slowest 1% of the moves arrived.
void print_period_check(const std::vector<double>& latency_us, const std::vector<double>& read_ms) {
  using plateau::bench::kQuotaPeriodMs;
  constexpr int kBins = 50;  // 2 ms each
  if (latency_us.size() < 1000 || latency_us.size() != read_ms.size()) return;
  const auto bin_of = [](double ms) {
    return std::min(kBins - 1, static_cast<int>(plateau::bench::phase_in_period(ms) /
                                                (kQuotaPeriodMs / kBins)));
  };
  std::array<std::size_t, kBins> count{};
  for (const double ms : read_ms) ++count[static_cast<std::size_t>(bin_of(ms))];
  const auto emptiest = static_cast<int>(std::ranges::min_element(count) - count.begin());
  const double threshold = percentile(latency_us, 99);
  std::array<std::size_t, 10> slow{};
  std::size_t slow_total = 0;
  for (std::size_t i = 0; i < latency_us.size(); ++i) {
    if (latency_us[i] < threshold) continue;
    const int from_gap = (bin_of(read_ms[i]) - emptiest + kBins) % kBins;
    ++slow[static_cast<std::size_t>(from_gap / 5)];
    ++slow_total;
  }
  const double even = static_cast<double>(latency_us.size()) / kBins;
  std::printf(
      "  100 ms period    its emptiest 2 ms got %.0f%% of an even share of the patches; the "
      "slowest 1%% by "
      "10 ms from there:",
      100.0 * static_cast<double>(count[static_cast<std::size_t>(emptiest)]) / even);
  for (const auto n : slow)
    std::printf(" %.0f", 100.0 * static_cast<double>(n) / static_cast<double>(slow_total));
  std::printf(" %% (10 each if no CPU quota's period stops the machine)\n");
}

std::string uids_text(const std::vector<long>& uids) {
  std::string out;
  for (const long uid : uids) out += (out.empty() ? "" : ",") + std::to_string(uid);
  return out;
}

// The CPU seconds of every process of these users.
double cpu_seconds_of_users(const std::vector<long>& uids) {
  double sum = 0;
  for (const long uid : uids) sum += cpu_seconds_of_user(uid);
  return sum;
}

PhaseResult run_phase(const Options& opt, const Servers& servers, const std::string& label,
                      bool print = true) {
  const unsigned short port = servers.ports[0];
  const pid_t pid = servers.pids[0];
  const auto servers_cpu = [&servers] {
    double sum = 0;
    for (const pid_t p : servers.pids) sum += cpu_seconds(p);
    return sum;
  };
  Loop loop;
  Stats stats;
  std::vector<std::unique_ptr<Room>> rooms;
  int ready = 0;
  for (int r = 0; r < opt.rooms; ++r)
    rooms.push_back(
        std::make_unique<Room>(loop, servers.ports, opt, stats, r, [&ready] { ++ready; }));
  const auto setup_deadline = Clock::now() + std::chrono::seconds(60);
  while (ready < opt.rooms && Clock::now() < setup_deadline)
    loop.run_for(std::chrono::milliseconds(50));
  for (auto& r : rooms) r->restart_schedule();
  // A second of the offered load before measuring: the setup's connections and joins are done
  // with and every room is on its schedule.
  loop.run_for(std::chrono::seconds(1));
  for (auto& r : rooms) r->running = true;
  const auto page0 = plateau::testing::http_get(port, "/metrics").body;
  const double cpu0 = servers_cpu();
  const double db0 = cpu_seconds_of_users(opt.db_uids);
  std::vector<double> each0;
  for (const long uid : opt.db_uids) each0.push_back(cpu_seconds_of_user(uid));
  auto threads0 = thread_times(pid);
  const double self0 = cpu_seconds(getpid());
  const double self_waited0 = waited_seconds(getpid());
  const auto machine0 = machine_ticks();
  const auto t0 = Clock::now();
  loop.run_for(
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.seconds)));
  const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = servers_cpu() - cpu0;
  const double db_cpu = cpu_seconds_of_users(opt.db_uids) - db0;
  std::vector<double> each;
  for (std::size_t u = 0; u < opt.db_uids.size(); ++u)
    each.push_back(cpu_seconds_of_user(opt.db_uids[u]) - each0[u]);
  auto threads = thread_times(pid);
  const double self_cpu = cpu_seconds(getpid()) - self0;
  const double self_waited = waited_seconds(getpid()) - self_waited0;
  const auto machine = machine_load(machine0, machine_ticks());
  const auto page1 = plateau::testing::http_get(port, "/metrics").body;
  const auto per_move = [&](double seconds) {
    return stats.moves ? seconds * 1000 / static_cast<double>(stats.moves) : 0.0;
  };
  const PhaseResult result{static_cast<double>(stats.moves) / elapsed,
                           percentile(stats.mover_us, 50) / 1000,
                           percentile(stats.mover_us, 99) / 1000,
                           percentile(stats.mover_socket_us, 99) / 1000,
                           per_move(cpu),
                           per_move(self_cpu),
                           stats.errors,
                           machine.busy};
  if (!print) return result;
  std::printf(
      "%s: rooms=%d spectators=%d game=%s store=%s nodes=%zu ready=%d pace=%s\n", label.c_str(),
      opt.rooms, opt.spectators, opt.game.c_str(), opt.data.c_str(), servers.pids.size(), ready,
      opt.pace > 0 ? (std::to_string(static_cast<long>(opt.pace)) + " moves/s offered").c_str()
                   : "none");
  std::printf("  moves            %llu in %.1f s = %.0f moves/s\n",
              static_cast<unsigned long long>(stats.moves), elapsed,
              static_cast<double>(stats.moves) / elapsed);
  std::printf("  error frames     %llu\n", static_cast<unsigned long long>(stats.errors));
  std::printf("  latency mover    p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  (n=%zu)\n",
              result.mover_p50_ms, percentile(stats.mover_us, 95) / 1000, result.mover_p99_ms,
              stats.mover_us.size());
  std::printf(
      "    at its socket  p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  (the kernel's receive timestamp: "
      "without the time this client took to get to the frame)\n",
      percentile(stats.mover_socket_us, 50) / 1000, percentile(stats.mover_socket_us, 95) / 1000,
      result.socket_p99_ms);
  print_period_check(stats.mover_us, stats.mover_read_ms);
  std::printf(
      "  latency spectator p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  (n=%zu, last spectator)\n",
      percentile(stats.spectator_us, 50) / 1000, percentile(stats.spectator_us, 95) / 1000,
      percentile(stats.spectator_us, 99) / 1000, stats.spectator_us.size());
  // The server's own histograms: bucket bounds, so each figure is an upper bound.
  const auto server_line = [&](const char* label, const char* name, const char* what) {
    const auto h0 = histogram(page0, name), h1 = histogram(page1, name);
    double n = 0;
    const double p50 = histogram_percentile(h0, h1, 50, n),
                 p99 = histogram_percentile(h0, h1, 99, n);
    if (n > 0)
      std::printf("  %-16s p50 <= %g ms  p99 <= %g ms  (n=%.0f; %s)\n", label, p50, p99, n, what);
  };
  server_line("server-side", "plateau_move_broadcast_seconds",
              "a move's arrival at the server to its patches written, durable commit included; "
              "bounds of /metrics "
              "buckets");
  server_line("  store queue", "plateau_store_queue_seconds",
              "a write's wait for its commit to start");
  server_line("  store commit", "plateau_store_commit_seconds", "one commit, of many writes");
  server_line("  store return", "plateau_store_return_seconds",
              "a commit's end to its completions on the rooms' thread");
  if (stats.moves > 0) {
    const double moves = static_cast<double>(stats.moves);
    std::printf(
        "  frames out       %.2f per move, %.0f bytes per move (every connection's)\n",
        (counter(page1, "plateau_frames_out_total") - counter(page0, "plateau_frames_out_total")) /
            moves,
        (counter(page1, "plateau_broadcast_bytes_total") -
         counter(page0, "plateau_broadcast_bytes_total")) /
            moves);
  }
  std::printf("  server CPU       %.3f s = %.4f ms per move (%zu server process%s)\n", cpu,
              result.server_ms_per_move, servers.pids.size(), servers.pids.size() > 1 ? "es" : "");
  if (!opt.db_uids.empty())
    std::printf(
        "  database CPU     %.3f s = %.4f ms per move (every process of uid %s); with the "
        "server's: %.4f ms per move\n",
        db_cpu, per_move(db_cpu), uids_text(opt.db_uids).c_str(), per_move(cpu + db_cpu));
  if (opt.db_uids.size() > 1)
    for (std::size_t u = 0; u < each.size(); ++u)
      std::printf("    uid %-10ld %.3f s = %.4f ms per move\n", opt.db_uids[u], each[u],
                  per_move(each[u]));
  if (servers.pids.size() > 1)
    std::printf("  (the metrics, threads and memory here and below are node 0's)\n");
  std::printf("  server threads  ");
  for (auto& [name, t] : threads)
    std::printf(" %s %.2f", name.c_str(), (t.cpu - threads0[name].cpu) / elapsed);
  std::printf(" (cores)\n");
  // A thread's latency includes the time it was ready but every core was taken.
  std::printf("    waiting       ");
  for (auto& [name, t] : threads)
    std::printf(" %s %.2f", name.c_str(), (t.waited - threads0[name].waited) / elapsed);
  std::printf(" (seconds per second ready to run with no core free)\n");
  std::printf(
      "  bench CPU        %.3f s = %.4f ms per move (the clients, on the same %u cores; waiting "
      "%.2f s per s "
      "for a core)\n",
      self_cpu, result.bench_ms_per_move, cores(), self_waited / elapsed);
  std::printf(
      "  machine          %.2f of %u cores busy (%.0f%%): user %.0f%%, system %.0f%%, iowait "
      "%.0f%%, "
      "steal %.0f%%\n",
      machine.busy * cores(), cores(), machine.busy * 100, machine.user * 100, machine.system * 100,
      machine.iowait * 100, machine.steal * 100);
  std::printf("  server memory    peak %ld KB, now %ld KB\n", status_kb(pid, "VmHWM"),
              status_kb(pid, "VmRSS"));
  std::fflush(stdout);
  return result;
}

// Paced phases at rising loads; prints one line each and the highest load within the target.
void sweep_phases(Options opt, const Servers& servers) {
  std::printf(
      "sweep: rooms=%d spectators=%d game=%s store=%s, %.0f s per load, target mover p99 <= %g "
      "ms\n",
      opt.rooms, opt.spectators, opt.game.c_str(), opt.data.c_str(), opt.seconds, opt.p99_ms);
  std::printf("  %9s %9s %9s %9s %13s %11s %11s %6s %6s\n", "offered", "moves/s", "p50 ms",
              "p99 ms", "p99 socket ms", "server ms", "bench ms", "busy", "errors");
  double best = 0;
  for (double pace = opt.sweep_from; pace <= opt.sweep_to + 1e-9; pace += opt.sweep_step) {
    opt.pace = pace;
    const auto r = run_phase(opt, servers, "", false);
    const bool kept_up = r.moves_per_s >= 0.95 * pace;
    std::printf("  %9.0f %9.0f %9.3f %9.3f %13.3f %11.4f %11.4f %5.0f%% %6llu%s\n", pace,
                r.moves_per_s, r.mover_p50_ms, r.mover_p99_ms, r.socket_p99_ms,
                r.server_ms_per_move, r.bench_ms_per_move, r.machine_busy * 100,
                static_cast<unsigned long long>(r.errors), kept_up ? "" : "  (saturated)");
    std::fflush(stdout);
    if (kept_up && r.errors == 0 && r.mover_p99_ms <= opt.p99_ms) best = r.moves_per_s;
    if (!kept_up) break;
  }
  if (best > 0)
    std::printf("  highest load with mover p99 <= %g ms: %.0f moves/s\n", opt.p99_ms, best);
  else
    std::printf("  no load tried kept mover p99 <= %g ms\n", opt.p99_ms);
  std::fflush(stdout);
}

void idle_phase(int n, unsigned short port, pid_t pid) {
  Loop loop;
  std::vector<std::unique_ptr<Conn>> conns;
  int welcomed = 0;
  // Settle, then measure the server's resident memory before and after.
  const long before = status_kb(pid, "VmRSS");
  for (int i = 0; i < n; ++i) {
    auto c = std::make_unique<Conn>(loop);
    c->on_message = [&welcomed](std::string_view text) {
      if (text.find(R"("type":"welcome")") != std::string::npos) ++welcomed;
    };
    c->start(port, [c = c.get(), i] {
      c->send(json{{"type", "hello"}, {"name", "idle" + std::to_string(i)}}.dump());
    });
    conns.push_back(std::move(c));
    if (i % 500 == 499) loop.run_for(std::chrono::milliseconds(20));
  }
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (welcomed < n && Clock::now() < deadline) loop.run_for(std::chrono::milliseconds(50));
  loop.run_for(std::chrono::milliseconds(500));
  const long after = status_kb(pid, "VmRSS");
  std::printf("idle: %d connections said hello and got a welcome (of %d)\n", welcomed, n);
  std::printf("  server RSS       %ld KB before, %ld KB after = %.2f KB per idle connection\n",
              before, after, welcomed ? static_cast<double>(after - before) / welcomed : 0.0);
  std::fflush(stdout);
  for (auto& c : conns) c->close();
  loop.run_for(std::chrono::milliseconds(200));
}

// One client makes `n` tables of `game` and seats a bot of `level` at every seat; returns the
// tables made. The client stays connected (watching nothing) for the bench's whole run.
int start_bot_games(plateau::client::WsClient& ws, unsigned short port, const Options& opt) {
  if (!ws.connect("127.0.0.1", port).empty()) return 0;
  ws.send({{"type", "hello"}, {"name", "Bot keeper"}});
  if (!ws.recv_type("welcome")) return 0;
  int made = 0;
  for (int i = 0; i < opt.bot_games; ++i) {
    ws.send({{"type", "create"}, {"game", opt.bot_game}});
    const auto created =
        ws.recv_until([](const json& m) { return m["type"] == "created" || m["type"] == "error"; });
    if (!created || (*created)["type"] != "created") {
      std::cerr << "bot table: " << (created ? created->dump() : "no reply") << "\n";
      break;
    }
    const std::string room = (*created)["room"];
    for (bool seated = true; seated;) {
      ws.send({{"type", "add_bot"}, {"room", room}, {"level", opt.bot_level}});
      const auto added = ws.recv_until(
          [](const json& m) { return m["type"] == "bot_added" || m["type"] == "error"; });
      seated = added && (*added)["type"] == "bot_added";
      // The last seat taken starts the game: the next add_bot is refused (bot/started).
      if (added && (*added)["type"] == "error" && (*added)["code"] != "room/full" &&
          (*added)["code"] != "bot/started")
        std::cerr << "add_bot: " << added->dump() << "\n";
    }
    ++made;
  }
  return made;
}

// A metric's value in /metrics text (0 when absent).
double metric(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::atof(text.c_str() + at + name.size() + 2);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string server = plateau::testing::server_binary();
  for (int i = 1; i < argc;) {
    const std::string k = argv[i++];
    if (k == "--no-single") {  // the one flag: every other key takes a value
      opt.single = false;
      continue;
    }
    if (i >= argc) {
      std::cerr << k << " wants a value\n";
      return 2;
    }
    const std::string v = argv[i++];
    if (k == "--rooms")
      opt.rooms = std::stoi(v);
    else if (k == "--spectators")
      opt.spectators = std::stoi(v);
    else if (k == "--seconds")
      opt.seconds = std::stod(v);
    else if (k == "--idle")
      opt.idle = std::stoi(v);
    else if (k == "--game")
      opt.game = v;
    else if (k == "--data")
      opt.data = v;
    else if (k == "--store")
      opt.store = v;
    else if (k == "--db-uid") {
      std::istringstream in(v);
      for (std::string uid; std::getline(in, uid, ',');) opt.db_uids.push_back(std::stol(uid));
    } else if (k == "--cluster")
      opt.cluster = v;
    else if (k == "--nodes")
      opt.nodes = std::stoi(v);
    else if (k == "--server")
      server = v;
    else if (k == "--pace")
      opt.pace = std::stod(v);
    else if (k == "--p99-ms")
      opt.p99_ms = std::stod(v);
    else if (k == "--bot-games")
      opt.bot_games = std::stoi(v);
    else if (k == "--bot-level")
      opt.bot_level = v;
    else if (k == "--bot-game")
      opt.bot_game = v;
    else if (k == "--sweep") {
      char colon1 = 0, colon2 = 0;
      std::istringstream in(v);
      if (!(in >> opt.sweep_from >> colon1 >> opt.sweep_step >> colon2 >> opt.sweep_to) ||
          colon1 != ':' || colon2 != ':' || opt.sweep_from <= 0 || opt.sweep_step <= 0 ||
          opt.sweep_to < opt.sweep_from) {
        std::cerr << "--sweep wants FROM:STEP:TO in moves/s, FROM > 0, STEP > 0, TO >= FROM\n";
        return 2;
      }
    } else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);

  // ServerProcess passes --data DIR itself; a later --data none wins over it.
  // Every client is 127.0.0.1: the per-address cap would stop the idle phase at its default.
  std::vector<std::string> extra{"--max-connections", "100000", "--max-per-ip", "100000"};
  if (opt.data == "none") extra.insert(extra.end(), {"--data", "none"});
  if (!opt.store.empty()) extra.insert(extra.end(), {"--store", opt.store});
  if (opt.bot_games > 0)  // one client makes every bot table
    extra.insert(extra.end(), {"--creates-per-minute", "100000", "--max-rooms-per-player", "100000",
                               "--max-bot-games", std::to_string(opt.bot_games)});
  if (opt.nodes > 1 && (opt.cluster.empty() || opt.store.empty())) {
    std::cerr << "--nodes N wants --cluster redis://... and --store postgres://...\n";
    return 2;
  }
  if (!opt.cluster.empty()) extra.insert(extra.end(), {"--cluster", opt.cluster});
  // With --store, the server's --data folder is the test's own (unused) temporary one.
  std::vector<std::unique_ptr<plateau::testing::ServerProcess>> procs;
  Servers servers;
  for (int n = 0; n < std::max(1, opt.nodes); ++n) {
    auto& srv = *procs.emplace_back(std::make_unique<plateau::testing::ServerProcess>(
        opt.data == "none" || !opt.store.empty() ? std::filesystem::path()
                                                 : std::filesystem::path(opt.data),
        extra));
    srv.binary = server;
    const auto p = srv.start();
    if (!p) {
      std::cerr << "server did not start:\n" << srv.log();
      return 1;
    }
    servers.ports.push_back(p);
    servers.pids.push_back(srv.pid());
  }
  if (!opt.store.empty()) opt.data = opt.store.substr(0, opt.store.find('?'));  // as shown
  const auto port = servers.ports[0];
  plateau::client::WsClient keeper;
  double bot_moves_before = 0;
  if (opt.bot_games > 0) {
    const int made = start_bot_games(keeper, port, opt);
    const auto m = plateau::testing::http_get(port, "/metrics").body;
    bot_moves_before = metric(m, "plateau_bot_moves_total");
    std::printf("bots: %d games of %s, every seat a %s bot, playing on %s\n", made,
                opt.bot_game.c_str(), opt.bot_level.c_str(), "the server's worker pool");
    std::fflush(stdout);
  }
  const auto bots_started = Clock::now();
  Options one = opt;
  one.rooms = 1;
  one.pace = 0;  // one room, one move at a time: latency with nothing else to do
  if (opt.single) run_phase(one, servers, "R=1");
  if (opt.sweep_from > 0)
    sweep_phases(opt, servers);
  else
    run_phase(opt, servers, "R=" + std::to_string(opt.rooms));
  if (opt.bot_games > 0) {
    const auto m = plateau::testing::http_get(port, "/metrics").body;
    const double secs = std::chrono::duration<double>(Clock::now() - bots_started).count();
    const double moves = metric(m, "plateau_bot_moves_total") - bot_moves_before;
    const double searches = metric(m, "plateau_bot_searches_total");
    std::printf(
        "bots: %.0f bot games still in play at the end; %.0f bot moves in %.1f s (%.1f/s), "
        "mean search %.0f ms, %.0f failures, %.0f searches queued\n",
        metric(m, "plateau_bot_games"), moves, secs, moves / secs,
        searches > 0 ? 1000 * metric(m, "plateau_bot_think_seconds_total") / searches : 0.0,
        metric(m, "plateau_bot_failures_total"), metric(m, "plateau_bot_jobs_pending"));
    std::fflush(stdout);
  }
  if (opt.idle > 0) idle_phase(opt.idle, port, servers.pids[0]);
  for (auto& srv : procs) srv->stop();
  return 0;
}
