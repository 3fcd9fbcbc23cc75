// The writes' path that both stores share (SQLite and PostgreSQL): the rooms' thread queues
// writes and hands the queue over once per pass of its event loop, not once per write; the
// store's writer thread takes each batch whole, runs it in one transaction (group commit: how is
// each store's business), and posts the completions back to the rooms' thread, in order, only
// after the commit returned. Also the count of exceptions caught on the way (/metrics).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "server/store/storage.hpp"

namespace plateau::server {

// `Db` is what a write's statements run on (the SQLite writer's statement cache, a PostgreSQL
// connection); `Tag` is what else the store keeps of a write (the SQLite store: its atomicity).
template <typename Db, typename Tag = int>
class WriteQueue {
 public:
  using Run = std::function<bool(Db&)>;
  struct Write {
    Run run;
    Done done;
    Tag tag;
    std::int64_t queued_at;  // SpanTimer time
  };

  WriteQueue(Storage::Post post, CommitStats& stats)
      : post_(std::move(post)),
        stats_(stats),
        queue_timer_(stats.queued),
        return_timer_(stats.returned) {}

  // On the rooms' thread. After stop(), the write fails at once (its callback still posted).
  void push(Run run, Done done, Tag tag = {}) {
    std::unique_lock lock(mutex_);
    if (stopping_) {
      lock.unlock();
      post_([done = std::move(done)] { done(false); });  // closed: nothing more is written
      return;
    }
    queue_.push_back({std::move(run), std::move(done), std::move(tag), queue_timer_.start()});
    const bool post_handoff = !handoff_posted_;
    handoff_posted_ = true;
    lock.unlock();
    if (!post_handoff) return;
    // Wake the writer once the rooms' thread has handled everything its last poll brought in,
    // so that every write of that pass goes into one commit rather than the first one alone.
    post_([this] {
      std::lock_guard lock(mutex_);
      handoff_posted_ = false;
      released_ = true;
      if (!queue_.empty()) wake_.notify_one();
    });
  }

  // On the writer thread: the next batch, once handed over; empty once stopping and drained.
  // `started` is set to the commit's start (`commit`'s time), each write's wait recorded to it.
  std::deque<Write> take(const SpanTimer& commit, std::int64_t& started) {
    std::deque<Write> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (released_ && !queue_.empty()); });
      if (queue_.empty()) return batch;
      batch.swap(queue_);
      released_ = false;
    }
    started = commit.start();
    for (const auto& w : batch) queue_timer_.record(w.queued_at, started);
    return batch;
  }

  // Stops taking writes; the writer drains what is queued. False if stopped already.
  bool stop() {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return false;
      stopping_ = true;
    }
    wake_.notify_all();
    return true;
  }

  // On the writer thread, after the batch's commit (or its failure) at `ended` (SpanTimer
  // time): each write's callback, with oks[i], on the rooms' thread, in order. A callback that
  // throws does not keep the others from learning how their write went.
  void finish(std::deque<Write>& batch, const std::vector<char>& oks, std::int64_t ended) {
    std::vector<std::pair<Done, bool>> results;
    results.reserve(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i)
      results.emplace_back(std::move(batch[i].done), oks[i] != 0);
    stats_.writes += results.size();
    post_([results = std::move(results), ended, this]() mutable {
      return_timer_.finish(ended);
      for (auto& [done, ok] : results) {
        if (!done) continue;
        guarded([&] { done(ok); });
      }
    });
  }

  // Runs `f`, counting what it throws rather than letting it end the thread. True if it ran
  // through.
  template <typename F>
  bool guarded(F&& f) {
    try {
      f();
      return true;
    } catch (const std::exception& e) {
      note_exception(e.what());
    } catch (...) {
      note_exception("unknown exception");
    }
    return false;
  }
  void note_exception(const char* what) {
    std::lock_guard lock(exception_mutex_);
    ++exceptions_;
    last_exception_ = what;
  }
  std::pair<std::uint64_t, std::string> exceptions() const {
    std::lock_guard lock(exception_mutex_);
    return {exceptions_, last_exception_};
  }

 private:
  Storage::Post post_;
  CommitStats& stats_;
  const SpanTimer queue_timer_;
  const SpanTimer return_timer_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Write> queue_;
  bool handoff_posted_ = false;  // a hand-off is posted to the rooms' thread
  bool released_ = false;        // the queue was handed off: the writer may take it
  bool stopping_ = false;
  mutable std::mutex exception_mutex_;
  std::uint64_t exceptions_ = 0;
  std::string last_exception_;
};

}  // namespace plateau::server
