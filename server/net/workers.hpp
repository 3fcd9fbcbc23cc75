// The worker pool: Background's jobs run on a few threads of their own, and their results are
// posted to the event loop as completions. One thread per core but the loop's by default (at
// least one): a bot thinking for two seconds takes a core, never the loop.
#pragma once

#include <atomic>
#include <cstddef>

#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>

#include "server/rooms/background.hpp"

namespace plateau::server {

class Workers final : public Background {
 public:
  // Cores but one, at least one.
  static std::size_t default_threads();

  Workers(boost::asio::io_context& loop, std::size_t threads = default_threads());
  // Waits for the jobs running now; jobs still queued are dropped (their closures never run).
  ~Workers() override;
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  void run(Work work, Failed failed) override;
  void post(OnLoop then) override;
  std::size_t pending() const override { return *pending_; }
  std::size_t threads() const { return threads_; }

 private:
  boost::asio::io_context& loop_;
  std::size_t threads_;
  // Shared with the completions posted to the loop, which may outlive the pool.
  std::shared_ptr<std::atomic<std::size_t>> pending_ =
      std::make_shared<std::atomic<std::size_t>>(0);
  boost::asio::thread_pool pool_;
};

}  // namespace plateau::server
