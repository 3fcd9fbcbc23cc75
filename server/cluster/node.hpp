// A node of a cluster (issue 47): several plateau-server processes that share one PostgreSQL
// store and one Redis, behind a load balancer with no sticky sessions.
//
// Each room is run by one node at a time, the holder of its lease (PgStore::take_lease), and
// every write of the room is fenced by that lease's epoch. A client may connect to any node: a
// request for a room held elsewhere is relayed to the holder through Redis, the holder runs it
// as it runs its own clients' (the relayed client is a Connection there), and the frames for
// that client come back the same way. The holder sends each frame once per node that has
// clients for it, with the list of those clients, and that node fans it out: a room's patches
// cross Redis at most once per audience and per node.
//
// Channels and keys (all under "plateau:"):
//   node:<id>     each node's inbox (PUBLISH): relayed requests, frames, ends, closes
//   alive:<id>    a node's heartbeat, expiring after one lease: a node without one is gone
//   rooms:<id>    a node's public rooms for the lobby's list, expiring the same way
//   nodes         the set of node ids, for the lists
//   all           notices to every node (noticed_stores.hpp, node_tournaments.cpp)
//
// Tournaments have one director among the nodes (serve_tournaments, node_tournaments.cpp).
//
// A room is taken when someone needs it: the first request for a room nobody holds (or whose
// holder's lease ran out) makes this node its holder, and the lobby loads it from the store. A
// node that loses a lease (it was paused past it) drops the room with no write and ends the
// connections in it; their clients reconnect and come back through the new holder. A node that
// dies: its clients' sockets close; the other nodes see its heartbeat go, end their clients
// that were in its rooms, and the next request for each room takes it over once its lease ends.
// SIGTERM hands every room over at once (stop()).
//
// Everything runs on the io_context's thread, like the lobby, but for the round trips to
// PostgreSQL that serving clients needs: the lease lookups of the rooms clients ask for (the
// lease taken, or its holder read: route(), look_up()), with the rows of a room taken over, so
// that the lobby restores it without a read of its own; the players of hellos with a token made
// on another node (find_player()); and a lease let go when its room leaves memory. Those run on
// the lookup thread, in order, while the requests that need them wait (a room's, or a client's
// behind its hello), and every other room goes on. The heartbeat's renewal of every lease
// (heartbeat(), beaten()) runs on a thread of its own. A new room's lease takes no round trip
// at all: its first write makes it (PgStore::claim_new). What is left on the loop is rare and
// not the clients' to cause at will: the first beat before the node serves, the lease of a
// tournament's table as its director opens it (its players learn its id before it is stored),
// a table's check after the director died, a close sent to another node, and the releases at
// SIGTERM.
#pragma once

#include <cstdint>
#include <deque>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include "protocol/messages.hpp"
#include "server/cluster/redis.hpp"
#include "server/histogram.hpp"
#include "server/net/metrics.hpp"
#include "server/ratings/ratings.hpp"
#include "server/rooms/lobby.hpp"
#include "server/store/pg_store.hpp"

namespace plateau::server::cluster {

struct NodeOptions {
  redis::Options redis;
  Millis lease_ms = 5'000;         // a lease unrenewed this long ends; renewed every fifth of it
  std::size_t max_frame = 65'536;  // the largest request decoded (the WebSocket limit)
  // Requests a client may send while its hello waits for its player's read (find_player());
  // more are refused (--max-held-requests).
  std::size_t max_held_requests = 64;
  // A request for a room whose holder is gone waits this long for the room's lease (0: three
  // leases), then is refused (room/unavailable).
  Millis wait_ms = 0;
};

struct NodeStats {
  std::uint64_t relayed_out = 0;  // requests sent on to the node holding their room
  std::uint64_t relayed_in = 0;   // requests another node sent here
  std::uint64_t frames_out = 0;   // frames sent to other nodes (each once per node)
  std::uint64_t frames_in = 0;    // frames from other nodes, fanned out here
  std::uint64_t leases_taken = 0;
  std::uint64_t takeovers = 0;    // leases taken that another node had held (epoch > 1)
  std::uint64_t leases_lost = 0;  // rooms dropped because their lease was gone
  std::uint64_t peers_lost = 0;   // nodes seen gone (no heartbeat)
  std::uint64_t redis_drops = 0;  // connections to Redis lost
  std::uint64_t waited_out = 0;   // requests refused after waiting for a lease
  std::uint64_t notices_in = 0;   // accounts and ratings another node changed, read again here
  std::uint64_t tournament_takeovers = 0;  // times this node started directing the tournaments
  std::uint64_t tournament_ops_out = 0;    // changes of the tournaments sent to their director
  std::uint64_t tournament_ops_in = 0;     // changes other nodes sent here, as the director
  LatencyHistogram pubsub_lag;  // from a holder's publish to the fan-out here (wall clocks)
};

class RemoteConnection;

class Node : public std::enable_shared_from_this<Node> {
 public:
  static std::shared_ptr<Node> make(boost::asio::io_context& io, PgStore& store, Lobby& lobby,
                                    NodeOptions options);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // This process's node id: 64 random bits (a restarted node is a new one).
  const std::string& id() const { return id_; }
  // Fences the store as this node, gives the lobby its Shared, connects to Redis and starts
  // the heartbeat. Call before the server serves. `accounts` and `ratings` (may be null) are
  // kept as the store has them: read again when another node says it changed them.
  void start(Accounts* accounts = nullptr, Ratings* ratings = nullptr);
  // Tells every other node what this one wrote (noticed_stores.hpp).
  void tell(std::string notice);
  // Tournaments (node_tournaments.cpp), once the server has loaded the store. One node at a time
  // directs them: the holder of their lease (kTournamentLease), taken by the first node to ask
  // for it at a heartbeat, fenced like a room's, and handed over at SIGTERM or when its node
  // dies. It runs them as a lone server does (its writes go through a NoticedTournamentStore).
  // Every other node keeps a copy of the events for the reads, read again at each notice, and
  // sends each change (an organiser's call, a player's registration) to the director with
  // `run`'s arguments: the director runs `run` (run_tournament_op) and sends its answer back.
  // The director's tables are its rooms; one another node took over (the director died) ends
  // there, and that node tells the director to read its outcome; frames for a player reach
  // every node.
  using TournamentOp =
      std::function<void(nlohmann::json op, std::function<void(nlohmann::json answer)> done)>;
  void serve_tournaments(TournamentOp run);
  bool directs_tournaments() const;
  // A decoded request from a client of this node (`frame` its text, to relay as it came).
  void handle(const std::shared_ptr<Connection>& c, const std::string& frame,
              protocol::Request req);
  // A client of this node is gone: the nodes it was relayed to forget it.
  void closed(Connection* c);
  // SIGTERM, after the store wrote what it had: every lease goes at once, the clients relayed
  // here are ended (they reconnect elsewhere), and this node leaves the lists. `done` runs once
  // Redis has it all (or after a second).
  void stop(std::function<void()> done);

  std::size_t rooms_held() const;
  std::size_t peers() const;
  const NodeStats& stats() const { return stats_; }
  // /metrics lines for this node.
  void write_metrics(PromText& m) const;

 private:
  friend class RemoteConnection;
  Node(boost::asio::io_context& io, PgStore& store, Lobby& lobby, NodeOptions options);

  struct Pending {
    std::weak_ptr<Connection> connection;
    std::string frame;
    protocol::Request request;
    int hops = 0;
    Millis until = 0;  // refused after this, while waiting for the room's lease
    // The version of the room the client still holds (its hello's resume), for its seat's
    // first request through another node: the holder then sends only the patches since.
    std::optional<std::int64_t> held{};
  };
  enum class Where { here, there, wait };
  struct Route {
    Where where;
    std::string node;
  };
  // Where a room's requests go: here (its lease is this node's), there (its holder, as read
  // within kOwnerFresh), or wait (a lookup is under way, or its holder is gone).
  Route route(const std::string& room);
  // A decoded request, once no hello of its client waits for its player's read.
  void handle_now(const std::shared_ptr<Connection>& c, const std::string& frame,
                  protocol::Request req);
  // A hello with a token this node does not know (Lobby::player_to_find): the player read on
  // the lookup thread, then the hello handled on the loop with what it found (found_player()),
  // and the client's requests sent meanwhile after it.
  void find_player(const std::shared_ptr<Connection>& c, std::string hash, const std::string& frame,
                   protocol::Request hello);
  void found_player(const std::shared_ptr<Connection>& c, const std::string& hash,
                    const std::string& frame, protocol::Request hello,
                    std::expected<std::optional<StoredPlayer>, std::string> found);
  // The room's lease taken, or its holder read, on the lookup thread; looked_up() on the loop.
  void look_up(const std::string& room);
  void looked_up(const std::string& room, PgStore::LeaseLookup found);
  // The requests waiting for `room` go where `r` says (or wait on, for Where::wait).
  void settle(const std::string& room, const Route& r);
  void dispatch(const std::string& room, Pending p);
  void run_here(const std::string& room, Pending p);
  void relay(const std::string& node, const std::string& room, Pending p);
  void retry_waiting();
  void arm_retry();  // retry_waiting() in 200 ms
  void on_message(const std::string& payload);
  void on_notice(const std::string& payload);
  // Every account and rating read again (notices may have been missed while Redis was away).
  void resync();
  void on_request(const std::string& payload);
  void on_frames(const std::string& payload);
  void heartbeat();
  // What a beat on the heartbeat thread found: the leases of the snapshot this node lost, and
  // the tournaments' lease when it tried to take it.
  struct Beat {
    std::expected<std::vector<std::string>, std::string> lost;
    std::optional<std::expected<std::optional<std::int64_t>, std::string>> director{};
  };
  void beaten(Millis asked, const PgStore::HeldLeases& held, Beat b);
  // Tournaments (node_tournaments.cpp).
  bool wants_to_direct() const;  // tournaments served here, and not directed by this node yet
  void try_directing();          // the tournaments' lease taken now, on the loop (at the start)
  // Directs the tournaments if `took` is their lease (take_lease, or a beat's take_after_beat).
  void took_direction(const std::expected<std::optional<std::int64_t>, std::string>& took);
  void stop_directing();
  void reload_tournaments();  // a copy: everything again from the store
  bool ask_director(nlohmann::json op, std::function<void(std::optional<nlohmann::json>)> done);
  void on_director_op(const std::string& payload);
  void on_director_answer(const std::string& payload);
  void on_tournament_notice(char kind, const std::string& payload,
                            const std::vector<std::string_view>& words);
  void check_table(const std::string& room, int tries);
  // Whether this node's leases were renewed within half a lease. False just after a stall (the
  // process paused or swapped out, a slow store) until the next heartbeat has renewed them or
  // found them lost: a director that may have lost its lease meanwhile does not act on the
  // tournaments (its writes are fenced, but a table opened or a frame sent is not).
  bool renewed_lately() const;
  // Runs `fn` now if renewed_lately(), else right after the next heartbeat's renewal, when this
  // node knows whether it still directs (`fn` checks again: a renewal may fail).
  void once_renewed(std::function<void()> fn);
  void read_lists();
  // The other nodes' lines, then the orphans (the last lines of nodes gone) that no node holds.
  void read_orphans(std::vector<ListedLine> lines);
  void orphan(const std::string& node);
  void unorphan(const std::string& room);
  void peer_gone(const std::string& node);
  // Redis dropped (messages may be lost): every relayed client ends and comes back.
  void drop_relays();
  // A frame for a client of `origin`, batched per node until this pass of the loop ends.
  void frame_to(const std::string& origin, std::uint64_t conn, const Frame& frame);
  void flush_frames();
  // The holder ends a client of another node (its room moved).
  void end_remote(const std::string& origin, std::uint64_t conn);
  void publish(const std::string& node, std::string message,
               std::function<void(bool heard)> done = {});
  std::uint64_t number_of(const std::shared_ptr<Connection>& c);
  Millis now() const;

  boost::asio::io_context& io_;
  PgStore& store_;
  Lobby& lobby_;
  NodeOptions options_;
  std::string id_;
  std::shared_ptr<redis::Client> cmd_, sub_;
  boost::asio::steady_timer beat_, retry_;
  bool retry_armed_ = false;
  bool stopping_ = false;
  NodeStats stats_;

  // Where rooms held elsewhere are (learned from their leases), and when that was read.
  struct Owner {
    std::string node;
    Millis at = 0;
  };
  std::unordered_map<std::string, Owner> owners_;
  std::unordered_map<std::string, Millis> gone_;  // nodes seen gone, and when
  // When each peer last sent us something: a node heard from within a lease is alive, whatever
  // its heartbeat key says (after Redis restarts empty, the keys come back one beat later).
  std::unordered_map<std::string, Millis> heard_;
  // Each other node's list as last read: when the node is gone, its lines become orphans.
  std::unordered_map<std::string, nlohmann::json> last_lists_;
  Millis commands_up_at_ = 0;                           // when the command connection was last made
  std::map<std::string, std::deque<Pending>> waiting_;  // per room, in order
  std::set<std::string> looking_up_;                    // rooms whose lookup is under way
  // Clients whose hello waits for its player's read, with what they sent since (at most
  // options_.max_held_requests; more is refused), and what the read found, while the lobby
  // handles it.
  std::unordered_map<Connection*, std::vector<std::pair<std::string, protocol::Request>>>
      behind_hello_;
  std::unordered_map<std::string, std::optional<StoredPlayer>> players_found_;
  // Lease lookups, off the loop: one thread, so one connection in turn (PgStore::look_up_lease).
  boost::asio::thread_pool lookups_{1};
  // The heartbeat's round trips, off the loop: a thread of their own, never behind a lookup
  // held up on a row (a beat late past the lease would lose every room).
  boost::asio::thread_pool beats_{1};
  void join_threads();  // both pools, at stop() and in the destructor
  // Leases let go (a room left memory) whose rows the lookup thread has not freed yet.
  std::set<std::pair<std::string, std::int64_t>> unfreed_;

  // This node's clients whose requests went to other nodes: their numbers, and which nodes.
  std::unordered_map<Connection*, std::uint64_t> number_;
  std::unordered_map<std::uint64_t, std::weak_ptr<Connection>> local_;
  std::unordered_map<std::uint64_t, std::set<std::string>> relayed_to_;
  std::unordered_map<std::string, std::set<std::uint64_t>> via_;  // node -> our clients there
  std::uint64_t next_number_ = 1;
  // What each client of this node said it holds (hello's resume), until its first request for
  // each of those rooms.
  std::unordered_map<Connection*, std::vector<std::pair<std::string, std::int64_t>>> resume_;
  std::optional<std::int64_t> take_resume(Connection* c, const std::string& room);

  // Other nodes' clients with requests run here, by origin node then number.
  std::map<std::string, std::map<std::uint64_t, std::shared_ptr<RemoteConnection>>> remote_;

  // Frames waiting for the end of this pass, per node: each frame with its clients there.
  struct Batch {
    Frame frame;
    std::vector<std::uint64_t> conns;
  };
  std::map<std::string, std::vector<Batch>> out_;
  bool flush_posted_ = false;

  std::vector<ListedLine> remote_lines_;  // the other nodes' public rooms, read each beat
  Accounts* accounts_ = nullptr;
  Ratings* ratings_ = nullptr;

  // Tournaments: how the director runs a change, and the changes this node sent it that wait
  // for an answer (each with its deadline).
  TournamentOp run_op_;
  struct Ask {
    std::function<void(std::optional<nlohmann::json>)> done;
    std::shared_ptr<boost::asio::steady_timer> timer;
  };
  std::unordered_map<std::uint64_t, Ask> asks_;
  std::uint64_t next_ask_ = 1;
  // Seats of tables held elsewhere, as last read from the store, and when.
  struct SeatsRead {
    Millis at = 0;
    std::vector<bool> taken;
  };
  std::unordered_map<std::string, SeatsRead> seats_read_;
  Millis renewed_at_ = 0;  // when this node's leases were last renewed (or the director's taken)
  std::vector<std::function<void()>> after_renewal_;
};

}  // namespace plateau::server::cluster
