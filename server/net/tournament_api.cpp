// Tournaments over HTTP (issue 48; PROTOCOL.md, "Tournaments"):
//   GET  /api/tournaments                 {tournaments: [...]}, newest first
//   GET  /api/tournament?id=<id>          the event: players, standings, rounds and tables
// for the host (the admin token) or an organiser (an account the host allowed, by its session
// token), each as "Authorization: Bearer <token>":
//   POST /api/tournaments/create {name, game, options?, clock?, format, rounds?, twice?,
//                                 starts?, no_show_minutes?}            201 {id}
//   POST /api/tournaments/start {id} | cancel {id}                      {id, status}
//   POST /api/tournaments/remove {id, player}   a registered player off the list, before the start
// and for the host alone:
//   POST /admin/organisers {name, allowed}                              {name, organiser}
// Registering is a WebSocket message (`tournament`), by the connection's own player.
#include <spdlog/spdlog.h>

#include "server/accounts/accounts.hpp"
#include "server/net/http_api.hpp"
#include "server/net/net.hpp"
#include "server/secure_random.hpp"
#include "server/tournaments/tournaments.hpp"

namespace plateau::server {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxTournamentBody = 8192;

// The account behind a session bearer token, if the request carries one that is current.
const AccountRow* session_account(Server& server, const HttpRequest& req) {
  Accounts* accounts = server.lobby().accounts();
  const auto token = bearer(req);
  if (!accounts || !token) return nullptr;
  return accounts->by_session(sha256_hex(*token));
}

// An int field: absent gives `fallback`; present and not an integer in [lo, hi], nullopt.
std::optional<std::int64_t> int_field(const json& body, const char* key, std::int64_t fallback,
                                      std::int64_t lo, std::int64_t hi) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) return std::nullopt;
  const auto v = it->get<std::int64_t>();
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace

bool answer_tournaments(Server& server, const HttpRequest& req, const std::string& peer,
                        const HttpReply& reply) {
  std::string target(req.target());
  if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
  const bool reads = target == "/api/tournaments" || target == "/api/tournament";
  const bool acts = target.starts_with("/api/tournaments/");
  const bool admin = target == "/admin/organisers";
  if (!reads && !acts && !admin) return false;
  HttpRequest head{req.method(), req.target(), req.version()};
  head.keep_alive(req.keep_alive());
  const auto fail = [&](http::status status, std::string_view code, std::string message) {
    reply(json_error(head, status, code, std::move(message)));
    return true;
  };
  Tournaments* tournaments = server.lobby().tournaments();
  if (!tournaments)
    return fail(http::status::not_found, "tournament/off", "this server runs no tournaments");

  if (reads) {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return fail(http::status::method_not_allowed, "api/method", "GET only");
    if (target == "/api/tournaments") {
      reply(json_response(head, http::status::ok, json{{"tournaments", tournaments->list()}}));
      return true;
    }
    const auto id = query_value(std::string(req.target()), "id").value_or("");
    const auto detail = id.size() <= 64 ? tournaments->detail(id) : std::nullopt;
    if (!detail) return fail(http::status::not_found, "tournament/not_found", "no such event");
    reply(json_response(head, http::status::ok, *detail));
    return true;
  }

  if (req.method() != http::verb::post)
    return fail(http::status::method_not_allowed, "api/method", "POST only");
  if (req.body().size() > kMaxTournamentBody)
    return fail(http::status::payload_too_large, "tournament/too_large",
                "the body is larger than " + std::to_string(kMaxTournamentBody) + " bytes");
  const json body = req.body().empty() ? json::object() : json::parse(req.body(), nullptr, false);
  if (!body.is_object())
    return fail(http::status::bad_request, "tournament/bad_request", "the body is a JSON object");

  // Who acts: an organiser's session (checked first, so that it never counts as a wrong admin
  // token), else the host's admin token.
  const AccountRow* account = admin ? nullptr : session_account(server, req);
  const bool organiser = account && !account->disabled && tournaments->organiser(account->player);
  if (!organiser) {
    if (acts && account)
      return fail(http::status::forbidden, "tournament/forbidden",
                  "the server's host has not allowed this account to organise events");
    if (server.config().admin_token.empty())
      return fail(http::status::forbidden, "tournament/forbidden",
                  "only the server's host (its admin token) or an organiser may do this");
    if (auto refused = check_admin(server, req, peer, target, "tournament/forbidden", "admin")) {
      reply(std::move(*refused));
      return true;
    }
  }

  // The change itself runs where the events are directed: here, or (a node of a cluster that
  // does not direct them) on the director, which answers through Redis.
  const std::string kind =
      admin ? "organiser" : target.substr(std::string_view("/api/tournaments/").size());
  if (kind != "organiser" && kind != "create" && kind != "start" && kind != "cancel" &&
      kind != "remove")
    return fail(http::status::not_found, "api/not_found", "no such call");
  json op{{"op", kind},
          {"body", body},
          {"organiser", organiser ? account->player : ""},
          {"peer", peer}};
  auto answer = [reply, head](std::optional<json> result) {
    if (!result || !result->is_object() || !result->contains("status")) {
      reply(json_error(head, http::status::service_unavailable, "tournament/unavailable",
                       "the tournaments take no change just now; try again in a few seconds"));
      return;
    }
    const auto status = static_cast<http::status>(result->value("status", 500));
    if (result->contains("code"))
      reply(json_error(head, status, result->value("code", ""), result->value("message", "")));
    else
      reply(json_response(head, status, result->value("body", json::object())));
  };
  if (const auto& ask = server.lobby().shared().to_director; ask && ask(op, answer)) return true;
  run_tournament_op(server, op, [answer](json result) { answer(std::move(result)); });
  return true;
}

void run_tournament_op(Server& server, const json& op, const std::function<void(json)>& answer) {
  Tournaments* tournaments = server.lobby().tournaments();
  // Answered once what it wrote is durable; a write refused (the store failed, or this node
  // lost the director's lease) makes it unavailable, to try again.
  const auto done = [tournaments, answer](json result) {
    if (!tournaments) return answer(std::move(result));
    tournaments->after_saved([answer, result = std::move(result)](bool stored) mutable {
      answer(stored ? std::move(result) : json{{"unavailable", true}});
    });
  };
  const auto fail = [&](http::status status, std::string_view code, std::string message) {
    done(json{{"status", static_cast<int>(status)}, {"code", code}, {"message", message}});
  };
  const auto ok = [&](http::status status, json body) {
    done(json{{"status", static_cast<int>(status)}, {"body", std::move(body)}});
  };
  if (!tournaments || !tournaments->directing() || !op.is_object())
    return done(json{{"unavailable", true}});
  const TournamentMillis now = now_ms();
  const std::string kind = op.value("op", "");
  const json body = op.value("body", json::object());
  const std::string organiser = op.value("organiser", "");
  const std::string peer = op.value("peer", "");

  if (kind == "enter") {  // a player's own registration (the WebSocket's `tournament`)
    const auto refused =
        tournaments->enter(op.value("id", ""), op.value("player", ""), op.value("name", ""),
                           op.value("enter", false), now, op.value("account", false));
    return done(json{{"refused", refused ? json(*refused) : json()}});
  }

  if (kind == "organiser") {
    Accounts* accounts = server.lobby().accounts();
    const auto name = body.find("name"), allowed = body.find("allowed");
    if (name == body.end() || !name->is_string() || allowed == body.end() || !allowed->is_boolean())
      return fail(http::status::bad_request, "admin/bad_body",
                  "send {\"name\": \"...\", \"allowed\": true|false}");
    const AccountRow* a = accounts ? accounts->of_name(name->get<std::string>()) : nullptr;
    if (!a)
      return fail(http::status::not_found, "account/no_such_account", "no account of this name");
    const bool yes = allowed->get<bool>();
    const std::string shown = a->name;
    tournaments->set_organiser(a->player, yes, [done, shown, yes](bool stored) {
      done(stored ? json{{"status", 200}, {"body", {{"name", shown}, {"organiser", yes}}}}
                  : json{{"status", 500},
                         {"code", "account/store_failed"},
                         {"message", "the server could not store this; try again"}});
    });
    spdlog::info("event=admin_organiser name=\"{}\" allowed={}", shown, yes);
    return;
  }

  if (kind == "create") {
    TournamentSpec spec;
    const auto text = [&](const char* key) -> std::optional<std::string> {
      const auto it = body.find(key);
      if (it == body.end() || !it->is_string()) return std::nullopt;
      return it->get<std::string>();
    };
    const auto name = text("name"), game = text("game"), format = text("format");
    if (!name || !game || !format)
      return fail(http::status::bad_request, "tournament/bad_request",
                  "'name', 'game' and 'format' are required strings");
    spec.name = *name;
    spec.game = *game;
    if (*format == "swiss")
      spec.format = tournaments::Format::swiss;
    else if (*format == "round_robin")
      spec.format = tournaments::Format::round_robin;
    else if (*format == "seated")
      spec.format = tournaments::Format::seated;
    else
      return fail(http::status::bad_request, "tournament/bad_request",
                  "'format' is swiss, round_robin or seated");
    if (const auto it = body.find("options"); it != body.end() && !it->is_null()) {
      if (!it->is_object())
        return fail(http::status::bad_request, "tournament/bad_request", "'options' is an object");
      spec.options = *it;
    }
    if (const auto it = body.find("clock"); it != body.end()) spec.clock = *it;
    const auto rounds = int_field(body, "rounds", 0, 0, 1000);
    const auto starts = int_field(body, "starts", now, 0, std::int64_t{1} << 50);
    const auto no_show = int_field(body, "no_show_minutes", 10, 1, 1440);
    const auto twice = body.find("twice");
    if (!rounds || !starts || !no_show ||
        (twice != body.end() && !twice->is_boolean() && !twice->is_null()))
      return fail(http::status::bad_request, "tournament/bad_request",
                  "'rounds', 'starts' and 'no_show_minutes' are whole numbers in range; 'twice' "
                  "is true or false");
    spec.rounds = static_cast<int>(*rounds);
    spec.starts_ms = *starts;
    spec.no_show_ms = *no_show * 60'000;
    spec.twice = twice != body.end() && twice->is_boolean() && twice->get<bool>();
    const auto members = body.find("accounts_only");
    if (members != body.end() && !members->is_boolean() && !members->is_null())
      return fail(http::status::bad_request, "tournament/bad_request",
                  "'accounts_only' is true or false");
    spec.accounts_only = members != body.end() && members->is_boolean() && members->get<bool>();
    spec.organiser = organiser;
    const auto made = tournaments->create(std::move(spec), now);
    if (!made) {
      const auto status = made.error().code == "tournament/too_many"
                              ? http::status::service_unavailable
                              : http::status::bad_request;
      return fail(status, made.error().code, made.error().message);
    }
    spdlog::info("event=tournament_created id={} peer={}", *made, peer);
    return ok(http::status::created, json{{"id", *made}});
  }

  const auto id = body.find("id");
  if (id == body.end() || !id->is_string())
    return fail(http::status::bad_request, "tournament/bad_request", "'id' is required");
  // An organiser acts on their own events; the host on any.
  if (!organiser.empty() && tournaments->organiser_of(*id) != organiser)
    return fail(http::status::forbidden, "tournament/forbidden", "this event is another's");
  std::optional<TournamentError> refused;
  if (kind == "remove") {
    const auto player = body.find("player");
    if (player == body.end() || !player->is_string())
      return fail(http::status::bad_request, "tournament/bad_request", "'player' is required");
    if (const auto code = tournaments->enter(*id, *player, "", false, now))
      refused = TournamentError{*code, *code == "tournament/closed"
                                           ? "the event has started: its players stay"
                                           : "no such event"};
  } else if (kind == "start")
    refused = tournaments->start(*id, now);
  else if (kind == "cancel")
    refused = tournaments->cancel(*id, now);
  else
    return fail(http::status::not_found, "api/not_found", "no such call");
  if (refused)
    return fail(
        refused->code == "tournament/not_found" ? http::status::not_found : http::status::conflict,
        refused->code, refused->message);
  const auto detail = tournaments->detail(*id);
  ok(http::status::ok, json{{"id", *id}, {"status", detail ? (*detail)["status"] : json()}});
}

}  // namespace plateau::server
