// The kernel's floor for the load benchmark's traffic (run by hand; never a timed test).
//
// load_bench reports the server's CPU time per move. Part of it is not ours to cut: for every
// move the server reads one frame and writes one frame to each of the room's 2 players and S
// spectators, and on 127.0.0.1 each write also runs the receiver's TCP path and wakes it, all
// charged to the sender. This program sends exactly that traffic over plain TCP sockets on
// 127.0.0.1 with no WebSocket, no JSON and no rules: a server thread with one epoll loop, and a
// client thread where the player to move answers each frame at once. The server thread's CPU
// time per move is what any server pays on this machine before doing any work of its own.
//
//   socket_floor [--rooms 200] [--spectators 2] [--seconds 10] [--in 72] [--out 400]
//
// --in and --out are the sizes of a move frame and of a patch frame (load_bench's Quantik frames
// are about that size; /metrics gives plateau_broadcast_bytes_total / plateau_frames_out_total).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "machine.hpp"

namespace {

struct Options {
  int rooms = 200;
  int spectators = 2;
  double seconds = 10;
  int in = 72;
  int out = 400;
};

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

void tune(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) die("TCP_NODELAY");
}

// Reads what is there; the frames are far smaller than a socket buffer, so no write blocks.
long drain(int fd, char* buf, std::size_t cap) {
  long total = 0;
  for (;;) {
    const ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
    if (n > 0) {
      total += n;
      if (static_cast<std::size_t>(n) < cap) return total;
      continue;
    }
    if (n == 0) return total > 0 ? total : -1;
    return total;  // EAGAIN
  }
}

void send_all(int fd, const char* data, int n) {
  while (n > 0) {
    const ssize_t k = send(fd, data, static_cast<std::size_t>(n), MSG_NOSIGNAL);
    if (k <= 0) die("send");
    data += k;
    n -= static_cast<int>(k);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--rooms")
      opt.rooms = std::atoi(v);
    else if (k == "--spectators")
      opt.spectators = std::atoi(v);
    else if (k == "--seconds")
      opt.seconds = std::atof(v);
    else if (k == "--in")
      opt.in = std::atoi(v);
    else if (k == "--out")
      opt.out = std::atoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("bind");
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  if (listen(listener, 1024) != 0) die("listen");

  // Connection c of room r: c 0 and 1 are the players, the rest spectators.
  const int per_room = 2 + opt.spectators;
  std::vector<int> server_fd, client_fd;
  for (int i = 0; i < opt.rooms * per_room; ++i) {
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect");
    const int s = accept(listener, nullptr, nullptr);
    if (s < 0) die("accept");
    tune(c);
    tune(s);
    client_fd.push_back(c);
    server_fd.push_back(s);
  }

  std::atomic<bool> stop{false};
  std::atomic<long> moves{0};
  double server_cpu = 0, client_cpu = 0;

  std::thread server([&] {
    const int ep = epoll_create1(0);
    for (int r = 0; r < opt.rooms; ++r)
      for (int p = 0; p < 2; ++p) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u32 = static_cast<std::uint32_t>(r * per_room + p);
        epoll_ctl(ep, EPOLL_CTL_ADD, server_fd[static_cast<std::size_t>(r * per_room + p)], &ev);
      }
    std::vector<char> frame(static_cast<std::size_t>(opt.out), 'p');
    std::vector<long> pending(server_fd.size(), 0);
    std::vector<char> buf(65536);
    std::vector<epoll_event> ready(256);
    const double cpu0 = plateau::bench::thread_cpu_seconds();
    long done = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 50);
      for (int i = 0; i < n; ++i) {
        const int conn = static_cast<int>(ready[static_cast<std::size_t>(i)].data.u32);
        const long got = drain(server_fd[static_cast<std::size_t>(conn)], buf.data(), buf.size());
        if (got <= 0) continue;
        auto& have = pending[static_cast<std::size_t>(conn)];
        have += got;
        const long frames = have / opt.in;  // one move per whole frame read
        have %= opt.in;
        const int first = conn - conn % per_room;
        for (long f = 0; f < frames; ++f) {
          for (int k = 0; k < per_room; ++k)
            send_all(server_fd[static_cast<std::size_t>(first + k)], frame.data(), opt.out);
          ++done;
        }
      }
    }
    server_cpu = plateau::bench::thread_cpu_seconds() - cpu0;
    moves = done;
  });

  std::thread client([&] {
    const int ep = epoll_create1(0);
    for (std::size_t i = 0; i < client_fd.size(); ++i) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = static_cast<std::uint32_t>(i);
      epoll_ctl(ep, EPOLL_CTL_ADD, client_fd[i], &ev);
    }
    // bytes[c]: what connection c has read, to count whole frames.
    std::vector<long> bytes(client_fd.size(), 0);
    const double cpu0 = plateau::bench::thread_cpu_seconds();
    std::vector<char> move(static_cast<std::size_t>(opt.in), 'm');
    std::vector<char> buf(65536);
    std::vector<epoll_event> ready(256);
    for (int r = 0; r < opt.rooms; ++r)
      send_all(client_fd[static_cast<std::size_t>(r * per_room)], move.data(), opt.in);
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = epoll_wait(ep, ready.data(), static_cast<int>(ready.size()), 50);
      for (int i = 0; i < n; ++i) {
        const auto conn = ready[static_cast<std::size_t>(i)].data.u32;
        const long got = drain(client_fd[conn], buf.data(), buf.size());
        if (got <= 0) continue;
        const long before = bytes[conn] / opt.out;
        bytes[conn] += got;
        const long after = bytes[conn] / opt.out;
        const long p = static_cast<long>(conn % static_cast<std::uint32_t>(per_room));
        if (p >= 2) continue;  // a spectator only reads
        // Frame k reports move k; player 0 made move 1, so player k % 2 makes move k + 1.
        for (long k = before + 1; k <= after; ++k)
          if (k % 2 == p) send_all(client_fd[conn], move.data(), opt.in);
      }
    }
    client_cpu = plateau::bench::thread_cpu_seconds() - cpu0;
  });

  std::this_thread::sleep_for(std::chrono::duration<double>(opt.seconds));
  stop = true;
  server.join();
  client.join();
  const double per_move_ms = moves ? server_cpu * 1000.0 / static_cast<double>(moves) : 0;
  std::printf("floor: rooms=%d spectators=%d frames in=%d out=%d bytes\n", opt.rooms,
              opt.spectators, opt.in, opt.out);
  std::printf("  moves            %ld in %.1f s = %.0f moves/s\n", moves.load(), opt.seconds,
              static_cast<double>(moves) / opt.seconds);
  std::printf("  server CPU       %.3f s = %.4f ms per move (1 read + %d writes, nothing else)\n",
              server_cpu, per_move_ms, per_room);
  std::printf("  client CPU       %.3f s = %.4f ms per move (%d reads + 1 write)\n", client_cpu,
              moves ? client_cpu * 1000.0 / static_cast<double>(moves) : 0, per_room);
  for (const int fd : server_fd) close(fd);
  for (const int fd : client_fd) close(fd);
  close(listener);
  return 0;
}
