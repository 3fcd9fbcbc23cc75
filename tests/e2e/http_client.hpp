// A blocking HTTP/1.1 request to 127.0.0.1 for tests (Beast), bounded by a timeout. The exchange
// is a template on the stream, so that tls_support.hpp sends the same requests over HTTPS.
//
// Every step is an asynchronous operation run to its end on the caller's io_context: the
// stream's expiry (set once by connect_loopback) bounds them all, which it does not do for
// blocking calls.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <chrono>
#include <map>
#include <string>

namespace plateau::testing {

struct HttpReply {
  int status = 0;  // 0: no answer
  std::string body;
  std::string content_type;
  std::map<std::string, std::string> headers;  // by lower-case name
};

// Runs what was started on `ioc` to its end.
inline void run_all(boost::asio::io_context& ioc) {
  ioc.restart();
  ioc.run();
}

// Connects the TCP layer of `stream` to 127.0.0.1:port; everything done on the stream from now
// on must end within `limit`.
template <class Stream>
bool connect_loopback(boost::asio::io_context& ioc, Stream& stream, unsigned short port,
                      boost::beast::error_code& ec,
                      std::chrono::seconds limit = std::chrono::seconds(10)) {
  auto& tcp = boost::beast::get_lowest_layer(stream);
  tcp.expires_after(limit);
  tcp.async_connect(
      boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port),
      [&](boost::beast::error_code e) { ec = e; });
  run_all(ioc);
  return !ec;
}

// One request and its reply on a connected stream.
template <class Stream>
HttpReply http_exchange(boost::asio::io_context& ioc, Stream& stream,
                        boost::beast::http::verb method, const std::string& target,
                        const std::string& body = "",
                        const std::map<std::string, std::string>& headers = {}) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  beast::error_code ec;
  http::request<http::string_body> req{method, target, 11};
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) req.set(name, value);
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  http::async_write(stream, req, [&](beast::error_code e, std::size_t) {
    if (e) return void(ec = e);
    http::async_read(stream, buffer, parser, [&](beast::error_code e2, std::size_t) { ec = e2; });
  });
  run_all(ioc);
  if (ec) return {};
  auto res = parser.release();
  HttpReply reply{static_cast<int>(res.result_int()),
                  res.body(),
                  std::string(res[http::field::content_type]),
                  {}};
  for (const auto& f : res) {
    std::string name(f.name_string());
    std::ranges::transform(name, name.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    reply.headers[name] = std::string(f.value());
  }
  return reply;
}

inline HttpReply http_request(unsigned short port, boost::beast::http::verb method,
                              const std::string& target, const std::string& body = "",
                              const std::map<std::string, std::string>& headers = {}) {
  boost::asio::io_context ioc;
  boost::beast::tcp_stream stream(ioc);
  boost::beast::error_code ec;
  if (!connect_loopback(ioc, stream, port, ec)) return {};
  return http_exchange(ioc, stream, method, target, body, headers);
}

// The admin token the tests that import give their server (imports need it), and its header.
inline const std::string kTestAdminToken = "test-admin-token";
inline std::map<std::string, std::string> admin_header() {
  return {{"Authorization", "Bearer " + kTestAdminToken}};
}
// Posts a game record to /api/import as the server's host does.
inline HttpReply import_record(unsigned short port, const std::string& body) {
  return http_request(port, boost::beast::http::verb::post, "/api/import", body, admin_header());
}

// Sends `bytes` as they are (anything, HTTP or not) and returns all the server sends back until it
// closes the connection ("" if it never answers within the limit).
inline std::string raw_exchange(unsigned short port, const std::string& bytes,
                                std::chrono::seconds limit = std::chrono::seconds(10)) {
  namespace asio = boost::asio;
  asio::io_context ioc;
  boost::beast::tcp_stream stream(ioc);
  boost::beast::error_code ec;
  if (!connect_loopback(ioc, stream, port, ec, limit)) return {};
  std::string answer;
  auto into = asio::dynamic_buffer(answer);
  asio::async_write(stream, asio::buffer(bytes), [&](boost::beast::error_code e, std::size_t) {
    if (!e) asio::async_read(stream, into, [](boost::beast::error_code, std::size_t) {});  // to EOF
  });
  run_all(ioc);
  return answer;
}

inline HttpReply http_get(unsigned short port, const std::string& target) {
  return http_request(port, boost::beast::http::verb::get, target);
}

}  // namespace plateau::testing
