// A connection's two phases, as templates on the stream: HttpConnection reads requests (the
// answers come from http_api.cpp) and hands an upgrade to a BasicWsConnection, which decodes
// frames for the lobby and writes what the rooms send.
//
// Only serve_plain.cpp and serve_tls.cpp include this: each instantiates both phases for
// one kind of stream, so the two heavy instantiations compile apart.
#pragma once

#include <spdlog/spdlog.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "server/net/http_api.hpp"
#include "server/net/net.hpp"
#include "server/net/proxy_header.hpp"
#include "server/net/ws_connection.hpp"

namespace plateau::server::connections {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

constexpr std::size_t kMaxQueuedFrames = 2048;  // and --max-connection-queue bytes
// A peer that connects and says nothing is dropped this soon, TLS handshake included.
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
// Time given to a TLS peer to answer our close_notify before the socket is closed anyway.
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);
// An HTTP request's limits: its head, and its body (an imported game record).
constexpr std::size_t kMaxHeaderBytes = 16 * 1024;
constexpr std::size_t kMaxBodyBytes = 1024 * 1024;
// After the server's last answer on a connection, what the peer still sends is read and dropped
// for this long and up to this much, then the socket is closed whatever the peer does.
constexpr auto kLingerTimeout = std::chrono::seconds(5);
constexpr std::size_t kMaxLingerBytes = 8 << 20;
// The rest of a WebSocket message refused for its size is read and dropped up to this much (and
// within --message-timeout), so that the peer, still sending it, reads the close frame rather
// than a reset; past it the connection is cut.
constexpr std::size_t kMaxDrainBytes = 8 << 20;

// The two kinds of connection. The connections below are templates on the stream; the little that
// differs between plain TCP and TLS is here, as overloads: how a connection opens (TLS: the
// handshake, bounded in time) and how the server ends it (plain: FIN; TLS: close_notify, then FIN).
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

template <class Handler>
void async_open(PlainStream&, Handler&& handler) {
  handler(beast::error_code{});
}

template <class Handler>
void async_open(TlsStream& stream, Handler&& handler) {
  beast::get_lowest_layer(stream).expires_after(kHandshakeTimeout);
  stream.async_handshake(asio::ssl::stream_base::server, std::forward<Handler>(handler));
}

template <class Handler>
void async_end(PlainStream& stream, Handler&& handler) {
  beast::error_code ec;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  handler(ec);
}

template <class Handler>
void async_end(TlsStream& stream, Handler&& handler) {
  beast::get_lowest_layer(stream).expires_after(kTlsShutdownTimeout);
  stream.async_shutdown(std::forward<Handler>(handler));
}

// The address a connection counts by: the one its slot was counted by at the door, else (a
// connection made without the door, as in tests) its peer's. Empty if the peer is gone.
template <class Lowest>
asio::ip::address peer_of(Lowest& lowest) {
  beast::error_code ec;
  asio::ip::address peer;
  if constexpr (requires { lowest.socket(); })
    peer = lowest.socket().remote_endpoint(ec).address();
  else
    peer = lowest.remote_endpoint(ec).address();
  return ec ? asio::ip::address() : peer;
}
template <class Lowest>
asio::ip::address counted_address(const ConnectionSlot& slot, Lowest& lowest) {
  if (slot) return slot.address();
  const auto peer = peer_of(lowest);
  return peer.is_unspecified() ? peer : client_key(peer);
}
template <class Lowest>
std::string client_address(const ConnectionSlot& slot, Lowest& lowest) {
  const auto a = counted_address(slot, lowest);
  return a.is_unspecified() ? std::string() : a.to_string();
}

template <class Stream>
class BasicWsConnection final : public WsConnection,
                                public std::enable_shared_from_this<BasicWsConnection<Stream>> {
 public:
  // Takes the connection over from the HTTP connection that read the upgrade request.
  BasicWsConnection(Stream&& stream, Server& server, ConnectionSlot slot)
      : ws_(std::move(stream)), server_(server), slot_(std::move(slot)) {
    // The address it was counted by at the door (the client's, even behind a balancer; an IPv6
    // one by its /64), read once: the lobby's per-address limits count by it.
    address_ = client_address(slot_, beast::get_lowest_layer(ws_));
  }
  using std::enable_shared_from_this<BasicWsConnection<Stream>>::shared_from_this;

  std::string address() const override { return address_; }
  long lag_ms() const override { return lag_ms_; }

  void run(http::request<http::string_body> req) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "plateau"); }));
    // The connection checks each message against --max-frame itself, from the frame header's
    // length (on_read), so that the peer gets proto/too_large and a clean close (1009): Beast's
    // own limit would send its close and shut the socket while the message is still arriving,
    // and the peer would see a reset instead.
    ws_.read_message_max(0);
    tokens_ = 2.0 * server_.config().rate;
    last_refill_ = std::chrono::steady_clock::now();
    ws_.async_accept(req,
                     [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  void send(const Frame& frame) override {
    if (closed_ || closing_ || left_) return;
    // Checked with the frame counted in, so that a queue never holds more than its limit.
    if (queued() + 1 > kMaxQueuedFrames ||
        queued_bytes_ + frame->size() > server_.config().max_connection_queue) {
      // A reader that cannot keep up is dropped, never waited for.
      ++server_.stats().dropped_slow;
      spdlog::warn("event=drop_slow_reader player={} queued={} bytes={}",
                   player() ? player()->id : "-", queued(), queued_bytes_);
      // Cut at once: a close frame would wait behind all it has not read, and the write in
      // flight has no timeout, so a peer that never reads again would hold its connection
      // and its queue for good.
      cut();
      return;
    }
    if (!server_.make_room(this, frame->size())) return;  // this one had the most queued: dropped
    queued_bytes_ += frame->size();
    server_.queued(frame->size(), queued_bytes_);
    queue_.push_back(frame);
    if (!writing_) write_next();
  }

  std::size_t queued_bytes() const override { return queued_bytes_; }

  void drop_over_budget() override {
    if (closed_ || cut_) return;
    ++server_.stats().dropped_over_budget;
    spdlog::warn("event=drop_over_budget player={} queued={} bytes={} all_bytes={}",
                 player() ? player()->id : "-", queued(), queued_bytes_,
                 server_.stats().queued_bytes);
    cut();
  }

  void close(websocket::close_code code) override {
    if (closed_ || closing_) return;
    closing_ = true;
    close_code_ = code;
    if (!writing_) do_close();
  }

  void keep_alive(std::chrono::steady_clock::time_point now, std::chrono::seconds idle) override {
    if (!open_ || closed_ || closing_) return;
    if (in_message_ &&
        now - message_started_ >= std::chrono::seconds(server_.config().message_timeout_seconds)) {
      // A message begun and left unfinished (a frame shorter than its header said, fragments
      // never ended): whatever the peer is doing, it holds a connection and a partial message.
      ++server_.stats().dropped_unfinished;
      spdlog::info("event=drop_unfinished_message player={} bytes={}",
                   player() ? player()->id : "-", refusing_ ? drained_ : message_.size());
      cut();
      return;
    }
    const bool answered = !ping_sent_ || heard_ >= *ping_sent_;
    if (!answered && now - *ping_sent_ >= idle / 2) {
      // A ping went unanswered for half the timeout (the peer has had that long, however late
      // this sweep runs): it is gone without a word. The pending read fails and ends it.
      spdlog::debug("event=drop_silent player={}", player() ? player()->id : "-");
      cut();
      return;
    }
    // A player that is sending messages (at a table) is pinged every kLagProbe as well,
    // so that its lag is known when its clock needs it; an idle one only when silent.
    const bool probe = player() && !in_message_ &&
                       now - message_started_ < std::chrono::minutes(1) &&
                       (!ping_sent_ || now - *ping_sent_ >= kLagProbe);
    if (answered && !pinging_ && (now - heard_ >= idle / 2 || probe)) {
      pinging_ = true;
      ping_sent_ = now;
      ws_.async_ping({}, [self = shared_from_this()](beast::error_code) {
        self->pinging_ = false;
        if (self->close_after_ping_) self->do_close();
      });
    }
  }

 private:
  void on_accept(beast::error_code ec) {
    if (ec) return;  // nothing registered yet: its connection slot goes with the connection
    // From here the server's keep-alive sweep watches the connection: Beast's own idle timer
    // would hold a pending wait (and its allocation) on every idle connection.
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(30);  // bounds the closing handshake
    timeouts.idle_timeout = websocket::stream_base::none();
    timeouts.keep_alive_pings = false;
    ws_.set_option(timeouts);
    ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
      heard_ = std::chrono::steady_clock::now();
      if (kind == websocket::frame_type::pong && ping_sent_ && heard_ >= *ping_sent_) {
        // Half the round trip, smoothed: one slow pong does not make a slow line.
        const long one_way = static_cast<long>(
            std::chrono::duration_cast<std::chrono::milliseconds>(heard_ - *ping_sent_).count() /
            2);
        lag_ms_ = lag_measured_ ? (3 * lag_ms_ + one_way) / 4 : one_way;
        lag_measured_ = true;
        server_.stats().lag.record_us(
            std::chrono::duration_cast<std::chrono::microseconds>(heard_ - *ping_sent_).count() /
            2);
      }
      // The peer said goodbye: it reads nothing more, so it leaves its rooms now, not once the
      // closing handshake and the TCP teardown are over. A browser reports the socket closed
      // as soon as the server answers its close frame, and the change it may then cause (a
      // move by someone else) must not be counted as sent to a connection that never read it:
      // a spectator's kept patches start from what it really had.
      if (kind == websocket::frame_type::close) leave_rooms();
    });
    heard_ = std::chrono::steady_clock::now();
    open_ = true;
    server_.add(shared_from_this());
    read_next();
  }

  // Reads a message piece by piece into a small buffer of the connection's own, so that an idle
  // connection's pending read holds no heap buffer (a dynamic buffer would reserve 1.5 KB).
  void read_next() {
    ws_.async_read_some(
        asio::buffer(chunk_),
        [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(beast::error_code ec, std::size_t n) {
    if (ec) return gone();
    heard_ = std::chrono::steady_clock::now();
    if (!in_message_) {
      in_message_ = true;
      message_started_ = heard_;
    }
    const bool done = ws_.is_message_done();
    if (refusing_) return drain(n, done);
    // What the current frame still holds, from its header (Beast's hint is 1 between two
    // fragments, whose next header is not read yet, and when 1 byte is left: counted as 0).
    const std::size_t rest = done ? 0 : ws_.read_size_hint(1);
    const std::size_t max = server_.config().max_frame;
    if (message_.size() + n > max || (rest > 1 && message_.size() + n + rest > max))
      return refuse_too_large(n, done);
    message_.append(chunk_.data(), n);
    if (!done) return read_next();
    in_message_ = false;
    const bool text = ws_.got_text();
    std::string frame = std::move(message_);
    message_ = std::string();
    server_.on_message(shared_from_this(), std::move(frame), text, rate_ok());
    if (!closed_ && !closing_) read_next();
  }

  // A message over --max-frame, seen from its frame header (or as the fragments add up): it is
  // never buffered. The peer is told, the rest of the message is read and dropped, then the
  // connection closes with 1009. Closing at once would reset the connection under a peer still
  // sending, and it would never read the error or the close.
  void refuse_too_large(std::size_t n, bool done) {
    ++server_.stats().too_large;
    refusing_ = true;
    message_ = std::string();
    server_.refuse(shared_from_this(),
                   {protocol::Code::too_large,
                    "a message over " + std::to_string(server_.config().max_frame) +
                        " bytes; the connection closes",
                    nullptr});
    drained_ = 0;
    drain(n, done);
  }
  void drain(std::size_t n, bool done) {
    drained_ += n;
    if (done) {
      in_message_ = false;
      return close(websocket::close_code::too_big);
    }
    if (drained_ > kMaxDrainBytes) {
      spdlog::info("event=drop_oversize_sender bytes={}", drained_);
      return cut();
    }
    read_next();
  }

  bool rate_ok() {
    const auto now = std::chrono::steady_clock::now();
    const double rate = server_.config().rate;
    tokens_ = std::min(2.0 * rate,
                       tokens_ + rate * std::chrono::duration<double>(now - last_refill_).count());
    last_refill_ = now;
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

  void write_next() {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(asio::buffer(*queue_[head_]),
                    [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                      self->on_write(ec, n);
                    });
  }

  void on_write(beast::error_code ec, std::size_t n) {
    writing_ = false;
    if (ec || cut_ || closed_) return gone();
    ++server_.stats().frames_out;
    server_.stats().bytes_out += n;
    queued_bytes_ -= queue_[head_]->size();
    server_.unqueued(queue_[head_]->size());
    queue_[head_++].reset();
    if (head_ == queue_.size()) {
      // Drained: start again at the front, and give back what a burst made the queue grow to.
      queue_.clear();
      head_ = 0;
      if (queue_.capacity() > 16) queue_.shrink_to_fit();
    }
    if (queued() > 0)
      write_next();
    else if (closing_)
      do_close();
  }

  // Ends the connection without a closing handshake, for a peer that would never complete
  // one: the pending read (and any write) fails, and gone() follows.
  void cut() {
    closing_ = true;
    cut_ = true;
    release_queue();
    beast::close_socket(beast::get_lowest_layer(ws_));
  }

  // Frees what is queued and takes it off the output budget, but the frame being written: its
  // bytes stay valid until its write completes.
  void release_queue() {
    server_.unqueued(queued_bytes_);
    queued_bytes_ = 0;
    if (writing_ && head_ < queue_.size()) {
      queue_.resize(head_ + 1);
    } else {
      queue_.clear();
      head_ = 0;
    }
  }

  void do_close() {
    if (pinging_) {
      close_after_ping_ = true;  // one control frame at a time: the close follows the ping
      return;
    }
    close_after_ping_ = false;
    ws_.async_close(close_code_, [self = shared_from_this()](beast::error_code) { self->gone(); });
  }

  // The connection is over, however it ended: the lobby and the rooms forget it.
  void gone() {
    if (closed_) return;
    closed_ = true;
    release_queue();
    leave_rooms();
    server_.remove(this);
  }
  void leave_rooms() {
    if (left_) return;
    left_ = true;
    server_.on_left(this);
  }

  websocket::stream<Stream> ws_;
  std::string address_;  // the peer's IP address, as text
  std::array<char, 128> chunk_;
  std::string message_;  // the message being read
  Server& server_;
  ConnectionSlot slot_;  // counted against --max-connections and --max-per-ip
  std::chrono::steady_clock::time_point
      message_started_;      // the first bytes of the message being read
  std::size_t drained_ = 0;  // bytes dropped of a message refused for its size
  // Frames not yet written, from head_. A vector, not a deque: an empty deque still holds a
  // 512-byte block, and most connections have nothing queued most of the time.
  std::vector<Frame> queue_;
  std::size_t head_ = 0;
  std::size_t queued() const { return queue_.size() - head_; }
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closing_ = false;
  bool closed_ = false;
  bool left_ = false;        // the lobby and the rooms were told the connection is gone
  bool cut_ = false;         // the socket was closed under the connection
  bool in_message_ = false;  // part of a message has arrived, not all of it
  bool refusing_ = false;    // the message is over --max-frame: read and dropped, then closed
  websocket::close_code close_code_ = websocket::close_code::normal;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point last_refill_;
  std::chrono::steady_clock::time_point heard_;  // the last frame from the peer, pongs included
  bool open_ = false;                            // the WebSocket handshake is done
  bool pinging_ = false;
  bool close_after_ping_ = false;
  std::optional<std::chrono::steady_clock::time_point> ping_sent_;  // the last ping, if any
  static constexpr std::chrono::seconds kLagProbe{10};
  long lag_ms_ = 0;  // one way, from the pongs (lag_ms())
  bool lag_measured_ = false;
};

// The WebSocket takes the connection over from the HTTP connection: each is defined with the
// connection kind it serves (serve_plain.cpp, serve_tls.cpp).
void start_websocket(PlainStream&& stream, Server& server, http::request<http::string_body> req,
                     ConnectionSlot slot);
void start_websocket(TlsStream&& stream, Server& server, http::request<http::string_body> req,
                     ConnectionSlot slot);

template <class Stream>
class HttpConnection final : public std::enable_shared_from_this<HttpConnection<Stream>> {
 public:
  HttpConnection(Stream&& stream, Server& server, ConnectionSlot slot)
      : stream_(std::move(stream)), server_(server), slot_(std::move(slot)) {
    // The peer itself, not the key it is counted by: an IPv6 proxy is trusted by its whole
    // address, never by its /64.
    from_ = peer_of(beast::get_lowest_layer(stream_));
    peer_ = client_address(slot_, beast::get_lowest_layer(stream_));
  }
  using std::enable_shared_from_this<HttpConnection<Stream>>::shared_from_this;

  void run() {
    async_open(stream_, [self = shared_from_this()](beast::error_code ec) {
      // A failed TLS handshake (a plain HTTP client, a scanner, a peer gone silent) ends here.
      if (ec) return spdlog::debug("event=handshake_failed error=\"{}\"", ec.message());
      self->read_next();
    });
  }

 private:
  void read_next() {
    responding_ = false;
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(kMaxBodyBytes);  // an imported record may hold a long game
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  // The head is read. A client that asks before sending its body ("Expect: 100-continue", as
  // curl does past 1 MB) is told to go on now; a body declared over the limit has already failed
  // the parse, so it is refused before it is sent.
  void on_header(beast::error_code ec) {
    if (ec || parser_->is_done()) return on_read(ec);
    auto read_body = [self = shared_from_this()] {
      http::async_read(self->stream_, self->buffer_, *self->parser_,
                       [self](beast::error_code ec, std::size_t) { self->on_read(ec); });
    };
    if (!beast::iequals(parser_->get()[http::field::expect], "100-continue")) return read_body();
    auto go_on = std::make_shared<http::response<http::empty_body>>(http::status::continue_,
                                                                    parser_->get().version());
    http::async_write(stream_, *go_on, [go_on, read_body](beast::error_code ec, std::size_t) {
      if (!ec) read_body();
    });
  }

  // The server is done with the connection: the peer reads the end of it. What the peer still
  // sends (the rest of a body refused for its size) is read and dropped until it closes its
  // side, so that closing ours cannot reset the connection before the answer is read.
  void end() {
    beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
    async_end(stream_, [self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->drain(0);
    });
  }
  void drain(std::size_t so_far) {
    if (so_far > kMaxLingerBytes) return;
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(64 * 1024), [self = shared_from_this(), so_far](
                                                            beast::error_code ec, std::size_t n) {
      if (!ec) self->drain(so_far + n);
    });
  }

  // A request that cannot be answered as asked: the answer says why, and the connection ends.
  void refuse(http::status status, std::string_view code, std::string message) {
    const unsigned version = parser_ && parser_->is_header_done() ? parser_->get().version() : 11;
    HttpRequest head{http::verb::get, "/", version};
    head.keep_alive(false);
    respond(json_error(head, status, code, std::move(message)));
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return end();
    if (ec == http::error::body_limit)
      return refuse(http::status::payload_too_large, "http/too_large",
                    "the body is over " + std::to_string(kMaxBodyBytes) + " bytes");
    if (ec == http::error::header_limit)
      return refuse(http::status::request_header_fields_too_large, "http/header_too_large",
                    "the request's head is over " + std::to_string(kMaxHeaderBytes) + " bytes");
    // Not HTTP/1.1. A peer that left mid-request, or went silent, has nobody left to answer.
    if (ec.category() == make_error_code(http::error::bad_target).category() &&
        ec != http::error::partial_message)
      return refuse(http::status::bad_request, "http/bad_request",
                    "a malformed HTTP request (" + ec.message() + ")");
    if (ec) return;
    auto req = parser_->release();
    if (!count_forwarded(req)) return;
    if (websocket::is_upgrade(req)) {
      if (req.target() != beast::string_view("/ws") || !server_.accepting_ws())
        return respond(text_response(req, http::status::not_found, "no WebSocket here\n"));
      const auto origin = req[http::field::origin], host = req[http::field::host];
      if (!origin_allowed({origin.data(), origin.size()}, {host.data(), host.size()},
                          server_.config().allowed_origins)) {
        spdlog::warn("event=ws_refused reason=origin peer={} origin=\"{}\"", peer_,
                     std::string(req[http::field::origin].substr(0, 200)));
        req.keep_alive(false);
        return respond(
            json_error(req, http::status::forbidden, "ws/origin",
                       "WebSockets are open to this server's own pages (see --allowed-origins)"));
      }
      beast::get_lowest_layer(stream_).expires_never();
      start_websocket(std::move(stream_), server_, std::move(req), std::move(slot_));
      return;
    }
    try {
      answer_http(server_, req, peer_,
                  [self = shared_from_this()](HttpResponse res) { self->respond(std::move(res)); });
    } catch (const std::exception& e) {
      ++server_.stats().internal_errors;
      spdlog::error("event=internal_error where=http target=\"{}\" error=\"{}\"",
                    std::string(req.target()), e.what());
      // If it threw after answering, a write is in flight and a second one must not start.
      if (!responding_)
        refuse(http::status::internal_server_error, "internal/error",
               "the server failed to answer this request");
    }
  }

  // Behind a reverse proxy (--forwarded-for-from), a request is for the client its
  // X-Forwarded-For names: the connection counts as that client from here on (against
  // --max-per-ip), and the per-address limits of HTTP and of the WebSocket it may become apply to
  // that client. False when that client is at --max-per-ip: the request is refused.
  bool count_forwarded(const http::request<http::string_body>& req) {
    std::string values;
    for (auto [it, end] = req.equal_range("X-Forwarded-For"); it != end; ++it) {
      if (!values.empty()) values += ',';
      values.append(it->value().data(), it->value().size());
    }
    const auto client = server_.forwarded_client(from_, values);
    if (!client) return true;
    const auto key = client_key(*client);
    if (slot_ && slot_.address() == key) return true;
    auto moved = server_.recount(key);
    if (!moved) {
      refuse(http::status::too_many_requests, "http/too_many_connections",
             "too many connections from your address (--max-per-ip)");
      return false;
    }
    slot_ = std::move(moved);
    peer_ = key.to_string();
    return true;
  }

  void respond(HttpResponse res) {
    responding_ = true;
    auto shared = std::make_shared<HttpResponse>(std::move(res));
    http::async_write(stream_, *shared,
                      [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        if (!shared->keep_alive()) return self->end();
                        self->read_next();
                      });
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Server& server_;
  asio::ip::address from_;  // the peer the connection came from (a proxy's, behind one)
  std::string peer_;        // the client's address, for logs and limits
  ConnectionSlot
      slot_;  // counted against --max-connections and --max-per-ip; the WebSocket takes it over
  bool responding_ = false;  // an answer to the last request is being written
};

}  // namespace plateau::server::connections
