// What the server knows of a connection: a WebSocket connection it can close and keep alive, and
// how a freshly accepted socket becomes a connection (plain TCP or TLS).
#pragma once

#include <chrono>
#include <cstddef>
#include <unordered_map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <utility>

#include "server/net/connection_table.hpp"
#include "server/rooms/lobby.hpp"

namespace boost::asio::ssl {
class context;
}

namespace plateau::server {

class Server;

// A WebSocket connection as the server sees it, whatever it runs on: shutdown closes it.
class WsConnection : public Connection {
 public:
  // Sends what is queued, then closes with `code`.
  virtual void close(boost::beast::websocket::close_code code) = 0;
  // 1013, try again later: the client reconnects at once (a cluster's room moved).
  void end() override { close(boost::beast::websocket::close_code::try_again_later); }
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
