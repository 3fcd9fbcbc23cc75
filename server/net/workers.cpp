#include "server/net/workers.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include <boost/asio/post.hpp>

namespace plateau::server {

namespace asio = boost::asio;

std::size_t Workers::default_threads() {
  const std::size_t cores = std::thread::hardware_concurrency();
  return std::max<std::size_t>(1, cores > 1 ? cores - 1 : 1);
}

Workers::Workers(asio::io_context& loop, std::size_t threads)
    : loop_(loop), threads_(std::max<std::size_t>(1, threads)), pool_(threads_) {}

Workers::~Workers() {
  pool_.stop();
  pool_.join();
}

void Workers::run(Work work, Failed failed) {
  ++*pending_;
  asio::post(pool_, [this, work = std::move(work), failed = std::move(failed),
                     pending = pending_]() mutable {
    OnLoop then;
    try {
      then = work();
    } catch (const std::exception& e) {
      then = [failed = std::move(failed), what = std::string(e.what())] { failed(what); };
    } catch (...) {
      then = [failed = std::move(failed)] { failed("unknown exception"); };
    }
    asio::post(loop_, [then = std::move(then), pending] {
      --*pending;
      if (then) then();
    });
  });
}

void Workers::post(OnLoop then) { asio::post(loop_, std::move(then)); }

}  // namespace plateau::server
