#include "net.hpp"

#include <boost/asio/ssl/context.hpp>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sqlite_store.hpp"
#include "web_dir.hpp"
#include "ws_session.hpp"

namespace plateau::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

Millis now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::expected<std::shared_ptr<asio::ssl::context>, std::string> load_tls_context(const std::string& cert,
                                                                                const std::string& key) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1 |
                   asio::ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  // An encrypted key would make OpenSSL prompt on the terminal (and a container has none):
  // answer with no passphrase, so that such a key fails to load instead.
  ctx->set_password_callback([](std::size_t, asio::ssl::context::password_purpose) { return std::string(); });
  // OpenSSL reports a missing file as a bare "asio.ssl error": say what the system said.
  for (const auto* path : {&cert, &key}) {
    std::FILE* f = std::fopen(path->c_str(), "rb");
    if (!f) return std::unexpected("cannot read " + *path + ": " + std::strerror(errno));
    std::fclose(f);
  }
  beast::error_code ec;
  ctx->use_certificate_chain_file(cert, ec);
  if (ec) return std::unexpected("cannot load the certificate chain " + cert + ": " + ec.message());
  ctx->use_private_key_file(key, asio::ssl::context::pem, ec);
  if (ec) return std::unexpected("cannot load the private key " + key + ": " + ec.message());
  // OpenSSL has not always refused a key that does not match the certificate: make sure.
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1)
    return std::unexpected("the private key " + key + " does not match the certificate " + cert);
  return ctx;
}

Server::Server(Config config, asio::io_context& ioc, Lobby& lobby, SqliteStore* store,
               std::shared_ptr<asio::ssl::context> tls)
    : config_(std::move(config)),
      ioc_(ioc),
      lobby_(lobby),
      store_(store),
      tls_(std::move(tls)),
      acceptor_(ioc),
      ticker_(ioc) {
  // The client's files, listed and read once: what is not in the list is never served. The
  // data directory and the TLS files are left out even when they lie inside the web root.
  const std::string root = config_.web_root.empty() ? std::string(default_web_dir()) : config_.web_root;
  std::vector<std::filesystem::path> excluded;
  for (const auto& p : {config_.data, config_.tls_cert, config_.tls_key})
    if (!p.empty() && p != "none") excluded.emplace_back(p);
  static_files_ = StaticFiles::scan(root, excluded);
  spdlog::info("event=web_root path=\"{}\" files={} bytes={}", root, static_files_.size(), static_files_.bytes());
}

Server::~Server() = default;

std::expected<void, std::string> Server::start() {
  // Never serve in clear text what was meant to be encrypted.
  if (!config_.tls_cert.empty() && !tls_) return std::unexpected("TLS is configured but no certificate is loaded");
  beast::error_code ec;
  const auto address = asio::ip::make_address(config_.host, ec);
  if (ec) return std::unexpected("bad --host " + config_.host + ": " + ec.message());
  const tcp::endpoint endpoint{address, static_cast<unsigned short>(config_.port)};
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return std::unexpected("cannot listen on " + config_.host + ":" + std::to_string(config_.port) + ": " + ec.message());
  accept();
  // The rooms learn the time from this tick only.
  struct Ticker {
    static void arm(Server* s) {
      s->ticker_.expires_after(std::chrono::seconds(1));
      s->ticker_.async_wait([s](beast::error_code ec) {
        if (ec || s->stopping_) return;
        s->lobby_.tick(now_ms());
        s->sweep_idle();
        arm(s);
      });
    }
  };
  lobby_.tick(now_ms());
  Ticker::arm(this);
  return {};
}

unsigned short Server::port() const {
  beast::error_code ec;
  const auto ep = acceptor_.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Server::accept() {
  acceptor_.async_accept(ioc_, [this](beast::error_code ec, tcp::socket socket) {
    if (stopping_) return;
    if (!ec) {
      beast::error_code ignored;
      if (sessions_.size() >= config_.max_connections) {
        socket.close(ignored);  // over the limit: refused before any byte is read
        return accept();
      }
      // Frames are small and each one matters now: Nagle's wait for an ACK would hold a
      // patch back for as long as the peer delays its ACKs.
      socket.set_option(tcp::no_delay(true), ignored);
      if (tls_) serve_tls(std::move(socket), *this, *tls_);
      else serve_plain(std::move(socket), *this);
    }
    accept();
  });
}

void Server::sweep_idle() {
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::seconds idle(config_.idle_timeout_seconds);
  for (const auto& [ptr, weak] : sessions_)
    if (const auto s = weak.lock()) s->keep_alive(now, idle);
}

bool Server::accepting_ws() const { return !stopping_ && sessions_.size() < config_.max_connections; }

void Server::add(const std::shared_ptr<WsSession>& s) {
  sessions_[s.get()] = s;
  stats_.connections = sessions_.size();
  ++stats_.connections_total;
}

void Server::remove(WsSession* s) {
  sessions_.erase(s);
  stats_.connections = sessions_.size();
}

void Server::shutdown(std::function<void()> done) {
  if (stopping_) return;
  stopping_ = true;
  beast::error_code ignored;
  acceptor_.close(ignored);
  ticker_.cancel();
  spdlog::info("event=shutdown connections={} rooms={}", sessions_.size(), lobby_.room_count());
  lobby_.announce("The server is restarting. Your games are saved; this page reconnects by itself.");
  // Every acknowledged move is already durable; this writes what is still in flight.
  if (store_) store_->close();
  std::vector<std::shared_ptr<WsSession>> open;
  for (auto& [ptr, weak] : sessions_)
    if (auto s = weak.lock()) open.push_back(std::move(s));
  for (auto& s : open) s->close(websocket::close_code::going_away);
  auto timer = std::make_shared<asio::steady_timer>(ioc_, std::chrono::milliseconds(300));
  timer->async_wait([timer, done = std::move(done)](beast::error_code) { done(); });
}

std::string Server::metrics_text() const {
  std::ostringstream out;
  out << "# HELP plateau_connections Open WebSocket connections.\n# TYPE plateau_connections gauge\n"
      << "plateau_connections " << stats_.connections << "\n";
  out << "# HELP plateau_connections_total WebSocket connections accepted.\n# TYPE plateau_connections_total counter\n"
      << "plateau_connections_total " << stats_.connections_total << "\n";
  std::map<std::pair<std::string, std::string>, int> rooms;
  for (const auto& [id, room] : lobby_.rooms())
    ++rooms[{std::string(room->game().id()), std::string(protocol::status_string(room->status()))}];
  out << "# HELP plateau_rooms Rooms in memory by game and status.\n# TYPE plateau_rooms gauge\n";
  for (const rules::Game* g : rules::all_games())
    for (const char* st : {"waiting", "playing", "over"})
      out << "plateau_rooms{game=\"" << g->id() << "\",status=\"" << st << "\"} "
          << rooms[{std::string(g->id()), st}] << "\n";
  const auto& c = lobby_.counters();
  out << "# HELP plateau_moves_accepted_total Moves accepted.\n# TYPE plateau_moves_accepted_total counter\n"
      << "plateau_moves_accepted_total " << c.moves_accepted << "\n";
  out << "# HELP plateau_refused_total Requests refused, by error code.\n# TYPE plateau_refused_total counter\n";
  for (const auto& [code, n] : c.refused) out << "plateau_refused_total{code=\"" << code << "\"} " << n << "\n";
  lobby_.move_latency().write(out, "plateau_move_broadcast_seconds",
                             "From a move's arrival to its patches going out, its durable commit included.");
  out << "# HELP plateau_broadcast_bytes_total Bytes of frames written to clients.\n"
         "# TYPE plateau_broadcast_bytes_total counter\n"
      << "plateau_broadcast_bytes_total " << stats_.bytes_out << "\n";
  out << "# HELP plateau_frames_out_total Frames written to clients.\n# TYPE plateau_frames_out_total counter\n"
      << "plateau_frames_out_total " << stats_.frames_out << "\n";
  out << "# HELP plateau_slow_readers_dropped_total Connections dropped for not reading.\n"
         "# TYPE plateau_slow_readers_dropped_total counter\n"
      << "plateau_slow_readers_dropped_total " << stats_.dropped_slow << "\n";
  out << "# HELP plateau_recovery_seconds Time taken to rebuild rooms at start.\n# TYPE plateau_recovery_seconds gauge\n"
      << "plateau_recovery_seconds " << stats_.recovery_seconds << "\n";
  out << "# HELP plateau_rooms_recovered Rooms rebuilt at start.\n# TYPE plateau_rooms_recovered gauge\n"
      << "plateau_rooms_recovered " << stats_.rooms_recovered << "\n";
  out << "# HELP plateau_rooms_quarantined Rooms whose log disagreed with the rules at start.\n"
         "# TYPE plateau_rooms_quarantined gauge\n"
      << "plateau_rooms_quarantined " << stats_.rooms_quarantined << "\n";
  if (store_) {
    const auto& s = store_->stats();
    s.queued.write(out, "plateau_store_queue_seconds",
                   "From a write's arrival at the store to the start of the commit that holds it.");
    s.commit.write(out, "plateau_store_commit_seconds", "Store commit latency (one commit holds many writes).");
    s.returned.write(out, "plateau_store_return_seconds",
                     "From a commit's end to its moves' broadcast starting on the rooms' thread.");
    out << "# HELP plateau_store_writes_total Writes committed.\n# TYPE plateau_store_writes_total counter\n"
        << "plateau_store_writes_total " << s.writes << "\n";
    out << "# HELP plateau_store_checkpoints_total Checkpoint passes copying the WAL into the database.\n"
           "# TYPE plateau_store_checkpoints_total counter\nplateau_store_checkpoints_total "
        << s.checkpoints << "\n";
    out << "# HELP plateau_store_wal_restarts_total Times the store copied all of a WAL past its threshold, to start it over.\n"
           "# TYPE plateau_store_wal_restarts_total counter\nplateau_store_wal_restarts_total "
        << s.restarts << "\n";
  }
  return out.str();
}

}  // namespace plateau::server
