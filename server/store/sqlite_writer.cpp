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
  writes_.push(std::move(run), std::move(done), atomicity);
}

void SqliteStore::writer_loop() {
  pthread_setname_np(pthread_self(), "store-writer");
  StmtCache cache(db_);  // finalized before close() returns, so before the handle is closed
  auto run = [&cache](const char* sql) { return Stmt(cache, sql).run(); };
  const SpanTimer commit_timer(stats_.commit);
  for (;;) {
    std::int64_t started = 0;
    auto batch = writes_.take(commit_timer, started);
    if (batch.empty()) return;  // stopping, and everything is written
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
        if (ok && w.tag == Atomicity::single_statement) {
          try {
            ok = w.run(cache);
          } catch (...) {
            // Its statement may have run before the throw, with no savepoint to undo it alone:
            // the whole transaction goes, and every write in it fails.
            committed = false;
            throw;
          }
        } else if (ok && run("SAVEPOINT w")) {
          ok = false;  // unless it runs through
          writes_.guarded([&] { ok = w.run(cache); });
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
      writes_.note_exception(e.what());
      committed = false;
    } catch (...) {
      writes_.note_exception("unknown exception");
      committed = false;
    }
    if (!committed) {
      exec(db_, "ROLLBACK");
      std::ranges::fill(oks, 0);
    }
    // Writable or not, as the last transaction found it: /healthz says so.
    available_ = committed;
    const auto ended = commit_timer.start();
    commit_timer.record(started, ended);
    writes_.finish(batch, oks, ended);
  }
}

}  // namespace plateau::server
