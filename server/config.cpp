#include "server/config.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <string_view>

#include "server/net/proxy_header.hpp"
#include "server/store/open_store.hpp"

namespace plateau::server {

namespace {

struct Setting {
  const char* flag;
  const char* env;
  const char* help;
  std::function<std::string(Config&, const std::string&)> set;  // returns an error, or ""
  std::function<std::string(const Config&)> show;
};

template <class T>
std::string parse_number(const std::string& text, T& out, T min, T max) {
  T v{};
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v < min || v > max)
    return "expects a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  out = v;
  return "";
}

// A list of address blocks (net/proxy_header.hpp), kept as given once it parses.
std::string set_blocks(std::string& out, const std::string& v) {
  if (const auto blocks = AddressBlocks::parse(v); !blocks) return blocks.error();
  out = v;
  return "";
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> list{
      {"--host", "PLATEAU_HOST", "address to listen on",
       [](Config& c, const std::string& v) {
         c.host = v;
         return std::string();
       },
       [](const Config& c) { return c.host; }},
      {"--port", "PLATEAU_PORT", "TCP port for HTTP and WebSocket",
       [](Config& c, const std::string& v) { return parse_number(v, c.port, 0, 65535); },
       [](const Config& c) { return std::to_string(c.port); }},
      {"--data", "PLATEAU_DATA", "directory of the SQLite store (\"none\": keep nothing)",
       [](Config& c, const std::string& v) {
         c.data = v;
         return std::string();
       },
       [](const Config& c) { return c.data; }},
      {"--store", "PLATEAU_STORE",
       "the store: sqlite:DIR, a shared PostgreSQL (postgres://USER@HOST/DB) or none; wins over "
       "--data [default: sqlite: and --data]",
       [](Config& c, const std::string& v) {
         if (auto err = check_store_spec(v); !err.empty()) return err;
         c.store = v;
         return std::string();
       },
       [](const Config&) { return std::string(); }},
      {"--cluster", "PLATEAU_CLUSTER",
       "cluster mode: the Redis that links the nodes (redis://[:PASSWORD@]HOST:PORT); needs a "
       "postgres:// "
       "--store shared by every node [default: off, one node alone]",
       [](Config& c, const std::string& v) {
         if (!v.starts_with("redis://"))
           return std::string("must be redis://[:PASSWORD@]HOST:PORT");
         c.cluster = v;
         return std::string();
       },
       [](const Config&) { return std::string(); }},
      {"--lease-ms", "PLATEAU_LEASE_MS",
       "cluster mode: a room's lease lasts this long without its node's heartbeat (renewed every "
       "fifth of it); a dead node's rooms move after it",
       [](Config& c, const std::string& v) { return parse_number(v, c.lease_ms, 500, 600'000); },
       [](const Config& c) { return std::to_string(c.lease_ms); }},
      {"--max-held-requests", "PLATEAU_MAX_HELD_REQUESTS",
       "cluster mode: the most requests a client's connection may send while its hello waits for "
       "the read of a player another node made; more are refused (proto/rate_limited)",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.max_held_requests, 1, 10'000);
       },
       [](const Config& c) { return std::to_string(c.max_held_requests); }},
      {"--drain-seconds", "PLATEAU_DRAIN_SECONDS",
       "behind a balancer: after SIGTERM or SIGINT, /healthz answers 503 \"draining\" this long "
       "while the server goes on serving, so the balancer takes it out before it stops; a second "
       "signal stops it at once [default: 0, stop at once]",
       [](Config& c, const std::string& v) { return parse_number(v, c.drain_seconds, 0, 300); },
       [](const Config& c) { return std::to_string(c.drain_seconds); }},
      {"--log-level", "PLATEAU_LOG_LEVEL", "trace, debug, info, warn, error or off",
       [](Config& c, const std::string& v) {
         for (const char* l : {"trace", "debug", "info", "warn", "error", "off"})
           if (v == l) {
             c.log_level = v;
             return std::string();
           }
         return std::string("expects trace, debug, info, warn, error or off");
       },
       [](const Config& c) { return c.log_level; }},
      {"--log-json", "PLATEAU_LOG_JSON", "log one JSON object a line (true/false)",
       [](Config& c, const std::string& v) {
         if (v != "true" && v != "false" && v != "1" && v != "0")
           return std::string("expects true or false");
         c.log_json = v == "true" || v == "1";
         return std::string();
       },
       [](const Config& c) { return std::string(c.log_json ? "true" : "false"); }},
      {"--web-root", "PLATEAU_WEB_ROOT", "directory of the browser client's files",
       [](Config& c, const std::string& v) {
         c.web_root = v;
         return std::string();
       },
       [](const Config& c) { return c.web_root; }},
      {"--max-rooms", "PLATEAU_MAX_ROOMS", "rooms held in memory at most",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_rooms, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_rooms); }},
      {"--max-connections", "PLATEAU_MAX_CONNECTIONS", "open connections at most",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_connections, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_connections); }},
      {"--max-per-ip", "PLATEAU_MAX_PER_IP", "open connections from one address at most",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_per_ip, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_per_ip); }},
      {"--proxy-protocol-from", "PLATEAU_PROXY_PROTOCOL_FROM",
       "balancers in front (addresses or blocks, comma-separated, e.g. 10.0.0.0/8): their "
       "connections must open with a PROXY protocol header (v1 or v2, HAProxy's send-proxy-v2), "
       "and count against every per-address limit as the client it names [default: none]",
       [](Config& c, const std::string& v) { return set_blocks(c.proxy_protocol_from, v); },
       [](const Config& c) { return c.proxy_protocol_from; }},
      {"--forwarded-for-from", "PLATEAU_FORWARDED_FOR_FROM",
       "reverse proxies in front (addresses or blocks, comma-separated, e.g. 127.0.0.1): a "
       "request from them counts against every per-address limit as the client their "
       "X-Forwarded-For names [default: none, the header is never read]",
       [](Config& c, const std::string& v) { return set_blocks(c.forwarded_for_from, v); },
       [](const Config& c) { return c.forwarded_for_from; }},
      {"--max-frame", "PLATEAU_MAX_FRAME", "largest WebSocket message in bytes",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_frame, 256, 16 << 20);
       },
       [](const Config& c) { return std::to_string(c.max_frame); }},
      {"--rate", "PLATEAU_RATE", "messages per second a connection may send (bursts of twice that)",
       [](Config& c, const std::string& v) { return parse_number(v, c.rate, 1, 100'000); },
       [](const Config& c) { return std::to_string(c.rate); }},
      {"--grace", "PLATEAU_GRACE", "seconds a dropped player still shows as connected",
       [](Config& c, const std::string& v) { return parse_number(v, c.grace_seconds, 0, 86'400); },
       [](const Config& c) { return std::to_string(c.grace_seconds); }},
      {"--idle-timeout", "PLATEAU_IDLE_TIMEOUT",
       "seconds a silent WebSocket lasts: pinged at half, dropped at the end if it never answered",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.idle_timeout_seconds, 2, 86'400);
       },
       [](const Config& c) { return std::to_string(c.idle_timeout_seconds); }},
      {"--max-rooms-per-player", "PLATEAU_MAX_ROOMS_PER_PLAYER",
       "open rooms (not over, not closed) one player may have created",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_rooms_per_player, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_rooms_per_player); }},
      {"--creates-per-minute", "PLATEAU_CREATES_PER_MINUTE",
       "rooms one address may create in any minute",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.creates_per_minute, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.creates_per_minute); }},
      {"--unload-after", "PLATEAU_UNLOAD_AFTER",
       "seconds a game's players may all be away before it leaves memory (it comes back when asked "
       "for)",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.unload_after_seconds, 1, 100'000'000);
       },
       [](const Config& c) { return std::to_string(c.unload_after_seconds); }},
      {"--new-players-per-minute", "PLATEAU_NEW_PLAYERS_PER_MINUTE",
       "new players (hello without a known token) one address may make in any minute",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.new_players_per_minute, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.new_players_per_minute); }},
      {"--forget-players-after", "PLATEAU_FORGET_PLAYERS_AFTER",
       "hours after which a player who never took a seat is forgotten",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.forget_players_after_hours, 1, 1'000'000);
       },
       [](const Config& c) { return std::to_string(c.forget_players_after_hours); }},
      {"--rooms-page", "PLATEAU_ROOMS_PAGE", "rooms in a `rooms` reply that asks for no limit",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.rooms_page, 1, 500);
       },
       [](const Config& c) { return std::to_string(c.rooms_page); }},
      {"--rooms-page-max", "PLATEAU_ROOMS_PAGE_MAX",
       "the most rooms a `rooms` reply holds (a larger limit is cut)",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.rooms_page_max, 1, 500);
       },
       [](const Config& c) { return std::to_string(c.rooms_page_max); }},
      {"--max-spectators", "PLATEAU_MAX_SPECTATORS", "spectators one room may hold",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_spectators, 1, 10'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_spectators); }},
      {"--max-bot-games", "PLATEAU_MAX_BOT_GAMES",
       "games with a bot (not over) the server plays at once; 0: no bots",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_bot_games, 0, 1'000'000);
       },
       [](const Config& c) { return std::to_string(c.max_bot_games); }},
      {"--bot-think-ms", "PLATEAU_BOT_THINK_MS",
       "the longest a bot thinks about one move, in milliseconds (caps every level)",
       [](Config& c, const std::string& v) { return parse_number(v, c.bot_think_ms, 1, 60'000); },
       [](const Config& c) { return std::to_string(c.bot_think_ms); }},
      {"--max-lag-credit-ms", "PLATEAU_MAX_LAG_CREDIT_MS",
       "the most of a move's time a live clock forgives as network lag, in milliseconds",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.max_lag_credit_ms, 0, 5'000);
       },
       [](const Config& c) { return std::to_string(c.max_lag_credit_ms); }},
      {"--gone-seconds", "PLATEAU_GONE_SECONDS",
       "seconds the player to move may be away before another may claim the win (or drop them)",
       [](Config& c, const std::string& v) { return parse_number(v, c.gone_seconds, 10, 86'400); },
       [](const Config& c) { return std::to_string(c.gone_seconds); }},
      {"--workers", "PLATEAU_WORKERS",
       "threads for bots' thinking and other slow work; 0: one per core but the loop's",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.workers, 0, 256);
       },
       [](const Config& c) { return std::to_string(c.workers); }},
      {"--registration", "PLATEAU_REGISTRATION",
       "who may open an account: open, invite (with a link the admin makes) or closed",
       [](Config& c, const std::string& v) {
         if (v != "open" && v != "invite" && v != "closed")
           return std::string("expects open, invite or closed");
         c.registration = v;
         return std::string();
       },
       [](const Config& c) { return c.registration; }},
      {"--password-memory-kib", "PLATEAU_PASSWORD_MEMORY_KIB",
       "memory each password hash takes (Argon2id), in KiB",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.password_memory_kib, 8, 4 * 1024 * 1024);
       },
       [](const Config& c) { return std::to_string(c.password_memory_kib); }},
      {"--password-ops", "PLATEAU_PASSWORD_OPS", "passes of each password hash (Argon2id)",
       [](Config& c, const std::string& v) { return parse_number(v, c.password_ops, 1, 100); },
       [](const Config& c) { return std::to_string(c.password_ops); }},
      {"--logins-per-minute", "PLATEAU_LOGINS_PER_MINUTE",
       "logins and password changes one address may try a minute",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.logins_per_minute, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.logins_per_minute); }},
      {"--registrations-per-minute", "PLATEAU_REGISTRATIONS_PER_MINUTE",
       "accounts one address may open a minute",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.registrations_per_minute, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.registrations_per_minute); }},
      {"--max-sessions", "PLATEAU_MAX_SESSIONS",
       "devices one account may have signed in (one more signs the oldest out)",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_sessions, 1, 1000);
       },
       [](const Config& c) { return std::to_string(c.max_sessions); }},
      {"--max-password-jobs", "PLATEAU_MAX_PASSWORD_JOBS",
       "passwords hashed at once (each takes --password-memory-kib); more are refused",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_password_jobs, 1, 256);
       },
       [](const Config& c) { return std::to_string(c.max_password_jobs); }},
      {"--chat", "PLATEAU_CHAT",
       "on: tables may have a chat (each table chooses); off: no chat anywhere",
       [](Config& c, const std::string& v) {
         if (v != "on" && v != "off") return std::string("expects on or off");
         c.chat = v == "on";
         return std::string();
       },
       [](const Config& c) { return std::string(c.chat ? "on" : "off"); }},
      {"--chat-per-minute", "PLATEAU_CHAT_PER_MINUTE",
       "chat messages one person may send a minute (in bursts of as many)",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.chat_per_minute, 1, 10'000);
       },
       [](const Config& c) { return std::to_string(c.chat_per_minute); }},
      {"--chat-max-messages", "PLATEAU_CHAT_MAX_MESSAGES", "messages one table's chat holds",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.chat_max_messages, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.chat_max_messages); }},
      {"--chat-max-chars", "PLATEAU_CHAT_MAX_CHARS", "characters of one chat message",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.chat_max_chars, 1, 2000);
       },
       [](const Config& c) { return std::to_string(c.chat_max_chars); }},
      {"--tournament-max-players", "PLATEAU_TOURNAMENT_MAX_PLAYERS", "players one tournament takes",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.tournament_max_players, 2, 10'000);
       },
       [](const Config& c) { return std::to_string(c.tournament_max_players); }},
      {"--tournament-max-open", "PLATEAU_TOURNAMENT_MAX_OPEN",
       "tournaments the server holds that are not yet finished or cancelled",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.tournament_max_open, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.tournament_max_open); }},
      {"--tournament-max-rounds", "PLATEAU_TOURNAMENT_MAX_ROUNDS",
       "rounds a Swiss or a tournament by score may have",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.tournament_max_rounds, 1, 1000);
       },
       [](const Config& c) { return std::to_string(c.tournament_max_rounds); }},
      {"--leaderboard-min-games", "PLATEAU_LEADERBOARD_MIN_GAMES",
       "rated games of a game a player needs to appear on its leaderboard",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.leaderboard_min_games, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.leaderboard_min_games); }},
      {"--leaderboard-active-days", "PLATEAU_LEADERBOARD_ACTIVE_DAYS",
       "days since a player's last rated game of a game, past which its leaderboard leaves them "
       "out",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.leaderboard_active_days, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.leaderboard_active_days); }},
      {"--message-timeout", "PLATEAU_MESSAGE_TIMEOUT",
       "seconds a WebSocket message may take to arrive whole, once begun",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.message_timeout_seconds, 1, 86'400);
       },
       [](const Config& c) { return std::to_string(c.message_timeout_seconds); }},
      {"--max-connection-queue", "PLATEAU_MAX_CONNECTION_QUEUE",
       "bytes waiting to be sent to one connection before it is dropped as too slow",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_connection_queue, 64 * 1024,
                                          std::size_t{1} << 34);
       },
       [](const Config& c) { return std::to_string(c.max_connection_queue); }},
      {"--max-queued-bytes", "PLATEAU_MAX_QUEUED_BYTES",
       "bytes waiting to be sent to all connections together; past it the slowest readers are "
       "dropped",
       [](Config& c, const std::string& v) {
         return parse_number<std::size_t>(v, c.max_queued_bytes, 64 * 1024, std::size_t{1} << 40);
       },
       [](const Config& c) { return std::to_string(c.max_queued_bytes); }},
      {"--admin-token", "PLATEAU_ADMIN_TOKEN", "token for the admin HTTP API (unset: API off)",
       [](Config& c, const std::string& v) {
         c.admin_token = v;
         return std::string();
       },
       [](const Config& c) { return std::string(c.admin_token.empty() ? "" : "(set)"); }},
      {"--tls-cert", "PLATEAU_TLS_CERT",
       "PEM certificate chain: serve HTTPS and wss:// on --port (with --tls-key)",
       [](Config& c, const std::string& v) {
         c.tls_cert = v;
         return std::string();
       },
       [](const Config& c) { return c.tls_cert; }},
      {"--tls-key", "PLATEAU_TLS_KEY", "PEM private key of --tls-cert, not encrypted",
       [](Config& c, const std::string& v) {
         c.tls_key = v;
         return std::string();
       },
       [](const Config& c) { return c.tls_key; }},
      {"--allowed-origins", "PLATEAU_ALLOWED_ORIGINS",
       "other sites whose pages may open /ws, comma-separated (https://club.example.org), or *; "
       "the server's own pages always may",
       [](Config& c, const std::string& v) -> std::string {
         c.allowed_origins.clear();
         std::size_t start = 0;
         while (start <= v.size()) {
           const auto comma = std::min(v.find(',', start), v.size());
           std::string o = v.substr(start, comma - start);
           while (!o.empty() && o.front() == ' ') o.erase(0, 1);
           while (!o.empty() && (o.back() == ' ' || o.back() == '/')) o.pop_back();
           if (!o.empty() && o != "*" && !o.starts_with("http://") && !o.starts_with("https://"))
             return "expects origins such as https://club.example.org, or *";
           if (!o.empty()) c.allowed_origins.push_back(o);
           start = comma + 1;
         }
         return std::string();
       },
       [](const Config& c) {
         std::string out;
         for (const auto& o : c.allowed_origins) out += (out.empty() ? "" : ",") + o;
         return out;
       }},
      {"--imports-per-minute", "PLATEAU_IMPORTS_PER_MINUTE",
       "game records one address may import a minute",
       [](Config& c, const std::string& v) {
         return parse_number(v, c.imports_per_minute, 1, 100'000);
       },
       [](const Config& c) { return std::to_string(c.imports_per_minute); }},
  };
  return list;
}

}  // namespace

std::string usage() {
  const Config defaults;
  std::string out =
      "Usage: plateau-server [flags]\n"
      "       plateau-server migrate --from sqlite:DIR --to postgres://... (or back)\n"
      "Plateau: an authoritative server for six abstract board games.\n\n"
      "Every flag can also be set by its environment variable; a flag wins.\n\n";
  // Columns as wide as the longest flag and variable, and a space more.
  std::size_t flag_width = 0, env_width = 0;
  for (const auto& s : settings()) {
    flag_width = std::max(flag_width, std::string_view(s.flag).size() + 9);  // "  " + " VALUE "
    env_width = std::max(env_width, std::string_view(s.env).size() + 1);
  }
  for (const auto& s : settings()) {
    std::string left = std::string("  ") + s.flag + " VALUE";
    left.resize(flag_width, ' ');
    std::string env = s.env;
    env.resize(env_width, ' ');
    out += left + env + s.help;
    const auto d = s.show(defaults);
    out += d.empty() ? "\n" : " [default: " + d + "]\n";
  }
  std::string help = "  --help";
  help.resize(flag_width, ' ');
  out += help + "show this text\n";
  return out;
}

std::expected<Config, std::string> parse_config(const std::vector<std::string>& args,
                                                const char* (*env)(const char*)) {
  Config c;
  for (const auto& s : settings())
    if (const char* v = env ? env(s.env) : nullptr; v && *v)
      if (auto err = s.set(c, v); !err.empty())
        return std::unexpected(std::string(s.env) + " " + err);
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h") {
      c.help = true;
      continue;
    }
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    const Setting* found = nullptr;
    for (const auto& s : settings())
      if (arg == s.flag) found = &s;
    if (!found) return std::unexpected("unknown flag " + arg + " (see --help)");
    if (!has_value) {
      if (i + 1 >= args.size()) return std::unexpected(arg + " needs a value");
      value = args[++i];
    }
    if (auto err = found->set(c, value); !err.empty()) return std::unexpected(arg + " " + err);
  }
  // One name for the store from here on; `data` stays the SQLite folder (or "none").
  if (c.store.empty())
    c.store = c.data == "none" ? "none" : "sqlite:" + c.data;
  else if (c.store == "none")
    c.data = "none";
  else if (c.store.starts_with("sqlite:"))
    c.data = c.store.substr(7);
  if (!c.cluster.empty() && !c.store.starts_with("postgres"))
    return std::unexpected("--cluster needs a --store postgres://... that every node shares");
  if (c.rooms_page > c.rooms_page_max)
    return std::unexpected("--rooms-page is larger than --rooms-page-max");
  if (c.tls_cert.empty() != c.tls_key.empty())
    return std::unexpected("--tls-cert and --tls-key go together");
  return c;
}

}  // namespace plateau::server
