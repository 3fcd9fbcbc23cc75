// plateau-server: opens the store, rebuilds every unfinished room, and serves until SIGINT/SIGTERM.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "server/cluster/node.hpp"
#include "server/cluster/noticed_stores.hpp"
#include "server/config.hpp"
#include "server/net/http_api.hpp"
#include "server/net/net.hpp"
#include "server/net/workers.hpp"
#include "server/rooms/lobby.hpp"
#include "server/secure_random.hpp"
#include "server/store/open_store.hpp"
#include "server/store/pg_store.hpp"

using namespace plateau::server;

namespace {

void setup_logging(const Config& config) {
  auto logger = spdlog::stdout_color_mt("plateau");
  if (config.log_json)
    logger->set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%e","level":"%l","msg":"%v"})");
  else
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e level=%l %v");
  logger->set_level(spdlog::level::from_str(config.log_level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

// plateau-server migrate --from sqlite:DIR --to postgres://... (or back): copies a stopped
// server's whole store into another, empty one.
int migrate(const std::vector<std::string>& args) {
  std::string from, to;
  for (std::size_t i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] == "--from")
      from = args[i + 1];
    else if (args[i] == "--to")
      to = args[i + 1];
  }
  if (from.empty() || to.empty() || args.size() != 5) {
    std::cerr << "usage: plateau-server migrate --from sqlite:DIR --to postgres://... (or back)\n";
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto copied = migrate_store(from, to);
  if (!copied) {
    std::cerr << "plateau-server migrate: " << copied.error() << "\n";
    return 1;
  }
  std::int64_t rows = 0;
  for (const auto& [table, n] : *copied) {
    std::cout << table << ": " << n << "\n";
    rows += n;
  }
  std::cout << "copied " << rows << " rows from " << shown_store_spec(from) << " to "
            << shown_store_spec(to) << " in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
            << " s\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "migrate") return migrate(args);
  auto parsed =
      parse_config(args, [](const char* name) -> const char* { return std::getenv(name); });
  if (!parsed) {
    std::cerr << "plateau-server: " << parsed.error() << "\n";
    return 2;
  }
  Config config = std::move(*parsed);
  if (config.help) {
    std::cout << usage();
    return 0;
  }
  setup_logging(config);
  // Every connection is a file descriptor: take all the hard limit allows.
  if (rlimit lim{}; getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  // Loaded before anything else, so that a bad certificate stops the server at once, not after
  // the store has rebuilt every room. Declared before the io_context: connections still open
  // when it is destroyed use it.
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (!config.tls_cert.empty()) {
    auto loaded = load_tls_context(config.tls_cert, config.tls_key);
    if (!loaded) {
      spdlog::critical("event=tls_failed cert=\"{}\" key=\"{}\" error=\"{}\"", config.tls_cert,
                       config.tls_key, loaded.error());
      return 1;
    }
    tls = std::move(*loaded);
  }

  boost::asio::io_context ioc(1);

  std::unique_ptr<Storage> storage;
  NullStore null_store;
  Store* store = &null_store;
  if (config.store != "none") {
    auto opened = open_store(
        config.store, [&ioc](std::function<void()> f) { boost::asio::post(ioc, std::move(f)); });
    if (!opened) {
      spdlog::critical("event=store_open_failed error=\"{}\"", opened.error());
      return 1;
    }
    storage = std::move(*opened);
    store = storage.get();
  }
  const Millis idle_room_ms = 30 * 60'000;
  // Every token, id, seed and salt comes from the kernel's CSPRNG.
  Lobby lobby(
      *store, secure_random_u64,
      LobbyLimits{
          .max_rooms = config.max_rooms,
          .idle_room_ms = idle_room_ms,
          .grace_ms = static_cast<Millis>(config.grace_seconds) * 1000,
          .keep = {},
          .max_rooms_per_player = config.max_rooms_per_player,
          .creates_per_minute = config.creates_per_minute,
          // A store that keeps nothing could not give an unloaded game back.
          .unload_after_ms = storage ? static_cast<Millis>(config.unload_after_seconds) * 1000 : 0,
          .new_players_per_minute = config.new_players_per_minute,
          .forget_players_ms = static_cast<Millis>(config.forget_players_after_hours) * 3'600'000,
          .rooms_page = config.rooms_page,
          .rooms_page_max = config.rooms_page_max,
          .max_spectators = config.max_spectators,
          .max_bot_games = config.max_bot_games,
          .max_lag_credit_ms = config.max_lag_credit_ms,
          .gone_ms = static_cast<Millis>(config.gone_seconds) * 1000,
          .chat = config.chat,
          .chat_per_minute = static_cast<double>(config.chat_per_minute),
          .max_chat = config.chat_max_messages,
          .chat_chars = config.chat_max_chars});
  // Accounts: their passwords are hashed on the workers below (declared after, so that the
  // hashes still running end before the accounts do).
  // Cluster mode: this node fences its writes, relays requests for rooms held elsewhere, loads
  // a room only once it holds its lease (so it rebuilds none at start), and tells the others
  // what its accounts and ratings wrote (cluster/noticed_stores.hpp).
  std::shared_ptr<cluster::Node> node;
  std::optional<cluster::NoticedAccountStore> noticed_accounts;
  std::optional<cluster::NoticedRatingStore> noticed_ratings;
  std::optional<cluster::NoticedTournamentStore> noticed_tournaments;
  if (!config.cluster.empty()) {
    auto* pg = dynamic_cast<PgStore*>(storage.get());
    const auto redis = redis::parse_uri(config.cluster);
    if (!pg || !redis) {
      spdlog::critical(
          "event=cluster_failed error=\"--cluster needs redis://[:PASSWORD@]HOST:PORT and a "
          "postgres:// store\"");
      return 1;
    }
    node = cluster::Node::make(ioc, *pg, lobby,
                               cluster::NodeOptions{.redis = *redis,
                                                    .lease_ms = config.lease_ms,
                                                    .max_frame = config.max_frame,
                                                    .max_held_requests = static_cast<std::size_t>(
                                                        config.max_held_requests)});
    const auto tell = [&node](std::string notice) { node->tell(std::move(notice)); };
    noticed_accounts.emplace(*storage, tell);
    noticed_ratings.emplace(*storage, tell);
    noticed_tournaments.emplace(*storage, tell);
  }
  NullAccountStore null_accounts;
  AccountStore& account_store = noticed_accounts ? static_cast<AccountStore&>(*noticed_accounts)
                                : storage        ? static_cast<AccountStore&>(*storage)
                                                 : null_accounts;
  std::unique_ptr<Accounts> accounts;
  // The bots think here, off the loop; declared after the lobby, so it goes first and the
  // searches still running end before any room does.
  Workers workers(ioc, config.workers > 0 ? config.workers : Workers::default_threads());
  accounts = std::make_unique<Accounts>(
      account_store, workers, secure_random_u64,
      AccountLimits{
          .registration = *registration_named(config.registration),
          .cost = {static_cast<unsigned long long>(config.password_ops),
                   config.password_memory_kib},
          .logins_per_minute = static_cast<double>(config.logins_per_minute),
          .registrations_per_minute = static_cast<double>(config.registrations_per_minute),
          .max_sessions = config.max_sessions,
          .max_hashing = config.max_password_jobs},
      [] { return now_ms(); });
  lobby.use_accounts(*accounts);
  NullRatingStore null_ratings;
  Ratings ratings(noticed_ratings ? static_cast<RatingStore&>(*noticed_ratings)
                  : storage       ? static_cast<RatingStore&>(*storage)
                                  : null_ratings);
  lobby.use_ratings(ratings);
  // Tournaments: their tables are the lobby's rooms, with each seat reserved for its player.
  NullTournamentStore null_tournaments;
  Tournaments& tournaments = lobby.make_tournaments(
      noticed_tournaments ? static_cast<TournamentStore&>(*noticed_tournaments)
      : storage           ? static_cast<TournamentStore&>(*storage)
                          : null_tournaments,
      [&storage](const std::string& room) -> std::optional<nlohmann::json> {
        if (!storage) return std::nullopt;
        const auto record = storage->read_record(room, 1);
        if (!record || !*record || (*record)->result.is_null()) return std::nullopt;
        return (*record)->result;
      },
      TournamentLimits{.max_players = config.tournament_max_players,
                       .max_events = config.tournament_max_open,
                       .max_rounds = config.tournament_max_rounds});
  // With --max-bot-games 0 nobody seats a bot, but an easy one still plays on for a player who
  // leaves a game of three or four (and a game with bots under way at a restart goes on).
  lobby.use_bots(workers, std::chrono::milliseconds(config.bot_think_ms), config.max_bot_games > 0);
  Server server(config, ioc, lobby, storage.get(), tls);
  if (node) {
    node->start(accounts.get(), &ratings);
    server.use_router(Server::Router{
        .route = [&node](
                     const std::shared_ptr<Connection>& c, const std::string& frame,
                     plateau::protocol::Request req) { node->handle(c, frame, std::move(req)); },
        .left = [&node](Connection* c) { node->closed(c); },
        .metrics = [&node](PromText& m) { node->write_metrics(m); }});
  }

  if (storage) {
    const auto t0 = std::chrono::steady_clock::now();
    // A room whose game ended before the restart comes back too while its players could still
    // be at the table, as long as the lobby would have kept it had the server stayed up.
    auto loaded = storage->load(now_ms() - idle_room_ms);
    if (!loaded) {
      spdlog::critical("event=store_load_failed error=\"{}\"", loaded.error());
      return 1;
    }
    // The rebuilt rooms were last active now, as far as closing idle ones goes: before its
    // first tick the lobby's clock reads 0, and every table still waiting for players would be
    // closed as idle for 56 years at the first tick after the start.
    lobby.tick(now_ms());
    auto loaded_accounts = storage->load_accounts();
    if (!loaded_accounts) {
      spdlog::critical("event=store_load_failed error=\"{}\"", loaded_accounts.error());
      return 1;
    }
    accounts->restore(*loaded_accounts);
    auto loaded_ratings = storage->load_ratings();
    auto unrated = storage->unrated_games();
    if (!loaded_ratings || !unrated) {
      spdlog::critical("event=store_load_failed error=\"{}\"",
                       loaded_ratings ? unrated.error() : loaded_ratings.error());
      return 1;
    }
    ratings.restore(*loaded_ratings);
    // A rated game that ended just before a stop, its ratings not yet written, is rated now.
    for (const auto& g : *unrated) {
      std::vector<std::string> players;
      for (const auto& p : g.players)
        if (p && accounts->of_player(*p)) players.push_back(*p);
      if (players.size() != g.players.size()) continue;
      ratings.rate(g.game, g.room, g.round, players, g.outcome, g.finished_ms);
      spdlog::info("event=rated_at_start room={} round={}", g.room, g.round);
    }
    // The events before the rooms, so that tournament tables come back with reserved seats.
    auto loaded_tournaments = storage->load_tournaments();
    if (!loaded_tournaments) {
      spdlog::critical("event=store_load_failed error=\"{}\"", loaded_tournaments.error());
      return 1;
    }
    if (auto restored = tournaments.restore(*loaded_tournaments); !restored) {
      spdlog::critical("event=store_load_failed error=\"{}\"", restored.error());
      return 1;
    }
    for (const auto& p : loaded->players) lobby.restore_player(p);
    // A node of a cluster takes each room when someone needs it.
    if (node) loaded->rooms.clear();
    for (const auto& r : loaded->rooms) {
      std::string why;
      if (lobby.restore_room(r, why)) {
        ++server.stats().rooms_recovered;
      } else {
        ++server.stats().rooms_quarantined;
        spdlog::error("event=room_quarantined room={} game={} reason=\"{}\"", r.room.id,
                      r.room.game, why);
      }
    }
    // A round's games that ended while the server was down count now. A node of a cluster
    // directs the events only once it holds their lease (it may at once).
    if (node)
      node->serve_tournaments(
          [&server](nlohmann::json op, std::function<void(nlohmann::json)> done) {
            run_tournament_op(server, op, done);
          });
    else
      tournaments.resume(now_ms());
    server.stats().recovery_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spdlog::info("event=recovered rooms={} quarantined={} players={} seconds={:.3f}",
                 server.stats().rooms_recovered, server.stats().rooms_quarantined,
                 loaded->players.size(), server.stats().recovery_seconds);
  }

  if (auto started = server.start(); !started) {
    spdlog::critical("event=listen_failed error=\"{}\"", started.error());
    return 1;
  }
  spdlog::info("event=listening host={} port={} tls={} store={}", config.host, server.port(),
               server.tls() ? "on" : "off", shown_store_spec(config.store));

  // SIGTERM or SIGINT: drain first if asked (a balancer takes the node out), then stop; a
  // second signal cuts the drain short.
  boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        spdlog::info("event=signal signal={}", sig);
        server.drain(std::chrono::seconds(config.drain_seconds), [&ioc, &node, &signals] {
          signals.cancel();
          if (node)
            node->stop([&ioc] { ioc.stop(); });  // its rooms handed over at once
          else
            ioc.stop();
        });
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);
  ioc.run();
  spdlog::info("event=stopped");
  return 0;
}
