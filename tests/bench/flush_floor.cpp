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
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "percentile.hpp"

namespace {

struct Options {
  std::string dir = ".";
  double seconds = 10;
  double hz = 1000;
};

double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

void report(const char* name, std::vector<double> flushes) {
  std::vector<double> pairs;
  for (std::size_t i = 1; i < flushes.size(); ++i) pairs.push_back(flushes[i - 1] + flushes[i]);
  std::sort(flushes.begin(), flushes.end());
  std::sort(pairs.begin(), pairs.end());
  auto at = [](const std::vector<double>& sorted, double p) { return plateau::bench::percentile_of_sorted(sorted, p); };
  std::printf("  %-9s  %6zu flushes  p50 %6.3f  p90 %6.3f  p99 %6.3f  p99.9 %6.3f  max %7.3f ms\n", name,
              flushes.size(), at(flushes, 50), at(flushes, 90), at(flushes, 99), at(flushes, 99.9), at(flushes, 100));
  std::printf("  %-9s  two in a row: p50 %6.3f  p99 %6.3f ms\n", "", at(pairs, 50), at(pairs, 99));
}

bool write_all(int fd, const char* data, std::size_t size, off_t at) {
  while (size > 0) {
    const ssize_t n = pwrite(fd, data, size, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
    at += n;
  }
  return true;
}

// Writes a block at `next_offset(i)` then flushes it, --hz times a second, for `seconds`.
template <class NextOffset>
std::vector<double> run(int fd, const Options& opt, double seconds, NextOffset next_offset) {
  std::array<char, 4096> block{};
  std::vector<double> flushes;
  const double start = now_ms(), end = start + seconds * 1e3;
  const double period = opt.hz > 0 ? 1e3 / opt.hz : 0;
  double due = start;
  for (std::size_t i = 0; now_ms() < end; ++i) {
    if (period > 0) {
      due += period;
      const double wait = due - now_ms();
      if (wait > 0) {
        const timespec t{static_cast<time_t>(wait / 1e3), static_cast<long>(std::fmod(wait, 1e3) * 1e6)};
        nanosleep(&t, nullptr);
      }
    }
    block[i % block.size()] = static_cast<char>(i);  // not the same page twice
    if (!write_all(fd, block.data(), block.size(), next_offset(i))) {
      std::perror("flush_floor: write");
      break;
    }
    const double t = now_ms();
    if (fdatasync(fd) != 0) {
      std::perror("flush_floor: fdatasync");
      break;
    }
    flushes.push_back(now_ms() - t);
  }
  return flushes;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s wants a value\n", k.c_str());
      return 2;
    }
    const std::string v = argv[++i];
    if (k == "--dir") opt.dir = v;
    else if (k == "--seconds") opt.seconds = std::stod(v);
    else if (k == "--hz") opt.hz = std::stod(v);
    else {
      std::fprintf(stderr, "unknown option %s\nflush_floor [--dir DIR] [--seconds 10] [--hz 1000]\n", k.c_str());
      return 2;
    }
  }
  if (!(opt.seconds > 0 && opt.seconds <= 600) || opt.hz < 0) {
    std::fprintf(stderr, "--seconds wants 0 < S <= 600 and --hz at least 0\n");
    return 2;
  }
  const std::string path = opt.dir + "/flush_floor.tmp";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(("flush_floor: " + path).c_str());
    return 1;
  }
  // The overwrite half cycles through 4 MB (SQLite's log at its automatic checkpoint's 1000
  // pages), all of it written and flushed first so that no write allocates.
  constexpr off_t kCycle = 4 << 20;
  std::vector<char> zeros(1 << 20, 0);
  bool ok = true;
  for (off_t at = 0; ok && at < kCycle; at += static_cast<off_t>(zeros.size()))
    ok = write_all(fd, zeros.data(), zeros.size(), at);
  if (!ok || fsync(fd) != 0) {
    std::perror("flush_floor: preparing the file");
    close(fd);
    unlink(path.c_str());
    return 1;
  }
  const std::string pace = opt.hz > 0 ? std::to_string(static_cast<int>(opt.hz)) + " a second" : "back to back";
  std::printf("flush_floor: %s, 4 KB then fdatasync, %s, %.1f s a half\n", path.c_str(), pace.c_str(), opt.seconds / 2);
  const auto overwrite = run(fd, opt, opt.seconds / 2, [](std::size_t i) { return static_cast<off_t>(i * 4096) % kCycle; });
  const auto append = run(fd, opt, opt.seconds / 2, [](std::size_t i) { return kCycle + static_cast<off_t>(i * 4096); });
  close(fd);
  unlink(path.c_str());
  report("overwrite", overwrite);
  report("append", append);
  return overwrite.empty() || append.empty() ? 1 : 0;
}
