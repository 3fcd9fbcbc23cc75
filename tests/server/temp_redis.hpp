// A private redis-server for one test: on 127.0.0.1 at a free port, keeping nothing on disk,
// killed (and its folder removed) when the test ends. restart() kills it with SIGKILL and starts
// it again on the same port, as a crash and a restart would.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace plateau::test {

class TempRedis {
 public:
  static constexpr const char* kServer = "/usr/bin/redis-server";

  static std::expected<std::unique_ptr<TempRedis>, std::string> start() {
    if (::access(kServer, X_OK) != 0)
      return std::unexpected(std::string(kServer) + " is missing: apt-get install redis-server");
    std::unique_ptr<TempRedis> r(new TempRedis);
    char tmpl[] = "/tmp/plateau-redis-XXXXXX";
    if (!::mkdtemp(tmpl)) return std::unexpected(std::string("mkdtemp failed"));
    r->dir_ = tmpl;
    // A free port, taken again by Redis at once: another program may take it in between, so
    // a few tries.
    for (int attempt = 0; attempt < 5; ++attempt) {
      r->port_ = free_port();
      if (r->port_ != 0 && r->launch()) return r;
    }
    return std::unexpected("redis-server did not start: " + r->log());
  }
  ~TempRedis() {
    kill();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempRedis(const TempRedis&) = delete;
  TempRedis& operator=(const TempRedis&) = delete;

  int port() const { return port_; }
  std::string uri() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  // SIGKILL, then the same server again on the same port.
  bool restart() {
    kill();
    return launch();
  }
  void kill() { kill_child(pid_); }
  std::string log() const { return tail_of(dir_ + "/log"); }

 private:
  TempRedis() = default;

  // Starts redis-server and waits (at most 10 s) until it accepts a connection.
  bool launch() {
    std::vector<std::string> args{kServer,
                                  "--port",
                                  std::to_string(port_),
                                  "--bind",
                                  "127.0.0.1",
                                  "--save",
                                  "",
                                  "--appendonly",
                                  "no",
                                  "--dir",
                                  dir_,
                                  "--daemonize",
                                  "no",
                                  "--protected-mode",
                                  "yes"};
    pid_ = spawn_child(kServer, std::move(args), dir_ + "/log");
    if (pid_ < 0) return false;
    if (wait_for_port(pid_, port_)) return true;
    kill();
    return false;
  }

  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace plateau::test
