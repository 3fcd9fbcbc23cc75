#include "server/net/http_api.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "server/net/metrics.hpp"
#include "server/net/net.hpp"
#include "server/store/history.hpp"
#include "server/store/storage.hpp"

namespace plateau::server {

namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;

// A query parameter, percent-decoded ('+' a space); nullopt when absent or badly escaped.
std::optional<std::string> bearer(const HttpRequest& req) {
  const auto auth = req[http::field::authorization];
  if (!auth.starts_with("Bearer ")) return std::nullopt;
  std::string token(auth.substr(7));
  if (token.empty() || token.size() > 64 ||
      token.find_first_not_of("0123456789abcdef") != std::string::npos)
    return std::nullopt;
  return token;
}

std::optional<std::string> query_value(std::string_view target, std::string_view key) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return std::nullopt;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto pair = rest.substr(0, amp);
    const auto eq = pair.find('=');
    if (eq != std::string_view::npos && pair.substr(0, eq) == key) {
      std::string out;
      const auto v = pair.substr(eq + 1);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '+') {
          out += ' ';
        } else if (v[i] == '%') {
          if (i + 2 >= v.size()) return std::nullopt;
          const auto hex = [](char c) {
            return c >= '0' && c <= '9'   ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                          : -1;
          };
          const int hi = hex(v[i + 1]), lo = hex(v[i + 2]);
          if (hi < 0 || lo < 0) return std::nullopt;
          out += static_cast<char>(hi * 16 + lo);
          i += 2;
        } else {
          out += v[i];
        }
      }
      return out;
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return std::nullopt;
}

json games_json(const std::vector<GameSummary>& games) {
  json out = json::array();
  for (const auto& g : games)
    out.push_back({{"room", g.room},
                   {"round", g.round},
                   {"game", g.game},
                   {"result", g.result},
                   {"finished", g.finished_ms},
                   {"imported", g.imported},
                   {"players", g.players},
                   {"rated", g.rated}});
  return out;
}

namespace {

// One request's answer. Holds nothing but the server, so it is made for each request.
class Answerer {
 public:
  Answerer(Server& server, const std::string& peer) : server_(server), peer_(peer) {}

  HttpResponse handle(const HttpRequest& req) {
    std::string target(req.target().data(), req.target().size());
    const std::string full_target = target;
    if (target.rfind("/admin/", 0) == 0) return admin(req, target);
    if (req.method() != http::verb::get && req.method() != http::verb::head) {
      if (target.rfind("/api/", 0) == 0)
        return json_error(req, http::status::method_not_allowed, "api/method",
                          "GET only (POST for /api/import)");
      return text_response(req, http::status::method_not_allowed, "GET only\n");
    }
    if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
    if (target == "/healthz") {
      // A plain-HTTP /healthz is usually answered at the front door (front_door.hpp); this
      // answers it over TLS and when the door is crowded, with the same figures read live.
      return health_response(req, server_.health());
    }
    if (target == "/metrics")
      return text_response(req, http::status::ok, metrics_text(server_),
                           "text/plain; version=0.0.4");
    if (target.rfind("/api/", 0) == 0) return api(req, target, full_target);
    return serve_file(req, target);
  }

  std::optional<HttpResponse> check_admin(const HttpRequest& req, std::string_view target,
                                          std::string_view off_code, std::string_view code_prefix) {
    return server::check_admin(server_, req, peer_, target, off_code, code_prefix);
  }

  // The admin API: off unless an admin token is set; every call carries it as a bearer token.
  //   GET  /admin/rooms                 every room in memory, private ones included
  //   POST /admin/rooms/<id>/close      closes a room (its clients get room/not_found)
  //   POST /admin/rooms/close {"player", "older_than_seconds"}  closes many (see close_rooms)
  //   POST /admin/announce  {"message"} sends an `announce` to every connected client
  //   /admin/accounts..., /admin/invites  the accounts (account_api.cpp)
  HttpResponse admin(const HttpRequest& req, const std::string& target) {
    if (auto refused = check_admin(req, target, "admin/off", "admin")) return std::move(*refused);
    if (req.method() == http::verb::get && target == "/admin/rooms") {
      json rooms = json::array();
      for (const auto& [id, room] : server_.lobby().rooms()) {
        json s = room->summary();
        s["version"] = room->version();
        rooms.push_back(std::move(s));
      }
      return json_response(req, http::status::ok, json{{"rooms", rooms}});
    }
    if (req.method() == http::verb::post && target == "/admin/rooms/close") return close_rooms(req);
    if (req.method() == http::verb::post && target.rfind("/admin/rooms/", 0) == 0 &&
        target.ends_with("/close")) {
      const auto id = target.substr(13, target.size() - 13 - 6);
      if (!server_.lobby().close_room(id))
        return json_error(req, http::status::not_found, "admin/no_such_room", "no such room");
      spdlog::info("event=admin_close room={}", id);
      return json_response(req, http::status::ok, json{{"closed", id}});
    }
    if (req.method() == http::verb::post && target == "/admin/announce") {
      const json body = json::parse(req.body(), nullptr, false);
      if (!body.is_object() || !body.contains("message") || !body["message"].is_string() ||
          body["message"].get_ref<const std::string&>().empty() ||
          body["message"].get_ref<const std::string&>().size() > 1000)
        return json_error(req, http::status::bad_request, "admin/bad_body",
                          "send {\"message\": \"...\"} (at most 1000 bytes)");
      server_.lobby().announce(body["message"]);
      spdlog::info("event=admin_announce clients={}", server_.stats().connections.load());
      return json_response(req, http::status::ok,
                           json{{"sent_to", server_.stats().connections.load()}});
    }
    return json_error(req, http::status::not_found, "admin/no_such_call", "no such admin call");
  }

  // POST /admin/rooms/close {"player": id, "older_than_seconds": N}: closes every room that
  // player created or sits in, and/or where nothing happened for longer than N seconds (both:
  // those that are both), in memory or unloaded.
  HttpResponse close_rooms(const HttpRequest& req) {
    const json body = json::parse(req.body(), nullptr, false);
    const auto bad = [&] {
      return json_error(req, http::status::bad_request, "admin/bad_body",
                        "send {\"player\": \"<id>\"} and/or {\"older_than_seconds\": N}");
    };
    if (!body.is_object()) return bad();
    std::optional<std::string> player;
    std::optional<Millis> inactive;
    for (const auto& [key, value] : body.items()) {
      if (key == "player" && value.is_string() && !value.get_ref<const std::string&>().empty() &&
          value.get_ref<const std::string&>().size() <= 64)
        player = value.get<std::string>();
      else if (key == "older_than_seconds" && value.is_number_integer() &&
               value.get<std::int64_t>() >= 0 && value.get<std::int64_t>() <= 100'000'000)
        inactive = value.get<std::int64_t>() * 1000;
      else
        return bad();
    }
    if (!player && !inactive) return bad();
    const auto closed = server_.lobby().close_rooms(player, inactive);
    spdlog::info("event=admin_close_rooms player={} older_than_ms={} closed={}",
                 player.value_or("-"), inactive.value_or(-1), closed.size());
    return json_response(req, http::status::ok, json{{"closed", closed}});
  }

  // History and replays: read from the store's archive, beside its writes.
  HttpResponse api(const HttpRequest& req, const std::string& path, const std::string& target) {
    Storage* store = server_.store();
    if (!store)
      return json_error(req, http::status::not_found, "api/no_store",
                        "history is off: the server keeps no store");
    if (path == "/api/history") {
      int limit = 50;
      if (const auto l = query_value(target, "limit").value_or("");
          !l.empty() && l.size() < 4 && l.find_first_not_of("0123456789") == std::string::npos)
        limit = std::clamp(std::stoi(l), 1, 500);
      const auto games = store->finished_games(limit);
      return json_response(req, http::status::ok, json{{"games", games_json(games)}});
    }
    if (path == "/api/replay" || path == "/api/export") {
      const auto room = query_value(target, "room").value_or("");
      const auto round_text = query_value(target, "round").value_or("");
      int round = 1;
      if (!round_text.empty()) {
        if (round_text.size() > 6 ||
            round_text.find_first_not_of("0123456789") != std::string::npos)
          return json_error(req, http::status::bad_request, "api/bad_round", "round is a number");
        round = std::stoi(round_text);
      }
      if (room.empty())
        return json_error(req, http::status::bad_request, "api/bad_room", "room is required");
      if (room.size() > 64)
        return json_error(req, http::status::bad_request, "api/bad_room",
                          "a room id has at most 64 characters");
      auto record = store->read_record(room, round);
      if (!record)
        return json_error(req, http::status::internal_server_error, "api/store_failed",
                          record.error());
      if (!*record)
        return json_error(req, http::status::not_found, "api/not_found", "no such game");
      // A game still being played keeps its secrets (the seed fixes every draw to come).
      if ((*record)->result.is_null())
        return json_error(req, http::status::conflict, "api/still_playing",
                          "this game is still being played: watch it live instead");
      if (path == "/api/export") {
        auto res = json_response(req, http::status::ok, record_to_json(**record));
        res.set(http::field::content_disposition, "attachment; filename=\"plateau-" +
                                                      (*record)->game + "-" + room + "-" +
                                                      std::to_string(round) + ".json\"");
        return res;
      }
      auto frames = replay_frames(**record);
      if (!frames)
        return json_error(req, http::status::unprocessable_entity, "api/replay_failed",
                          frames.error());
      return json_response(
          req, http::status::ok,
          json{{"record", record_to_json(**record)}, {"frames", std::move(*frames)}});
    }
    if (path == "/api/import")
      return json_error(req, http::status::method_not_allowed, "api/method",
                        "POST a record to /api/import");
    return json_error(req, http::status::not_found, "api/no_such_call", "no such API");
  }

  // POST /api/import: a record is checked by replaying it, then stored as a finished game of
  // its own; the reply (sent through `reply` once it is durable) names the room to replay.
  // Returns the answer at once only when the record is refused.
  std::optional<HttpResponse> import_record(const HttpRequest& req, const HttpReply& reply) {
    // Importing writes games into the club's history: for its host alone, and not too often.
    if (auto refused = check_admin(req, "/api/import", "import/off", "import")) return refused;
    if (!server_.import_rate().allow(peer_, server_.config().imports_per_minute,
                                     std::chrono::steady_clock::now())) {
      spdlog::warn("event=import_refused reason=rate peer={}", peer_);
      auto res = json_error(req, http::status::too_many_requests, "import/rate",
                            "at most " + std::to_string(server_.config().imports_per_minute) +
                                " imports a minute from one address");
      res.set(http::field::retry_after, "60");
      return res;
    }
    Storage* store = server_.store();
    if (!store)
      return json_error(req, http::status::not_found, "api/no_store",
                        "history is off: the server keeps no store");
    const json body = json::parse(req.body(), nullptr, false);
    if (body.is_discarded())
      return json_error(req, http::status::bad_request, "import/bad_json", "the body is not JSON");
    if (protocol::json_depth(req.body(), 32) > 32)
      return json_error(req, http::status::bad_request, "import/bad_json",
                        "the record is nested too deep");
    auto record = record_from_json(body);
    if (!record)
      return json_error(req, http::status::bad_request, "import/bad_record", record.error());
    auto frames = replay_frames(*record);
    if (!frames)
      return json_error(req, http::status::unprocessable_entity, "import/illegal", frames.error());
    if (frames->back()["status"] != "over")
      return json_error(req, http::status::unprocessable_entity, "import/not_over",
                        "only finished games can be imported");
    record->result = frames->back()["outcome"];
    record->room = server_.lobby().new_room_id();
    record->round = 1;
    // A record's dates are its uploader's word: none may lie in the future, where it would
    // head the history for ever.
    const auto now = now_ms();
    if (record->finished_ms <= 0 || record->finished_ms > now) record->finished_ms = now;
    for (auto& m : record->moves) m.at_ms = std::clamp<std::int64_t>(m.at_ms, 0, now);
    // The answer needs the request's version and keep-alive, not its (possibly long) body.
    HttpRequest head{req.method(), req.target(), req.version()};
    head.keep_alive(req.keep_alive());
    spdlog::info("event=imported room={} game={} peer={}", record->room, record->game, peer_);
    store->import_record(*record, [reply, head = std::move(head), room = record->room](bool ok) {
      reply(ok ? json_response(head, http::status::created, json{{"room", room}, {"round", 1}})
               : json_error(head, http::status::internal_server_error, "import/store_failed",
                            "the game could not be stored"));
    });
    return std::nullopt;
  }

  HttpResponse serve_file(const HttpRequest& req, const std::string& target) {
    const StaticFile* file = server_.static_files().find(target);
    if (!file) return text_response(req, http::status::not_found, "not found\n");
    auto res =
        text_response(req, http::status::ok,
                      req.method() == http::verb::head ? std::string() : file->body, file->mime);
    if (req.method() == http::verb::head) res.content_length(file->body.size());
    return res;
  }

 private:
  Server& server_;
  const std::string& peer_;
};

}  // namespace

HttpResponse json_response(const HttpRequest& req, http::status status, const json& body) {
  return text_response(req, status,
                       body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
                       "application/json");
}

std::optional<HttpResponse> check_admin(Server& server, const HttpRequest& req,
                                        const std::string& peer, std::string_view target,
                                        std::string_view off_code, std::string_view code_prefix) {
  const auto& token = server.config().admin_token;
  if (token.empty())
    return json_error(req, http::status::not_found, off_code,
                      "this needs the admin token, and the server has none set");
  const auto now = std::chrono::steady_clock::now();
  if (const auto wait = server.admin_backoff().wait(peer, now); wait.count() > 0) {
    spdlog::warn("event=admin_refused reason=slow_down peer={} target={} wait_ms={}", peer,
                 target.substr(0, 200), wait.count());
    auto res =
        json_error(req, http::status::too_many_requests, std::string(code_prefix) + "/slow_down",
                   "too many wrong tokens from this address: try again later");
    res.set(http::field::retry_after, std::to_string((wait.count() + 999) / 1000));
    return res;
  }
  const auto auth = req[http::field::authorization];
  const std::string given(auth.data(), auth.size());
  // Compared in constant time, so the token cannot be guessed byte by byte from timings.
  const std::string expected = "Bearer " + token;
  unsigned diff = given.size() != expected.size();
  for (std::size_t i = 0; i < std::min(given.size(), expected.size()); ++i)
    diff |= static_cast<unsigned>(given[i] ^ expected[i]);
  if (diff != 0) {
    server.admin_backoff().failed(peer, now);
    spdlog::warn("event=admin_refused reason=bad_token peer={} target={}", peer,
                 target.substr(0, 200));
    return json_error(req, http::status::unauthorized, std::string(code_prefix) + "/unauthorized",
                      "a valid admin token is required");
  }
  server.admin_backoff().succeeded(peer);
  return std::nullopt;
}

HttpResponse text_response(const HttpRequest& req, http::status status, std::string body,
                           std::string_view type) {
  HttpResponse res{status, req.version()};
  res.set(http::field::server, "plateau");
  res.set(http::field::content_type, beast::string_view(type.data(), type.size()));
  res.set(http::field::cache_control, "no-cache");
  // Every answer, whatever its type, is what it says it is; a page runs only its own scripts,
  // talks only to this server, and cannot be framed by another site (where its buttons could be
  // clicked blind); no address of ours leaks to another site through a link. Names are the only
  // text players write, and they are always set as text, never as HTML: this is the second line,
  // should that ever slip.
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' "
          "data:; "
          "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
          "object-src 'none'");
  res.set("X-Frame-Options", "DENY");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  if (req.method() == http::verb::head) res.body().clear();  // its length is said, not sent
  return res;
}

HttpResponse health_response(const HttpRequest& req, const Health& health) {
  // 503 while the store cannot write: moves are refused (store/unavailable) meanwhile.
  const bool draining = health.draining(), writable = health.writable();
  const char* status = draining ? "draining" : writable ? "ok" : "store_unavailable";
  const json body{
      {"status", status}, {"rooms", health.rooms()}, {"connections", health.connections()}};
  return text_response(req,
                       !draining && writable ? http::status::ok : http::status::service_unavailable,
                       body.dump() + "\n", "application/json");
}

HttpResponse json_error(const HttpRequest& req, http::status status, std::string_view code,
                        std::string message) {
  const json body{{"code", code}, {"error", std::move(message)}};
  return text_response(req, status,
                       body.dump(-1, ' ', false, json::error_handler_t::replace) + "\n",
                       "application/json");
}

namespace {
bool same_text_any_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

bool origin_allowed(std::string_view origin, std::string_view host,
                    const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;  // not a browser: no page of another site is behind it
  for (const auto& a : allowed)
    if (a == "*" || same_text_any_case(a, origin)) return true;
  // The page's own server: "scheme://authority" whose authority is the Host it sent to.
  const auto sep = origin.find("://");
  if (sep == std::string_view::npos || host.empty()) return false;
  const auto scheme = origin.substr(0, sep);
  if (!same_text_any_case(scheme, "http") && !same_text_any_case(scheme, "https")) return false;
  return same_text_any_case(origin.substr(sep + 3), host);
}

void answer_http(Server& server, const HttpRequest& req, const std::string& peer,
                 const HttpReply& reply) {
  // Whatever one request does, the server goes on serving everyone else: an exception that
  // escaped here would end the io_context's run, and the process with it.
  try {
    if (answer_accounts(server, req, peer, reply)) return;
    if (answer_tournaments(server, req, peer, reply)) return;
    Answerer answerer(server, peer);
    if (req.method() == http::verb::post && req.target() == "/api/import") {
      if (auto refused = answerer.import_record(req, reply)) reply(std::move(*refused));
      return;
    }
    reply(answerer.handle(req));
  } catch (const std::exception& e) {
    spdlog::error("event=http_failed method={} target={} what={}", std::string(req.method_string()),
                  std::string(req.target().substr(0, 200)), e.what());
    reply(json_error(req, http::status::internal_server_error, "http/internal",
                     "the server could not answer this request"));
  }
}

}  // namespace plateau::server
