// A store that keeps things, as the server holds it: its writes (Store, for the rooms), its
// finished games (Archive, for the history API), and what running it takes: everything to
// rebuild at start, its health, its metrics, and the last flush at shutdown. The database
// behind it is the factory's business (sqlite.hpp): nothing here names one.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "server/histogram.hpp"
#include "server/store/account_store.hpp"
#include "server/store/archive.hpp"
#include "server/store/rating_store.hpp"
#include "server/store/store.hpp"
#include "server/store/tournament_store.hpp"

namespace plateau::server {

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
  // Checkpoint passes copying the write-ahead log into the database.
  std::atomic<std::uint64_t> checkpoints{0};
  // Times the writer finished a copy of the whole log so that the next commit starts it over
  // (the log also starts over, uncounted here, after a pass that copied all of it).
  std::atomic<std::uint64_t> restarts{0};
};

class Storage : public Store,
                public Archive,
                public AccountStore,
                public RatingStore,
                public TournamentStore {
 public:
  // How the store hands a completion to the rooms' thread (an asio::post in the server).
  using Post = std::function<void(std::function<void()>)>;

  // Everything recovery needs: every room in play, and those whose last round ended at or after
  // `ended_since_ms` (a rematch may still start there). Call before the first write.
  virtual std::expected<Loaded, std::string> load(std::int64_t ended_since_ms) = 0;
  // Writes everything queued, then stops taking writes. Idempotent.
  virtual void close() = 0;
  // False while the store cannot write: its last transaction failed (a full disk, a write
  // error, the database locked by another process for longer than it waits).
  virtual bool available() const = 0;
  // Exceptions caught in the store's threads or in a write's callback (the server logs them):
  // how many, and the last one's message.
  virtual std::pair<std::uint64_t, std::string> exceptions() const = 0;
  virtual const CommitStats& stats() const = 0;
};

}  // namespace plateau::server
