// The shared store (issue 47): PostgreSQL, for servers that outgrow one machine. The same
// guarantees as the SQLite store (sqlite_store.hpp): one thread writes, grouping every write
// waiting in its queue into one transaction (group commit, synchronous_commit on), and `done`
// callbacks go back to the rooms' thread through `post`, in order, only after the COMMIT
// returned. Each write runs inside a savepoint of that transaction, so one that fails undoes only
// itself.
//
// The schema has the SQLite store's tables and columns, so that a database moves between the
// two row by row (pg_copy.cpp: `plateau-server migrate`, and backups as SQLite files). One
// difference: a move goes straight into `moves` (PostgreSQL appends rows to its heap wherever
// they belong), so there is no move log to prune.
//
// Inside server/store/ only (the server opens it through postgres.hpp). One class, its parts
// defined in one file each:
//   pg_store.cpp     opening and closing; the writer thread; the Store's writes
//   pg_load.cpp      the reads that rebuild rooms (load, load_room)
//   pg_archive.cpp   the Archive: history, records, imports
//   pg_copy.cpp      backups (a SQLite file), and moving a SQLite database in
//   pg_schema.cpp    migrations
//   pg_accounts.cpp  accounts, sessions, invitations, ratings and tournaments
//   pg_leases.cpp    cluster mode: room leases, and the fencing of every write of a room
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <expected>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "server/store/pg_conn.hpp"
#include "server/store/storage.hpp"
#include "server/store/write_queue.hpp"

namespace plateau::server {

// The lease a cluster's tournament director holds (issue 47): not a room (a room's id is never
// this), but leased, renewed and fenced like one, so that only its holder writes the events.
inline constexpr const char* kTournamentLease = "~tournaments";

class PgStore final : public Storage {
 public:
  // Connects to `conninfo` (a postgres:// URI) twice (the writer's connection and the readers'),
  // and brings the schema up to date. `up_to` stops the migrations at that version (tests of
  // the upgrade from an older schema); 0 runs them all.
  static std::expected<std::unique_ptr<PgStore>, std::string> open(const std::string& conninfo,
                                                                   Post post, int up_to = 0);
  ~PgStore() override;
  static int schema_version();

  // Cluster mode (issue 47). From here on this store writes as node `node` (unique to this
  // process: a restarted node is a new one), and every write of a room is fenced: it runs only
  // if this node still holds the lease epoch it took for the room, checked in the write's own
  // transaction, under a lock that a takeover waits for. A room this node holds no lease for is
  // never written. Call before the first write, on the rooms' thread.
  void fence_as(std::string node);
  // Takes the room's lease for `ttl_ms` (by the database's clock): if nobody holds it, if its
  // holder's lease expired (then with the next epoch), or if this node holds it already (then
  // renewed, same epoch). nullopt: another node holds it. On the rooms' thread: one round trip
  // on a connection of its own. With `only_if_stored`, a room the store does not hold gets no
  // lease row (nullopt): a client naming random rooms leaves nothing behind.
  std::expected<std::optional<std::int64_t>, std::string> take_lease(const std::string& room,
                                                                     std::int64_t ttl_ms,
                                                                     bool only_if_stored = false);
  // The lease of a room about to be created, with no round trip: its id is new (random), so
  // its lease row is made by the room's first write (create_room), in that write's transaction,
  // and that write fails if the row is there already. From now on this node writes the room.
  void claim_new(const std::string& room);
  // The node holding the room's lease, while it is valid; nullopt when nobody does.
  std::expected<std::optional<std::string>, std::string> lease_holder(const std::string& room);
  // A room's rows as load_room reads them, with the count of moves of its round in play
  // (nullopt: no room load_room would bring back).
  struct RoomRows {
    StoredRoom room;
    int live_moves = 0;
  };
  using RoomRead = std::expected<std::optional<RoomRows>, std::string>;
  // What a request for a room this node does not hold finds out, off the rooms' thread: the
  // lease taken (take_lease with only_if_stored), or else who holds it (lease_holder). Runs on
  // a connection of its own, from one thread at a time (the node's lookup thread), and touches
  // nothing the rooms' thread owns: the caller hands `took` to note_lease on the rooms' thread.
  struct LeaseLookup {
    std::expected<std::optional<std::int64_t>, std::string> took;
    std::expected<std::optional<std::string>, std::string> holder = std::optional<std::string>{};
    // When the lease was taken, the room's rows, read right after (load_room's `ended_since_ms`
    // given to look_up_lease): nobody else writes them from then on.
    std::optional<RoomRead> rows{};
  };
  LeaseLookup look_up_lease(const std::string& room, std::int64_t ttl_ms,
                            std::int64_t ended_since_ms);
  // On the rooms' thread: the epoch a lookup took (from now on this node writes the room), or
  // nullopt when another node holds the room. The rows a lookup read with the lease are what
  // the next load_room of the room returns, if this node still holds that epoch then; so a room
  // taken over is read off the rooms' thread. forget_rows drops them unused.
  void note_lease(const std::string& room, std::optional<std::int64_t> epoch,
                  std::optional<RoomRead> rows = std::nullopt);
  void forget_rows(const std::string& room) { prefetched_.erase(room); }
  // Every room this node holds a lease for.
  std::vector<std::string> leased_rooms() const;
  // The stored player with this token's hash (cluster mode: a player another node made).
  std::expected<std::optional<StoredPlayer>, std::string> find_player(
      const std::string& token_hash);
  // The same on the lookup thread's connection (look_up_lease's thread only).
  std::expected<std::optional<StoredPlayer>, std::string> look_up_player(
      const std::string& token_hash);
  // Extends every lease this node holds (its heartbeat). Returns the rooms it held and lost
  // (another node took them after they expired): they must not be served from here any more.
  // On the rooms' thread: beat() and drop_lost() in one.
  std::expected<std::vector<std::string>, std::string> renew_leases(std::int64_t ttl_ms);
  // The heartbeat in parts, so that its round trip leaves the rooms' thread (Node::heartbeat):
  // the leases held (rooms' thread); the heartbeat itself, which returns those of `held` this
  // node no longer holds (any thread, one at a time: a connection of its own, and no rooms'
  // thread state); and the lost ones let go (rooms' thread), those still at the epoch the beat
  // saw (a room taken again since is kept). drop_lost returns the rooms it let go.
  using HeldLeases = std::vector<std::pair<std::string, std::int64_t>>;
  HeldLeases held_leases() const;
  std::expected<std::vector<std::string>, std::string> beat(const HeldLeases& held,
                                                            std::int64_t ttl_ms);
  std::vector<std::string> drop_lost(const HeldLeases& held, const std::vector<std::string>& lost);
  // On beat()'s thread and connection, right after a beat: take_lease without beating again
  // (no rooms' thread state: the caller hands what it took to note_lease).
  std::expected<std::optional<std::int64_t>, std::string> take_after_beat(const std::string& room,
                                                                          std::int64_t ttl_ms);
  // Gives the rooms' leases up at once (a node stopping: another may take each room without
  // waiting for it to expire). Writes already queued for them will fail.
  std::expected<void, std::string> release_leases(const std::vector<std::string>& rooms);
  // The same in two parts, so that the round trip leaves the rooms' thread: the leases let go
  // here (rooms' thread: this node writes the rooms no more), then their rows freed on the
  // lookup thread's connection (one thread at a time, after the lookups queued before it).
  HeldLeases let_go(const std::vector<std::string>& rooms);
  std::expected<void, std::string> release_let_go(const HeldLeases& held);
  // Batches committed as one pipeline (the fast path), and those run write by write (a write
  // failed, or read rows): for the benchmarks and the tests.
  std::uint64_t pipelined_batches() const { return pipelined_; }
  std::uint64_t ordinary_batches() const { return ordinary_; }
  // The epoch this node holds for the room, if any.
  std::optional<std::int64_t> lease(const std::string& room) const;

  // Storage: recovery, health, shutdown.
  std::expected<Loaded, std::string> load(
      std::int64_t ended_since_ms = std::numeric_limits<std::int64_t>::max()) override;
  void close() override;
  const CommitStats& stats() const override { return stats_; }
  bool available() const override { return available_; }
  std::pair<std::uint64_t, std::string> exceptions() const override { return writes_.exceptions(); }

  // Store (pg_store.cpp; load_room and room_exists in pg_load.cpp).
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
  std::expected<std::optional<StoredRoom>, std::string> load_room(
      const std::string& id, std::int64_t ended_since_ms) override;
  void unload_room(const std::string& id) override;
  void forget_players(const std::vector<std::string>& ids, Done done) override;
  void append_chat(const ChatRecord& message, Done done) override;
  void delete_chat(const std::string& room, int seq, std::int64_t version, Done done) override;

  // Archive (pg_archive.cpp; backup_to in pg_copy.cpp).
  std::vector<GameSummary> finished_games(int limit) override;
  std::expected<std::optional<GameRecord>, std::string> read_record(const std::string& room,
                                                                    int round) override;
  void import_record(const GameRecord& r, Done done) override;
  // A SQLite database at `path` holding everything stored, as of one snapshot: a club can run
  // it with --data, and `migrate` brings it back into PostgreSQL.
  std::expected<void, std::string> backup_to(const std::string& path) override;

  // AccountStore, RatingStore, TournamentStore (pg_accounts.cpp).
  void put_account(const AccountRow& account, const std::string& player_token_hash,
                   Done done) override;
  void put_session(const SessionRow& session, Done done) override;
  void drop_sessions(const std::vector<std::string>& token_hashes, Done done) override;
  void delete_account(const std::string& player, const std::string& shown_name, Done done) override;
  void put_invite(const InviteRow& invite, Done done) override;
  void drop_invite(const std::string& code_hash, Done done) override;
  std::expected<LoadedAccounts, std::string> load_accounts() override;
  // One player's account and sessions (cluster mode: what another node changed); "": all,
  // with the invitations.
  std::expected<LoadedAccounts, std::string> accounts_of(const std::string& player);
  // One player's ratings in every game; "": everyone's.
  std::expected<std::vector<RatingRow>, std::string> ratings_of(const std::string& player);
  void put_rated_game(const std::vector<RatingRow>& ratings,
                      const std::vector<RatingChange>& changes, Done done) override;
  std::expected<std::vector<RatingRow>, std::string> load_ratings() override;
  std::expected<std::vector<UnratedGame>, std::string> unrated_games() override;
  std::vector<RatingChange> rating_history(const std::string& player) override;
  std::vector<GameSummary> games_of(const std::string& player, int limit) override;
  void put_tournament(const TournamentDoc& t, std::int64_t at_ms, Done done) override;
  void put_organiser(const std::string& player, bool allowed, Done done) override;
  std::expected<LoadedTournaments, std::string> load_tournaments() override;
  // Cluster mode: one event's document as stored now ("" when there is none).
  std::expected<std::string, std::string> tournament_doc(const std::string& id);
  // Cluster mode: which of the room's first `seats` seats are taken, as stored; empty when the
  // store has no such room.
  std::expected<std::vector<bool>, std::string> seats_taken(const std::string& room, int seats);

 private:
  PgStore(pg::Conn writer, pg::Conn reader, Post post, std::string conninfo);
  // Queues a write: `run` executes its statements on the writer's connection, inside the
  // batch's transaction and a savepoint of its own, and says whether they all succeeded.
  void enqueue(std::function<bool(pg::Conn&)> run, Done done);
  // A write of `room`'s rows: fenced by this node's lease in cluster mode (fence_as).
  void enqueue_room(const std::string& room, std::function<bool(pg::Conn&)> run, Done done);
  void writer_loop();
  using Write = WriteQueue<pg::Conn>::Write;
  bool pipelined(pg::Conn& db, std::deque<Write>& batch);
  bool one_by_one(pg::Conn& db, std::deque<Write>& batch, std::vector<char>& oks);
  // Finished rounds of public rooms, newest first; only those `player` sat in unless "".
  std::vector<GameSummary> summaries(int limit, const std::string& player);

  // One snapshot of a room's rows, on `db` (load_room's reads; no state of this store).
  static RoomRead room_rows(pg::Conn& db, const std::string& id, std::int64_t ended_since_ms);

  pg::Conn writer_db_;  // the writer thread's alone
  // Every read (load, load_room, the archive, the accounts at start) takes this connection
  // under reader_mutex_.
  pg::Conn reader_;
  std::mutex reader_mutex_;
  CommitStats stats_;
  WriteQueue<pg::Conn> writes_;
  std::thread writer_;
  std::atomic<bool> available_{true};
  std::atomic<std::uint64_t> pipelined_{0}, ordinary_{0};
  // How many moves each room's round in play has (rooms' thread only): a move must be the next.
  struct LiveRound {
    int round = 0;
    int moves = 0;
  };
  std::unordered_map<std::string, LiveRound> live_;
  // Cluster mode: this node's id ("" when not fenced) and the lease epoch it holds per room
  // (rooms' thread), and the connection that takes and renews leases (rooms' thread only).
  std::string node_;
  std::unordered_map<std::string, std::int64_t> leases_;
  std::string conninfo_;
  std::optional<pg::Conn> lease_db_;
  // Rooms claimed new (claim_new) whose first write has not committed yet, and whether it is
  // queued: no beat renews or judges them before their row is there.
  std::unordered_map<std::string, bool> claimed_;
  std::optional<pg::Conn> lookup_db_;  // look_up_lease's, on the node's lookup thread only
  // Rows a lookup read with a room's lease, for load_room (rooms' thread), with that epoch.
  struct Prefetched {
    std::int64_t epoch = 0;
    RoomRead rows;
  };
  std::unordered_map<std::string, Prefetched> prefetched_;
  std::optional<pg::Conn> beat_db_;  // beat()'s, on the node's heartbeat thread only
};

}  // namespace plateau::server
