#include "server/rooms/reaper.hpp"

#include <pthread.h>

namespace plateau::server {

Reaper::Reaper() : thread_([this] { run(); }) {}

Reaper::~Reaper() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Reaper::retire(std::shared_ptr<const void> last) {
  if (!last) return;
  bool wake = false;
  {
    std::lock_guard lock(mutex_);
    waiting_.push_back(std::move(last));
    ++handed_;
    wake = waiting_.size() == 1 ||
           waiting_.size() == kBatch;  // the first wakes it; a full batch hurries it
  }
  if (wake) wake_.notify_one();
}

void Reaper::drain() {
  std::unique_lock lock(mutex_);
  const auto target = handed_;
  hurry_ = true;
  wake_.notify_one();
  drained_.wait(lock, [&] { return freed_ >= target; });
}

std::uint64_t Reaper::freed() const {
  std::lock_guard lock(mutex_);
  return freed_;
}

void Reaper::run() {
  pthread_setname_np(pthread_self(), "reaper");  // for top -H and the load bench
  std::vector<std::shared_ptr<const void>> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    // Asleep while nothing waits (an idle server wakes it never); then a batch gathers for up
    // to kLinger, cut short by a full batch, by drain() or by stop.
    wake_.wait(lock, [&] { return stop_ || hurry_ || !waiting_.empty(); });
    wake_.wait_for(lock, kLinger, [&] { return stop_ || hurry_ || waiting_.size() >= kBatch; });
    hurry_ = false;
    batch.swap(waiting_);
    const bool stopping = stop_;
    lock.unlock();
    const auto n = batch.size();
    batch.clear();  // the frees themselves, outside the lock
    lock.lock();
    freed_ += n;
    drained_.notify_all();
    if (stopping && waiting_.empty()) return;
  }
}

}  // namespace plateau::server
