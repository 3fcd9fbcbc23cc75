// A Redis client on the event loop (Boost.Asio, TCP): commands pipelined on one connection, or
// a subscriber's connection receiving the messages of the channels it subscribed to. It
// connects again by itself after the connection drops (Redis restarted, the network), with a
// growing pause between tries, subscribes again to every channel, and says so (on_connect), so
// that what was missed meanwhile can be made up for. Everything runs on the io_context's thread:
// call it from there.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "server/cluster/resp.hpp"

namespace plateau::server::redis {

struct Options {
  std::string host = "127.0.0.1";
  std::string port = "6379";
  std::string user, password;  // AUTH on every connection when a password is given
  std::chrono::milliseconds retry_min{50}, retry_max{2000};  // the pause between connect tries
  std::size_t max_queued = 100'000;  // commands waiting for a connection, beyond: failed at once
};

// redis://[[USER]:PASSWORD@]HOST[:PORT] (the port defaults to 6379; the user and password
// percent-encoded); nullopt if it is not one.
std::optional<Options> parse_uri(const std::string& uri);

class Client : public std::enable_shared_from_this<Client> {
 public:
  using OnReply = std::function<void(const Reply&)>;
  using OnMessage = std::function<void(const std::string& channel, const std::string& payload)>;

  static std::shared_ptr<Client> make(boost::asio::io_context& io, Options options);
  // Connects (and keeps connecting until stop()).
  void start();
  // Closes the connection; commands not answered yet get an error reply.
  void stop();

  // A command: its reply comes to `done`, in order with the others. Sent at once if connected,
  // else when the connection is made; one in flight when the connection drops gets the error
  // reply "ERR connection lost" (it may or may not have run).
  void command(std::vector<std::string> args, OnReply done = {});
  // Subscriber connections: the channels to receive (kept across reconnections), and where
  // their messages go. A client that subscribes sends no commands.
  void subscribe(const std::string& channel);
  void unsubscribe(const std::string& channel);
  void on_message(OnMessage f) { on_message_ = std::move(f); }
  // Runs after each connection is made (for a subscriber, once Redis confirmed every channel
  // it had: nothing published to them after this is missed); `times` counts them, 1 first.
  void on_connect(std::function<void(int times)> f) { on_connect_ = std::move(f); }
  // Runs when a connection that was made drops (for a subscriber: messages may be missed from
  // here until on_connect).
  void on_disconnect(std::function<void()> f) { on_disconnect_ = std::move(f); }

  bool connected() const { return connected_; }
  std::uint64_t reconnections() const { return connects_ > 0 ? connects_ - 1 : 0; }
  const std::string& last_error() const { return last_error_; }

 private:
  Client(boost::asio::io_context& io, Options options);
  void connect();
  void connected_now();
  void fail(const std::string& why);
  void send(std::string bytes);
  void write_next();
  void read();
  void dispatch(Reply r);

  Options options_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer retry_;
  std::chrono::milliseconds pause_;
  bool stopped_ = true;
  bool connected_ = false;
  bool writing_ = false;
  std::uint64_t generation_ = 0;  // bumped at each connection: stale handlers see another
  int connects_ = 0;
  std::string last_error_;
  Parser parser_;
  std::vector<char> read_buf_ = std::vector<char>(16 * 1024);
  std::deque<std::string> out_;  // encoded, waiting to be written (in order)
  // Commands: those not sent yet (their bytes in out_ or, while disconnected, here), then
  // those sent and waiting for their reply.
  std::deque<std::pair<std::string, OnReply>> queued_;
  std::deque<OnReply> in_flight_;
  std::set<std::string> channels_;
  bool subscriber_ = false;
  std::size_t acks_ = 0;       // channel confirmations still awaited on this connection
  bool auth_pending_ = false;  // the next reply answers AUTH
  OnMessage on_message_;
  std::function<void(int)> on_connect_;
  std::function<void()> on_disconnect_;
};

}  // namespace plateau::server::redis
