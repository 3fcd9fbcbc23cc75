// Latency histograms for /metrics: fixed buckets, safe to record on one thread while another
// reads, written out in Prometheus' text format.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string_view>

namespace plateau::server {

class LatencyHistogram {
 public:
  // Upper bounds in milliseconds. Fine below 10 ms, where the figures that matter live.
  static constexpr std::array<double, 16> kBucketsMs{0.1, 0.25, 0.5, 0.75, 1,  1.5, 2,   3,
                                                     5,   7.5,  10,  15,   25, 50,  100, 1000};

  void record_us(std::int64_t us) {
    if (us < 0) us = 0;
    std::size_t bucket = 0;
    while (bucket < kBucketsMs.size() && static_cast<double>(us) > kBucketsMs[bucket] * 1000)
      ++bucket;
    counts_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_us_.fetch_add(static_cast<std::uint64_t>(us), std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // Samples in bucket i (the last one is past every bound).
  std::uint64_t bucket(std::size_t i) const { return counts_[i].load(std::memory_order_relaxed); }

  // `name` as a Prometheus histogram in seconds: cumulative buckets, +Inf, sum and count.
  void write(std::ostream& out, std::string_view name, std::string_view help) const {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBucketsMs.size(); ++i) {
      cumulative += bucket(i);
      out << name << "_bucket{le=\"" << kBucketsMs[i] / 1000 << "\"} " << cumulative << "\n";
    }
    cumulative += bucket(kBucketsMs.size());
    out << name << "_bucket{le=\"+Inf\"} " << cumulative << "\n"
        << name << "_sum " << static_cast<double>(sum_us_.load(std::memory_order_relaxed)) / 1e6
        << "\n"
        << name << "_count " << count() << "\n";
  }

 private:
  std::array<std::atomic<std::uint64_t>, kBucketsMs.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_us_{0};
  std::atomic<std::uint64_t> count_{0};
};

// Times spans on the steady clock into a histogram. Rooms hold one to time a move from its
// arrival to its broadcast without reading a clock themselves (tests give them none).
class SpanTimer {
 public:
  explicit SpanTimer(LatencyHistogram& histogram) : histogram_(histogram) {}
  std::int64_t start() const { return now_us(); }
  void finish(std::int64_t started) const { record(started, now_us()); }
  // A span whose end was read already (from start(), for another span): no second clock read.
  void record(std::int64_t started, std::int64_t ended) const {
    histogram_.record_us(ended - started);
  }

 private:
  static std::int64_t now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  LatencyHistogram& histogram_;
};

}  // namespace plateau::server
