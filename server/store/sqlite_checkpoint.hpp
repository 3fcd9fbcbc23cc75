// The SQLite store's checkpointer: copies the write-ahead log into the database on a thread and
// a connection of its own, so that no commit waits for a checkpoint's copy and fsync, and has
// the writer start the log over now and then, so that its file stays bounded.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "server/store/storage.hpp"

struct sqlite3;

namespace plateau::server {

// When the log is copied into the database, in pages of the log (4 KB each).
//
// Starting the log over costs the commit that does it four flushes instead of one: the log
// before its last frames are copied, the database after, the new log header, then the commit
// itself, and every move queued behind that commit waits for all four: started over often, the
// log puts those commits into the slowest percentile of moves (README, "Why the write-ahead log
// starts over rarely"). So the writer makes the log start over only past `restart_at` pages, while
// the checkpoint thread copies it every `pass_every` pages and flushes the database itself, off the
// writer's path, so that the writer's final copy has only the last few frames to flush. (Under a
// light load a pass often copies the whole log between two commits; the next commit then starts it
// over at the cost of one more flush, the new header's.) The log file keeps its largest size
// (at most about 66 MB), and later cycles overwrite it in place.
struct CheckpointPolicy {
  int pass_every = 2000;
  int restart_at = 16000;
};

namespace sqlite {

class Checkpointer {
 public:
  // `connection` is the checkpointer's own, already reading the database; its owner closes it
  // after stop(). `stats` counts the passes and the restarts.
  Checkpointer(sqlite3* connection, CheckpointPolicy policy, CommitStats& stats)
      : connection_(connection), policy_(policy), stats_(stats) {}
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Replaces the automatic checkpoint of the writer connection `writer`, which would run
  // inside the commit that crosses the threshold and hold every write in that batch behind it.
  // Then starts the thread.
  void start(sqlite3* writer);
  // Ends the thread (a pass under way finishes first). Idempotent.
  void stop();
  // On the writer thread, before each commit begins: once the log is past `restart_at` and the
  // last pass copied all it saw, copies the few frames committed since, so that this commit
  // starts the log over.
  void before_commit(sqlite3* writer);

 private:
  // The writer connection's WAL hook, on the writer thread after each commit: `pages` in the log.
  void logged(int pages);
  void run();

  sqlite3* connection_;
  const CheckpointPolicy policy_;
  CommitStats& stats_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool wanted_ = false;
  bool stopping_ = false;
  // How the thread's last pass ended, until the writer takes it: `backfilled` when it copied
  // the whole log it saw.
  enum class PassEnd { none, partial, backfilled };
  std::atomic<PassEnd> pass_end_{PassEnd::none};
  // Writer thread only (the WAL hook runs in its commits): a pass may be asked for. One pass
  // at a time: asking again while one runs would only start passes that copy the few frames
  // committed meanwhile, each with its fsyncs.
  bool armed_ = true;
  int log_pages_ = 0;      // pages in the log after the last commit
  int pass_asked_at_ = 0;  // log_pages_ when the last pass was asked for
  std::thread thread_;
};

}  // namespace sqlite
}  // namespace plateau::server
