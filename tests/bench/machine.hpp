// What load_bench and stall_floor read about the machine they run on: how busy its cores were,
// and whether its stops keep time with a CPU quota's period.
#pragma once

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace plateau::bench {

// The CPU time of the calling thread so far, in seconds.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The whole machine's CPU time so far, from /proc/stat's first line, in clock ticks: what the
// programs measured leave over, and what the host takes from this guest (steal).
struct MachineTicks {
  double user = 0, system = 0, iowait = 0, steal = 0, total = 0;  // total: idle included
};

inline MachineTicks machine_ticks() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  // cpu  user nice system idle iowait irq softirq steal (guest and guest_nice are in user)
  double f[8] = {};
  in >> cpu;
  for (double& v : f) in >> v;
  if (cpu != "cpu" || !in) return {};
  const double user = f[0] + f[1], system = f[2] + f[5] + f[6];
  return {user, system, f[4], f[7], user + system + f[3] + f[4] + f[7]};
}

inline unsigned cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// How busy the machine was between two readings, out of every core's time.
struct MachineLoad {
  double busy = 0, user = 0, system = 0, iowait = 0, steal = 0;  // fractions of all cores' time
};

inline MachineLoad machine_load(const MachineTicks& a, const MachineTicks& b) {
  const double total = b.total - a.total;
  if (total <= 0) return {};
  const double user = (b.user - a.user) / total, system = (b.system - a.system) / total;
  return {user + system, user, system, (b.iowait - a.iowait) / total, (b.steal - a.steal) / total};
}

// A CPU quota (Linux's CFS bandwidth control: a container's --cpus, or the cgroup a hypervisor
// runs a virtual machine in) grants its time per period, 100 ms unless set otherwise. A group
// that has used its time stops until the next period begins, every thread of it at once, so
// such stops end at the same point of each period. These look for that rhythm in the monotonic
// clock (ms), which keeps the host's pace: the point drifts by well under 1 ms a second.
constexpr double kQuotaPeriodMs = 100;

inline double phase_in_period(double ms) { return std::fmod(ms, kQuotaPeriodMs); }

// The distance between two phases, round the period.
inline double phase_distance(double a, double b) {
  const double d = std::fabs(a - b);
  return std::min(d, kQuotaPeriodMs - d);
}

// The most of `phases` that lie within `within_ms` of one of them: all of them when the events
// keep the period's time, a share of about 2 × within_ms / period when they do not.
inline std::size_t most_in_step(const std::vector<double>& phases, double within_ms) {
  std::size_t best = 0;
  for (const double p : phases)
    best = std::max(best, static_cast<std::size_t>(std::ranges::count_if(phases, [&](double q) {
                      return phase_distance(p, q) <= within_ms;
                    })));
  return best;
}

}  // namespace plateau::bench
