#include "server/net/metrics.hpp"

#include <map>
#include <utility>

#include "server/net/net.hpp"
#include "server/store/storage.hpp"

namespace plateau::server {

std::string metrics_text(Server& server) {
  PromText m;
  const NetStats& net = server.stats();
  Lobby& lobby = server.lobby();
  m.gauge("plateau_connections", "Open WebSocket connections.", net.connections);
  m.counter("plateau_connections_total", "WebSocket connections accepted.", net.connections_total);
  std::map<std::pair<std::string, std::string>, int> rooms;
  for (const auto& [id, room] : lobby.rooms())
    ++rooms[{std::string(room->game().id()), std::string(protocol::status_string(room->status()))}];
  m.family("plateau_rooms", "Rooms in memory by game and status.", "gauge");
  for (const rules::Game* g : rules::all_games())
    for (const char* st : {"waiting", "playing", "over"})
      m.labelled("plateau_rooms", "game=\"" + std::string(g->id()) + "\",status=\"" + st + "\"",
                 rooms[{std::string(g->id()), st}]);
  const auto& c = lobby.counters();
  m.counter("plateau_moves_accepted_total", "Moves accepted.", c.moves_accepted);
  const BotHouse& bots = lobby.bots();
  m.gauge("plateau_bot_games", "Rooms in memory with a bot and a game not over.",
          lobby.bot_games());
  m.counter("plateau_bot_moves_total", "Moves the bots made (among the accepted).", bots.moves);
  m.counter("plateau_bot_searches_total", "Bots' searches finished.", bots.thoughts);
  m.counter("plateau_bot_think_seconds_total", "Time the bots spent searching.",
            static_cast<double>(bots.think_us) / 1e6);
  m.counter("plateau_bot_failures_total", "Bots' searches that failed, or moves refused.",
            bots.failures);
  m.gauge("plateau_bot_jobs_pending", "Searches given to the workers and not back yet.",
          bots.background ? bots.background->pending() : 0);
  m.family("plateau_refused_total", "Requests refused, by error code.", "counter");
  for (const auto& [code, n] : c.refused)
    m.labelled("plateau_refused_total", "code=\"" + code + "\"", n);
  lobby.move_latency().write(
      m.stream(), "plateau_move_broadcast_seconds",
      "From a move's arrival to its patches going out, its durable commit included.");
  net.lag.write(m.stream(), "plateau_client_lag_seconds",
                "Each pong's one-way lag (half its ping's round trip), as live clocks credit it.");
  m.counter("plateau_broadcast_bytes_total", "Bytes of frames written to clients.", net.bytes_out);
  m.counter("plateau_frames_out_total", "Frames written to clients.", net.frames_out);
  m.counter("plateau_slow_readers_dropped_total", "Connections dropped for not reading.",
            net.dropped_slow);
  m.gauge("plateau_open_sockets", "Open connections of every kind, HTTP and WebSocket.",
          server.open_connections());
  m.family("plateau_connections_refused_total", "Sockets closed at accept, by the limit they hit.",
           "counter");
  m.labelled("plateau_connections_refused_total", "limit=\"max_connections\"",
             net.refused_max_connections);
  m.labelled("plateau_connections_refused_total", "limit=\"max_per_ip\"", net.refused_max_per_ip);
  m.counter("plateau_accept_failures_total",
            "Accepts that failed for want of file descriptors or memory.",
            server.accept_failures());
  m.counter("plateau_proxy_headers_refused_total",
            "Connections from a --proxy-protocol-from balancer closed for a missing, malformed or "
            "late PROXY header.",
            server.proxy_headers_refused());
  m.counter("plateau_health_answers_at_door_total",
            "/healthz requests answered by the front door, off the event loop.",
            server.health_answers_at_door());
  m.gauge("plateau_queued_bytes", "Bytes queued for all connections together.", net.queued_bytes);
  m.gauge("plateau_connection_queue_peak_bytes", "The most bytes one connection has had queued.",
          net.queue_peak);
  m.counter("plateau_over_budget_dropped_total",
            "Connections dropped when all queues together reached --max-queued-bytes.",
            net.dropped_over_budget);
  m.counter("plateau_too_large_total", "WebSocket messages refused for their size.", net.too_large);
  m.counter("plateau_unfinished_dropped_total",
            "Connections dropped for a message left unfinished.", net.dropped_unfinished);
  m.counter("plateau_internal_errors_total", "Exceptions caught in a handler.",
            net.internal_errors);
  m.gauge("plateau_recovery_seconds", "Time taken to rebuild rooms at start.",
          net.recovery_seconds);
  m.gauge("plateau_rooms_recovered", "Rooms rebuilt at start.", net.rooms_recovered);
  m.gauge("plateau_rooms_quarantined", "Rooms whose log disagreed with the rules at start.",
          net.rooms_quarantined);
  if (Storage* store = server.store()) {
    const auto& s = store->stats();
    s.queued.write(m.stream(), "plateau_store_queue_seconds",
                   "From a write's arrival at the store to the start of the commit that holds it.");
    s.commit.write(m.stream(), "plateau_store_commit_seconds",
                   "Store commit latency (one commit holds many writes).");
    s.returned.write(m.stream(), "plateau_store_return_seconds",
                     "From a commit's end to its moves' broadcast starting on the rooms' thread.");
    m.counter("plateau_store_writes_total", "Writes committed.", s.writes);
    m.counter("plateau_store_checkpoints_total",
              "Checkpoint passes copying the WAL into the database.", s.checkpoints);
    m.counter("plateau_store_wal_restarts_total",
              "Times the store copied all of a WAL past its threshold, to start it over.",
              s.restarts);
  }
  if (server.router().metrics) server.router().metrics(m);
  return m.str();
}

}  // namespace plateau::server
