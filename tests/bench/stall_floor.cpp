// How long this machine stops running its threads while its disk is flushed (run by hand;
// never a timed test).
//
// load_bench's p99 at 10,000 durable moves/s is many times its p99 with `--data none`. This
// program looks for what a server cannot change: moments when no thread on any core runs at
// all. It pins one thread to each core, and each thread does nothing but read the clock in a
// loop; a gap between two readings is time that thread was not running. Time in which every
// core's thread is in a gap at once is time in which the whole machine ran none of them: a
// move in flight then waits, whatever the server does.
//
//   stall_floor [--dir DIR] [--seconds 5] [--hz 1000] [--kb 4] [--core 0] [--nap 50]
//
// Five phases, each --seconds long:
//   - quiet: the clock readers alone;
//   - flushing: the same, while one more thread, pinned to core --core, writes --kb KB into
//     DIR/stall_floor.tmp and calls fdatasync, --hz times a second (the store's writer commits
//     1,000 to 2,000 times a second at 10,000 moves/s), so that every flush runs while every
//     core is busy;
//   - flushing, one core free: the same, with no clock reader on the flushing thread's core;
//   - nearly idle: readers that nap --nap µs between 10 µs of work, as a server's core is
//     woken by every message: first alone, then with the flushes.
// For each phase it prints how busy the machine was, each core's gaps and the whole machine's
// stalls: how many lasted at least 1, 5 and 10 ms, their share of the phase, the longest, and
// how many of those of 2 ms or more end at the same point of a 100 ms period (the mark of a CPU
// quota, machine.hpp). It writes only DIR/stall_floor.tmp (4 MB, rewritten in place) and
// removes it.
// Run it on an otherwise idle machine: any other work shows up as gaps as well.
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "flushing.hpp"
#include "machine.hpp"

namespace {

using plateau::bench::FlushOptions;
using plateau::bench::now_ms;

void pin_to(unsigned core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

struct Gap {
  double from, to;  // ms, CLOCK_MONOTONIC
};

// Reads the clock until `end`; returns every gap between two readings of at least `min_ms`.
// With `nap_us` > 0 it sleeps that long between readings and then works 10 µs: a core that is
// nearly idle, woken often (as a server's core is, by every message). A gap then holds the nap
// (and the wake-up's delay): the caller's `min_ms` must be well over both.
std::vector<Gap> read_clock(unsigned core, double end, double min_ms, long nap_us) {
  pin_to(core);
  prctl(PR_SET_TIMERSLACK, 1UL);  // a nap of nap_us, not the default 50 µs more
  std::vector<Gap> gaps;
  gaps.reserve(1 << 16);
  for (double last = now_ms(), work_until = last; last < end;) {
    // Naps once its 10 µs of work are done; reads the clock as it works, as a stop may begin then.
    const bool nap = nap_us > 0 && last >= work_until;
    if (nap) {
      const timespec length{0, nap_us * 1000};
      nanosleep(&length, nullptr);
    }
    const double t = now_ms();
    if (t - last >= min_ms) gaps.push_back({last, t});
    if (nap) work_until = t + 0.01;
    last = t;
  }
  return gaps;
}

// The spans in which every core's reader was in a gap: the intersection of sorted lists.
std::vector<Gap> all_at_once(const std::vector<std::vector<Gap>>& per_core) {
  if (per_core.empty()) return {};
  std::vector<Gap> common = per_core[0];
  for (std::size_t c = 1; c < per_core.size(); ++c) {
    std::vector<Gap> next;
    std::size_t i = 0, j = 0;
    const auto& other = per_core[c];
    while (i < common.size() && j < other.size()) {
      const double from = std::max(common[i].from, other[j].from),
                   to = std::min(common[i].to, other[j].to);
      if (from < to) next.push_back({from, to});
      (common[i].to < other[j].to ? i : j)++;
    }
    common = std::move(next);
  }
  return common;
}

void print_gaps(const char* name, const std::vector<Gap>& gaps, double seconds) {
  std::array<int, 3> count{};
  double stalled = 0, longest = 0;
  for (const auto& g : gaps) {
    const double ms = g.to - g.from;
    if (ms < 1) continue;
    stalled += ms;
    longest = std::max(longest, ms);
    count[0]++;
    if (ms >= 5) count[1]++;
    if (ms >= 10) count[2]++;
  }
  std::printf(
      "    %-16s %6d >= 1 ms  %5d >= 5 ms  %5d >= 10 ms   %5.2f%% of the time   longest %6.2f ms\n",
      name, count[0], count[1], count[2], stalled / (seconds * 10), longest);
}

constexpr off_t kCycle = plateau::bench::kFlushedFileBytes;

// Pinned to `core`, writes `kb` KB then flushes, --hz times a second, until `end`, cycling
// through the file. Returns the number of flushes, or -1 after an error.
long flush_until(int fd, const FlushOptions& opt, std::size_t kb, double end, unsigned core) {
  pin_to(core);
  const off_t size = static_cast<off_t>(kb * 1024);
  return plateau::bench::paced_flushes(
      fd, opt.hz, kb, end,
      [&](long i) { return static_cast<off_t>(i) * size % (kCycle - kCycle % size); },
      [](double) {});
}

// Whether the whole machine's stops of 2 ms or more keep a CPU quota's time (machine.hpp): how
// many end within 1 ms of the same point of its 100 ms period.
void print_period(const std::vector<Gap>& stops) {
  std::vector<double> ends;
  for (const auto& g : stops)
    if (g.to - g.from >= 2) ends.push_back(plateau::bench::phase_in_period(g.to));
  if (ends.size() < 2) return;
  std::printf(
      "      %zu of its %zu stops of 2 ms or more end within 1 ms of the same point of a %.0f ms "
      "period\n",
      plateau::bench::most_in_step(ends, 1), ends.size(), plateau::bench::kQuotaPeriodMs);
}

// One phase: a clock reader on each of `readers` (napping `nap_us` between readings, or none),
// and the flusher pinned to `flusher` (none when `fd` < 0).
bool phase(const std::string& name, const FlushOptions& opt, std::size_t kb,
           const std::vector<unsigned>& readers, unsigned flusher, int fd, long nap_us = 0) {
  const auto ticks = plateau::bench::machine_ticks();
  const double end = now_ms() + opt.seconds * 1e3;
  std::vector<std::vector<Gap>> gaps(readers.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < readers.size(); ++i)
    threads.emplace_back(
        [&, i] { gaps[i] = read_clock(readers[i], end, nap_us > 0 ? 1 : 0.05, nap_us); });
  long flushes = 0;
  if (fd >= 0) flushes = flush_until(fd, opt, kb, end, flusher);
  for (auto& t : threads) t.join();
  if (flushes < 0) return false;
  const auto load = plateau::bench::machine_load(ticks, plateau::bench::machine_ticks());
  std::printf("  %s", name.c_str());
  if (fd >= 0)
    std::printf(" (%ld flushes, %.0f a second)", flushes,
                static_cast<double>(flushes) / opt.seconds);
  std::printf("; the machine busy %.0f%% of the time\n", load.busy * 100);
  for (std::size_t i = 0; i < readers.size(); ++i)
    print_gaps(("core " + std::to_string(readers[i])).c_str(), gaps[i], opt.seconds);
  const auto stops = all_at_once(gaps);
  print_gaps("every reader", stops, opt.seconds);
  print_period(stops);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  FlushOptions opt;
  opt.seconds = 5;
  long kb = 4, flusher = 0, nap = 50;
  const auto more = [&](const std::string& k, const std::string& v) {
    if (k == "--kb")
      kb = std::stol(v);
    else if (k == "--core")
      flusher = std::stol(v);
    else if (k == "--nap")
      nap = std::stol(v);
    else
      return false;
    return true;
  };
  if (!plateau::bench::parse_flush_options(
          argc, argv, opt, 120,
          "stall_floor [--dir DIR] [--seconds 5] [--hz 1000] [--kb 4] [--core 0] [--nap 50]", more))
    return 2;
  if (kb < 1 || kb > 1024) {
    std::fprintf(stderr, "--kb wants 1 to 1024\n");
    return 2;
  }
  if (nap < 1 || nap > 100'000) {
    std::fprintf(stderr, "--nap wants 1 to 100000 (µs)\n");
    return 2;
  }
  const unsigned cores = plateau::bench::cores();
  if (cores < 2 || flusher < 0 || flusher >= static_cast<long>(cores)) {
    std::fprintf(stderr,
                 "stall_floor wants 2 cores or more (one is left free in the last phase), "
                 "and --core one of them\n");
    return 2;
  }
  const auto core = static_cast<unsigned>(flusher);
  std::vector<unsigned> every_core, the_others;
  for (unsigned c = 0; c < cores; ++c) {
    every_core.push_back(c);
    if (c != core) the_others.push_back(c);
  }
  const std::string path = opt.dir + "/stall_floor.tmp";
  const int fd = plateau::bench::open_written_file(path, kCycle, "stall_floor");
  if (fd < 0) return 1;
  std::printf(
      "stall_floor: %u cores, a clock reader pinned to each; gaps in its readings (%.0f s a "
      "phase)\n",
      cores, opt.seconds);
  std::printf("flushing: %ld KB then fdatasync into %s, %s\n", kb, path.c_str(),
              plateau::bench::describe_pace(opt.hz).c_str());
  const auto size = static_cast<std::size_t>(kb);
  const bool ok = phase("quiet", opt, size, every_core, core, -1) &&
                  phase("flushing", opt, size, every_core, core, fd) &&
                  phase("flushing, core " + std::to_string(core) + " free for the flusher", opt,
                        size, the_others, core, fd) &&
                  phase("nearly idle: each reader naps " + std::to_string(nap) +
                            " µs, works 10 µs; not flushing",
                        opt, size, every_core, core, -1, nap) &&
                  phase("nearly idle, flushing", opt, size, every_core, core, fd, nap);
  close(fd);
  unlink(path.c_str());
  return ok ? 0 : 1;
}
