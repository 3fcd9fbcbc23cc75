// The SQLite store's writer: the rooms' thread queues writes and hands the queue over once per
// pass of its event loop; one thread runs each batch in a single transaction (group commit) and
// posts the completions back in order. This is the path every move takes to its broadcast.
#include <pthread.h>
#include <sqlite3.h>

#include <algorithm>

#include "server/store/sqlite_stmt.hpp"
#include "server/store/sqlite_store.hpp"

namespace plateau::server {

using sqlite::exec;
using sqlite::Stmt;
using sqlite::StmtCache;

void SqliteStore::enqueue(std::function<bool(StmtCache&)> run, Done done, Atomicity atomicity) {
  std::unique_lock lock(mutex_);
  if (stopping_) {
    lock.unlock();
    post_([done = std::move(done)] { done(false); });  // closed: nothing more is written
    return;
  }
  queue_.push_back({std::move(run), std::move(done), atomicity, queue_timer_.start()});
  const bool post_handoff = !handoff_posted_;
  handoff_posted_ = true;
  lock.unlock();
  if (!post_handoff) return;
  // Wake the writer once the rooms' thread has handled everything its last poll brought in, so
  // that every write of that pass goes into one commit rather than the first one alone.
  post_([this] {
    std::lock_guard lock(mutex_);
    handoff_posted_ = false;
    released_ = true;
    if (!queue_.empty()) wake_.notify_one();
  });
}

void SqliteStore::writer_loop() {
  pthread_setname_np(pthread_self(), "store-writer");
  StmtCache cache(db_);  // finalized before close() returns, so before the handle is closed
  auto run = [&cache](const char* sql) { return Stmt(cache, sql).run(); };
  const SpanTimer commit_timer(stats_.commit);
  for (;;) {
    std::deque<Write> batch;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || (released_ && !queue_.empty()); });
      if (queue_.empty()) return;  // stopping, and everything is written
      batch.swap(queue_);
      released_ = false;
    }
    const auto started = commit_timer.start();
    for (const auto& w : batch) queue_timer_.record(w.queued_at, started);
    checkpointer_.before_commit(db_);
    std::vector<char> oks(batch.size(), 0);
    bool committed = false;
    // Nothing thrown here may end the thread (and the process with it): a write that throws
    // fails, like one whose statement fails, and the writer goes on with the next batch.
    try {
      committed = run("BEGIN IMMEDIATE");
      for (std::size_t i = 0; i < batch.size(); ++i) {
        auto& w = batch[i];
        // Each write is all or nothing inside the shared transaction. A failing statement undoes
        // only itself, so a write of one statement needs no savepoint of its own. An error that
        // ends the whole transaction (a full disk) fails this write and every one after it.
        committed = committed && !sqlite3_get_autocommit(db_);
        bool ok = committed;
        if (ok && w.atomicity == Atomicity::single_statement) {
          try {
            ok = w.run(cache);
          } catch (...) {
            // Its statement may have run before the throw, with no savepoint to undo it alone:
            // the whole transaction goes, and every write in it fails.
            committed = false;
            throw;
          }
        } else if (ok && run("SAVEPOINT w")) {
          try {
            ok = w.run(cache);
          } catch (const std::exception& e) {
            note_exception(e.what());
            ok = false;
          } catch (...) {
            note_exception("unknown exception");
            ok = false;
          }
          if (!ok) run("ROLLBACK TO w");
          run("RELEASE w");
        }
        oks[i] = ok;
      }
      // Pruning shares the batch's transaction: the copy and the delete are durable together.
      if (committed && logged_since_prune_ >= kPruneEvery) {
        committed = !sqlite3_get_autocommit(db_) && run("SAVEPOINT p");
        if (committed && prune_log(cache))
          logged_since_prune_ = 0;
        else if (committed)
          run("ROLLBACK TO p");
        committed = committed && run("RELEASE p");
      }
      committed = committed && run("COMMIT");
    } catch (const std::exception& e) {
      note_exception(e.what());
      committed = false;
    } catch (...) {
      note_exception("unknown exception");
      committed = false;
    }
    if (!committed) {
      exec(db_, "ROLLBACK");
      std::ranges::fill(oks, 0);
    }
    // Writable or not, as the last transaction found it: /healthz says so.
    available_ = committed;
    std::vector<std::pair<Done, bool>> results;
    results.reserve(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i)
      results.emplace_back(std::move(batch[i].done), oks[i] != 0);
    const auto ended = commit_timer.start();
    commit_timer.record(started, ended);
    stats_.writes += results.size();
    post_([results = std::move(results), ended, this]() mutable {
      return_timer_.finish(ended);
      // One callback that throws must not keep the others from learning how their write went.
      for (auto& [done, ok] : results) {
        if (!done) continue;
        try {
          done(ok);
        } catch (const std::exception& e) {
          note_exception(e.what());
        } catch (...) {
          note_exception("unknown exception");
        }
      }
    });
  }
}

void SqliteStore::note_exception(const char* what) {
  std::lock_guard lock(exception_mutex_);
  ++exceptions_;
  last_exception_ = what;
}

std::pair<std::uint64_t, std::string> SqliteStore::exceptions() const {
  std::lock_guard lock(exception_mutex_);
  return {exceptions_, last_exception_};
}

}  // namespace plateau::server
