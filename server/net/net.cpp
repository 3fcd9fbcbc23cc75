#include "server/net/net.hpp"

#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <boost/asio/ssl/context.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "server/net/web_dir.hpp"
#include "server/net/ws_connection.hpp"
#include "server/store/storage.hpp"

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

std::expected<std::shared_ptr<asio::ssl::context>, std::string> load_tls_context(
    const std::string& cert, const std::string& key) {
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  // An encrypted key would make OpenSSL prompt on the terminal (and a container has none):
  // answer with no passphrase, so that such a key fails to load instead.
  ctx->set_password_callback(
      [](std::size_t, asio::ssl::context::password_purpose) { return std::string(); });
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

Server::Server(Config config, asio::io_context& ioc, Lobby& lobby, Storage* store,
               std::shared_ptr<asio::ssl::context> tls)
    : config_(std::move(config)),
      forwarded_from_(AddressBlocks::parse(config_.forwarded_for_from).value_or(AddressBlocks{})),
      ioc_(ioc),
      lobby_(lobby),
      store_(store),
      tls_(std::move(tls)),
      ticker_(ioc),
      flag_timer_(ioc),
      connections_(new ConnectionTable),
      door_(
          ioc, health_, tls_ == nullptr,
          [this](const asio::ip::address& peer) { return count(peer); },
          [this](tcp::socket socket, ConnectionSlot slot) {
            serve(std::move(socket), std::move(slot));
          }) {
  // The rooms' clocks read the system clock; their flags fall by one timer, armed for the
  // earliest (a wheel of one: no timer per room, nothing at all while no clock runs).
  lobby_.use_clock(now_ms);
  lobby_.on_deadline([this](Millis at) { arm_flags(at); });
  health_.writable = [store = store_] { return !store || store->available(); };
  health_.draining = [this] { return draining_.load(); };
  health_.rooms = [&lobby = lobby_] { return lobby.room_count(); };
  health_.connections = [&stats = stats_] { return std::size_t(stats.connections); };
  // The client's files, listed and read once: what is not in the list is never served. The
  // data directory and the TLS files are left out even when they lie inside the web root.
  const std::string root =
      config_.web_root.empty() ? std::string(default_web_dir()) : config_.web_root;
  std::vector<std::filesystem::path> excluded;
  for (const auto& p : {config_.data, config_.tls_cert, config_.tls_key})
    if (!p.empty() && p != "none") excluded.emplace_back(p);
  static_files_ = StaticFiles::scan(root, excluded);
  spdlog::info("event=web_root path=\"{}\" files={} bytes={}", root, static_files_.size(),
               static_files_.bytes());
}

Server::~Server() {
  door_.stop();
  connections_->orphan();
}

std::expected<void, std::string> Server::start() {
  // Never serve in clear text what was meant to be encrypted.
  if (!config_.tls_cert.empty() && !tls_)
    return std::unexpected("TLS is configured but no certificate is loaded");
  beast::error_code ec;
  const auto address = asio::ip::make_address(config_.host, ec);
  if (ec) return std::unexpected("bad --host " + config_.host + ": " + ec.message());
  const tcp::endpoint endpoint{address, static_cast<unsigned short>(config_.port)};
  if (!config_.proxy_protocol_from.empty()) {
    auto proxies = AddressBlocks::parse(config_.proxy_protocol_from);
    if (!proxies) return std::unexpected("bad --proxy-protocol-from: " + proxies.error());
    door_.trust_proxies(std::move(*proxies));
  }
  if (auto listening = door_.listen(endpoint); !listening)
    return std::unexpected("cannot listen on " + config_.host + ":" + std::to_string(config_.port) +
                           ": " + listening.error());
  door_.start();
  // The rooms learn the time from this tick only.
  struct Ticker {
    static void arm(Server* s) {
      s->ticker_.expires_after(std::chrono::seconds(1));
      s->ticker_.async_wait([s](beast::error_code ec) {
        if (ec || s->stopping_) return;
        try {
          s->lobby_.tick(now_ms());
        } catch (const std::exception& e) {
          s->internal_error("tick", e.what());
        }
        s->sweep_idle();
        s->watch_store();
        arm(s);
      });
    }
  };
  lobby_.tick(now_ms());
  Ticker::arm(this);
  return {};
}

void Server::arm_flags(Millis at) {
  if (stopping_ || (flag_armed_ && *flag_armed_ <= at)) return;
  flag_armed_ = at;
  // A millisecond late rather than early: a flag checked before its time would wait again.
  flag_timer_.expires_after(std::chrono::milliseconds(std::max<Millis>(0, at - now_ms()) + 1));
  flag_timer_.async_wait([this](beast::error_code ec) {
    if (ec || stopping_) return;  // armed again for an earlier flag (or stopping)
    flag_armed_.reset();
    try {
      lobby_.expire(now_ms());
    } catch (const std::exception& e) {
      internal_error("flags", e.what());
    }
    if (const auto next = lobby_.next_deadline()) arm_flags(*next);
  });
}

unsigned short Server::port() const { return door_.port(); }

ConnectionSlot Server::count(const asio::ip::address& peer) {
  ConnectionTable::Refusal why{};
  // A reverse proxy's connections count as their clients once their first request names them
  // (recount()): until then, its address is not held to --max-per-ip, or a burst of players
  // reconnecting through it would be refused before saying who they are.
  const bool proxy = !forwarded_from_.empty() && forwarded_from_.contains(peer);
  auto slot = connections_->admit(client_key(peer), config_.max_connections,
                                  proxy ? config_.max_connections : config_.max_per_ip, why);
  if (why == ConnectionTable::Refusal::too_many) ++stats_.refused_max_connections;
  if (why == ConnectionTable::Refusal::too_many_from_address) ++stats_.refused_max_per_ip;
  return slot;
}

std::optional<asio::ip::address> Server::forwarded_client(const asio::ip::address& peer,
                                                          std::string_view values) const {
  if (forwarded_from_.empty() || values.empty() || !forwarded_from_.contains(peer))
    return std::nullopt;
  return plateau::server::forwarded_client(values, forwarded_from_);
}

ConnectionSlot Server::recount(const asio::ip::address& client) {
  ConnectionTable::Refusal why{};
  // The connection is counted already: its new place is no new connection in all.
  auto moved =
      connections_->admit(client_key(client), config_.max_connections + 1, config_.max_per_ip, why);
  if (why == ConnectionTable::Refusal::too_many_from_address) ++stats_.refused_max_per_ip;
  return moved;
}

void Server::serve(tcp::socket socket, ConnectionSlot slot) {
  beast::error_code ignored;
  if (stopping_) {
    socket.close(ignored);
    return;
  }
  // Frames are small and each one matters now: Nagle's wait for an ACK would hold a
  // patch back for as long as the peer delays its ACKs.
  socket.set_option(tcp::no_delay(true), ignored);
  if (tls_)
    serve_tls(std::move(socket), *this, *tls_, std::move(slot));
  else
    serve_plain(std::move(socket), *this, std::move(slot));
}

void Server::sweep_idle() {
  const auto now = std::chrono::steady_clock::now();
  const std::chrono::seconds idle(config_.idle_timeout_seconds);
  for (const auto& [ptr, weak] : websockets_)
    if (const auto s = weak.lock()) s->keep_alive(now, idle);
}

// Every connection was counted against the limits when it was accepted.
bool Server::accepting_ws() const { return !stopping_; }

void Server::internal_error(const char* where, const char* what) {
  ++stats_.internal_errors;
  spdlog::error("event=internal_error where={} error=\"{}\"", where, what);
}

void Server::watch_store() {
  if (!store_) return;
  if (const bool now = store_->available(); now != store_was_available_) {
    store_was_available_ = now;
    if (now)
      spdlog::info("event=store_available");
    else
      spdlog::error("event=store_unavailable");  // /healthz answers 503 meanwhile
  }
  if (const auto [n, last] = store_->exceptions(); n != store_exceptions_seen_) {
    stats_.internal_errors += n - store_exceptions_seen_;
    spdlog::error("event=internal_error where=store count={} error=\"{}\"",
                  n - store_exceptions_seen_, last);
    store_exceptions_seen_ = n;
  }
}

void Server::refuse(const std::shared_ptr<Connection>& c, const protocol::Error& e) {
  try {
    lobby_.refuse(c, e);
  } catch (const std::exception& ex) {
    internal_error("refuse", ex.what());
  }
}

void Server::on_message(const std::shared_ptr<Connection>& c, std::string frame, bool text,
                        bool within_rate) {
  const char* what = "unknown exception";
  try {
    if (!within_rate) {
      lobby_.refuse(c, {protocol::Code::rate_limited, "too many messages; slow down", nullptr});
    } else if (!text) {
      lobby_.refuse(c, {protocol::Code::bad_json, "send text frames holding JSON", nullptr});
    } else {
      auto req = protocol::decode(frame, protocol::Limits{config_.max_frame, 32});
      if (!req)
        lobby_.refuse(c, req.error());
      else if (router_.route)
        router_.route(c, frame, std::move(*req));
      else
        lobby_.handle(c, std::move(*req));
    }
    return;
  } catch (const std::exception& e) {
    what = e.what();
    internal_error("message", what);
  } catch (...) {
    internal_error("message", what);
  }
  // What the lobby did before it threw stays done; the client learns that this request failed.
  refuse(c, {protocol::Code::internal_error, "the server failed to handle this message", nullptr});
}

void Server::on_left(WsConnection* s) {
  try {
    lobby_.closed(s);
    if (router_.left) router_.left(s);
  } catch (const std::exception& e) {
    internal_error("closed", e.what());
  } catch (...) {
    internal_error("closed", "unknown exception");
  }
}

void Server::queued(std::size_t bytes, std::size_t connection_total) {
  stats_.queued_bytes += bytes;
  stats_.queue_peak = std::max<std::uint64_t>(stats_.queue_peak, connection_total);
}

bool Server::make_room(WsConnection* s, std::size_t bytes) {
  while (stats_.queued_bytes + bytes > config_.max_queued_bytes) {
    // The slowest readers go first: those with the most waiting for them. A scan of every
    // connection, but each one frees the most there is to free, and only past the budget.
    WsConnection* worst = nullptr;
    std::size_t most = 0;
    for (const auto& [ptr, weak] : websockets_)
      if (const auto q = ptr->queued_bytes(); q > most) {
        most = q;
        worst = ptr;
      }
    if (!worst) return true;  // nothing queued anywhere: one frame alone may pass the budget
    worst->drop_over_budget();
    if (worst == s) return false;
    if (worst->queued_bytes() >= most) return true;  // it could not be dropped: never loop on it
  }
  return true;
}

void Server::add(const std::shared_ptr<WsConnection>& s) {
  websockets_[s.get()] = s;
  stats_.connections = websockets_.size();
  ++stats_.connections_total;
}

void Server::remove(WsConnection* s) {
  websockets_.erase(s);
  stats_.connections = websockets_.size();
}

void Server::drain(std::chrono::milliseconds grace, std::function<void()> done) {
  if (stopping_) return;
  if (draining_ || grace <= std::chrono::milliseconds::zero()) {
    if (drain_timer_) drain_timer_->cancel();
    return shutdown(drained_ ? std::exchange(drained_, nullptr) : std::move(done));
  }
  draining_ = true;
  drained_ = std::move(done);
  spdlog::info("event=draining seconds={:.1f} connections={}",
               std::chrono::duration<double>(grace).count(), websockets_.size());
  drain_timer_ = std::make_unique<asio::steady_timer>(ioc_, grace);
  drain_timer_->async_wait([this](beast::error_code ec) {
    if (!ec && !stopping_) shutdown(std::exchange(drained_, nullptr));
  });
}

void Server::shutdown(std::function<void()> done) {
  if (stopping_) return;
  stopping_ = true;
  door_.stop();
  ticker_.cancel();
  flag_timer_.cancel();
  spdlog::info("event=shutdown connections={} rooms={}", websockets_.size(), lobby_.room_count());
  lobby_.announce(
      "The server is restarting. Your games are saved; this page reconnects by itself.");
  // Every acknowledged move is already durable; this writes what is still in flight.
  if (store_) store_->close();
  std::vector<std::shared_ptr<WsConnection>> open;
  for (auto& [ptr, weak] : websockets_)
    if (auto s = weak.lock()) open.push_back(std::move(s));
  for (auto& s : open) s->close(websocket::close_code::going_away);
  auto timer = std::make_shared<asio::steady_timer>(ioc_, std::chrono::milliseconds(300));
  timer->async_wait([timer, done = std::move(done)](beast::error_code) { done(); });
}

}  // namespace plateau::server
