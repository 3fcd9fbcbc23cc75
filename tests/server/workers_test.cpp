// The worker pool (server/net/workers.hpp): jobs run off the loop, their results come back on
// it, a job that throws reports on the loop, and the loop runs while jobs work.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "server/net/workers.hpp"

namespace plateau::server {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

// Runs the loop until `done` holds (10 s at most); returns whether it held.
bool run_until(asio::io_context& loop, const std::function<bool()>& done) {
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (!done() && std::chrono::steady_clock::now() < end) {
    loop.restart();
    loop.run_for(10ms);
  }
  return done();
}

TEST(Workers, AJobRunsOffTheLoopAndItsResultComesBackOnIt) {
  asio::io_context loop;
  Workers workers(loop, 2);
  EXPECT_EQ(workers.threads(), 2u);
  const auto loop_thread = std::this_thread::get_id();
  std::thread::id worked_on, finished_on;
  int result = 0;
  workers.run(
      [&] {
        worked_on = std::this_thread::get_id();
        const int sum = 40 + 2;  // the slow part, on the worker
        return [&, sum] {
          finished_on = std::this_thread::get_id();
          result = sum;
        };
      },
      [](const std::string&) { FAIL() << "it does not throw"; });
  EXPECT_EQ(workers.pending(), 1u);
  ASSERT_TRUE(run_until(loop, [&] { return result == 42; }));
  EXPECT_NE(worked_on, loop_thread);
  EXPECT_EQ(finished_on, loop_thread);
  EXPECT_EQ(workers.pending(), 0u);
}

TEST(Workers, AJobThatThrowsReportsOnTheLoopAndTheOthersGoOn) {
  asio::io_context loop;
  Workers workers(loop, 2);
  std::string failure;
  int done = 0;
  workers.run([]() -> Background::OnLoop { throw std::runtime_error("no memory for the search"); },
              [&](const std::string& what) { failure = what; });
  for (int i = 0; i < 100; ++i)
    workers.run([&] { return [&] { ++done; }; }, [](const std::string&) {});
  ASSERT_TRUE(run_until(loop, [&] { return done == 100 && !failure.empty(); }));
  EXPECT_EQ(failure, "no memory for the search");
  EXPECT_EQ(workers.pending(), 0u);
}

TEST(Workers, TheLoopGoesOnWhileAJobWorks) {
  asio::io_context loop;
  Workers workers(loop, 1);
  std::promise<void> loop_ran;
  bool back = false;
  // The job waits for something only the loop does: were the loop waiting for the job, neither
  // would ever finish (the job gives up after 10 s, and the test fails).
  workers.run(
      [ran = loop_ran.get_future().share()] {
        const bool in_time = ran.wait_for(10s) == std::future_status::ready;
        return [in_time] { EXPECT_TRUE(in_time); };
      },
      [](const std::string&) {});
  workers.run([&] { return [&] { back = true; }; }, [](const std::string&) {});
  asio::post(loop, [&] { loop_ran.set_value(); });
  ASSERT_TRUE(run_until(loop, [&] { return back; }));
}

TEST(Workers, AtLeastOneThreadAndNotTheLoopsCore) {
  EXPECT_GE(Workers::default_threads(), 1u);
  const auto cores = std::thread::hardware_concurrency();
  if (cores > 1) {
    EXPECT_EQ(Workers::default_threads(), cores - 1);
  }
  asio::io_context loop;
  EXPECT_EQ(Workers(loop, 0).threads(), 1u);
}

}  // namespace
}  // namespace plateau::server
