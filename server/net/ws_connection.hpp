// What the server knows of a connection: a WebSocket connection it can close and keep alive, and
// how a freshly accepted socket becomes a connection (plain TCP or TLS).
#pragma once

#include <chrono>
#include <cstddef>
#include <unordered_map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <utility>

#include "server/rooms/lobby.hpp"

namespace boost::asio::ssl {
class context;
}

namespace plateau::server {

class Server;
class ConnectionTable;

// A connection's place in the count of open connections, held for the connection's life (HTTP,
// then WebSocket if it upgrades): the count goes down when the last holder goes, however the
// connection ended. One pointer, so that it costs an idle connection 8 bytes.
class ConnectionSlot {
 public:
  ConnectionSlot() = default;
  ConnectionSlot(ConnectionSlot&& o) noexcept : entry_(std::exchange(o.entry_, nullptr)) {}
  ConnectionSlot& operator=(ConnectionSlot&& o) noexcept {
    if (this != &o) {
      release();
      entry_ = std::exchange(o.entry_, nullptr);
    }
    return *this;
  }
  ~ConnectionSlot() { release(); }
  explicit operator bool() const { return entry_ != nullptr; }

 private:
  friend class ConnectionTable;
  struct Entry;
  explicit ConnectionSlot(Entry* e) : entry_(e) {}
  void release();
  Entry* entry_ = nullptr;
};

struct ConnectionSlot::Entry {
  ConnectionTable* table = nullptr;
  const boost::asio::ip::address* address = nullptr;  // the key of this entry
  std::size_t open = 0;
};

// Open connections, in all and by peer address, against --max-connections and --max-per-ip.
// Owned by the Server, but it outlives it while a slot is held: at exit the io_context destroys
// the last connections after the Server.
class ConnectionTable {
 public:
  enum class Refusal { none, too_many, too_many_from_address };
  ConnectionTable() = default;
  ConnectionTable(const ConnectionTable&) = delete;
  ConnectionTable& operator=(const ConnectionTable&) = delete;
  // A slot for a connection from `peer`, or an empty one (and `why`) when a limit is reached.
  ConnectionSlot admit(const boost::asio::ip::address& peer, std::size_t max_total,
                       std::size_t max_per_address, Refusal& why);
  std::size_t open() const { return open_; }
  std::size_t addresses() const { return by_address_.size(); }
  // The owner is done with the table: it is deleted now, or by the release of its last slot.
  void orphan();

 private:
  friend class ConnectionSlot;
  ~ConnectionTable() = default;
  void release(ConnectionSlot::Entry* e);
  struct AddressHash {
    std::size_t operator()(const boost::asio::ip::address& a) const noexcept;
  };
  std::unordered_map<boost::asio::ip::address, ConnectionSlot::Entry, AddressHash> by_address_;
  std::size_t open_ = 0;
  bool orphaned_ = false;
};

// A WebSocket connection as the server sees it, whatever it runs on: shutdown closes it.
class WsConnection : public Connection {
 public:
  // Sends what is queued, then closes with `code`.
  virtual void close(boost::beast::websocket::close_code code) = 0;
  // Called every second: a peer silent for half of `idle` is pinged, one silent for all of it
  // (its pong included) is let go. One sweep for all connections, not a timer each.
  virtual void keep_alive(std::chrono::steady_clock::time_point now, std::chrono::seconds idle) = 0;
  // Bytes queued for the peer and not yet written.
  virtual std::size_t queued_bytes() const = 0;
  // Dropped at once, its queue freed: it had the most queued when all connections together
  // reached --max-queued-bytes.
  virtual void drop_over_budget() = 0;
};

// Starts serving an accepted connection: HTTP first, then WebSocket if it asks to upgrade.
void serve_plain(boost::asio::ip::tcp::socket&& socket, Server& server, ConnectionSlot slot);
// The same behind a TLS handshake (HTTPS and wss://).
void serve_tls(boost::asio::ip::tcp::socket&& socket, Server& server,
               boost::asio::ssl::context& tls, ConnectionSlot slot);

}  // namespace plateau::server
