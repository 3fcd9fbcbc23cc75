#include "server/net/front_door.hpp"

#include <sys/socket.h>

#include <unistd.h>
#include <cerrno>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/net/http_api.hpp"

namespace plateau::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

bool asks_for_health(std::string_view first_bytes) {
  for (const std::string_view request : {"GET /healthz", "HEAD /healthz"})
    if (first_bytes.size() > request.size() && first_bytes.starts_with(request) &&
        (first_bytes[request.size()] == ' ' || first_bytes[request.size()] == '?'))
      return true;
  return false;
}

FrontDoor::FrontDoor(asio::io_context& loop, const Health& health, bool look, Count count,
                     Admit admit, std::chrono::milliseconds look_wait)
    : loop_(loop),
      health_(health),
      look_(look),
      look_wait_(look_wait),
      count_(std::move(count)),
      admit_(std::make_shared<Admit>(std::move(admit))),
      acceptor_(ioc_),
      retry_(ioc_) {}

FrontDoor::~FrontDoor() { stop(); }

std::expected<void, std::string> FrontDoor::listen(const tcp::endpoint& at) {
  beast::error_code ec;
  acceptor_.open(at.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(at, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return std::unexpected(ec.message());
  protocol_ = at.protocol();
  const auto bound = acceptor_.local_endpoint(ec);
  port_ = ec ? 0 : bound.port();
  return {};
}

void FrontDoor::start() {
  accept();
  thread_ = std::thread([this] { ioc_.run(); });
}

void FrontDoor::stop() {
  if (!thread_.joinable()) return;
  asio::post(ioc_, [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    retry_.cancel();
    ioc_.stop();  // connections still at the door are closed with it
  });
  thread_.join();
}

void FrontDoor::accept() {
  acceptor_.async_accept(ioc_, [this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec == asio::error::no_descriptors ||
        ec == boost::system::errc::too_many_files_open_in_system ||
        ec == asio::error::no_buffer_space || ec == asio::error::no_memory) {
      // Out of descriptors (or kernel memory): the connection waits in the backlog. Trying again
      // at once would fail again at once, for as long as it lasts, with a core at 100%.
      ++accept_failures_;
      if (!starved_) spdlog::error("event=accept_paused error=\"{}\" retry_ms=100", ec.message());
      starved_ = true;
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([this](beast::error_code wait_ec) {
        if (!wait_ec) accept();
      });
      return;
    }
    if (!ec) {
      if (starved_) {
        starved_ = false;
        spdlog::info("event=accept_resumed");
      }
      beast::error_code no_peer;
      const auto peer = socket.remote_endpoint(no_peer);
      if (!no_peer && !proxies_.empty() && proxies_.contains(peer.address())) {
        read_proxy(std::make_shared<Arrival>(std::move(socket), peer.address(), at_the_door_));
      } else if (auto slot = no_peer ? ConnectionSlot() : count_(peer.address())) {
        // Over a limit (or the peer already gone): closed before any byte is read.
        look(std::move(socket), std::move(slot));
      }
    }
    accept();
  });
}

// A connection from a trusted balancer, its PROXY header being read.
struct FrontDoor::Arrival {
  Arrival(tcp::socket s, asio::ip::address from, std::atomic<std::size_t>& held)
      : socket(std::move(s)), timer(socket.get_executor()), proxy(std::move(from)), count(held) {}
  ~Arrival() {
    if (waiting) --count;
  }
  Arrival(const Arrival&) = delete;
  Arrival& operator=(const Arrival&) = delete;
  tcp::socket socket;
  asio::steady_timer timer;
  asio::ip::address proxy;
  std::string got;       // the header's bytes read so far (all of them header: see below)
  bool waiting = false;  // counted at the door while it waits for more bytes
  std::atomic<std::size_t>& count;
};

void FrontDoor::refuse_proxied(const Arrival& a, const char* why) {
  ++proxy_refused_;
  spdlog::warn("event=proxy_header_refused proxy={} why={}", a.proxy.to_string(), why);
}

// Reads the header without reading a byte past it: what has come is peeked at; when it holds
// the whole header, exactly the header is read, and the request after it stays for the loop.
// When it does not, all of it is header, and is read, so that the next wait is for new bytes.
void FrontDoor::read_proxy(std::shared_ptr<Arrival> a) {
  const auto refuse = [&](const char* why) { refuse_proxied(*a, why); };
  // Unless it waits for more below, the connection is done here: handed on, or closed now (the
  // timer's handler also holds `a`, and would keep the socket open until it fires).
  bool waits = false;
  struct Done {
    Arrival& a;
    const bool& waits;
    ~Done() {
      if (waits) return;
      beast::error_code ignored;
      a.timer.cancel();
      a.socket.close(ignored);
    }
  } done{*a, waits};
  const int fd = a->socket.native_handle();
  char buf[kMaxProxyHeader];
  const auto n = ::recv(fd, buf, kMaxProxyHeader - a->got.size(), MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return;  // gone before a word
  if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return;
  if (n > 0) {
    const auto seen = a->got + std::string(buf, static_cast<std::size_t>(n));
    const auto header = read_proxy_header(seen);
    if (header.status == ProxyHeader::Status::invalid) return refuse("malformed");
    const auto take = header.status == ProxyHeader::Status::ok ? header.length - a->got.size()
                                                               : static_cast<std::size_t>(n);
    if (::recv(fd, buf, take, MSG_DONTWAIT) != static_cast<ssize_t>(take)) return;
    if (header.status == ProxyHeader::Status::ok) {
      if (auto slot = count_(header.client.value_or(a->proxy)))
        look(std::move(a->socket), std::move(slot));
      return;
    }
    a->got.append(buf, take);
    if (a->got.size() >= kMaxProxyHeader) return refuse("too_long");
  }
  if (!a->waiting) {
    // A balancer's connections all wait here for their header (there is no loop to hand them
    // to before it): a reconnecting crowd through it may hold many at once, each a socket and a
    // timer, for at most proxy_wait_.
    if (at_the_door_ >= kMaxProxiedWaiting) return refuse("door_full");
    a->waiting = true;
    ++at_the_door_;  // and less when `a` goes
    a->timer.expires_after(proxy_wait_);
    a->timer.async_wait([a](beast::error_code ec) {
      beast::error_code ignored;
      if (!ec) a->socket.cancel(ignored);
    });
  }
  waits = true;
  a->socket.async_wait(tcp::socket::wait_read, [this, a](beast::error_code ec) {
    if (ec) {
      if (ec == asio::error::operation_aborted) refuse_proxied(*a, "timeout");
      return;
    }
    if (a->socket.is_open()) read_proxy(a);
  });
}

namespace {

enum class FirstBytes { none_yet, closed, health, other };

// What the client has sent so far, peeked at without reading it.
FirstBytes peek(tcp::socket& socket) {
  char first[16];
  const auto n = ::recv(socket.native_handle(), first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return FirstBytes::closed;
  if (n < 0)
    return errno == EAGAIN || errno == EWOULDBLOCK ? FirstBytes::none_yet : FirstBytes::closed;
  return asks_for_health({first, static_cast<std::size_t>(n)}) ? FirstBytes::health
                                                               : FirstBytes::other;
}

}  // namespace

// Looks at the client's first bytes: at once (a client usually sends its request with the
// connection), else once they come, for look_wait_ at most.
void FrontDoor::look(tcp::socket socket, ConnectionSlot slot) {
  if (!look_) return hand_over(std::move(socket), std::move(slot));
  const auto first = peek(socket);
  if (first == FirstBytes::closed) return;  // the client left without a word
  // A crowded door holds no more: the loop takes the rest, health requests included.
  if (first == FirstBytes::other || at_the_door_ >= kMaxAtTheDoor)
    return hand_over(std::move(socket), std::move(slot));
  if (first == FirstBytes::health) return answer(std::move(socket), std::move(slot));
  ++at_the_door_;
  struct Visitor {
    tcp::socket socket;
    asio::steady_timer timer;
    ConnectionSlot slot;
  };
  auto v = std::make_shared<Visitor>(
      Visitor{std::move(socket), asio::steady_timer(ioc_), std::move(slot)});
  v->timer.expires_after(look_wait_);
  v->timer.async_wait([v](beast::error_code ec) {
    beast::error_code ignored;
    if (!ec) v->socket.cancel(ignored);  // silent so far: the loop takes it as it is
  });
  v->socket.async_wait(tcp::socket::wait_read, [this, v](beast::error_code ec) {
    --at_the_door_;
    v->timer.cancel();
    if (ec && ec != asio::error::operation_aborted) return;  // gone: closed with `v`
    switch (ec ? FirstBytes::none_yet : peek(v->socket)) {
      case FirstBytes::closed:
        return;
      case FirstBytes::health:
        return answer(std::move(v->socket), std::move(v->slot));
      case FirstBytes::other:
      case FirstBytes::none_yet:
        return hand_over(std::move(v->socket), std::move(v->slot));
    }
  });
}

namespace {

// A /healthz request being answered at the door.
struct Answer {
  Answer(tcp::socket s, ConnectionSlot place, std::atomic<std::size_t>& held)
      : stream(std::move(s)), slot(std::move(place)), count(held) {
    ++count;
  }
  ~Answer() { --count; }
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::request_parser<http::string_body> parser;
  HttpResponse response;
  ConnectionSlot slot;
  std::atomic<std::size_t>& count;
};

// What the client may still send once answered is read and dropped until it closes (within the
// time left), so that closing cannot reset the connection before the answer is read.
void drain(const std::shared_ptr<Answer>& a) {
  a->buffer.clear();
  a->stream.async_read_some(a->buffer.prepare(4096), [a](beast::error_code ec, std::size_t) {
    if (!ec) drain(a);
  });
}

}  // namespace

// Reads the request, answers from the Health figures, and closes.
void FrontDoor::answer(tcp::socket socket, ConnectionSlot slot) {
  auto a = std::make_shared<Answer>(std::move(socket), std::move(slot), at_the_door_);
  a->parser.header_limit(16 * 1024);
  a->parser.body_limit(0);
  a->stream.expires_after(kAnswerTimeout);
  http::async_read(a->stream, a->buffer, a->parser, [this, a](beast::error_code ec, std::size_t) {
    if (ec) return;  // a malformed or unfinished request: closed with `a`
    a->response = health_response(a->parser.get(), health_);
    a->response.keep_alive(false);
    ++health_answers_;
    http::async_write(a->stream, a->response, [a](beast::error_code write_ec, std::size_t) {
      if (write_ec) return;
      beast::error_code ignored;
      a->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
      drain(a);
    });
  });
}

// The loop takes the connection over: its socket is moved to the loop's io_context.
void FrontDoor::hand_over(tcp::socket socket, ConnectionSlot slot) {
  beast::error_code ec;
  const auto fd = socket.release(ec);
  if (ec) return;
  tcp::socket moved(loop_);
  moved.assign(protocol_, fd, ec);
  if (ec) {
    ::close(fd);
    return;
  }
  asio::post(loop_, [admit = std::weak_ptr(admit_), s = std::move(moved),
                     slot = std::move(slot)]() mutable {
    if (const auto a = admit.lock()) (*a)(std::move(s), std::move(slot));
  });
}

}  // namespace plateau::server
