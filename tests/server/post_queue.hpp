// What the stores' tests share: the rooms' thread as a store sees it (PostQueue: what the store
// posts waits here until the test runs it, so that a test decides when the writer takes its
// queue, and so which writes share a commit, and when completions run), and waiting for one
// write to be durable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
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

// Makes one write (`write` is given its callback) and waits until the store says how it went.
template <typename Write>
bool wait_for_write(Write write) {
  std::promise<bool> done;
  auto result = done.get_future();
  write([&done](bool ok) { done.set_value(ok); });
  return result.get();
}

}  // namespace plateau::test
