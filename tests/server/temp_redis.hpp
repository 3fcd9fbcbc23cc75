// A private redis-server for one test: on 127.0.0.1 at a free port, keeping nothing on disk,
// killed (and its folder removed) when the test ends. restart() kills it with SIGKILL and starts
// it again on the same port, as a crash and a restart would.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

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
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
  }
  std::string log() const {
    std::string out;
    if (FILE* f = std::fopen((dir_ + "/log").c_str(), "r")) {
      char buf[4096];
      std::size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
      std::fclose(f);
    }
    return out.size() > 2000 ? out.substr(out.size() - 2000) : out;
  }

 private:
  TempRedis() = default;

  static int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    ::close(s);
    return port;
  }

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
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = dir_ + "/log";
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      // The child, until exec: async-signal-safe calls only. It dies with the test process,
      // however that ends (a crash, a ctest timeout).
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execve(kServer, argv.data(), environ);
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int st = 0;
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return false;  // it exited: the port was taken, say
      }
      const int s = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(static_cast<std::uint16_t>(port_));
      const bool up = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(s);
      if (up) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill();
    return false;
  }

  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace plateau::test
