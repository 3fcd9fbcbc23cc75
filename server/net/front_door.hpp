// The front door: the listening socket, on a thread of its own, so that the server still answers
// /healthz within milliseconds while its loop is busy (10,000 clients reconnecting at once, a
// room of thousands of spectators). A monitor that waits behind such a burst would call a
// healthy server dead and restart it, which starts the burst again.
//
// The door accepts every connection, counts it against the connection limits (closing it at
// once over one), and, over plain TCP, looks at the first bytes the client sent without reading
// them (MSG_PEEK). A `GET /healthz` (or HEAD) is answered here, from figures the loop keeps in
// atomics (Health), and the connection is closed after the answer; every other connection, and
// every TLS one, is handed to the loop with its place in the count, and served there as before.
// Connections the door holds are few and brief: at most kMaxAtTheDoor at once, each for at most
// kLookWait before it is handed on, or kAnswerTimeout while its health answer is read and written;
// past that number, connections go straight to the loop. Connections from a trusted balancer
// (trust_proxies) wait here for their PROXY header, at most kMaxProxiedWaiting at once and
// kProxyWait each.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/net/connection_table.hpp"
#include "server/net/http_api.hpp"
#include "server/net/proxy_header.hpp"

namespace plateau::server {

// Whether the first bytes a client sent ask for /healthz: "GET /healthz" or "HEAD /healthz",
// then a space or a query.
bool asks_for_health(std::string_view first_bytes);

class FrontDoor {
 public:
  using Socket = boost::asio::ip::tcp::socket;
  // Runs on the door's thread for each accepted connection: its place against the connection
  // limits, or an empty slot, and the connection is closed before a byte is read.
  using Count = std::function<ConnectionSlot(const boost::asio::ip::address& peer)>;
  // Runs on the loop (posted to it) with each connection the door hands on, and its place.
  using Admit = std::function<void(Socket, ConnectionSlot)>;

  // `look` says whether to answer /healthz at the door (plain TCP only: TLS bytes cannot be
  // read before the handshake). `health` must outlive the door.
  FrontDoor(boost::asio::io_context& loop, const Health& health, bool look, Count count,
            Admit admit, std::chrono::milliseconds look_wait = kLookWait);
  ~FrontDoor();
  FrontDoor(const FrontDoor&) = delete;
  FrontDoor& operator=(const FrontDoor&) = delete;

  // Binds and listens (on the caller's thread); the port stays readable from any thread.
  std::expected<void, std::string> listen(const boost::asio::ip::tcp::endpoint& at);
  unsigned short port() const { return port_; }
  // Connections from these balancers open with a PROXY protocol header (proxy_header.hpp),
  // read here before anything else: they are counted, and served, as from the client it names.
  // A connection from them without a valid header within kProxyWait is closed. Call before
  // start().
  void trust_proxies(AddressBlocks proxies, std::chrono::milliseconds wait = kProxyWait) {
    proxies_ = std::move(proxies);
    proxy_wait_ = wait;
  }
  // Starts the door's thread; stop() closes the listening socket and joins it.
  void start();
  void stop();

  std::uint64_t accept_failures() const { return accept_failures_; }
  std::uint64_t health_answers() const { return health_answers_; }
  std::size_t at_the_door() const { return at_the_door_; }
  // Connections from a trusted balancer closed for a missing, malformed or late header.
  std::uint64_t proxy_refused() const { return proxy_refused_; }

  static constexpr std::size_t kMaxAtTheDoor = 256;
  static constexpr std::size_t kMaxProxiedWaiting = 8192;  // awaiting their PROXY header
  static constexpr std::chrono::milliseconds kLookWait{200};
  static constexpr std::chrono::seconds kAnswerTimeout{5};
  static constexpr std::chrono::milliseconds kProxyWait{5000};

 private:
  void accept();
  struct Arrival;
  void read_proxy(std::shared_ptr<Arrival> a);
  void refuse_proxied(const Arrival& a, const char* why);
  void look(Socket socket, ConnectionSlot slot);
  void answer(Socket socket, ConnectionSlot slot);
  void hand_over(Socket socket, ConnectionSlot slot);

  boost::asio::io_context& loop_;
  const Health& health_;
  const bool look_;
  const std::chrono::milliseconds look_wait_;
  Count count_;
  // Shared with the handlers posted to the loop, which find it gone once the door is.
  std::shared_ptr<Admit> admit_;
  std::atomic<unsigned short> port_{0};
  boost::asio::ip::tcp protocol_ = boost::asio::ip::tcp::v4();  // of the listening socket
  std::atomic<std::uint64_t> accept_failures_{0};
  std::atomic<std::uint64_t> health_answers_{0};
  std::atomic<std::uint64_t> proxy_refused_{0};
  AddressBlocks proxies_;
  std::chrono::milliseconds proxy_wait_ = kProxyWait;
  // Declared before ioc_, so that they outlive the connections it still holds when it goes.
  std::atomic<std::size_t> at_the_door_{
      0};                        // connections held here now (written by the door's thread)
  bool starved_ = false;         // the last accept failed for want of descriptors (logged once)
  boost::asio::io_context ioc_;  // the door's own
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;  // when out of descriptors: accept again later, not at once
  std::thread thread_;
};

}  // namespace plateau::server
