// The network edge (Boost.Beast): a listener, HTTP sessions that serve the browser client,
// /healthz and /metrics and upgrade /ws, and WebSocket sessions that decode frames for the lobby.
//
// Threading: one io_context thread runs every socket, the lobby and the rooms, so they need no
// locks; the store's writer thread hands its completions back through asio::post.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <boost/asio.hpp>

#include "config.hpp"
#include "lobby.hpp"

namespace plateau::server {

class SqliteStore;
class WsSession;

struct NetStats {
  std::uint64_t connections = 0;       // open WebSocket connections
  std::uint64_t connections_total = 0; // accepted since start
  std::uint64_t frames_out = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t dropped_slow = 0;      // connections dropped for not reading
  double recovery_seconds = 0;
  std::uint64_t rooms_recovered = 0;
  std::uint64_t rooms_quarantined = 0;
};

class Server {
 public:
  Server(Config config, boost::asio::io_context& ioc, Lobby& lobby, SqliteStore* store);
  ~Server();
  // Binds and starts accepting. Returns an error for a port in use and the like.
  std::expected<void, std::string> start();
  unsigned short port() const;
  // Stops accepting, tells every client, flushes the store, closes every connection.
  void shutdown(std::function<void()> done);

  NetStats& stats() { return stats_; }
  const Config& config() const { return config_; }
  Lobby& lobby() { return lobby_; }
  SqliteStore* store() { return store_; }
  std::string metrics_text() const;

  // Sessions register so shutdown can reach them.
  void add(const std::shared_ptr<WsSession>& s);
  void remove(WsSession* s);
  bool accepting_ws() const;

 private:
  void accept();

  Config config_;
  boost::asio::io_context& ioc_;
  Lobby& lobby_;
  SqliteStore* store_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer ticker_;
  std::unordered_map<WsSession*, std::weak_ptr<WsSession>> sessions_;
  NetStats stats_;
  bool stopping_ = false;
};

}  // namespace plateau::server
