// The embedded store: SQLite in WAL mode with synchronous=FULL, written by one thread that
// groups every write waiting in its queue into one transaction (group commit), so a commit's
// fsync is shared by all the rooms that moved meanwhile. The rooms' thread hands the queue over
// once per pass of its event loop, not once per write. `done` callbacks go back to the rooms'
// thread through `post`, in order, only after the COMMIT returned.
//
// Moves of rounds in play are appended to `move_log` (rowid order: a commit dirties its last page
// or two, whichever rooms moved); a round's moves go into `moves` (keyed by room, round and
// index, for replays) when it ends. load() reads both.
//
// Inside server/store/ only (the server opens it through sqlite.hpp). One class, its parts
// defined in one file each:
//   sqlite_store.cpp       opening and closing; the Store's writes as statements
//   sqlite_writer.cpp      the writer thread: the queue, its hand-off, group commit
//   sqlite_load.cpp        the reads that rebuild rooms (load, load_room)
//   sqlite_archive.cpp     the Archive: history, records, imports, backups
//   sqlite_schema.cpp      migrations and the checks of a file at open
//   sqlite_checkpoint.cpp  the checkpointer's thread
//   sqlite_accounts.cpp    accounts, sessions, invitations and ratings
#pragma once

#include <condition_variable>
#include <deque>
#include <expected>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/store/sqlite_checkpoint.hpp"
#include "server/store/storage.hpp"
#include "server/store/write_queue.hpp"

struct sqlite3;

namespace plateau::server {

namespace sqlite {
class StmtCache;  // the writer's prepared statements
}

class SqliteStore final : public Storage {
 public:
  // Opens (creating if absent) the database at `path` and brings its schema up to date. A file
  // that is not a database, or fails its integrity check, is an error and is left untouched.
  static std::expected<std::unique_ptr<SqliteStore>, std::string> open(
      const std::string& path, Post post, CheckpointPolicy policy = {});
  ~SqliteStore() override;
  static int schema_version();

  // Storage: recovery, health, shutdown.
  std::expected<Loaded, std::string> load(
      std::int64_t ended_since_ms = std::numeric_limits<std::int64_t>::max()) override;
  void close() override;
  const CommitStats& stats() const override { return stats_; }
  bool available() const override { return available_; }
  std::pair<std::uint64_t, std::string> exceptions() const override { return writes_.exceptions(); }

  // Store: the rooms' writes, and their reads of one room.
  void put_player(const StoredPlayer& player, Done done) override;
  void create_room(const RoomRecord& room, Done done) override;
  void put_seat(const std::string& room, int seat, const std::optional<std::string>& player,
                std::int64_t version, Done done) override;
  void append_move(const MoveRecord& move, Done done) override;
  void start_round(const std::string& room, int round, const nlohmann::json& options,
                   std::uint64_t seed, const std::string& salt, std::int64_t version,
                   Done done) override;
  void finish_round(const std::string& room, int round, const nlohmann::json& outcome,
                    std::int64_t at_ms, Done done) override;
  void put_table(const std::string& room, int round, std::uint32_t rematch,
                 const nlohmann::json& offer, const nlohmann::json& departed, std::int64_t version,
                 Done done) override;
  void take_back(const std::string& room, int round, int keep, std::int64_t version,
                 Done done) override;
  void close_room(const std::string& room, Done done) override;
  bool room_exists(const std::string& room) override;
  // On the reader connection: the writer may be writing meanwhile.
  std::expected<std::optional<StoredRoom>, std::string> load_room(
      const std::string& id, std::int64_t ended_since_ms) override;
  void unload_room(const std::string& id) override;
  void forget_players(const std::vector<std::string>& ids, Done done) override;
  void append_chat(const ChatRecord& message, Done done) override;
  void delete_chat(const std::string& room, int seq, std::int64_t version, Done done) override;

  // Archive: reads on a read-only connection of their own (WAL lets it read while the writer
  // writes); the import is a write like the others.
  std::vector<GameSummary> finished_games(int limit) override;
  std::expected<std::optional<GameRecord>, std::string> read_record(const std::string& room,
                                                                    int round) override;
  void import_record(const GameRecord& r, Done done) override;
  // SQLite's online backup of the live database.
  std::expected<void, std::string> backup_to(const std::string& path) override;

  // AccountStore (sqlite_accounts.cpp).
  void put_account(const AccountRow& account, const std::string& player_token_hash,
                   Done done) override;
  void put_session(const SessionRow& session, Done done) override;
  void drop_sessions(const std::vector<std::string>& token_hashes, Done done) override;
  void delete_account(const std::string& player, const std::string& shown_name, Done done) override;
  void put_invite(const InviteRow& invite, Done done) override;
  void drop_invite(const std::string& code_hash, Done done) override;
  // On the writer connection, before the first write (like load()).
  std::expected<LoadedAccounts, std::string> load_accounts() override;

  // RatingStore (sqlite_accounts.cpp too).
  void put_rated_game(const std::vector<RatingRow>& ratings,
                      const std::vector<RatingChange>& changes, Done done) override;
  std::expected<std::vector<RatingRow>, std::string> load_ratings() override;
  std::expected<std::vector<UnratedGame>, std::string> unrated_games() override;
  std::vector<RatingChange> rating_history(const std::string& player) override;
  std::vector<GameSummary> games_of(const std::string& player, int limit) override;

  // TournamentStore (sqlite_accounts.cpp too).
  void put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) override;
  void put_organiser(const std::string& player, bool allowed, Done done) override;
  std::expected<LoadedTournaments, std::string> load_tournaments() override;

 private:
  enum class Atomicity { savepoint, single_statement };
  SqliteStore(sqlite3* db, sqlite3* reader, sqlite3* checkpointer, Post post,
              CheckpointPolicy policy);
  void enqueue(std::function<bool(sqlite::StmtCache&)> run, Done done,
               Atomicity atomicity = Atomicity::savepoint);
  void writer_loop();
  // Deletes the log's rows older than its last kLogKept, copying those of rounds that never
  // ended into `moves` first. Runs on the writer thread, inside a transaction.
  bool prune_log(sqlite::StmtCache& cache);
  // Finished rounds of public rooms, newest first; only those `player` sat in unless "".
  std::vector<GameSummary> summaries(int limit, const std::string& player);

  sqlite3* db_;
  sqlite3* reader_;
  std::mutex reader_mutex_;
  CommitStats stats_;
  WriteQueue<sqlite::StmtCache, Atomicity> writes_;
  std::thread writer_;
  std::atomic<bool> available_{true};
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
  // Checkpoints run on their own connection and thread, so that copying the WAL into the
  // database (and its fsync) never sits in a commit's path: the writer only asks for one.
  sqlite3* checkpoint_db_;
  sqlite::Checkpointer checkpointer_;
};

}  // namespace plateau::server
