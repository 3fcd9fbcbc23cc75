// Limits per key (a peer's address): how often something may happen, and how long to wait after
// repeated failures. Plain classes on the caller's clock, so tests need not sleep; each keeps at
// most a bounded number of keys, forgetting the ones that carry no debt.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace plateau::server {

using SteadyTime = std::chrono::steady_clock::time_point;

// At most `per_minute` events a minute for each key, in bursts of at most that many (a token
// bucket refilled continuously).
class RateByKey {
 public:
  explicit RateByKey(std::size_t max_keys = 100'000) : max_keys_(max_keys) {}

  bool allow(std::string_view key, double per_minute, SteadyTime now) {
    auto it = buckets_.find(std::string(key));
    if (it == buckets_.end()) {
      if (buckets_.size() >= max_keys_) forget_full(per_minute, now);
      if (buckets_.size() >= max_keys_) return false;  // every key in debt: refuse newcomers too
      it = buckets_.emplace(std::string(key), Bucket{per_minute, now}).first;
    }
    auto& b = it->second;
    b.tokens = std::min(per_minute, b.tokens + per_minute * minutes(now - b.at));
    b.at = now;
    if (b.tokens < 1.0) return false;
    b.tokens -= 1.0;
    return true;
  }
  std::size_t keys() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens;
    SteadyTime at;
  };
  static double minutes(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double, std::ratio<60>>(d).count();
  }
  void forget_full(double per_minute, SteadyTime now) {
    std::erase_if(buckets_, [&](const auto& kv) {
      return kv.second.tokens + per_minute * minutes(now - kv.second.at) >= per_minute;
    });
  }
  std::size_t max_keys_;
  std::unordered_map<std::string, Bucket> buckets_;
};

// After `free_failures` failures in a row, a key must wait before its next attempt: 1 s, then
// twice as long after each further failure, up to `longest`. A success forgets the key.
class Backoff {
 public:
  explicit Backoff(int free_failures = 3, std::chrono::seconds longest = std::chrono::seconds(300),
                   std::size_t max_keys = 100'000)
      : free_(free_failures), longest_(longest), max_keys_(max_keys) {}

  // How long `key` must still wait; zero when it may try now.
  std::chrono::milliseconds wait(std::string_view key, SteadyTime now) const {
    const auto it = keys_.find(std::string(key));
    if (it == keys_.end() || it->second.until <= now) return std::chrono::milliseconds(0);
    return std::chrono::ceil<std::chrono::milliseconds>(it->second.until - now);
  }
  void failed(std::string_view key, SteadyTime now) {
    if (keys_.size() >= max_keys_ && !keys_.contains(std::string(key)))
      std::erase_if(keys_, [&](const auto& kv) { return kv.second.until + longest_ < now; });
    auto& k = keys_[std::string(key)];
    ++k.failures;
    if (k.failures > free_) {
      const int doublings = std::min(k.failures - free_ - 1, 20);
      k.until = now + std::min<std::chrono::steady_clock::duration>(
                          std::chrono::seconds(1) * (1LL << doublings), longest_);
    }
  }
  void succeeded(std::string_view key) { keys_.erase(std::string(key)); }

 private:
  struct Failures {
    int failures = 0;
    SteadyTime until{};
  };
  int free_;
  std::chrono::seconds longest_;
  std::size_t max_keys_;
  std::unordered_map<std::string, Failures> keys_;
};

}  // namespace plateau::server
