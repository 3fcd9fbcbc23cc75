// The PostgreSQL store in a cluster (issue 47): room leases with fencing. A node takes a room's
// lease before it serves the room; each new owner gets the next epoch; every write of the room
// checks, in its own transaction, that this node still holds the epoch it took. The check locks
// the lease's row (FOR SHARE), so a takeover waits for a write in flight and the new owner then
// reads the room with that write in it; a write after the takeover finds another epoch and fails.
// Lease times are the database's clock, never a node's.
#include "server/store/pg_store.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace plateau::server {

using pg::Conn;
using pg::Stmt;

void PgStore::fence_as(std::string node) { node_ = std::move(node); }

std::optional<std::int64_t> PgStore::lease(const std::string& room) const {
  const auto it = leases_.find(room);
  return it == leases_.end() ? std::nullopt : std::optional(it->second);
}

void PgStore::enqueue_room(const std::string& room, std::function<bool(Conn&)> run, Done done) {
  if (node_.empty()) {
    enqueue(std::move(run), std::move(done));
    return;
  }
  prefetched_.erase(room);  // rows read before this write are not the room's any more
  const auto it = leases_.find(room);
  if (it == leases_.end()) {
    // Not this node's room: never written from here. Failed in its turn, like any write.
    enqueue([](Conn&) { return false; }, std::move(done));
    return;
  }
  // A new room's first write makes its lease row (claim_new): a plain INSERT, which fails, and
  // the write with it, if the id has a row already. The beats leave the room alone until then.
  const auto claim = claimed_.find(room);
  const bool first = claim != claimed_.end() && !claim->second;
  if (first) {
    claim->second = true;
    done = [this, room, done = std::move(done)](bool ok) {
      claimed_.erase(room);
      if (done) done(ok);
    };
  }
  enqueue(
      [room, node = node_, epoch = it->second, first, run = std::move(run)](Conn& db) {
        return (!first || Stmt(db,
                               "INSERT INTO room_leases(room, node, epoch, expires_at) "
                               "VALUES($1, $2, 1, clock_timestamp())")
                              .bind(1, room)
                              .bind(2, node)
                              .run()) &&
               Stmt(db, "SELECT plateau_fence($1, $2, $3)")
                   .bind(1, room)
                   .bind(2, node)
                   .bind(3, epoch)
                   .run() &&
               run(db);
      },
      std::move(done));
}

void PgStore::claim_new(const std::string& room) {
  if (node_.empty()) return;
  leases_[room] = 1;
  claimed_.emplace(room, false);
}

namespace {
std::expected<Conn*, std::string> connected(std::optional<Conn>& c, const std::string& conninfo) {
  if (c && !c->alive()) c.reset();  // dropped (the database restarted): made again below
  if (!c) {
    auto opened = Conn::open(conninfo, "SET statement_timeout = '10s'; SET lock_timeout = '5s'");
    if (!opened) return std::unexpected(opened.error());
    c = std::move(*opened);
  }
  return &*c;
}
}  // namespace

namespace {
// This node's heartbeat, now + ttl: every lease it holds lives as long as it does. A CTE, so
// that it goes with the statement it starts (one round trip).
constexpr const char* kBeat =
    "WITH beat AS (INSERT INTO node_heartbeats(node, expires_at) "
    "VALUES($2, clock_timestamp() + $3 * interval '1 millisecond') "
    "ON CONFLICT(node) DO UPDATE SET expires_at = EXCLUDED.expires_at RETURNING 1) ";
// The same statement without the heartbeat (its ttl parameter only read): a lookup off the
// rooms' thread must not lock this node's heartbeat row while it waits for a lease's row, or the
// heartbeat, on the rooms' thread, would wait behind it. The heartbeat row is there already: a
// node beats once before it serves.
constexpr const char* kNoBeat = "WITH beat AS (SELECT $3::bigint) ";
// Whether room_leases' row `l` is held: by a node whose heartbeat goes on.
constexpr const char* kHeld =
    "EXISTS (SELECT 1 FROM node_heartbeats h WHERE h.node = l.node AND h.expires_at > "
    "clock_timestamp())";
}  // namespace

namespace {
// Takes the room's lease for `node`: free (no node, or a node whose heartbeat stopped: the next
// epoch), or the node's already (the same epoch). Taken while another node's write holds the
// row (FOR SHARE), this waits for that write's commit. The heartbeat goes with it (`beat`): a
// node's first lease makes its heartbeat. nullopt: another node holds it (or, `only_if_stored`, the
// store has no such room).
std::expected<std::optional<std::int64_t>, std::string> take_on(Conn& db, const std::string& room,
                                                                const std::string& node,
                                                                std::int64_t ttl_ms,
                                                                bool only_if_stored,
                                                                bool beat = true) {
  Stmt q(db, std::string(beat ? kBeat : kNoBeat) +
                 "INSERT INTO room_leases AS l(room, node, epoch, expires_at) "
                 "SELECT $1, $2, 1, clock_timestamp() FROM beat " +
                 (only_if_stored ? "WHERE EXISTS (SELECT 1 FROM rooms WHERE id = $1) " : "") +
                 "ON CONFLICT(room) DO UPDATE SET "
                 "epoch = CASE WHEN l.node = EXCLUDED.node THEN l.epoch ELSE l.epoch + 1 END, "
                 "node = EXCLUDED.node, expires_at = EXCLUDED.expires_at "
                 "WHERE l.node = EXCLUDED.node OR l.node = '' OR NOT " +
                 kHeld + " RETURNING epoch");
  q.bind(1, room).bind(2, node).bind(3, ttl_ms);
  if (!q.row()) {
    if (!q.ok()) return std::unexpected("taking the lease of " + room + ": " + q.error());
    return std::optional<std::int64_t>{};
  }
  return std::optional(q.i64(0));
}

std::expected<std::optional<std::string>, std::string> holder_on(Conn& db,
                                                                 const std::string& room) {
  Stmt q(db, std::string("SELECT l.node FROM room_leases l WHERE l.room = $1 AND l.node <> '' "
                         "AND ") +
                 kHeld);
  q.bind(1, room);
  if (!q.row()) {
    if (!q.ok()) return std::unexpected("reading the lease of " + room + ": " + q.error());
    return std::optional<std::string>{};
  }
  return std::optional(q.text(0));
}
}  // namespace

std::expected<std::optional<std::int64_t>, std::string> PgStore::take_lease(const std::string& room,
                                                                            std::int64_t ttl_ms,
                                                                            bool only_if_stored) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(lease_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  auto took = take_on(**db, room, node_, ttl_ms, only_if_stored);
  if (took) note_lease(room, *took);
  return took;
}

std::expected<std::optional<std::string>, std::string> PgStore::lease_holder(
    const std::string& room) {
  auto db = connected(lease_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return holder_on(**db, room);
}

PgStore::LeaseLookup PgStore::look_up_lease(const std::string& room, std::int64_t ttl_ms,
                                            std::int64_t ended_since_ms) {
  if (node_.empty()) return {std::unexpected(std::string("not in cluster mode"))};
  auto db = connected(lookup_db_, conninfo_);
  if (!db) return {std::unexpected(db.error())};
  LeaseLookup out{take_on(**db, room, node_, ttl_ms, true, false)};
  if (out.took && *out.took)
    out.rows = room_rows(**db, room, ended_since_ms);
  else if (out.took)
    out.holder = holder_on(**db, room);
  return out;
}

void PgStore::note_lease(const std::string& room, std::optional<std::int64_t> epoch,
                         std::optional<RoomRead> rows) {
  prefetched_.erase(room);
  if (!epoch) {
    leases_.erase(room);  // another node's
    return;
  }
  leases_[room] = *epoch;
  if (rows) prefetched_.emplace(room, Prefetched{*epoch, std::move(*rows)});
}

std::vector<std::string> PgStore::leased_rooms() const {
  std::vector<std::string> rooms;
  rooms.reserve(leases_.size());
  for (const auto& [room, epoch] : leases_) rooms.push_back(room);
  return rooms;
}

namespace {
std::expected<std::optional<StoredPlayer>, std::string> player_on(Conn& db,
                                                                  const std::string& token_hash) {
  Stmt q(db, "SELECT id, name FROM players WHERE token_hash = $1");
  q.bind(1, token_hash);
  if (!q.row()) {
    if (!q.ok()) return std::unexpected("reading a player: " + q.error());
    return std::optional<StoredPlayer>{};
  }
  return std::optional(StoredPlayer{q.text(0), token_hash, q.text(1), true});
}
}  // namespace

std::expected<std::optional<StoredPlayer>, std::string> PgStore::find_player(
    const std::string& token_hash) {
  auto db = connected(lease_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return player_on(**db, token_hash);
}

std::expected<std::optional<StoredPlayer>, std::string> PgStore::look_up_player(
    const std::string& token_hash) {
  auto db = connected(lookup_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return player_on(**db, token_hash);
}

PgStore::HeldLeases PgStore::held_leases() const {
  HeldLeases held;
  held.reserve(leases_.size());
  // A room claimed new has no row until its first write commits: a beat would find it lost.
  for (const auto& lease : leases_)
    if (!claimed_.contains(lease.first)) held.push_back(lease);
  return held;
}

namespace {
// The heartbeat, and, read without a lock (a fenced write may hold a row), the rooms of `held`
// this node lost: another node took each after the heartbeat had stopped.
std::expected<std::vector<std::string>, std::string> beat_on(Conn& db,
                                                             const PgStore::HeldLeases& held,
                                                             const std::string& node,
                                                             std::int64_t ttl_ms) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [room, epoch] : held) rows.push_back({room, epoch});
  Stmt q(db, std::string(kBeat) +
                 "SELECT h->>0 FROM json_array_elements($1::json) h, beat WHERE NOT EXISTS "
                 "(SELECT 1 FROM room_leases l WHERE l.room = h->>0 AND l.node = $2 AND "
                 "l.epoch = (h->>1)::bigint)");
  q.bind(1, rows.dump()).bind(2, node).bind(3, ttl_ms);
  std::vector<std::string> lost;
  while (q.row()) lost.push_back(q.text(0));
  if (!q.ok()) return std::unexpected("renewing leases: " + q.error());
  return lost;
}
}  // namespace

std::expected<std::vector<std::string>, std::string> PgStore::beat(const HeldLeases& held,
                                                                   std::int64_t ttl_ms) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(beat_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return beat_on(**db, held, node_, ttl_ms);
}

std::expected<std::optional<std::int64_t>, std::string> PgStore::take_after_beat(
    const std::string& room, std::int64_t ttl_ms) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(beat_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return take_on(**db, room, node_, ttl_ms, false, false);
}

std::vector<std::string> PgStore::drop_lost(const HeldLeases& held,
                                            const std::vector<std::string>& lost) {
  std::vector<std::string> dropped;
  for (const auto& room : lost) {
    const auto was = std::ranges::find(held, room, &HeldLeases::value_type::first);
    const auto now = leases_.find(room);
    if (was == held.end() || now == leases_.end() || now->second != was->second) continue;
    leases_.erase(now);
    dropped.push_back(room);
  }
  return dropped;
}

std::expected<std::vector<std::string>, std::string> PgStore::renew_leases(std::int64_t ttl_ms) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(lease_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  const auto held = held_leases();
  auto lost = beat_on(**db, held, node_, ttl_ms);
  if (!lost) return lost;
  return drop_lost(held, *lost);
}

PgStore::HeldLeases PgStore::let_go(const std::vector<std::string>& rooms) {
  HeldLeases held;
  for (const auto& room : rooms)
    if (const auto it = leases_.find(room); it != leases_.end()) {
      held.emplace_back(room, it->second);
      leases_.erase(it);
      prefetched_.erase(room);
    }
  return held;
}

namespace {
// Nobody's now, its epoch kept: the next owner takes the one after.
std::expected<void, std::string> release_on(Conn& db, const PgStore::HeldLeases& held,
                                            const std::string& node) {
  if (held.empty()) return {};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [room, epoch] : held) rows.push_back({room, epoch});
  Stmt q(db,
         "UPDATE room_leases l SET node = '' "
         "FROM json_array_elements($1::json) h "
         "WHERE l.room = h->>0 AND l.epoch = (h->>1)::bigint AND l.node = $2");
  q.bind(1, rows.dump()).bind(2, node);
  if (!q.run()) return std::unexpected("releasing leases: " + q.error());
  return {};
}
}  // namespace

std::expected<void, std::string> PgStore::release_leases(const std::vector<std::string>& rooms) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(lease_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return release_on(**db, let_go(rooms), node_);
}

std::expected<void, std::string> PgStore::release_let_go(const HeldLeases& held) {
  if (node_.empty()) return std::unexpected(std::string("not in cluster mode"));
  auto db = connected(lookup_db_, conninfo_);
  if (!db) return std::unexpected(db.error());
  return release_on(**db, held, node_);
}

}  // namespace plateau::server
