// A small blocking WebSocket client over Boost.Beast, for the terminal client, the bot runner
// and the socket tests. Every wait is bounded by a timeout.
//
// WsClient speaks ws://. The client is a template on the stream under the WebSocket so that a
// TLS stream can be used as well: a header that defines Transport<ThatStream> (how to start it
// once the TCP connection is up) makes BasicWsClient<ThatStream> a wss:// client.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plateau::client {

// What a stream needs between the TCP connection and the WebSocket handshake:
//   static void async_start(Stream&, const std::string& host, Handler) calls Handler(error_code).
template <class Stream>
struct Transport;

template <>
struct Transport<boost::beast::tcp_stream> {
  template <class Handler>
  static void async_start(boost::beast::tcp_stream&, const std::string& /*host*/,
                          Handler&& handler) {
    handler(boost::system::error_code{});
  }
};

template <class Stream>
class BasicWsClient {
 public:
  // `args` go to the stream after the io_context (a TLS stream takes its ssl::context).
  template <class... Args>
  explicit BasicWsClient(Args&&... args) : ws_(ioc_, std::forward<Args>(args)...) {}

  // Connects to host:port and opens /ws. Returns an error text, or "" on success.
  std::string connect(const std::string& host, unsigned short port,
                      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    namespace beast = boost::beast;
    boost::asio::ip::tcp::resolver resolver(ioc_);
    boost::system::error_code ec;
    const auto results = resolver.resolve(host, std::to_string(port), ec);
    if (ec) return ec.message();
    // Asynchronous steps, so that the stream's expiry bounds them all (it does not bound
    // blocking calls): connect, start the transport (TLS: its handshake), open /ws.
    const std::string target_host = host + ":" + std::to_string(port);
    if (!headers_.empty())
      ws_.set_option(boost::beast::websocket::stream_base::decorator(
          [h = headers_](boost::beast::websocket::request_type& req) {
            for (const auto& [name, value] : h) req.insert(name, value);
          }));
    auto& tcp = beast::get_lowest_layer(ws_);
    tcp.expires_after(timeout);
    const auto start = [&] {
      Transport<Stream>::async_start(ws_.next_layer(), host, [&](boost::system::error_code e2) {
        if (e2) return void(ec = e2);
        ws_.async_handshake(target_host, "/ws", [&](boost::system::error_code e3) { ec = e3; });
      });
    };
    const auto connected = [&](boost::system::error_code e) {
      if (e) return void(ec = e);
      if (preamble_.empty()) return start();
      boost::asio::async_write(tcp, boost::asio::buffer(preamble_),
                               [&](boost::system::error_code e1, std::size_t) {
                                 if (e1) return void(ec = e1);
                                 start();
                               });
    };
    if (source_.is_unspecified()) {
      tcp.async_connect(results, [&](boost::system::error_code e, const auto&) { connected(e); });
    } else {
      const auto to = results.begin()->endpoint();
      tcp.socket().open(to.protocol(), ec);
      if (!ec) tcp.socket().bind({source_, 0}, ec);
      if (ec) return ec.message();
      tcp.async_connect(to, connected);
    }
    ioc_.restart();
    ioc_.run();
    if (ec) return ec.message();
    beast::get_lowest_layer(ws_).expires_never();
    ws_.read_message_max(64 << 20);
    ws_.control_callback(
        [this](boost::beast::websocket::frame_type kind, boost::beast::string_view payload) {
          if (kind == boost::beast::websocket::frame_type::pong) pongs_.emplace_back(payload);
        });
    return "";
  }

  // For tests of what stands in front of the server: bytes sent first, as they are, once the
  // TCP connection is made (a PROXY protocol header), and the local address to connect from
  // (127.0.0.2, say: a second client address on one machine). Set before connect().
  void preamble(std::string bytes) { preamble_ = std::move(bytes); }
  void connect_from(boost::asio::ip::address source) { source_ = std::move(source); }
  // A header the opening request carries besides the handshake's (X-Forwarded-For, say).
  void header(std::string name, std::string value) {
    headers_.emplace_back(std::move(name), std::move(value));
  }

  // Sends a ping; its pong shows in pongs() once a later read has passed it.
  bool ping(const std::string& payload) {
    boost::system::error_code ec;
    ws_.ping(boost::beast::websocket::ping_data(payload.c_str()), ec);
    return !ec;
  }
  const std::vector<std::string>& pongs() const { return pongs_; }
  // Bytes the peer sent that nothing has read yet (a ping waiting for its pong, say).
  std::size_t unread_bytes() {
    boost::system::error_code ec;
    const auto n = boost::beast::get_lowest_layer(ws_).socket().available(ec);
    return ec ? 0 : n;
  }

  bool send_text(const std::string& text) {
    boost::system::error_code ec;
    ws_.text(true);
    ws_.write(boost::asio::buffer(text), ec);
    return !ec;
  }
  bool send(const nlohmann::json& msg) { return send_text(msg.dump()); }

  // The next message, or nullopt on timeout or a closed connection.
  std::optional<nlohmann::json> recv(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    if (!inbox_.empty()) {
      auto m = std::move(inbox_.front());
      inbox_.pop_front();
      return m;
    }
    if (closed_) return std::nullopt;
    if (!reading_) {
      reading_ = true;
      ws_.async_read(buffer_, [this](boost::system::error_code ec, std::size_t) {
        reading_ = false;
        if (ec) {
          closed_ = true;
          return;
        }
        inbox_.push_back(
            nlohmann::json::parse(boost::beast::buffers_to_string(buffer_.data()), nullptr, false));
        buffer_.consume(buffer_.size());
      });
    }
    ioc_.restart();
    ioc_.run_for(timeout);
    if (inbox_.empty()) return std::nullopt;
    auto m = std::move(inbox_.front());
    inbox_.pop_front();
    return m;
  }

  // Reads until `want` holds for a message (returned) or the time is up (nullopt). Messages
  // read on the way are passed to `seen`, if given.
  std::optional<nlohmann::json> recv_until(
      const std::function<bool(const nlohmann::json&)>& want,
      std::chrono::milliseconds timeout = std::chrono::seconds(5),
      const std::function<void(const nlohmann::json&)>& seen = {}) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      auto m = recv(left);
      if (!m) return std::nullopt;
      if (seen) seen(*m);
      if (want(*m)) return m;
    }
  }

  std::optional<nlohmann::json> recv_type(
      const std::string& type, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return recv_until([&](const nlohmann::json& m) { return m.value("type", "") == type; },
                      timeout);
  }

  bool closed() const { return closed_; }

  void close() {
    boost::system::error_code ec;
    boost::beast::get_lowest_layer(ws_).socket().close(ec);
  }

 private:
  boost::asio::io_context ioc_;
  boost::beast::websocket::stream<Stream> ws_;
  boost::beast::flat_buffer buffer_;
  std::deque<nlohmann::json> inbox_;
  std::vector<std::string> pongs_;
  std::string preamble_;
  boost::asio::ip::address source_;
  std::vector<std::pair<std::string, std::string>> headers_;
  bool reading_ = false;
  bool closed_ = false;
};

using WsClient = BasicWsClient<boost::beast::tcp_stream>;

}  // namespace plateau::client
