#include "server/cluster/redis.hpp"

#include <charconv>

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

namespace plateau::server::redis {

namespace asio = boost::asio;
using asio::ip::tcp;

std::optional<Options> parse_uri(const std::string& uri) {
  constexpr std::string_view scheme = "redis://";
  if (!uri.starts_with(scheme)) return std::nullopt;
  std::string rest = uri.substr(scheme.size());
  if (const auto slash = rest.find('/'); slash != std::string::npos) rest.resize(slash);
  Options o;
  // [[user]:password@]: AUTH on every connection (percent-encoded, as in any URI).
  if (const auto at = rest.rfind('@'); at != std::string::npos) {
    const std::string userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const auto colon = userinfo.find(':');
    if (colon == std::string::npos) return std::nullopt;  // a password is what it is for
    const auto decoded = [](std::string_view in) -> std::optional<std::string> {
      std::string out;
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
          out += in[i];
          continue;
        }
        int v = 0;
        if (i + 2 >= in.size() ||
            std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16).ptr != in.data() + i + 3)
          return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
      }
      return out;
    };
    const auto user = decoded(std::string_view(userinfo).substr(0, colon));
    const auto password = decoded(std::string_view(userinfo).substr(colon + 1));
    if (!user || !password || password->empty()) return std::nullopt;
    o.user = *user;
    o.password = *password;
  }
  if (rest.empty()) return std::nullopt;
  // [::1]:6379, host:6379, host
  if (rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) return std::nullopt;
    o.host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return std::nullopt;
    if (!rest.empty()) o.port = rest.substr(1);
  } else if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    o.host = rest.substr(0, colon);
    o.port = rest.substr(colon + 1);
  } else {
    o.host = rest;
  }
  if (o.host.empty() || o.port.empty() || o.port.size() > 5 ||
      o.port.find_first_not_of("0123456789") != std::string::npos || std::stoi(o.port) == 0 ||
      std::stoi(o.port) > 65535)
    return std::nullopt;
  return o;
}

std::shared_ptr<Client> Client::make(asio::io_context& io, Options options) {
  return std::shared_ptr<Client>(new Client(io, std::move(options)));
}

Client::Client(asio::io_context& io, Options options)
    : options_(std::move(options)),
      resolver_(io),
      socket_(io),
      retry_(io),
      pause_(options_.retry_min) {}

void Client::start() {
  if (!stopped_) return;
  stopped_ = false;
  connect();
}

void Client::stop() {
  stopped_ = true;
  retry_.cancel();
  resolver_.cancel();
  fail("stopped");
}

void Client::connect() {
  if (stopped_) return;
  const auto generation = ++generation_;
  resolver_.async_resolve(
      options_.host, options_.port,
      [self = shared_from_this(), generation](const boost::system::error_code& ec,
                                              const tcp::resolver::results_type& results) {
        if (self->stopped_ || generation != self->generation_) return;
        if (ec) return self->fail("cannot resolve " + self->options_.host + ": " + ec.message());
        asio::async_connect(
            self->socket_, results,
            [self, generation](const boost::system::error_code& ec, const tcp::endpoint&) {
              if (self->stopped_ || generation != self->generation_) return;
              if (ec) return self->fail("cannot connect: " + ec.message());
              self->connected_now();
            });
      });
}

void Client::connected_now() {
  boost::system::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  connected_ = true;
  pause_ = options_.retry_min;
  ++connects_;
  parser_ = Parser();
  acks_ = 0;
  // AUTH before anything else; its answer is the connection's first reply.
  auth_pending_ = !options_.password.empty();
  if (auth_pending_)
    send(options_.user.empty() ? encode({"AUTH", options_.password})
                               : encode({"AUTH", options_.user, options_.password}));
  if (subscriber_ && !channels_.empty()) {
    std::vector<std::string> args{"SUBSCRIBE"};
    args.insert(args.end(), channels_.begin(), channels_.end());
    acks_ = channels_.size();
    send(encode(args));
  }
  // What waited for the connection goes now, in order.
  while (!queued_.empty()) {
    auto [bytes, done] = std::move(queued_.front());
    queued_.pop_front();
    in_flight_.push_back(std::move(done));
    send(std::move(bytes));
  }
  read();
  // A subscriber is connected once Redis confirmed every channel: from then on, nothing
  // published to them is missed.
  if (acks_ == 0 && on_connect_) on_connect_(connects_);
}

void Client::fail(const std::string& why) {
  const bool was_connected = connected_;
  connected_ = false;
  writing_ = false;
  ++generation_;  // every handler of this connection is stale from here
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  out_.clear();
  last_error_ = why;
  // Sent and unanswered: they may or may not have run. Their callbacks hear of it now.
  auto lost = std::move(in_flight_);
  in_flight_.clear();
  Reply error{Reply::Type::error, "ERR connection lost (" + why + ")", 0, {}};
  for (auto& done : lost)
    if (done) done(error);
  if (was_connected && on_disconnect_ && !stopped_) on_disconnect_();
  if (stopped_) {
    Reply closed{Reply::Type::error, "ERR client stopped", 0, {}};
    auto waiting = std::move(queued_);
    queued_.clear();
    for (auto& [bytes, done] : waiting)
      if (done) done(closed);
    return;
  }
  retry_.expires_after(pause_);
  pause_ = std::min(pause_ * 2, options_.retry_max);
  retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec) self->connect();
  });
}

void Client::command(std::vector<std::string> args, OnReply done) {
  if (stopped_ && !connected_) {
    if (done) done(Reply{Reply::Type::error, "ERR client stopped", 0, {}});
    return;
  }
  auto bytes = encode(args);
  if (!connected_) {
    if (queued_.size() >= options_.max_queued) {
      if (done) done(Reply{Reply::Type::error, "ERR too many commands waiting", 0, {}});
      return;
    }
    queued_.emplace_back(std::move(bytes), std::move(done));
    return;
  }
  in_flight_.push_back(std::move(done));
  send(std::move(bytes));
}

void Client::subscribe(const std::string& channel) {
  subscriber_ = true;
  if (!channels_.insert(channel).second) return;
  if (connected_) send(encode({"SUBSCRIBE", channel}));
}

void Client::unsubscribe(const std::string& channel) {
  if (channels_.erase(channel) == 0) return;
  if (connected_) send(encode({"UNSUBSCRIBE", channel}));
}

void Client::send(std::string bytes) {
  out_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void Client::write_next() {
  if (out_.empty() || !connected_) {
    writing_ = false;
    return;
  }
  writing_ = true;
  // Everything waiting goes in one write: a pipeline, one system call.
  auto batch = std::make_shared<std::string>();
  while (!out_.empty()) {
    *batch += out_.front();
    out_.pop_front();
  }
  asio::async_write(socket_, asio::buffer(*batch),
                    [self = shared_from_this(), batch, generation = generation_](
                        const boost::system::error_code& ec, std::size_t) {
                      if (generation != self->generation_) return;
                      if (ec) return self->fail("write: " + ec.message());
                      self->write_next();
                    });
}

void Client::read() {
  socket_.async_read_some(asio::buffer(read_buf_),
                          [self = shared_from_this(), generation = generation_](
                              const boost::system::error_code& ec, std::size_t n) {
                            if (generation != self->generation_) return;
                            if (ec) return self->fail("read: " + ec.message());
                            self->parser_.feed(std::string_view(self->read_buf_.data(), n));
                            while (auto r = self->parser_.next()) {
                              self->dispatch(std::move(*r));
                              if (generation != self->generation_) return;  // a callback stopped it
                            }
                            if (self->parser_.failed())
                              return self->fail("bad reply: " + self->parser_.error());
                            self->read();
                          });
}

void Client::dispatch(Reply r) {
  if (auth_pending_) {
    auth_pending_ = false;
    // Refused: said once, and tried again later like any failed connection.
    if (r.is_error()) return fail("AUTH refused: " + r.str);
    return;
  }
  if (subscriber_) {
    // ["message", channel, payload]; subscribe and unsubscribe confirmations are not waited for.
    if (r.type != Reply::Type::array || r.elements.size() != 3) return;
    if (r.elements[0].str == "message") {
      if (on_message_) on_message_(r.elements[1].str, r.elements[2].str);
    } else if (r.elements[0].str == "subscribe" && acks_ > 0 && --acks_ == 0 && on_connect_) {
      on_connect_(connects_);
    }
    return;
  }
  if (in_flight_.empty()) return fail("a reply nobody asked for");
  auto done = std::move(in_flight_.front());
  in_flight_.pop_front();
  if (done) done(r);
}

}  // namespace plateau::server::redis
