// Runs the real plateau-server binary on 127.0.0.1 with a fresh data directory, for tests that
// need real sockets, restarts or kill -9. Bounded: every wait has a timeout, the destructor
// kills what is left, and the server dies with the test process should that end first.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "../server/child_process.hpp"
#include "build_paths.hpp"

namespace plateau::testing {

class ServerProcess {
 public:
  explicit ServerProcess(std::filesystem::path data = {}, std::vector<std::string> extra = {})
      : extra_(std::move(extra)) {
    if (data.empty()) {
      data =
          std::filesystem::temp_directory_path() / ("plateau-test-" + std::to_string(::getpid()) +
                                                    "-" + std::to_string(std::random_device{}()));
      owns_data_ = true;
    }
    data_ = data;
    std::filesystem::create_directories(data_);
  }
  ~ServerProcess() {
    kill(SIGKILL);
    if (owns_data_) {
      std::error_code ec;
      std::filesystem::remove_all(data_, ec);
    }
  }

  // The program started: the build's server unless a benchmark names another (a wrapper, say),
  // or PLATEAU_TEST_SERVER_BIN does (to check that a test fails against a server without its fix).
  std::string binary = [] {
    const char* other = std::getenv("PLATEAU_TEST_SERVER_BIN");
    return std::string(other && *other ? other : server_binary());
  }();

  // Starts the server (port 0: the kernel picks) and waits until it listens. Returns the port,
  // or 0 when it did not come up (its log says why).
  unsigned short start(std::chrono::seconds timeout = std::chrono::seconds(20)) {
    log_ = data_ / ("server-" + std::to_string(++starts_) + ".log");
    // Every test client comes from 127.0.0.1, so the per-address and per-player limits are
    // raised; a test of one sets it again in `extra`, which comes later and wins.
    std::vector<std::string> args{binary,
                                  "--host",
                                  "127.0.0.1",
                                  "--port",
                                  "0",
                                  "--data",
                                  data_.string(),
                                  "--rate",
                                  "100000",
                                  "--grace",
                                  "0",
                                  "--creates-per-minute",
                                  "1000000",
                                  "--new-players-per-minute",
                                  "1000000",
                                  "--max-rooms-per-player",
                                  "1000000"};
    args.insert(args.end(), extra_.begin(), extra_.end());
    // A child that dies with the test process however that ends (a crash, a ctest timeout),
    // rather than outliving it holding ports and files.
    pid_ = plateau::test::spawn_child(binary, std::move(args), log_.string(), false);
    if (pid_ < 0) return 0;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::regex listening(R"(event=listening host=\S+ port=(\d+))");
    while (std::chrono::steady_clock::now() < deadline) {
      std::smatch m;
      const auto text = log();
      if (std::regex_search(text, m, listening))
        return port_ = static_cast<unsigned short>(std::stoi(m[1]));
      if (exited()) return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
  }

  // Sends `sig` and waits for the exit; returns the exit status (or -signal), nullopt on timeout.
  std::optional<int> stop(int sig = SIGTERM,
                          std::chrono::seconds timeout = std::chrono::seconds(10)) {
    if (pid_ <= 0) return status_;
    ::kill(pid_, sig);
    return wait_exit(timeout);
  }
  // Waits for the exit; returns the exit status (or -signal), nullopt on timeout.
  std::optional<int> wait_exit(std::chrono::seconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (exited()) return status_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }
  // Sends `sig` and returns at once.
  void signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  void kill(int sig) {
    if (pid_ > 0) {
      ::kill(pid_, sig);
      int st = 0;
      ::waitpid(pid_, &st, 0);
      pid_ = -1;
    }
  }

  bool exited() {
    if (pid_ <= 0) return true;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
      pid_ = -1;
      return true;
    }
    return false;
  }

  std::string log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  unsigned short port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::filesystem::path& data() const { return data_; }

 private:
  std::filesystem::path data_;
  std::filesystem::path log_;
  std::vector<std::string> extra_;
  bool owns_data_ = false;
  pid_t pid_ = -1;
  unsigned short port_ = 0;
  int starts_ = 0;
  std::optional<int> status_;
};

}  // namespace plateau::testing
