// A blocking HTTP/1.1 request to 127.0.0.1 for tests (Beast), bounded by a timeout.
#pragma once

#include <utility>  // before Asio: Boost 1.74's awaitable.hpp forgets it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <string>

namespace plateau::testing {

struct HttpReply {
  int status = 0;  // 0: no answer
  std::string body;
  std::string content_type;
};

inline HttpReply http_request(unsigned short port, boost::beast::http::verb method, const std::string& target,
                              const std::string& body = "") {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  beast::error_code ec;
  stream.expires_after(std::chrono::seconds(10));
  stream.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) return {};
  http::request<http::string_body> req{method, target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (!body.empty()) {
    req.set(http::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  http::write(stream, req, ec);
  if (ec) return {};
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  http::read(stream, buffer, parser, ec);
  if (ec) return {};
  auto res = parser.release();
  return {static_cast<int>(res.result_int()), res.body(), std::string(res[http::field::content_type])};
}

inline HttpReply http_get(unsigned short port, const std::string& target) {
  return http_request(port, boost::beast::http::verb::get, target);
}

}  // namespace plateau::testing
