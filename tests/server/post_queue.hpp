// The rooms' thread as a store sees it, for the stores' tests: what the store posts waits here
// until the test runs it, so that a test decides when the writer takes its queue (and so which
// writes share a commit) and when completions run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace plateau::test {

class PostQueue {
 public:
  std::function<void(std::function<void()>)> post() {
    return [this](std::function<void()> f) {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(f));
      posted_.notify_all();
    };
  }
  // Runs what was posted, waiting up to 10 s for something to be.
  bool run_next() {
    std::unique_lock lock(mutex_);
    if (!posted_.wait_for(lock, std::chrono::seconds(10), [this] { return !queue_.empty(); }))
      return false;
    auto f = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    f();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable posted_;
  std::deque<std::function<void()>> queue_;
};

}  // namespace plateau::test
