// The accounts over HTTP (issue 46; PROTOCOL.md, "Accounts"):
//   GET  /api/accounts/registration      {registration: open|invite|closed}
//   POST /api/accounts/register {name, password, device?, guest_token?, invite?}
//                                         201 {player, name, token, session}
//   POST /api/accounts/login    {name, password, device?}  200 {player, name, token, session}
// and with the session's token as "Authorization: Bearer <token>":
//   GET  /api/accounts/me                {player, name, created, disabled, sessions: [...]}
//   POST /api/accounts/logout   {everywhere?: bool}         {signed_out: n}
//   POST /api/accounts/password {old, new}                  {changed, signed_out: n}
//   POST /api/accounts/sessions/end {id}                    {signed_out: 1}
// and for anyone, the accounts' public pages:
//   GET  /api/profile?name=<name>        {name, player, created, ratings, history, games}
//   GET  /api/leaderboard?game=<id>      {game, min_games, active_days, players: [...]}
// and for the host, with the admin token:
//   GET  /admin/accounts                                     {accounts: [...]}
//   POST /admin/accounts/disable {name} | enable {name} | delete {name}
//   POST /admin/accounts/mute {name} | unmute {name}         (a muted account may not chat)
//   POST /admin/invites                                      201 {code, link, expires}
//   POST /admin/chat/delete {room, seq}                      a message's words go
//
// A POST must say it sends JSON (a page of another site cannot, without the browser asking
// this server first, which never agrees) and come from a page of this server or an allowed
// origin: another site cannot sign its visitors in or out here.
#include <spdlog/spdlog.h>

#include <cmath>

#include "rules/game.hpp"
#include "server/accounts/accounts.hpp"
#include "server/net/http_api.hpp"
#include "server/net/net.hpp"
#include "server/ratings/ratings.hpp"
#include "server/store/storage.hpp"

namespace plateau::server {

namespace http = boost::beast::http;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxAccountBody = 4096;

// A string field of the body: absent gives nullopt; present and not a string, an error.
struct Fields {
  const json& body;
  std::string bad;
  std::optional<std::string> text(const char* key, bool required = false) {
    const auto it = body.find(key);
    if (it == body.end() || it->is_null()) {
      if (required && bad.empty()) bad = std::string("'") + key + "' is required";
      return std::nullopt;
    }
    if (!it->is_string()) {
      if (bad.empty()) bad = std::string("'") + key + "' must be a string";
      return std::nullopt;
    }
    return it->get<std::string>();
  }
};

double rounded(double x) { return std::round(x * 100) / 100; }

json rating_json(const RatingRow& r) {
  return json{{"game", r.game},
              {"rating", rounded(r.rating)},
              {"deviation", rounded(r.deviation)},
              {"games", r.games},
              {"wins", r.wins},
              {"draws", r.draws},
              {"losses", r.losses},
              {"last", r.last_ms}};
}

HttpResponse result_response(const HttpRequest& head, http::status ok_status,
                             const AccountResult& r) {
  if (r) return json_response(head, ok_status, *r);
  auto res = json_error(head, static_cast<http::status>(r.error().status), r.error().code,
                        r.error().message);
  if (r.error().retry_after.count() > 0)
    res.set(http::field::retry_after, std::to_string(r.error().retry_after.count()));
  return res;
}

}  // namespace

bool answer_accounts(Server& server, const HttpRequest& req, const std::string& peer,
                     const HttpReply& reply) {
  std::string target(req.target());
  if (const auto q = target.find('?'); q != std::string::npos) target.resize(q);
  const bool api = target.starts_with("/api/accounts/");
  const bool admin = target == "/admin/accounts" || target.starts_with("/admin/accounts/") ||
                     target == "/admin/invites" || target == "/admin/chat/delete";
  const bool pages = target == "/api/profile" || target == "/api/leaderboard";
  if (!api && !admin && !pages) return false;
  // The answer needs the request's version and keep-alive, not its body.
  HttpRequest head{req.method(), req.target(), req.version()};
  head.keep_alive(req.keep_alive());
  const auto answer = [&](http::status status, const AccountResult& r) {
    reply(result_response(head, status, r));
  };
  const auto fail = [&](http::status status, std::string_view code, std::string message) {
    reply(json_error(head, status, code, std::move(message)));
    return true;
  };
  const auto later = [reply, head](http::status status) {
    return [reply, head, status](AccountResult r) { reply(result_response(head, status, r)); };
  };
  if (admin) {
    if (auto refused = check_admin(server, req, peer, target, "admin/off", "admin")) {
      reply(std::move(*refused));
      return true;
    }
  }
  Accounts* accounts = server.lobby().accounts();
  if (!accounts) return fail(http::status::not_found, "account/off", "this server has no accounts");
  const bool post = req.method() == http::verb::post;
  if (!post && req.method() != http::verb::get && req.method() != http::verb::head)
    return fail(http::status::method_not_allowed, "api/method", "GET or POST");
  json body = json::object();
  if (post) {
    if (!admin) {
      const auto origin = req[http::field::origin];
      const auto host = req[http::field::host];
      if (!origin_allowed({origin.data(), origin.size()}, {host.data(), host.size()},
                          server.config().allowed_origins))
        return fail(http::status::forbidden, "account/origin",
                    "this call is for this server's own pages");
      if (!req[http::field::content_type].starts_with("application/json"))
        return fail(http::status::unsupported_media_type, "account/content_type",
                    "send the body as application/json");
    }
    if (req.body().size() > kMaxAccountBody)
      return fail(http::status::payload_too_large, "account/too_large",
                  "the body is larger than " + std::to_string(kMaxAccountBody) + " bytes");
    if (!req.body().empty()) {
      body = json::parse(req.body(), nullptr, false);
      if (!body.is_object())
        return fail(http::status::bad_request, "account/bad_body", "the body is a JSON object");
    }
  }
  Fields f{body, {}};
  const auto bad_fields = [&] {
    return fail(http::status::bad_request, "account/bad_body", f.bad);
  };

  if (pages) {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return fail(http::status::method_not_allowed, "api/method", "GET only");
    Ratings* ratings = server.lobby().ratings();
    const std::string full_target(req.target());
    if (target == "/api/leaderboard") {
      const auto game = query_value(full_target, "game").value_or("");
      if (!rules::find_game(game))
        return fail(http::status::bad_request, "api/bad_game", "name a game: ?game=<id>");
      const auto& cfg = server.config();
      const auto since = now_ms() - std::int64_t{cfg.leaderboard_active_days} * 24 * 3'600'000;
      json players = json::array();
      if (ratings)
        for (const auto& r : ratings->leaderboard(game, cfg.leaderboard_min_games, since, 100)) {
          const auto* a = accounts->of_player(r.player);
          if (!a || a->disabled) continue;
          json row = rating_json(r);
          row["name"] = a->name;
          row["rank"] = players.size() + 1;
          players.push_back(std::move(row));
        }
      answer(http::status::ok, json{{"game", game},
                                    {"min_games", cfg.leaderboard_min_games},
                                    {"active_days", cfg.leaderboard_active_days},
                                    {"players", std::move(players)}});
      return true;
    }
    const auto name = query_value(full_target, "name");
    const AccountRow* a = name && name->size() <= 256 ? accounts->of_name(*name) : nullptr;
    if (!a)
      return fail(http::status::not_found, "account/no_such_account", "no account of this name");
    json rated = json::array(), history = json::array(), games = json::array();
    if (ratings)
      for (const auto& r : ratings->all_of(a->player)) rated.push_back(rating_json(r));
    if (Storage* store = server.store()) {
      for (const auto& c : store->rating_history(a->player))
        history.push_back({{"game", c.game},
                           {"room", c.room},
                           {"round", c.round},
                           {"at", c.at_ms},
                           {"rating", rounded(c.rating)},
                           {"deviation", rounded(c.deviation)},
                           {"change", rounded(c.change)}});
      games = games_json(store->games_of(a->player, 100));
    }
    answer(http::status::ok, json{{"name", a->name},
                                  {"player", a->player},
                                  {"created", a->created_ms},
                                  {"ratings", std::move(rated)},
                                  {"history", std::move(history)},
                                  {"games", std::move(games)}});
    return true;
  }
  if (!post && target == "/api/accounts/registration") {
    answer(http::status::ok, json{{"registration", to_string(accounts->registration())}});
    return true;
  }
  if (post && target == "/api/accounts/register") {
    Accounts::Signup s;
    s.name = f.text("name", true).value_or("");
    s.password = f.text("password", true).value_or("");
    s.device = f.text("device").value_or("");
    s.guest_token = f.text("guest_token");
    s.invite = f.text("invite");
    if (!f.bad.empty()) return bad_fields();
    spdlog::info("event=account_register peer={}", peer);
    accounts->register_account(std::move(s), peer, later(http::status::created));
    return true;
  }
  if (post && target == "/api/accounts/login") {
    auto name = f.text("name", true).value_or("");
    auto password = f.text("password", true).value_or("");
    auto device = f.text("device").value_or("");
    if (!f.bad.empty()) return bad_fields();
    accounts->login(name, std::move(password), std::move(device), peer, later(http::status::ok));
    return true;
  }
  if (api) {
    const auto token = bearer(req);
    if (!token)
      return fail(http::status::unauthorized, "account/unauthorized",
                  "send the session's token as 'Authorization: Bearer <token>'");
    if (!post && target == "/api/accounts/me") {
      auto me = accounts->me(*token);
      if (me) {
        const Tournaments* t = server.lobby().tournaments();
        (*me)["organiser"] = t && t->organiser((*me)["player"].get<std::string>());
      }
      answer(http::status::ok, me);
      return true;
    }
    if (post && target == "/api/accounts/logout") {
      const auto it = body.find("everywhere");
      if (it != body.end() && !it->is_boolean())
        return fail(http::status::bad_request, "account/bad_body", "'everywhere' is true or false");
      accounts->logout(*token, it != body.end() && it->get<bool>(), later(http::status::ok));
      return true;
    }
    if (post && target == "/api/accounts/password") {
      auto old_password = f.text("old", true).value_or("");
      auto new_password = f.text("new", true).value_or("");
      if (!f.bad.empty()) return bad_fields();
      accounts->change_password(*token, std::move(old_password), std::move(new_password), peer,
                                later(http::status::ok));
      return true;
    }
    if (post && target == "/api/accounts/sessions/end") {
      const auto id = f.text("id", true).value_or("");
      if (!f.bad.empty()) return bad_fields();
      accounts->end_session(*token, id, later(http::status::ok));
      return true;
    }
    return fail(http::status::not_found, "api/no_such_call", "no such API");
  }

  // The host's calls.
  if (!post && target == "/admin/accounts") {
    answer(http::status::ok, json{{"accounts", accounts->list()},
                                  {"registration", to_string(accounts->registration())}});
    return true;
  }
  if (post && target == "/admin/invites") {
    spdlog::info("event=admin_invite peer={}", peer);
    accounts->invite(later(http::status::created));
    return true;
  }
  if (post && target == "/admin/chat/delete") {
    const auto room = f.text("room", true).value_or("");
    const auto seq = body.find("seq");
    if (!f.bad.empty() || seq == body.end() || !seq->is_number_integer() || room.size() > 64)
      return fail(http::status::bad_request, "admin/bad_body",
                  "send {\"room\": \"<id>\", \"seq\": <the message's seq>}");
    if (!server.lobby().delete_chat(room, seq->get<int>()))
      return fail(http::status::not_found, "admin/no_such_message", "no such message");
    spdlog::info("event=admin_chat_delete room={} seq={} peer={}", room, seq->get<int>(), peer);
    answer(http::status::ok, json{{"deleted", seq->get<int>()}, {"room", room}});
    return true;
  }
  if (post && (target == "/admin/accounts/mute" || target == "/admin/accounts/unmute")) {
    const auto name = f.text("name", true).value_or("");
    if (!f.bad.empty()) return bad_fields();
    spdlog::info("event=admin_account action={} peer={}", target.substr(16), peer);
    accounts->set_muted(name, target.ends_with("/mute"), later(http::status::ok));
    return true;
  }
  if (post && (target == "/admin/accounts/disable" || target == "/admin/accounts/enable" ||
               target == "/admin/accounts/delete")) {
    const auto name = f.text("name", true).value_or("");
    if (!f.bad.empty()) return bad_fields();
    const auto what = target.substr(std::string_view("/admin/accounts/").size());
    spdlog::info("event=admin_account action={} peer={}", what, peer);
    if (what == "delete")
      accounts->remove(name, later(http::status::ok));
    else
      accounts->set_disabled(name, what == "disable", later(http::status::ok));
    return true;
  }
  return fail(http::status::not_found, "admin/no_such_call", "no such admin call");
}

}  // namespace plateau::server
