#include "server/store/sqlite_checkpoint.hpp"

#include <pthread.h>
#include <sqlite3.h>

namespace plateau::server::sqlite {

void Checkpointer::start(sqlite3* writer) {
  sqlite3_wal_hook(
      writer,
      [](void* self, sqlite3*, const char*, int pages) {
        static_cast<Checkpointer*>(self)->logged(pages);
        return SQLITE_OK;
      },
      this);
  thread_ = std::thread([this] { run(); });
}

void Checkpointer::logged(int pages) {
  log_pages_ = pages;
  if (pages < pass_asked_at_) pass_asked_at_ = 0;  // the log started over
  if (pages - pass_asked_at_ >= policy_.pass_every && armed_) {
    armed_ = false;
    pass_asked_at_ = pages;
    std::lock_guard lock(mutex_);
    wanted_ = true;
    wake_.notify_one();
  }
}

void Checkpointer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Checkpointer::run() {
  pthread_setname_np(pthread_self(), "checkpointer");  // for top -H and the load bench
  for (;;) {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stopping_ || wanted_; });
    if (stopping_) return;
    wanted_ = false;
    lock.unlock();
    // PASSIVE: copies what it can without waiting for readers or the writer.
    int log = 0, copied = 0;
    const int rc =
        sqlite3_wal_checkpoint_v2(connection_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
    ++stats_.checkpoints;
    // A pass that copied only part of the log left its pages unflushed in the database file.
    // Flush them here, so that the writer's copy of the rest, before the log starts over, has
    // only its own few pages to flush.
    // SQLite's own handle of the file, and its own sync (an fdatasync on Linux).
    sqlite3_file* database = nullptr;
    if (rc == SQLITE_OK && copied > 0 && copied < log &&
        sqlite3_file_control(connection_, "main", SQLITE_FCNTL_FILE_POINTER, &database) ==
            SQLITE_OK &&
        database && database->pMethods)
      database->pMethods->xSync(database, SQLITE_SYNC_NORMAL);
    pass_end_ =
        rc == SQLITE_OK && log > 0 && copied == log ? PassEnd::backfilled : PassEnd::partial;
  }
}

void Checkpointer::before_commit(sqlite3* writer) {
  // SQLite starts the WAL over from its beginning only when a write transaction begins on a
  // log that is wholly copied into the database. The checkpoint thread copied all but the few
  // frames committed while it ran: once the log is past `restart_at`, copy those here (a few
  // pages), so that this transaction restarts the log instead of growing it. Without this the
  // WAL file grows without bound. Once a pass has ended, whether or not it copied all it saw
  // (a reader's snapshot can hold it back), the next commit may ask for another.
  if (const PassEnd end = pass_end_.exchange(PassEnd::none); end != PassEnd::none) {
    if (end == PassEnd::backfilled && log_pages_ >= policy_.restart_at) {
      int log = 0, copied = 0;
      if (sqlite3_wal_checkpoint_v2(writer, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) ==
              SQLITE_OK &&
          copied == log)
        ++stats_.restarts;
    }
    armed_ = true;
  }
}

}  // namespace plateau::server::sqlite
