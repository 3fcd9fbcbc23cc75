// The disk's floor under a durable move's latency (run by hand; never a timed test).
//
// A move is acknowledged only after the commit that holds it has been flushed to the disk
// (SQLite in WAL mode, synchronous=FULL: one fdatasync of the log per commit). However the
// commits are grouped, a move that arrives while a flush is under way waits for that flush and
// then for its own: the block layer merges flushes that overlap, so a second one cannot start
// before the first ends. This program times the disk's flushes alone, with no SQLite, no server
// and no sockets, so that load_bench's p99 can be set beside what the disk gives:
//
//   flush_floor [--dir DIR] [--seconds 10] [--hz 1000]
//
// It writes 4 KB then calls fdatasync, --hz times a second (0: back to back), in two halves:
//   - overwrite: in a file written and flushed beforehand, as SQLite rewrites its log once a
//     checkpoint has copied it into the database (no block to allocate, no size to change);
//   - append: at the end of a growing file, as in the log's first cycle.
// It prints each half's percentiles, and those of two flushes in a row: the wait of a move that
// arrives just as a flush starts. Run it alone, then while load_bench runs (`--data none` loads
// the cores as the server does without touching the disk). It writes only DIR/flush_floor.tmp
// (4 MB at the most, plus what the append half adds) and removes it.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "flushing.hpp"
#include "percentile.hpp"

namespace {

using plateau::bench::FlushOptions;

void report(const char* name, std::vector<double> flushes) {
  std::vector<double> pairs;
  for (std::size_t i = 1; i < flushes.size(); ++i) pairs.push_back(flushes[i - 1] + flushes[i]);
  std::sort(flushes.begin(), flushes.end());
  std::sort(pairs.begin(), pairs.end());
  auto at = [](const std::vector<double>& sorted, double p) {
    return plateau::bench::percentile_of_sorted(sorted, p);
  };
  std::printf("  %-9s  %6zu flushes  p50 %6.3f  p90 %6.3f  p99 %6.3f  p99.9 %6.3f  max %7.3f ms\n",
              name, flushes.size(), at(flushes, 50), at(flushes, 90), at(flushes, 99),
              at(flushes, 99.9), at(flushes, 100));
  std::printf("  %-9s  two in a row: p50 %6.3f  p99 %6.3f ms\n", "", at(pairs, 50), at(pairs, 99));
}

// Writes a block at `next_offset(i)` then flushes it, --hz times a second, for `seconds`.
template <class NextOffset>
std::vector<double> run(int fd, const FlushOptions& opt, double seconds, NextOffset next_offset) {
  std::vector<double> flushes;
  const long n =
      plateau::bench::paced_flushes(fd, opt.hz, 4, plateau::bench::now_ms() + seconds * 1e3,
                                    next_offset, [&](double ms) { flushes.push_back(ms); });
  if (n < 0) flushes.clear();
  return flushes;
}

}  // namespace

int main(int argc, char** argv) {
  FlushOptions opt;
  if (!plateau::bench::parse_flush_options(argc, argv, opt, 600,
                                           "flush_floor [--dir DIR] [--seconds 10] [--hz 1000]"))
    return 2;
  // The overwrite half cycles through the file written beforehand; the append half grows it.
  constexpr off_t kCycle = plateau::bench::kFlushedFileBytes;
  const std::string path = opt.dir + "/flush_floor.tmp";
  const int fd = plateau::bench::open_written_file(path, kCycle, "flush_floor");
  if (fd < 0) return 1;
  std::printf("flush_floor: %s, 4 KB then fdatasync, %s, %.1f s a half\n", path.c_str(),
              plateau::bench::describe_pace(opt.hz).c_str(), opt.seconds / 2);
  const auto overwrite =
      run(fd, opt, opt.seconds / 2, [](long i) { return static_cast<off_t>(i) * 4096 % kCycle; });
  const auto append =
      run(fd, opt, opt.seconds / 2, [](long i) { return kCycle + static_cast<off_t>(i) * 4096; });
  close(fd);
  unlink(path.c_str());
  report("overwrite", overwrite);
  report("append", append);
  return overwrite.empty() || append.empty() ? 1 : 0;
}
