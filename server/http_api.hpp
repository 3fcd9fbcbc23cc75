// The server's HTTP answers, whatever the connection runs on: the browser client's files,
// /healthz, /metrics, the history API (/api/...) and the admin API (/admin/...).
//
// The sessions that carry them are templates on the stream (plain TCP or TLS); this code is not,
// so it is compiled once and the sessions only read requests and write answers.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>

namespace plateau::server {

class Server;

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
using HttpReply = std::function<void(HttpResponse)>;

// Answers `req` through `reply`: at once, or later for a call that waits on the store (an
// import is answered once it is durable). `reply` runs on the server's thread.
void answer_http(Server& server, const HttpRequest& req, const HttpReply& reply);

// An error answer of the HTTP side: {"code": a stable code such as "api/not_found", "error": a
// message for people}. Clients match on the code (PROTOCOL.md, "HTTP"); the message may change.
HttpResponse json_error(const HttpRequest& req, boost::beast::http::status status, std::string_view code,
                        std::string message);

// A response with the server's usual headers, keeping the request's version and keep-alive.
HttpResponse text_response(const HttpRequest& req, boost::beast::http::status status, std::string body,
                           std::string_view type = "text/plain; charset=utf-8");

}  // namespace plateau::server
