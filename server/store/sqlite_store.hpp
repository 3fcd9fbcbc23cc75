// The embedded store: SQLite in WAL mode with synchronous=FULL, written by one thread that
// groups every write waiting in its queue into one transaction (group commit), so a commit's
// fsync is shared by all the rooms that moved meanwhile. The rooms' thread hands the queue over
// once per pass of its event loop, not once per write. `done` callbacks go back to the rooms'
// thread through `post`, in order, only after the COMMIT returned.
//
// Moves of rounds in play are appended to `move_log` (rowid order: a commit dirties its last page
// or two, whichever rooms moved); a round's moves go into `moves` (keyed by room, round and
// index, for replays) when it ends. load() reads both.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <limits>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/histogram.hpp"
#include "server/store/history.hpp"
#include "server/store/store.hpp"

struct sqlite3;

namespace plateau::server {

class StmtCache;  // the writer's prepared statements

struct Loaded {
  std::vector<StoredPlayer> players;
  std::vector<StoredRoom> rooms;  // unfinished ones only
};

// How long commits take (one commit holds many writes), and how many writes they held.
struct CommitStats {
  // A write's wait, from its arrival at the store to the start of the commit that holds it: the
  // rooms' hand-off at the end of their pass, then the commit before it. With `commit`, it splits
  // a move's path to its broadcast into the store's part and the event loop's.
  LatencyHistogram queued;
  LatencyHistogram commit;
  // From a commit's end to its completions running on the rooms' thread: the wait behind
  // whatever that thread was doing when the commit ended.
  LatencyHistogram returned;
  std::atomic<std::uint64_t> writes{0};
  // Checkpoint passes run by the checkpoint thread: one per `pass_every` pages logged.
  std::atomic<std::uint64_t> checkpoints{0};
  // Times the writer finished a copy of the whole log so that the next commit starts it over
  // (the log also starts over, uncounted here, after a pass that copied all of it).
  std::atomic<std::uint64_t> restarts{0};
};

// When the log is copied into the database, in pages of the log (4 KB each).
//
// Starting the log over costs the commit that does it four flushes instead of one: the log
// before its last frames are copied, the database after, the new log header, then the commit
// itself. At 1,000 pages a cycle, 10,000 moves/s started it over ten times a second, and those
// commits (5 to 9 ms each, and every move queued behind them) were most of the slowest 1%.
// So the writer makes the log start over only past `restart_at` pages, while the checkpoint
// thread copies it every `pass_every` pages and flushes the database itself, off the writer's
// path, so that the writer's final copy has only the last few frames to flush. (Under a light
// load a pass often copies the whole log between two commits; the next commit then starts it
// over at the cost of one more flush, the new header's.) The log file keeps its largest size
// (at most about 66 MB), and later cycles overwrite it in place.
struct CheckpointPolicy {
  int pass_every = 2000;
  int restart_at = 16000;
};

class SqliteStore final : public Store {
 public:
  using Post = std::function<void(std::function<void()>)>;

  // Opens (creating if absent) the database at `path` and brings its schema up to date. A file
  // that is not a database, or fails its integrity check, is an error and is left untouched.
  static std::expected<std::unique_ptr<SqliteStore>, std::string> open(const std::string& path, Post post,
                                                                        CheckpointPolicy policy = {});
  ~SqliteStore() override;

  // Everything recovery needs: every room in play, and those whose last round ended at or after
  // `ended_since_ms` (a rematch may still start there). Call before the first write.
  std::expected<Loaded, std::string> load(std::int64_t ended_since_ms = std::numeric_limits<std::int64_t>::max());
  // Writes everything queued, then stops the writer thread. Idempotent.
  void close();
  // A consistent copy of the live database (SQLite's online backup), for the admin API.
  std::expected<void, std::string> backup_to(const std::string& path);

  // Reads for history and replays, on a read-only connection of their own (WAL lets it read
  // while the writer writes). nullopt: no such room or round.
  std::expected<std::optional<GameRecord>, std::string> read_record(const std::string& room, int round);
  // The most recent finished games of public rooms, newest first.
  nlohmann::json finished_games(int limit);
  // Stores an imported, finished game as a room of its own (id `r.room`).
  void import_record(const GameRecord& r, Done done);

  const CommitStats& stats() const { return stats_; }
  static int schema_version();
  // False while the store cannot write: its last transaction failed (a full disk, a write
  // error, the database locked by another process for longer than the busy timeout).
  bool available() const { return available_; }
  // Exceptions caught in the writer or in a write's callback (the server logs them): how many,
  // and the last one's message.
  std::pair<std::uint64_t, std::string> exceptions() const;

  void put_player(const StoredPlayer& player, Done done) override;
  void create_room(const RoomRecord& room, Done done) override;
  void put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                std::int64_t version, Done done) override;
  void append_move(const MoveRecord& move, Done done) override;
  void start_round(const std::string& room, int round, const nlohmann::json& options,
                   std::uint64_t seed, const std::string& salt, std::int64_t version, Done done) override;
  void finish_round(const std::string& room, int round, const nlohmann::json& outcome,
                    std::int64_t at_ms, Done done) override;
  void put_table(const std::string& room, int round, std::uint32_t rematch, std::int64_t version,
                 Done done) override;
  void close_room(const std::string& room, Done done) override;
  bool room_exists(const std::string& room) override;
  // On the reader connection: the writer may be writing meanwhile.
  std::expected<std::optional<StoredRoom>, std::string> load_room(const std::string& id,
                                                                  std::int64_t ended_since_ms) override;
  void unload_room(const std::string& id) override;
  void forget_players(const std::vector<std::string>& ids, Done done) override;

 private:
  enum class Atomicity { savepoint, single_statement };
  struct Write {
    std::function<bool(StmtCache&)> run;
    Done done;
    Atomicity atomicity;
    std::int64_t queued_at;  // SpanTimer time
  };
  SqliteStore(sqlite3* db, sqlite3* reader, sqlite3* checkpointer, Post post, CheckpointPolicy policy);
  void enqueue(std::function<bool(StmtCache&)> run, Done done, Atomicity atomicity = Atomicity::savepoint);
  void writer_loop();
  // Deletes the log's rows older than its last kLogKept, copying those of rounds that never
  // ended into `moves` first. Runs on the writer thread, inside a transaction.
  bool prune_log(StmtCache& cache);
  void checkpoint_loop();
  void note_exception(const char* what);

  sqlite3* db_;
  sqlite3* reader_;
  std::mutex reader_mutex_;
  Post post_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Write> queue_;
  bool handoff_posted_ = false;  // a hand-off is posted to the rooms' thread
  bool released_ = false;        // the queue was handed off: the writer may take it
  bool stopping_ = false;
  std::thread writer_;
  std::atomic<bool> available_{true};
  mutable std::mutex exception_mutex_;
  std::uint64_t exceptions_ = 0;
  std::string last_exception_;
  // The moves of each room's round in play, as logged (rooms' thread only). finish_round()
  // writes them into `moves`: reading them back from the log would scan it.
  struct LiveRound {
    int round = 0;
    std::vector<MoveRecord> moves;
  };
  std::unordered_map<std::string, LiveRound> live_;
  // The log (writer thread only). Pruning runs every kPruneEvery moves and keeps the last
  // kLogKept, so that most rows it drops belong to rounds that ended (and are in `moves`
  // already): only rounds played for longer than that are copied.
  static constexpr std::int64_t kPruneEvery = 512, kLogKept = 8192;
  std::int64_t log_head_ = 0;  // rowid of the last move logged
  std::int64_t logged_since_prune_ = 0;
  CommitStats stats_;
  const SpanTimer queue_timer_{stats_.queued};
  const SpanTimer return_timer_{stats_.returned};
  // Checkpoints run on their own connection and thread, so that copying the WAL into the
  // database (and its fsync) never sits in a commit's path: the writer only asks for one.
  sqlite3* checkpointer_;
  std::mutex checkpoint_mutex_;
  std::condition_variable checkpoint_wake_;
  bool checkpoint_wanted_ = false;
  bool checkpoint_stop_ = false;
  // How the checkpoint thread's last pass ended, until the writer takes it: `backfilled` when
  // it copied the whole log it saw.
  enum class PassEnd { none, partial, backfilled };
  std::atomic<PassEnd> pass_end_{PassEnd::none};
  const CheckpointPolicy policy_;
  // Writer thread only (the WAL hook runs in its commits): a pass may be asked for. One pass
  // at a time: asking again while one runs would only start passes that copy the few frames
  // committed meanwhile, each with its fsyncs.
  bool checkpoint_armed_ = true;
  int log_pages_ = 0;         // pages in the log after the last commit
  int pass_asked_at_ = 0;     // log_pages_ when the last pass was asked for
  std::thread checkpoint_thread_;
};

}  // namespace plateau::server
