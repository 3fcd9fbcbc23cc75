// The server's HTTP answers, whatever the connection runs on: the browser client's files,
// /healthz, /metrics, the history API (/api/...) and the admin API (/admin/...).
//
// The connections that carry them are templates on the stream (plain TCP or TLS); this code is not,
// so it is compiled once and the connections only read requests and write answers.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include "server/store/archive.hpp"

namespace plateau::server {

class Server;

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
using HttpReply = std::function<void(HttpResponse)>;

// Answers `req` through `reply`: at once, or later for a call that waits on the store (an
// import is answered once it is durable). `reply` runs on the server's thread.
// `peer` is the client's address, for logs and for the limits per address.
void answer_http(Server& server, const HttpRequest& req, const std::string& peer,
                 const HttpReply& reply);

// Whether a WebSocket upgrade may go on, by its Origin header: a client that sends none (not a
// browser) or a page of this very server (its Origin names the Host the request was sent to),
// or an origin the host allowed (--allowed-origins; "*" allows any). Cross-site pages are
// refused, so that a page elsewhere cannot act with a visitor's browser.
bool origin_allowed(std::string_view origin, std::string_view host,
                    const std::vector<std::string>& allowed);

// An error answer of the HTTP side: {"code": a stable code such as "api/not_found", "error": a
// message for people}. Clients match on the code (PROTOCOL.md, "HTTP"); the message may change.
HttpResponse json_error(const HttpRequest& req, boost::beast::http::status status,
                        std::string_view code, std::string message);

// A JSON answer with the server's usual headers.
HttpResponse json_response(const HttpRequest& req, boost::beast::http::status status,
                           const nlohmann::json& body);

// Whether the request carries the admin token. An address that gave wrong ones is made to
// wait, longer after each (Backoff): guessing a token costs days, not seconds. Every refusal
// is logged with the address. Returns the refusal, or nothing when the token is good.
std::optional<HttpResponse> check_admin(Server& server, const HttpRequest& req,
                                        const std::string& peer, std::string_view target,
                                        std::string_view off_code, std::string_view code_prefix);

// A query parameter of `target` ("/x?a=1&b=2"), percent-decoded ('+' a space); nullopt when
// absent or badly escaped.
std::optional<std::string> query_value(std::string_view target, std::string_view key);

// The session token an `Authorization: Bearer` header carries, if well formed (hex digits).
std::optional<std::string> bearer(const HttpRequest& req);

// Finished games as the HTTP API lists them (/api/history, a profile's games).
nlohmann::json games_json(const std::vector<GameSummary>& games);

// The tournaments' calls, /api/tournament(s)... and /admin/organisers (tournament_api.cpp).
// Returns false for any other target.
bool answer_tournaments(Server& server, const HttpRequest& req, const std::string& peer,
                        const HttpReply& reply);
// A change of the tournaments, as answer_tournaments (or a node of a cluster, for its own
// clients) sent it: run here, where they are directed. `done` gets {status, body} or {status,
// code, message}; a registration (op "enter") {refused: code or null}; {unavailable: true}
// when this server does not direct the events (it stopped, in a cluster) or could not store the
// change. It is answered once the change is durable.
void run_tournament_op(Server& server, const nlohmann::json& op,
                       const std::function<void(nlohmann::json)>& done);

// The accounts' calls, /api/accounts/... and the admin's /admin/accounts... and /admin/invites
// (account_api.cpp): answered through `reply`, at once or once a password is hashed. Returns
// false for any other target.
bool answer_accounts(Server& server, const HttpRequest& req, const std::string& peer,
                     const HttpReply& reply);

// A response with the server's usual headers, keeping the request's version and keep-alive.
HttpResponse text_response(const HttpRequest& req, boost::beast::http::status status,
                           std::string body, std::string_view type = "text/plain; charset=utf-8");

// What /healthz says, asked by the front door from its thread at each answer: each function
// must be safe to call from any thread (the store's flag, the lobby's room count, the connection
// count and the drain flag are atomics). Set before the door starts, never after.
struct Health {
  std::function<bool()> writable = [] { return true; };
  std::function<bool()> draining = [] { return false; };
  std::function<std::size_t()> rooms = [] { return std::size_t{0}; };
  std::function<std::size_t()> connections = [] { return std::size_t{0}; };
};

// The answer to /healthz: 200 {"status":"ok","rooms":n,"connections":n}, or 503 with
// "draining" once the server was told to stop (it serves its clients a few seconds more, while
// a balancer takes it out), or with "store_unavailable" while the store cannot write.
HttpResponse health_response(const HttpRequest& req, const Health& health);

}  // namespace plateau::server
