#include "net.hpp"

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "history.hpp"
#include "sqlite_store.hpp"

#ifndef PLATEAU_WEB_DIR
#define PLATEAU_WEB_DIR "clients/web"
#endif

namespace plateau::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxQueuedFrames = 2048;
constexpr std::size_t kMaxQueuedBytes = 8 << 20;
// A peer that connects and says nothing is dropped this soon, TLS handshake included.
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
// Time given to a TLS peer to answer our close_notify before the socket is closed anyway.
constexpr auto kTlsShutdownTimeout = std::chrono::seconds(5);

Millis now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string_view mime_type(std::string_view path) {
  const auto dot = path.rfind('.');
  const auto ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot);
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".json" || ext == ".webmanifest") return "application/json";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".ico") return "image/x-icon";
  if (ext == ".txt" || ext == ".md") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

// The value of `key` in a URL query ("room=ab&round=2"), unescaped only for the characters
// our ids use; empty when absent.
std::string query_param(std::string_view target, std::string_view key) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return "";
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == key) return std::string(pair.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// The two kinds of connection. The sessions below are templates on the stream; the little that
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

}  // namespace

std::expected<std::shared_ptr<asio::ssl::context>, std::string> load_tls_context(const std::string& cert,
                                                                                const std::string& key) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1 |
                   asio::ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  // An encrypted key would make OpenSSL prompt on the terminal (and a container has none):
  // answer with no passphrase, so that such a key fails to load instead.
  ctx->set_password_callback([](std::size_t, asio::ssl::context::password_purpose) { return std::string(); });
  // OpenSSL reports a missing file as a bare "asio.ssl error": say what the system said.
  for (const auto* path : {&cert, &key}) {
    std::FILE* f = std::fopen(path->c_str(), "rb");
    if (!f) return std::unexpected("cannot read " + *path + ": " + std::strerror(errno));
    std::fclose(f);
  }
  beast::error_code ec;
  ctx->use_certificate_chain_file(cert, ec);
  if (ec) return std::unexpected("cannot load the certificate chain " + cert + ": " + ec.message());
  ctx->use_private_key_file(key, asio::ssl::context::pem, ec);
  if (ec) return std::unexpected("cannot load the private key " + key + ": " + ec.message());
  // OpenSSL has not always refused a key that does not match the certificate: make sure.
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    return std::unexpected("the private key " + key + " does not match the certificate " + cert);
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// A WebSocket connection as the server sees it, whatever it runs on: shutdown closes it.
class WsSession : public Client {
 public:
  // Sends what is queued, then closes with `code`.
  virtual void close(websocket::close_code code) = 0;
  // Called every second: a peer silent for half of `idle` is pinged, one silent for all of it
  // (its pong included) is let go. One sweep for all connections, not a timer each.
  virtual void keep_alive(std::chrono::steady_clock::time_point now, std::chrono::seconds idle) = 0;
};

template <class Stream>
class BasicWsSession final : public WsSession, public std::enable_shared_from_this<BasicWsSession<Stream>> {
 public:
  // Takes the connection over from the HTTP session that read the upgrade request.
  BasicWsSession(Stream&& stream, Server& server) : ws_(std::move(stream)), server_(server) {}
  using std::enable_shared_from_this<BasicWsSession<Stream>>::shared_from_this;

  void run(http::request<http::string_body> req) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "plateau"); }));
    // Frames up to 4× the limit are read and answered with proto/too_large; past that the
    // connection is closed (1009), since reading them would cost memory on a hostile peer.
    ws_.read_message_max(std::max<std::size_t>(server_.config().max_frame * 4, 256 * 1024));
    tokens_ = 2.0 * server_.config().rate;
    last_refill_ = std::chrono::steady_clock::now();
    ws_.async_accept(req, [self = shared_from_this()](beast::error_code ec) { self->on_accept(ec); });
  }

  void send(const Frame& frame) override {
    if (closed_ || closing_) return;
    if (queued() >= kMaxQueuedFrames || queued_bytes_ > kMaxQueuedBytes) {
      // A reader that cannot keep up is dropped, never waited for.
      ++server_.stats().dropped_slow;
      spdlog::warn("event=drop_slow_reader player={} queued={} bytes={}", player() ? player()->id : "-", queued(),
                   queued_bytes_);
      // Cut at once: a close frame would wait behind all it has not read, and the write in
      // flight has no timeout, so a peer that never reads again would hold its connection
      // and its queue for good.
      cut();
      return;
    }
    queued_bytes_ += frame->size();
    queue_.push_back(frame);
    if (!writing_) write_next();
  }

  void close(websocket::close_code code) override {
    if (closed_ || closing_) return;
    closing_ = true;
    close_code_ = code;
    if (!writing_) do_close();
  }

  void keep_alive(std::chrono::steady_clock::time_point now, std::chrono::seconds idle) override {
    if (!open_ || closed_ || closing_) return;
    const bool answered = !ping_sent_ || heard_ >= *ping_sent_;
    if (!answered && now - *ping_sent_ >= idle / 2) {
      // A ping went unanswered for half the timeout (the peer has had that long, however late
      // this sweep runs): it is gone without a word. The pending read fails and ends it.
      spdlog::debug("event=drop_silent player={}", player() ? player()->id : "-");
      cut();
      return;
    }
    if (answered && !pinging_ && now - heard_ >= idle / 2) {
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
    if (ec) return;
    // From here the server's keep-alive sweep watches the connection: Beast's own idle timer
    // would hold a pending wait (and its allocation) on every idle connection.
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(30);  // bounds the closing handshake
    timeouts.idle_timeout = websocket::stream_base::none();
    timeouts.keep_alive_pings = false;
    ws_.set_option(timeouts);
    ws_.control_callback([this](websocket::frame_type, beast::string_view) { heard_ = std::chrono::steady_clock::now(); });
    heard_ = std::chrono::steady_clock::now();
    open_ = true;
    server_.add(shared_from_this());
    read_next();
  }

  // Reads a message piece by piece into a small buffer of the session's own, so that an idle
  // connection's pending read holds no heap buffer (a dynamic buffer would reserve 1.5 KB).
  void read_next() {
    ws_.async_read_some(asio::buffer(chunk_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      self->on_read(ec, n);
    });
  }

  void on_read(beast::error_code ec, std::size_t n) {
    if (ec) return gone();
    heard_ = std::chrono::steady_clock::now();
    message_.append(chunk_.data(), n);
    if (!ws_.is_message_done()) return read_next();  // read_message_max bounds the message
    const bool text = ws_.got_text();
    std::string frame = std::move(message_);
    message_ = std::string();
    if (!rate_ok()) {
      server_.lobby().refuse(shared_from_this(),
                             {protocol::Code::rate_limited, "too many messages; slow down", nullptr});
    } else if (!text) {
      server_.lobby().refuse(shared_from_this(),
                             {protocol::Code::bad_json, "send text frames holding JSON", nullptr});
    } else {
      auto req = protocol::decode(frame, protocol::Limits{server_.config().max_frame, 32});
      if (!req) server_.lobby().refuse(shared_from_this(), req.error());
      else server_.lobby().handle(shared_from_this(), std::move(*req));
    }
    if (!closed_ && !closing_) read_next();
  }

  bool rate_ok() {
    const auto now = std::chrono::steady_clock::now();
    const double rate = server_.config().rate;
    tokens_ = std::min(2.0 * rate, tokens_ + rate * std::chrono::duration<double>(now - last_refill_).count());
    last_refill_ = now;
    if (tokens_ < 1.0) return false;
    tokens_ -= 1.0;
    return true;
  }

  void write_next() {
    writing_ = true;
    ws_.text(true);
    ws_.async_write(asio::buffer(*queue_[head_]),
                    [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_write(ec, n); });
  }

  void on_write(beast::error_code ec, std::size_t n) {
    writing_ = false;
    if (ec) return gone();
    ++server_.stats().frames_out;
    server_.stats().bytes_out += n;
    queued_bytes_ -= queue_[head_]->size();
    queue_[head_++].reset();
    if (head_ == queue_.size()) {
      // Drained: start again at the front, and give back what a burst made the queue grow to.
      queue_.clear();
      head_ = 0;
      if (queue_.capacity() > 16) queue_.shrink_to_fit();
    }
    if (queued() > 0) write_next();
    else if (closing_) do_close();
  }

  // Ends the connection without a closing handshake, for a peer that would never complete
  // one: the pending read (and any write) fails, and gone() follows.
  void cut() {
    closing_ = true;
    beast::close_socket(beast::get_lowest_layer(ws_));
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
    queue_.clear();
    head_ = 0;
    server_.lobby().closed(this);
    server_.remove(this);
  }

  websocket::stream<Stream> ws_;
  std::array<char, 128> chunk_;
  std::string message_;  // the message being read
  Server& server_;
  // Frames not yet written, from head_. A vector, not a deque: an empty deque still holds a
  // 512-byte block, and most connections have nothing queued most of the time.
  std::vector<Frame> queue_;
  std::size_t head_ = 0;
  std::size_t queued() const { return queue_.size() - head_; }
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool closing_ = false;
  bool closed_ = false;
  websocket::close_code close_code_ = websocket::close_code::normal;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point last_refill_;
  std::chrono::steady_clock::time_point heard_;  // the last frame from the peer, pongs included
  bool open_ = false;                            // the WebSocket handshake is done
  bool pinging_ = false;
  bool close_after_ping_ = false;
  std::optional<std::chrono::steady_clock::time_point> ping_sent_;  // the last ping, if any
};

// The WebSocket takes the connection over from the HTTP session. Over plain TCP it keeps just
// the socket: the WebSocket stream runs its own timeouts, and a tcp_stream's timers would cost
// every idle connection another half kilobyte.
void start_websocket(PlainStream&& stream, Server& server, http::request<http::string_body> req) {
  std::make_shared<BasicWsSession<tcp::socket>>(stream.release_socket(), server)->run(std::move(req));
}
void start_websocket(TlsStream&& stream, Server& server, http::request<http::string_body> req) {
  std::make_shared<BasicWsSession<TlsStream>>(std::move(stream), server)->run(std::move(req));
}

// ---------------------------------------------------------------------------------------------
template <class Stream>
class HttpSession final : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(Stream&& stream, Server& server) : stream_(std::move(stream)), server_(server) {}
  using std::enable_shared_from_this<HttpSession<Stream>>::shared_from_this;

  void run() {
    async_open(stream_, [self = shared_from_this()](beast::error_code ec) {
      // A failed TLS handshake (a plain HTTP client, a scanner, a peer gone silent) ends here.
      if (ec) return spdlog::debug("event=handshake_failed error=\"{}\"", ec.message());
      self->read_next();
    });
  }

 private:
  void read_next() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    parser_->body_limit(1024 * 1024);  // an imported record may hold a long game
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
  }

  // The server is done with the connection: the peer reads the end of it.
  void end() {
    async_end(stream_, [self = shared_from_this()](beast::error_code) {});
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) return end();
    if (ec) return;
    auto req = parser_->release();
    if (websocket::is_upgrade(req)) {
      if (req.target() != beast::string_view("/ws") || !server_.accepting_ws()) return respond(text_response(req, http::status::not_found, "no WebSocket here\n"));
      beast::get_lowest_layer(stream_).expires_never();
      start_websocket(std::move(stream_), server_, std::move(req));
      return;
    }
    auto res = handle(req);
    if (deferred_) return;  // answered later, when the store is done (import)
    respond(std::move(res));
  }

  using Response = http::response<http::string_body>;

  static Response text_response(const http::request<http::string_body>& req, http::status status,
                                std::string body, std::string_view type = "text/plain; charset=utf-8") {
    Response res{status, req.version()};
    res.set(http::field::server, "plateau");
    res.set(http::field::content_type, beast::string_view(type.data(), type.size()));
    res.set(http::field::cache_control, "no-cache");
    res.keep_alive(req.keep_alive());
    res.body() = std::move(body);
    res.prepare_payload();
    return res;
  }

  Response handle(const http::request<http::string_body>& req) {
    std::string target(req.target().data(), req.target().size());
    const std::string full_target = target;
    if (req.method() == http::verb::post && target == "/api/import") return import_record(req);
    if (target.rfind("/admin/", 0) == 0) return admin(req, target);
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text_response(req, http::status::method_not_allowed, "GET only\n");
    if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
    if (target == "/healthz") {
      const json body{{"status", "ok"},
                      {"rooms", server_.lobby().room_count()},
                      {"connections", server_.stats().connections}};
      return text_response(req, http::status::ok, body.dump() + "\n", "application/json");
    }
    if (target == "/metrics")
      return text_response(req, http::status::ok, server_.metrics_text(), "text/plain; version=0.0.4");
    if (target.rfind("/api/", 0) == 0) return api(req, target, full_target);
    return serve_file(req, target);
  }

  static Response json_response(const http::request<http::string_body>& req, http::status status, const json& body) {
    return text_response(req, status, body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
                         "application/json");
  }
  static Response api_error(const http::request<http::string_body>& req, http::status status, std::string message) {
    return json_response(req, status, json{{"error", std::move(message)}});
  }

  // The admin API: off unless an admin token is set; every call carries it as a bearer token.
  //   GET  /admin/rooms                 every room in memory, private ones included
  //   POST /admin/rooms/<id>/close      closes a room (its clients get room/not_found)
  //   POST /admin/announce  {"message"} sends an `announce` to every connected client
  Response admin(const http::request<http::string_body>& req, const std::string& target) {
    const auto& token = server_.config().admin_token;
    if (token.empty()) return api_error(req, http::status::not_found, "the admin API is off (no admin token set)");
    const auto auth = req[http::field::authorization];
    const std::string given(auth.data(), auth.size());
    // Compared in constant time, so the token cannot be guessed byte by byte from timings.
    const std::string expected = "Bearer " + token;
    unsigned diff = given.size() != expected.size();
    for (std::size_t i = 0; i < std::min(given.size(), expected.size()); ++i) diff |= static_cast<unsigned>(given[i] ^ expected[i]);
    if (diff != 0) {
      spdlog::warn("event=admin_refused target={}", target);
      return api_error(req, http::status::unauthorized, "a valid admin token is required");
    }
    if (req.method() == http::verb::get && target == "/admin/rooms") {
      json rooms = json::array();
      for (const auto& [id, room] : server_.lobby().rooms()) {
        json s = room->summary();
        s["version"] = room->version();
        rooms.push_back(std::move(s));
      }
      return json_response(req, http::status::ok, json{{"rooms", rooms}});
    }
    if (req.method() == http::verb::post && target.rfind("/admin/rooms/", 0) == 0 && target.ends_with("/close")) {
      const auto id = target.substr(13, target.size() - 13 - 6);
      if (!server_.lobby().close_room(id)) return api_error(req, http::status::not_found, "no such room");
      spdlog::info("event=admin_close room={}", id);
      return json_response(req, http::status::ok, json{{"closed", id}});
    }
    if (req.method() == http::verb::post && target == "/admin/announce") {
      const json body = json::parse(req.body(), nullptr, false);
      if (!body.is_object() || !body.contains("message") || !body["message"].is_string() ||
          body["message"].get_ref<const std::string&>().empty() || body["message"].get_ref<const std::string&>().size() > 1000)
        return api_error(req, http::status::bad_request, "send {\"message\": \"...\"} (at most 1000 bytes)");
      server_.lobby().announce(body["message"]);
      spdlog::info("event=admin_announce clients={}", server_.stats().connections);
      return json_response(req, http::status::ok, json{{"sent_to", server_.stats().connections}});
    }
    return api_error(req, http::status::not_found, "no such admin call");
  }

  // History and replays: read from the store's read-only connection.
  Response api(const http::request<http::string_body>& req, const std::string& path, const std::string& target) {
    SqliteStore* store = server_.store();
    if (!store) return api_error(req, http::status::not_found, "history is off: the server keeps no store");
    if (path == "/api/history") {
      int limit = 50;
      if (const auto l = query_param(target, "limit"); !l.empty() && l.size() < 4 && l.find_first_not_of("0123456789") == std::string::npos)
        limit = std::clamp(std::stoi(l), 1, 500);
      return json_response(req, http::status::ok, json{{"games", store->finished_games(limit)}});
    }
    if (path == "/api/replay" || path == "/api/export") {
      const auto room = query_param(target, "room");
      const auto round_text = query_param(target, "round");
      int round = 1;
      if (!round_text.empty()) {
        if (round_text.size() > 6 || round_text.find_first_not_of("0123456789") != std::string::npos)
          return api_error(req, http::status::bad_request, "round is a number");
        round = std::stoi(round_text);
      }
      if (room.empty() || room.size() > 64) return api_error(req, http::status::bad_request, "room is required");
      auto record = store->read_record(room, round);
      if (!record) return api_error(req, http::status::internal_server_error, record.error());
      if (!*record) return api_error(req, http::status::not_found, "no such game");
      // A game still being played keeps its secrets (the seed fixes every draw to come).
      if ((*record)->result.is_null())
        return api_error(req, http::status::conflict, "this game is still being played: watch it live instead");
      if (path == "/api/export") {
        auto res = json_response(req, http::status::ok, record_to_json(**record));
        res.set(http::field::content_disposition,
                "attachment; filename=\"plateau-" + (*record)->game + "-" + room + "-" + std::to_string(round) + ".json\"");
        return res;
      }
      auto frames = replay_frames(**record);
      if (!frames) return api_error(req, http::status::unprocessable_entity, frames.error());
      return json_response(req, http::status::ok, json{{"record", record_to_json(**record)}, {"frames", std::move(*frames)}});
    }
    return api_error(req, http::status::not_found, "no such API");
  }

  // POST /api/import: a record is checked by replaying it, then stored as a finished game of
  // its own; the reply (sent once it is durable) names the room to replay.
  Response import_record(const http::request<http::string_body>& req) {
    SqliteStore* store = server_.store();
    if (!store) return api_error(req, http::status::not_found, "history is off: the server keeps no store");
    const json body = json::parse(req.body(), nullptr, false);
    if (body.is_discarded()) return api_error(req, http::status::bad_request, "the body is not JSON");
    if (protocol::json_depth(req.body(), 32) > 32) return api_error(req, http::status::bad_request, "too deep");
    auto record = record_from_json(body);
    if (!record) return api_error(req, http::status::bad_request, record.error());
    auto frames = replay_frames(*record);
    if (!frames) return api_error(req, http::status::unprocessable_entity, frames.error());
    if (frames->back()["status"] != "over")
      return api_error(req, http::status::unprocessable_entity, "only finished games can be imported");
    record->result = frames->back()["outcome"];
    record->room = server_.lobby().new_room_id();
    record->round = 1;
    if (record->finished_ms == 0) record->finished_ms = now_ms();
    pending_ = std::make_shared<http::request<http::string_body>>(req);
    deferred_ = true;
    store->import_record(*record, [self = shared_from_this(), room = record->room](bool ok) {
      self->deferred_ = false;
      auto& r = *self->pending_;
      self->respond(ok ? json_response(r, http::status::created, json{{"room", room}, {"round", 1}})
                       : api_error(r, http::status::internal_server_error, "the game could not be stored"));
    });
    return Response{};  // answered when the store is done
  }

  Response serve_file(const http::request<http::string_body>& req, std::string target) {
    if (target.empty() || target == "/") target = "/index.html";
    if (target.find("..") != std::string::npos || target.find('\\') != std::string::npos ||
        target.find('\0') != std::string::npos)
      return text_response(req, http::status::bad_request, "bad path\n");
    const std::string root = server_.config().web_root.empty() ? PLATEAU_WEB_DIR : server_.config().web_root;
    const std::filesystem::path path = std::filesystem::path(root) / target.substr(1);
    std::error_code fec;
    if (!std::filesystem::is_regular_file(path, fec))
      return text_response(req, http::status::not_found, "not found\n");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    auto res = text_response(req, http::status::ok, body.str(), mime_type(path.string()));
    if (req.method() == http::verb::head) res.body().clear();
    return res;
  }

  void respond(Response res) {
    auto shared = std::make_shared<Response>(std::move(res));
    http::async_write(stream_, *shared, [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
      if (ec) return;
      if (!shared->keep_alive()) return self->end();
      self->read_next();
    });
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  Server& server_;
  std::shared_ptr<http::request<http::string_body>> pending_;
  bool deferred_ = false;
};

// ---------------------------------------------------------------------------------------------
Server::Server(Config config, asio::io_context& ioc, Lobby& lobby, SqliteStore* store,
               std::shared_ptr<asio::ssl::context> tls)
    : config_(std::move(config)),
      ioc_(ioc),
      lobby_(lobby),
      store_(store),
      tls_(std::move(tls)),
      acceptor_(ioc),
      ticker_(ioc) {}

Server::~Server() = default;

std::expected<void, std::string> Server::start() {
  // Never serve in clear text what was meant to be encrypted.
  if (!config_.tls_cert.empty() && !tls_) return std::unexpected("TLS is configured but no certificate is loaded");
  beast::error_code ec;
  const auto address = asio::ip::make_address(config_.host, ec);
  if (ec) return std::unexpected("bad --host " + config_.host + ": " + ec.message());
  const tcp::endpoint endpoint{address, static_cast<unsigned short>(config_.port)};
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return std::unexpected("cannot listen on " + config_.host + ":" + std::to_string(config_.port) + ": " + ec.message());
  accept();
  // The rooms learn the time from this tick only.
  struct Ticker {
    static void arm(Server* s) {
      s->ticker_.expires_after(std::chrono::seconds(1));
      s->ticker_.async_wait([s](beast::error_code ec) {
        if (ec || s->stopping_) return;
        s->lobby_.tick(now_ms());
        s->sweep_idle();
        arm(s);
      });
    }
  };
  lobby_.tick(now_ms());
  Ticker::arm(this);
  return {};
}

unsigned short Server::port() const {
  beast::error_code ec;
  const auto ep = acceptor_.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Server::accept() {
  acceptor_.async_accept(ioc_, [this](beast::error_code ec, tcp::socket socket) {
    if (stopping_) return;
    if (!ec) {
      beast::error_code ignored;
      if (sessions_.size() >= config_.max_connections) {
        socket.close(ignored);  // over the limit: refused before any byte is read
        return accept();
      }
      // Frames are small and each one matters now: Nagle's wait for an ACK would hold a
      // patch back for as long as the peer delays its ACKs.
      socket.set_option(tcp::no_delay(true), ignored);
      if (tls_)
        std::make_shared<HttpSession<TlsStream>>(TlsStream(std::move(socket), *tls_), *this)->run();
      else
        std::make_shared<HttpSession<PlainStream>>(PlainStream(std::move(socket)), *this)->run();
    }
    accept();
  });
}

void Server::sweep_idle() {
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::seconds idle(config_.idle_timeout_seconds);
  for (const auto& [ptr, weak] : sessions_)
    if (const auto s = weak.lock()) s->keep_alive(now, idle);
}

bool Server::accepting_ws() const { return !stopping_ && sessions_.size() < config_.max_connections; }

void Server::add(const std::shared_ptr<WsSession>& s) {
  sessions_[s.get()] = s;
  stats_.connections = sessions_.size();
  ++stats_.connections_total;
}

void Server::remove(WsSession* s) {
  sessions_.erase(s);
  stats_.connections = sessions_.size();
}

void Server::shutdown(std::function<void()> done) {
  if (stopping_) return;
  stopping_ = true;
  beast::error_code ignored;
  acceptor_.close(ignored);
  ticker_.cancel();
  spdlog::info("event=shutdown connections={} rooms={}", sessions_.size(), lobby_.room_count());
  lobby_.announce("The server is restarting. Your games are saved; this page reconnects by itself.");
  // Every acknowledged move is already durable; this writes what is still in flight.
  if (store_) store_->close();
  std::vector<std::shared_ptr<WsSession>> open;
  for (auto& [ptr, weak] : sessions_)
    if (auto s = weak.lock()) open.push_back(std::move(s));
  for (auto& s : open) s->close(websocket::close_code::going_away);
  auto timer = std::make_shared<asio::steady_timer>(ioc_, std::chrono::milliseconds(300));
  timer->async_wait([timer, done = std::move(done)](beast::error_code) { done(); });
}

std::string Server::metrics_text() const {
  std::ostringstream out;
  out << "# HELP plateau_connections Open WebSocket connections.\n# TYPE plateau_connections gauge\n"
      << "plateau_connections " << stats_.connections << "\n";
  out << "# HELP plateau_connections_total WebSocket connections accepted.\n# TYPE plateau_connections_total counter\n"
      << "plateau_connections_total " << stats_.connections_total << "\n";
  std::map<std::pair<std::string, std::string>, int> rooms;
  for (const auto& [id, room] : lobby_.rooms())
    ++rooms[{std::string(room->game().id()), std::string(protocol::status_string(room->status()))}];
  out << "# HELP plateau_rooms Rooms in memory by game and status.\n# TYPE plateau_rooms gauge\n";
  for (const rules::Game* g : rules::all_games())
    for (const char* st : {"waiting", "playing", "over"})
      out << "plateau_rooms{game=\"" << g->id() << "\",status=\"" << st << "\"} "
          << rooms[{std::string(g->id()), st}] << "\n";
  const auto& c = lobby_.counters();
  out << "# HELP plateau_moves_accepted_total Moves accepted.\n# TYPE plateau_moves_accepted_total counter\n"
      << "plateau_moves_accepted_total " << c.moves_accepted << "\n";
  out << "# HELP plateau_refused_total Requests refused, by error code.\n# TYPE plateau_refused_total counter\n";
  for (const auto& [code, n] : c.refused) out << "plateau_refused_total{code=\"" << code << "\"} " << n << "\n";
  lobby_.move_latency().write(out, "plateau_move_broadcast_seconds",
                             "From a move's arrival to its patches going out, its durable commit included.");
  out << "# HELP plateau_broadcast_bytes_total Bytes of frames written to clients.\n"
         "# TYPE plateau_broadcast_bytes_total counter\n"
      << "plateau_broadcast_bytes_total " << stats_.bytes_out << "\n";
  out << "# HELP plateau_frames_out_total Frames written to clients.\n# TYPE plateau_frames_out_total counter\n"
      << "plateau_frames_out_total " << stats_.frames_out << "\n";
  out << "# HELP plateau_slow_readers_dropped_total Connections dropped for not reading.\n"
         "# TYPE plateau_slow_readers_dropped_total counter\n"
      << "plateau_slow_readers_dropped_total " << stats_.dropped_slow << "\n";
  out << "# HELP plateau_recovery_seconds Time taken to rebuild rooms at start.\n# TYPE plateau_recovery_seconds gauge\n"
      << "plateau_recovery_seconds " << stats_.recovery_seconds << "\n";
  out << "# HELP plateau_rooms_recovered Rooms rebuilt at start.\n# TYPE plateau_rooms_recovered gauge\n"
      << "plateau_rooms_recovered " << stats_.rooms_recovered << "\n";
  out << "# HELP plateau_rooms_quarantined Rooms whose log disagreed with the rules at start.\n"
         "# TYPE plateau_rooms_quarantined gauge\n"
      << "plateau_rooms_quarantined " << stats_.rooms_quarantined << "\n";
  if (store_) {
    const auto& s = store_->stats();
    s.queued.write(out, "plateau_store_queue_seconds",
                   "From a write's arrival at the store to the start of the commit that holds it.");
    s.commit.write(out, "plateau_store_commit_seconds", "Store commit latency (one commit holds many writes).");
    out << "# HELP plateau_store_writes_total Writes committed.\n# TYPE plateau_store_writes_total counter\n"
        << "plateau_store_writes_total " << s.writes << "\n";
  }
  return out.str();
}

}  // namespace plateau::server
