// A helper program for one test (redis-server, haproxy), run on 127.0.0.1: a free port to give
// it, a child that dies with the test process however that ends (a crash, a ctest timeout), and
// a wait until its port accepts connections.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace plateau::test {

// A port free on 127.0.0.1 now: another program may take it before ours does, so callers try a
// few times.
inline int free_port() {
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

// Starts `program` with `args` (argv[0] first), its output appended to `log` (or written over
// it: `append` false); -1 on failure.
inline pid_t spawn_child(const std::string& program, std::vector<std::string> args,
                         const std::string& log, bool append = true) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // The child, until exec: async-signal-safe calls only.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  ::execve(program.c_str(), argv.data(), environ);
  ::_exit(127);
}

// Waits (at most `limit`) until 127.0.0.1:port accepts a connection; false if the child exited
// first (its port was taken, say) or the time ran out.
inline bool wait_for_port(pid_t& pid, int port,
                          std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    if (::waitpid(pid, &st, WNOHANG) == pid) {
      pid = -1;
      return false;
    }
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool up = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(s);
    if (up) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// SIGKILL and reap; pid becomes -1.
inline void kill_child(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGKILL);
  int st = 0;
  ::waitpid(pid, &st, 0);
  pid = -1;
}

// The last `max` bytes of a file.
inline std::string tail_of(const std::string& path, std::size_t max = 2000) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out.size() > max ? out.substr(out.size() - max) : out;
}

}  // namespace plateau::test
