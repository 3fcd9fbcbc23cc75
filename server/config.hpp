// Server settings: every flag can also be set by an environment variable (PLATEAU_PORT, ...);
// a flag wins over the environment, which wins over the default.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

namespace plateau::server {

struct Config {
  std::string host = "0.0.0.0";
  int port = 8080;
  std::string data = "./data";  // directory of the SQLite store; "none" keeps nothing
  // The store (open_store.hpp): sqlite:DIR, postgres://..., or none. Given, it wins over
  // `data`; not given, it is sqlite:DATA (or none). After parsing, always set.
  std::string store;
  std::string cluster;   // redis://HOST:PORT: cluster mode (server/cluster/node.hpp); "": alone
  int lease_ms = 5'000;  // cluster mode: a room's lease, renewed every fifth of it
  int max_held_requests = 64;  // cluster mode: requests held behind a hello's player read
  int drain_seconds = 0;       // after SIGTERM: /healthz says "draining" this long before the stop
  std::string log_level = "info";
  bool log_json = false;
  std::string web_root;  // the browser client's files; default: built in at compile time
  std::size_t max_rooms = 10'000;
  std::size_t max_connections = 20'000;  // every accepted socket counts, HTTP or WebSocket
  std::size_t max_per_ip = 256;  // open connections from one address (a club behind one NAT)
  // Balancers (addresses and blocks, comma-separated) whose connections open with a PROXY
  // protocol header naming the client (net/proxy_header.hpp); "": none, no header read.
  std::string proxy_protocol_from;
  // Reverse proxies (addresses and blocks) whose X-Forwarded-For names the client; "": none.
  std::string forwarded_for_from;
  std::size_t max_frame = 64 * 1024;
  int rate = 50;           // messages per second a connection may send (burst: twice that)
  int grace_seconds = 10;  // a dropped player's seat shows them connected this long
  int idle_timeout_seconds =
      300;  // a silent connection is pinged at half this, dropped at all of it
  // Limits that hold under abuse (README, "Limits").
  std::size_t max_rooms_per_player = 20;  // open rooms (not over, not closed) one player created
  std::size_t creates_per_minute = 10;    // rooms one address may create in any minute
  int unload_after_seconds = 600;  // a game whose players are all away this long leaves memory
  std::size_t new_players_per_minute = 30;  // new identities one address may take in any minute
  int forget_players_after_hours = 24;      // a player who never sat is forgotten this long after
  std::size_t rooms_page = 50;              // rooms in a `rooms` reply that asks for no limit
  std::size_t rooms_page_max = 200;         // the most a `rooms` reply holds
  std::size_t max_spectators = 10'000;      // spectators one room may hold
  std::size_t max_bot_games = 100;          // rooms with a bot and a game not over, in memory
  int bot_think_ms = 2000;                  // the longest a bot searches for one move
  int max_lag_credit_ms = 500;  // the most of a move's time a clock forgives as network lag
  int gone_seconds = 60;        // the player to move, away this long, may be claimed against
  std::size_t workers = 0;      // threads for bots and slow work; 0: cores − 1
  int message_timeout_seconds =
      30;  // a WebSocket message begun and not finished this long ends its connection
  std::size_t max_connection_queue = 8
                                     << 20;  // bytes queued for one connection before it is dropped
  std::size_t max_queued_bytes = std::size_t{512}
                                 << 20;  // bytes queued for all connections together
  std::string admin_token;
  std::string tls_cert;
  std::string tls_key;
  // Pages of other sites whose scripts may open a WebSocket here, as origins
  // ("https://club.example.org"); "*" for any. The server's own pages always may.
  std::vector<std::string> allowed_origins;
  int imports_per_minute = 10;  // records one address may import a minute (with the admin token)
  // Accounts (issue 46).
  std::string registration = "open";         // who may open an account: open, invite or closed
  std::size_t password_memory_kib = 65536;   // Argon2id's memory per hash (64 MiB)
  int password_ops = 2;                      // Argon2id's passes
  int logins_per_minute = 10;                // logins (and password changes) per address
  int registrations_per_minute = 3;          // accounts opened per address
  std::size_t max_sessions = 20;             // devices signed in per account
  std::size_t max_password_jobs = 4;         // passwords hashed at once
  bool chat = true;                          // tables may have a chat
  int chat_per_minute = 20;                  // chat messages one person may send a minute
  std::size_t chat_max_messages = 500;       // messages one table's chat holds
  std::size_t chat_max_chars = 500;          // characters of one chat message
  int leaderboard_min_games = 5;             // rated games a player needs to be on a leaderboard
  int leaderboard_active_days = 90;          // ... the last of them this recent
  std::size_t tournament_max_players = 128;  // players one tournament takes
  std::size_t tournament_max_open = 200;     // tournaments not yet finished or cancelled
  int tournament_max_rounds = 30;            // rounds of a Swiss or a tournament by score
  bool help = false;
};

// The flags, their variables and defaults, for --help and the README.
std::string usage();
// Parses argv and the environment (`env` returns nullptr when a variable is unset).
std::expected<Config, std::string> parse_config(const std::vector<std::string>& args,
                                                const char* (*env)(const char*));

}  // namespace plateau::server
