// What the server knows of a connection: a WebSocket session it can close and keep alive, and
// how a freshly accepted socket becomes a session (plain TCP or TLS).
#pragma once

#include <chrono>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "lobby.hpp"

namespace boost::asio::ssl {
class context;
}

namespace plateau::server {

class Server;

// A WebSocket connection as the server sees it, whatever it runs on: shutdown closes it.
class WsSession : public Client {
 public:
  // Sends what is queued, then closes with `code`.
  virtual void close(boost::beast::websocket::close_code code) = 0;
  // Called every second: a peer silent for half of `idle` is pinged, one silent for all of it
  // (its pong included) is let go. One sweep for all connections, not a timer each.
  virtual void keep_alive(std::chrono::steady_clock::time_point now, std::chrono::seconds idle) = 0;
};

// Starts serving an accepted connection: HTTP first, then WebSocket if it asks to upgrade.
void serve_plain(boost::asio::ip::tcp::socket&& socket, Server& server);
// The same behind a TLS handshake (HTTPS and wss://).
void serve_tls(boost::asio::ip::tcp::socket&& socket, Server& server, boost::asio::ssl::context& tls);

}  // namespace plateau::server
