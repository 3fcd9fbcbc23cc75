// What flush_floor and stall_floor share: their options, the file they flush, and the paced
// loop of a write then an fdatasync.
#pragma once

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace plateau::bench {

// The options both take: where the flushed file goes, how long to run, how often to flush.
struct FlushOptions {
  std::string dir = ".";
  double seconds = 10;
  double hz = 1000;  // flushes a second; 0: back to back
};

// The flushed file's size: written and flushed once before, so that no later write allocates
// (4 MB: SQLite's log at its automatic checkpoint's 1,000 pages).
constexpr off_t kFlushedFileBytes = 4 << 20;

// "1000 a second", or "back to back".
inline std::string describe_pace(double hz) {
  return hz > 0 ? std::to_string(static_cast<int>(hz)) + " a second" : "back to back";
}

// Reads `--dir`, `--seconds` and `--hz` into `opt`, and hands any other option to `more`
// (which returns false for one it does not know, and may throw std::invalid_argument or
// std::out_of_range for a value that is not a number). Prints what is wrong, with `usage`, and
// returns false for an unknown option, a missing value or a value out of range (at most
// `max_seconds`).
inline bool parse_flush_options(
    int argc, char** argv, FlushOptions& opt, double max_seconds, const char* usage,
    const std::function<bool(const std::string&, const std::string&)>& more = {}) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s wants a value\n%s\n", k.c_str(), usage);
      return false;
    }
    const std::string v = argv[++i];
    try {
      if (k == "--dir")
        opt.dir = v;
      else if (k == "--seconds")
        opt.seconds = std::stod(v);
      else if (k == "--hz")
        opt.hz = std::stod(v);
      else if (!more || !more(k, v)) {
        std::fprintf(stderr, "unknown option %s\n%s\n", k.c_str(), usage);
        return false;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "%s wants a number, not %s\n", k.c_str(), v.c_str());
      return false;
    }
  }
  if (!(opt.seconds > 0 && opt.seconds <= max_seconds) || !(opt.hz >= 0)) {
    std::fprintf(stderr, "--seconds wants 0 < S <= %g and --hz at least 0\n", max_seconds);
    return false;
  }
  return true;
}

inline double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

inline bool write_all(int fd, const char* data, std::size_t size, off_t at) {
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

// Creates `path` with `bytes` of zeros, written and flushed, so that writes inside it allocate
// no block and change no size (as SQLite rewrites its log in place). Returns its descriptor, or
// -1 after saying why (the file is then removed).
inline int open_written_file(const std::string& path, off_t bytes, const char* who) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror((std::string(who) + ": " + path).c_str());
    return -1;
  }
  const std::vector<char> zeros(1 << 20, 0);
  bool ok = true;
  for (off_t at = 0; ok && at < bytes; at += static_cast<off_t>(zeros.size()))
    ok = write_all(fd, zeros.data(),
                   std::min<std::size_t>(zeros.size(), static_cast<std::size_t>(bytes - at)), at);
  if (ok && fsync(fd) == 0) return fd;
  std::perror((std::string(who) + ": preparing " + path).c_str());
  close(fd);
  unlink(path.c_str());
  return -1;
}

// Until `end_ms`, `hz` times a second (0: back to back): writes `kb` KB at `next_offset(i)`,
// then calls fdatasync and `on_flush(ms)` with the flush's duration. Returns how many flushes
// it made, or -1 after an error (said on stderr).
template <class NextOffset, class OnFlush>
long paced_flushes(int fd, double hz, std::size_t kb, double end_ms, NextOffset next_offset,
                   OnFlush on_flush) {
  std::vector<char> block(kb * 1024);
  const double period = hz > 0 ? 1e3 / hz : 0;
  long n = 0;
  for (double due = now_ms(); now_ms() < end_ms; ++n) {
    if (period > 0) {
      due += period;
      if (const double wait = due - now_ms(); wait > 0) {
        const timespec t{static_cast<time_t>(wait / 1e3),
                         static_cast<long>(std::fmod(wait, 1e3) * 1e6)};
        nanosleep(&t, nullptr);
      }
    }
    block[static_cast<std::size_t>(n) % block.size()] =
        static_cast<char>(n);  // not the same bytes twice
    if (!write_all(fd, block.data(), block.size(), next_offset(n))) {
      std::perror("write");
      return -1;
    }
    const double t = now_ms();
    if (fdatasync(fd) != 0) {
      std::perror("fdatasync");
      return -1;
    }
    on_flush(now_ms() - t);
  }
  return n;
}

}  // namespace plateau::bench
