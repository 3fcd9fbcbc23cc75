// The network edge (Boost.Beast): a listener, HTTP connections that serve the browser client,
// /healthz and /metrics and upgrade /ws, and WebSocket connections that decode frames for the
// lobby.
//
// Every connection is plain TCP, or TLS when the server was given a certificate: the connections
// are templates on the stream, so both kinds run the same code.
//
// Threading: one io_context thread runs every socket, the lobby and the rooms, so they need no
// locks. The front door's thread (front_door.hpp) only accepts connections, counts them against
// the limits, answers /healthz from atomics, and posts every other connection here. The store's
// writer thread hands its completions back through asio::post, and the
// lobby's reaper thread frees the boards and positions rooms hand it (their last references).
//
// Writes stay on that thread too, though sendmsg is much of its time: a send thread of its own
// was measured, and on two cores it cost more CPU per move than it took off this thread
// (README, "Benchmark": "Why writes stay on the event loop").
#pragma once

#include <atomic>
#include <chrono>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <boost/asio.hpp>

#include "server/config.hpp"
#include "server/histogram.hpp"
#include "server/net/front_door.hpp"
#include "server/net/metrics.hpp"
#include "server/net/static_files.hpp"
#include "server/net/throttle.hpp"
#include "server/net/ws_connection.hpp"
#include "server/rooms/lobby.hpp"

namespace boost::asio::ssl {
class context;
}

namespace plateau::server {

class Storage;
class WsConnection;

struct NetStats {
  std::atomic<std::uint64_t> connections{0};  // open WebSocket connections (read by the door)
  std::uint64_t connections_total = 0;        // accepted since start
  std::uint64_t frames_out = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t dropped_slow = 0;  // connections dropped for not reading
  // Sockets closed at accept by a limit, counted on the front door's thread.
  std::atomic<std::uint64_t> refused_max_connections{0};  // --max-connections
  std::atomic<std::uint64_t> refused_max_per_ip{0};       // --max-per-ip
  std::uint64_t queued_bytes = 0;         // bytes queued for all connections together
  std::uint64_t queue_peak = 0;           // the most bytes one connection has had queued
  std::uint64_t dropped_over_budget = 0;  // connections dropped at --max-queued-bytes
  std::uint64_t too_large = 0;            // messages refused for their size (then closed, 1009)
  std::uint64_t dropped_unfinished = 0;   // connections whose message stayed unfinished
  std::uint64_t internal_errors = 0;      // exceptions caught in a handler
  // Each pong's one-way lag (half its round trip), as live clocks credit it (Connection::lag_ms).
  LatencyHistogram lag;
  double recovery_seconds = 0;
  std::uint64_t rooms_recovered = 0;
  std::uint64_t rooms_quarantined = 0;
};

// A TLS server context from a PEM certificate chain and its private key (TLS 1.2 and later).
// Fails with a readable reason for a missing, unreadable or encrypted file, or a key that does
// not match the certificate.
std::expected<std::shared_ptr<boost::asio::ssl::context>, std::string> load_tls_context(
    const std::string& cert, const std::string& key);

// The wall clock in milliseconds since the epoch: what the rooms and the store are told.
Millis now_ms();

class Server {
 public:
  // With `tls`, every connection starts with a TLS handshake (HTTPS and wss://).
  Server(Config config, boost::asio::io_context& ioc, Lobby& lobby, Storage* store,
         std::shared_ptr<boost::asio::ssl::context> tls = nullptr);
  ~Server();
  // Binds and starts accepting. Returns an error for a port in use and the like.
  std::expected<void, std::string> start();
  unsigned short port() const;
  bool tls() const { return tls_ != nullptr; }
  // Stops accepting, tells every client, flushes the store, closes every connection.
  void shutdown(std::function<void()> done);
  // Behind a balancer (--drain-seconds): /healthz answers 503 "draining" at once, so the
  // balancer takes this server out, while it goes on serving its clients for `grace`; then
  // shutdown(done). A second call (a second signal) shuts down at once.
  void drain(std::chrono::milliseconds grace, std::function<void()> done);
  bool draining() const { return draining_; }
  // What /healthz answers, from any thread.
  const Health& health() const { return health_; }

  NetStats& stats() { return stats_; }
  // Accepts that failed for want of descriptors (or memory), and /healthz requests answered at
  // the front door (front_door.hpp), from any thread.
  std::uint64_t accept_failures() const { return door_.accept_failures(); }
  std::uint64_t health_answers_at_door() const { return door_.health_answers(); }
  std::uint64_t proxy_headers_refused() const { return door_.proxy_refused(); }
  const Config& config() const { return config_; }
  Lobby& lobby() { return lobby_; }
  Storage* store() { return store_; }
  const StaticFiles& static_files() const { return static_files_; }
  // Refused admin tokens per address, and imports per address (http_api.cpp).
  Backoff& admin_backoff() { return admin_backoff_; }
  RateByKey& import_rate() { return import_rate_; }

  // Cluster mode (server/cluster/node.hpp): decoded requests go to `route`, with their text,
  // instead of the lobby; `left` hears of each closed connection after the lobby; `metrics`
  // adds to /metrics.
  struct Router {
    std::function<void(const std::shared_ptr<Connection>&, const std::string& frame,
                       protocol::Request)>
        route;
    std::function<void(Connection*)> left;
    std::function<void(PromText&)> metrics;
  };
  void use_router(Router router) { router_ = std::move(router); }
  const Router& router() const { return router_; }

  // Connections register so shutdown can reach them.
  void add(const std::shared_ptr<WsConnection>& s);
  void remove(WsConnection* s);
  bool accepting_ws() const;
  // Open connections of every kind (each counts against --max-connections and --max-per-ip).
  std::size_t open_connections() const { return connections_->open(); }
  // Behind a reverse proxy (--forwarded-for-from): the client a request from `peer` is for,
  // as its X-Forwarded-For names it; nullopt when `peer` is no such proxy, or names no one.
  std::optional<boost::asio::ip::address> forwarded_client(const boost::asio::ip::address& peer,
                                                           std::string_view values) const;
  // A connection's new place when it counts as `client` from now on (against --max-per-ip; it
  // keeps its old place until it takes this one), or an empty one when that client is at its
  // limit.
  ConnectionSlot recount(const boost::asio::ip::address& client);

  // A whole message from a WebSocket, for the lobby: `within_rate` says whether the connection
  // is under --rate. Whatever the lobby throws is caught here: the client gets internal/error,
  // the event is logged, and the server goes on.
  void on_message(const std::shared_ptr<Connection>& c, std::string frame, bool text,
                  bool within_rate);
  // A decoding error for the client (counted with the others).
  void refuse(const std::shared_ptr<Connection>& c, const protocol::Error& e);
  // The connection is gone, or said goodbye: the lobby and the rooms forget it (exceptions
  // caught as above). The connection then leaves the server with remove().
  void on_left(WsConnection* s);

  // The output budget (--max-queued-bytes): before `bytes` more are queued for `s`, the
  // connections with the most queued are dropped until they fit. False when `s` itself was.
  bool make_room(WsConnection* s, std::size_t bytes);
  void queued(std::size_t bytes, std::size_t connection_total);
  void unqueued(std::size_t bytes) { stats_.queued_bytes -= bytes; }

 private:
  // A connection's place against --max-connections and --max-per-ip (on the door's thread).
  ConnectionSlot count(const boost::asio::ip::address& peer);
  // A connection from the front door, on the loop: served (over TLS, or plain).
  void serve(boost::asio::ip::tcp::socket socket, ConnectionSlot slot);
  void sweep_idle();
  // Logs an exception caught in a handler and counts it.
  void internal_error(const char* where, const char* what);
  // Logs the store becoming unable to write (and able again), and what its threads caught.
  void watch_store();

  Config config_;
  AddressBlocks forwarded_from_;  // --forwarded-for-from
  boost::asio::io_context& ioc_;
  Lobby& lobby_;
  Storage* store_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  boost::asio::steady_timer ticker_;
  // One timer for every clock's flag: armed for the earliest the lobby knows (issue 44).
  boost::asio::steady_timer flag_timer_;
  std::optional<Millis> flag_armed_;  // the deadline it waits for, while it waits
  void arm_flags(Millis at);
  bool store_was_available_ = true;
  std::uint64_t store_exceptions_seen_ = 0;
  ConnectionTable* connections_;  // deleted by orphan(), once the Server and every slot are gone
  std::unordered_map<WsConnection*, std::weak_ptr<WsConnection>>
      websockets_;  // the open WebSocket connections
  NetStats stats_;
  StaticFiles static_files_;
  Backoff admin_backoff_;
  RateByKey import_rate_;
  bool stopping_ = false;
  std::atomic<bool> draining_{false};  // read by the door's thread
  std::unique_ptr<boost::asio::steady_timer> drain_timer_;
  std::function<void()> drained_;  // drain's `done`, until shutdown takes it
  Router router_;
  Health health_;
  FrontDoor door_;  // last: its thread stops first, while all it reaches is still here
};

}  // namespace plateau::server
