// The benchmarks' WebSocket clients: an epoll loop with timers, and a bare RFC 6455 client on
// a non-blocking socket, written for the benches' own cost (they share the server's cores).
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace plateau::bench {

using Clock = std::chrono::steady_clock;

// The clients' event loop: epoll, each socket registered once, edge-triggered, and timers on a
// heap with epoll_pwait2's nanosecond timeout. Asio re-armed its epoll registration for every
// read it waited for (an epoll_ctl per frame batch, 14% of the bench's CPU), and the clients
// share the server's 2 cores, so what they spend is taken from the server being measured.
class Loop {
 public:
  struct Handler {
    virtual void on_events(std::uint32_t events) = 0;
    virtual ~Handler() = default;
  };
  Loop() : fd_(::epoll_create1(EPOLL_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error("epoll_create1 failed");
  }
  ~Loop() { ::close(fd_); }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  void add(int fd, Handler* h) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = h;
    ::epoll_ctl(fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  // Runs `fn` at `due` (or at once, if that has passed, on the loop's next turn).
  void at(Clock::time_point due, std::function<void()> fn) {
    timers_.push_back({due, seq_++, std::move(fn)});
    std::push_heap(timers_.begin(), timers_.end(), later);
  }
  void run_for(Clock::duration d) {
    const auto deadline = Clock::now() + d;
    std::array<epoll_event, 256> events;
    for (;;) {
      auto now = Clock::now();
      while (!timers_.empty() && timers_.front().due <= now) {
        std::pop_heap(timers_.begin(), timers_.end(), later);
        auto fn = std::move(timers_.back().fn);
        timers_.pop_back();
        fn();
      }
      if (now >= deadline) return;
      auto until = deadline;
      if (!timers_.empty()) until = std::min(until, timers_.front().due);
      const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(until - now);
      const timespec ts{static_cast<time_t>(wait.count() / 1'000'000'000),
                        static_cast<long>(wait.count() % 1'000'000'000)};
      const int n =
          ::epoll_pwait2(fd_, events.data(), static_cast<int>(events.size()), &ts, nullptr);
      for (int k = 0; k < n; ++k)
        static_cast<Handler*>(events[static_cast<std::size_t>(k)].data.ptr)
            ->on_events(events[static_cast<std::size_t>(k)].events);
    }
  }

 private:
  struct Timer {
    Clock::time_point due;
    std::uint64_t seq;  // among equal times, first set first run
    std::function<void()> fn;
  };
  static bool later(const Timer& a, const Timer& b) {
    return a.due != b.due ? a.due > b.due : a.seq > b.seq;
  }
  int fd_;
  std::vector<Timer> timers_;
  std::uint64_t seq_ = 0;
};

// One WebSocket client, written for the bench's own cost rather than generality (browsers run
// on other machines; these share the server's cores). It speaks RFC 6455 directly over a
// non-blocking TCP socket: reads until the socket is drained, writes at once, and hands over
// frames that arrive whole without copying them. Text and control frames only; the server
// sends nothing else.
class Conn : public Loop::Handler {
 public:
  explicit Conn(Loop& loop) : loop_(loop) {}
  ~Conn() override { close(); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  std::function<void(std::string_view)>
      on_message;  // the raw frame: parsing is the reader's choice
  // When the bytes of the frames being handed over reached the socket (the kernel's timestamp
  // of the last segment read with them; the system clock).
  std::chrono::system_clock::time_point arrived;

  void start(unsigned short port, std::function<void()> ready) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    const int on = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    ::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 &&
        errno != EINPROGRESS)
      return close();
    on_open_ = std::move(ready);
    out_ =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    blocked_ = true;  // until the connection is made: its first EPOLLOUT
    loop_.add(fd_, this);
  }
  void send(std::string_view text) {
    // A client frame: FIN + text, the masked length, the mask, the masked payload.
    const std::array<unsigned char, 4> mask{0x5a, 0x17, 0xc3, 0x2e};
    out_.push_back(static_cast<char>(0x81));
    if (text.size() < 126) {
      out_.push_back(static_cast<char>(0x80 | text.size()));
    } else {
      out_.push_back(static_cast<char>(0x80 | 126));
      out_.push_back(static_cast<char>(text.size() >> 8));
      out_.push_back(static_cast<char>(text.size() & 0xff));
    }
    out_.append(reinterpret_cast<const char*>(mask.data()), 4);
    const auto at = out_.size();
    out_.resize(at + text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
      out_[at + i] = static_cast<char>(text[i] ^ mask[i % 4]);
    flush();
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);  // closing also takes it out of the epoll set
    fd_ = -1;
  }
  bool open() const { return fd_ >= 0; }
  // Stops reading (a client that stopped reading: the server's writes pile up in its buffers).
  void stop_reading() { reading_ = false; }

 private:
  void on_events(std::uint32_t events) override {
    if (fd_ < 0) return;
    if (events & EPOLLOUT) {
      blocked_ = false;
      flush();
    }
    if (!reading_) return;
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) read();
  }
  // Writes what is queued, as far as the socket takes it; the rest waits for EPOLLOUT.
  void flush() {
    while (fd_ >= 0 && !blocked_ && sent_ < out_.size()) {
      const auto n =
          ::send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        blocked_ = true;
      else if (n < 0)
        return close();
      else
        sent_ += static_cast<std::size_t>(n);
    }
    if (sent_ == out_.size()) {
      out_.clear();
      sent_ = 0;
    }
  }
  // Reads with recvmsg, for the kernel's receive timestamp (SO_TIMESTAMPNS): when the bytes
  // reached this socket, before this client got round to them. Edge-triggered: reads until a
  // read comes back short (the socket is drained: new bytes make a new edge).
  void read() {
    while (fd_ >= 0) {
      if (in_.size() - used_ < 4096) in_.resize(std::max<std::size_t>(in_.size() * 2, 16384));
      iovec iov{in_.data() + used_, in_.size() - used_};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      const auto n = ::recvmsg(fd_, &msg, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) return close();
      arrived = std::chrono::system_clock::now();
      for (auto* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts;
          std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
          arrived = std::chrono::system_clock::time_point(
              std::chrono::duration_cast<std::chrono::system_clock::duration>(
                  std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec)));
        }
      used_ += static_cast<std::size_t>(n);
      if (!frames()) return close();
      if (static_cast<std::size_t>(n) < iov.iov_len)
        return;  // drained: no recvmsg just to hear EAGAIN
    }
  }
  // Hands over every whole frame in the buffer; false when the peer broke the protocol.
  bool frames() {
    std::size_t at = 0;
    if (on_open_) {
      const auto end = std::string_view(in_.data(), used_).find("\r\n\r\n");
      if (end == std::string_view::npos) return true;
      if (std::string_view(in_.data(), used_).substr(0, 12) != "HTTP/1.1 101") return false;
      at = end + 4;
      auto ready = std::move(on_open_);
      on_open_ = nullptr;
      ready();
    }
    while (used_ - at >= 2) {
      const auto* b = reinterpret_cast<const unsigned char*>(in_.data() + at);
      std::size_t len = b[1] & 0x7f, head = 2;
      if (len == 126) {
        if (used_ - at < 4) break;
        len = (std::size_t{b[2]} << 8) | b[3];
        head = 4;
      } else if (len == 127) {
        if (used_ - at < 10) break;
        len = 0;
        for (int k = 2; k < 10; ++k) len = (len << 8) | b[k];
        head = 10;
      }
      if (used_ - at < head + len) break;
      const std::string_view payload(in_.data() + at + head, len);
      const int opcode = b[0] & 0x0f;
      at += head + len;
      if (opcode == 0x9) {  // ping: answer with a pong carrying the same bytes
        pong(payload);
      } else if (opcode == 0x8) {
        return false;
      } else if (opcode == 0x1 || opcode == 0x0) {
        if (!(b[0] & 0x80)) {
          partial_.append(payload);  // a fragment: the message ends with a FIN frame
        } else if (partial_.empty()) {
          if (on_message) on_message(payload);
        } else {
          partial_.append(payload);
          const std::string whole = std::move(partial_);
          partial_.clear();
          if (on_message) on_message(whole);
        }
      }
    }
    std::memmove(in_.data(), in_.data() + at, used_ - at);
    used_ -= at;
    return true;
  }
  void pong(std::string_view payload) {
    const std::array<unsigned char, 4> mask{0, 0, 0,
                                            0};  // a zero mask leaves the bytes as they are
    out_.push_back(static_cast<char>(0x8a));
    out_.push_back(static_cast<char>(0x80 | payload.size()));
    out_.append(reinterpret_cast<const char*>(mask.data()), 4);
    out_.append(payload);
    flush();
  }
  Loop& loop_;
  int fd_ = -1;
  std::function<void()> on_open_;  // until the server's 101 answer has been read
  std::string in_;                 // what was read, from 0 to used_
  std::size_t used_ = 0;
  std::string partial_;  // a fragmented message's pieces so far
  std::string out_;      // frames not yet written, from sent_ on
  std::size_t sent_ = 0;
  bool blocked_ = false;  // the socket took no more: wait for EPOLLOUT
  bool reading_ = true;
};

}  // namespace plateau::bench
